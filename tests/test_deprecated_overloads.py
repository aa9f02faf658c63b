"""torch's deprecated alpha-first overloads, add(input, alpha, other),
add_(alpha, other) and sub alike, which programs written for older torch
(pytorch/examples' word_language_model: p.data.add_(-lr, p.grad.data))
still call: values, gradients and the warning, against torch."""
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

X = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])
Y = np.array([0.5, 2.0, -1.5])


def both(values, dtype="float64", grad=False):
    return (mt.tensor(values, dtype=getattr(mt, dtype), requires_grad=grad),
            torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=grad))


def close(got, want):
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["add", "sub"])
@pytest.mark.parametrize("alpha", [2, -0.5, 3])
def test_function_and_method(name, alpha):
    (x, tx), (y, ty) = both(X), both(Y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(getattr(mt, name)(x, alpha, y), getattr(torch, name)(tx, alpha, ty))
        close(getattr(x, name)(alpha, y), getattr(tx, name)(alpha, ty))
        out, tout = mt.empty(2, 3, dtype=mt.float64), torch.empty(2, 3, dtype=torch.float64)
        getattr(mt, name)(x, alpha, y, out=out)
        getattr(torch, name)(tx, alpha, ty, out=tout)
    close(out, tout)


@pytest.mark.parametrize("name", ["add_", "sub_"])
def test_in_place(name):
    (x, tx), (y, ty) = both(X), both(Y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = getattr(x, name)(-0.1, y)
        getattr(tx, name)(-0.1, ty)
    assert r is x
    close(x, tx)


def test_complex_alpha():
    (x, tx), (y, ty) = both(X.astype(complex), "complex128"), both(Y.astype(complex), "complex128")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(mt.add(x, 1 - 2j, y), torch.add(tx, 1 - 2j, ty))


@pytest.mark.parametrize("name", ["add", "sub"])
def test_gradients(name):
    (x, tx), (y, ty) = both(X, grad=True), both(Y, grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, tout = getattr(mt, name)(x, 3.0, y), getattr(torch, name)(tx, 3.0, ty)
    assert type(out.grad_fn).__name__ == type(tout.grad_fn).__name__
    g = np.arange(6.0).reshape(2, 3)
    out.backward(mt.tensor(g))
    tout.backward(torch.tensor(g))
    close(x.grad, tx.grad)
    close(y.grad, ty.grad)


def test_the_training_loop_of_word_language_model():
    """p.data.add_(-lr, p.grad.data) as the example's SGD step."""
    p, tp = both(X, grad=True)
    for lib, param in ((mt, p), (torch, tp)):
        (param * param).sum().backward()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            param.data.add_(-0.5, param.grad.data)
    close(p, tp)


def test_warns_with_torch_text():
    (x, tx), (y, ty) = both(X), both(Y)
    texts = {}
    for lib, a, b in ((mt, x, y), (torch, tx, ty)):
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as got:
                warnings.simplefilter("always")
                a.add_(1, b)
                a.add_(1, b)
        finally:
            lib.set_warn_always(False)
        assert len(got) == 2
        # torch appends where in its C++ it was triggered
        texts[lib] = str(got[0].message).split(" (Triggered internally")[0]
    assert texts[mt] == texts[torch]


def test_wrong_types_still_refused():
    x = mt.ones(2)
    with pytest.raises(TypeError):
        x.add_(mt.ones(2), 2.0, 3)
