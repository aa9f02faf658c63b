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


# the other deprecated overloads with the numbers first: torch's
# deprecated.yaml, run as the rows they stand for (ops/runtime/deprecated_form.h)
RNG = np.random.default_rng(3)
M, A, B = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 4)), RNG.standard_normal((4, 3))
BM, BA, BB = (RNG.standard_normal(s) for s in ((5, 2, 3), (5, 2, 4), (5, 4, 3)))
V4, V3, V2 = RNG.standard_normal(4), RNG.standard_normal(3), RNG.standard_normal(2)

SCALARS_FIRST = {
    "addmm(beta, input, alpha, m1, m2)": ((M, A, B), lambda L, x, a, b: L.addmm(0.5, x, 2, a, b)),
    "addmm(beta, input, m1, m2)": ((M, A, B), lambda L, x, a, b: L.addmm(-1.5, x, a, b)),
    "input.addmm(beta, alpha, m1, m2)": ((M, A, B), lambda L, x, a, b: x.addmm(0.5, 3, a, b)),
    "input.addmm(beta, m1, m2)": ((M, A, B), lambda L, x, a, b: x.addmm(0.5, a, b)),
    "addmv(beta, input, alpha, mat, vec)": ((V2, A, V4), lambda L, x, a, b: L.addmv(2, x, -1, a, b)),
    "input.addmv(beta, mat, vec)": ((V2, A, V4), lambda L, x, a, b: x.addmv(2, a, b)),
    "baddbmm(beta, input, alpha, b1, b2)":
        ((BM, BA, BB), lambda L, x, a, b: L.baddbmm(0.5, x, 2, a, b)),
    "baddbmm(beta, input, b1, b2)": ((BM, BA, BB), lambda L, x, a, b: L.baddbmm(0.5, x, a, b)),
    "input.baddbmm(beta, alpha, b1, b2)":
        ((BM, BA, BB), lambda L, x, a, b: x.baddbmm(0.5, 2, a, b)),
    "addr(beta, input, alpha, v1, v2)": ((M, V2, V3), lambda L, x, a, b: L.addr(3, x, 0.5, a, b)),
    "addcmul(input, value, t1, t2)": ((M, M, M), lambda L, x, a, b: L.addcmul(x, 0.5, a, b)),
    "addcdiv(input, value, t1, t2)": ((M, M, M), lambda L, x, a, b: L.addcdiv(x, -2, a, b)),
    "input.addcdiv(value, t1, t2)": ((M, M, M), lambda L, x, a, b: x.addcdiv(-2, a, b)),
}


@pytest.mark.parametrize("form", sorted(SCALARS_FIRST))
def test_scalars_first_values_gradients_and_warning(form):
    values, call = SCALARS_FIRST[form]
    got = {}
    for lib in (mt, torch):
        ts = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                out = call(lib, *ts)
        finally:
            lib.set_warn_always(False)
        out.backward(lib.ones_like(out) * 0.5)
        text = str(w[0].message).split(" (Triggered internally")[0]
        if lib is torch:
            text = text.replace("torch.dtype", "minitorch.dtype")
        got[lib] = (out, [t.grad for t in ts], type(out.grad_fn).__name__, text)
    (mo, mg, mname, mtext), (to, tg, tname, ttext) = got[mt], got[torch]
    close(mo, to)
    for a, b in zip(mg, tg):
        close(a, b)
    # addr is a Python-level composite here: its graph ends in add's node
    assert mname == tname or (form.startswith("addr") and mname == "AddBackward0")
    assert mtext == ttext


@pytest.mark.parametrize("name,args", [
    ("addmm_", (0.5, A, B)), ("addmm_", (0.5, -1, A, B)), ("addcmul_", (2, M, M)),
    ("addr_", (0.5, V2, V3)), ("baddbmm_", (0.5, BA, BB)),
])
def test_scalars_first_in_place(name, args):
    base = BM if name == "baddbmm_" else M
    res = {}
    for lib in (mt, torch):
        x = lib.tensor(base, dtype=lib.float64)
        conv = [lib.tensor(a, dtype=lib.float64) if isinstance(a, np.ndarray) else a for a in args]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(x, name)(*conv)
        assert r is x
        res[lib] = x
    close(res[mt], res[torch])


def test_one_warning_for_all_deprecated_overloads():
    """torch warns once per process for all its deprecated overloads (one
    TORCH_WARN_ONCE in its parser): a C row's and a Python-level function's
    forms share the flag. This process may have warned already, so the test
    checks that a second and third call stay silent after the first."""
    x, a, b = mt.tensor(M), mt.tensor(A), mt.tensor(B)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mt.addmm(0.5, x, a, b)
        mt.addr(0.5, x, mt.tensor(V2), mt.tensor(V3))
        mt.addcmul(x, 2, x, x)
    assert len([m for m in w if "deprecated" in str(m.message)]) <= 1
