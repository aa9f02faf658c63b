"""torch's overloads of linspace/logspace taking 0-d tensor ends, the
derivative of __rmod__, multinomial's and cat's messages."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

from torch_errors import error_pair, same_error  # noqa: E402


def ends(lib, start, end, kind):
    s = lib.tensor(start) if kind[0] == "T" else start
    e = lib.tensor(end) if kind[1] == "T" else end
    return s, e


@pytest.mark.parametrize("name", ["linspace", "logspace"])
@pytest.mark.parametrize("kind", ["TT", "NT", "TN", "NN"])
@pytest.mark.parametrize("start,end,steps", [(1, 3, 4), (-2.5, 7.25, 6), (5, 5, 1), (0, 1, 0),
                                             (3.0, -1.0, 9)])
@pytest.mark.parametrize("dtype", [None, "float64", "int64"])
def test_spaced_tensor_overloads(name, kind, start, end, steps, dtype):
    kw = {"dtype": getattr(torch, dtype)} if dtype else {}
    mkw = {"dtype": getattr(mt, dtype)} if dtype else {}
    want = getattr(torch, name)(*ends(torch, start, end, kind), steps, **kw)
    got = getattr(mt, name)(*ends(mt, start, end, kind), steps, **mkw)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["linspace", "logspace"])
def test_spaced_tensor_overloads_out(name):
    want = getattr(torch, name)(torch.tensor(1.0), 3, 5, out=torch.empty(0, dtype=torch.float64))
    out = mt.empty(0, dtype=mt.float64)
    got = getattr(mt, name)(mt.tensor(1.0), 3, 5, out=out)
    assert got is out and out.dtype == mt.float64
    np.testing.assert_allclose(out.numpy(), want.numpy())


@pytest.mark.parametrize("name", ["linspace", "logspace"])
@pytest.mark.parametrize("call", [
    lambda lib, f: f(lib.tensor([1, 1]), lib.tensor([3, 3]), 1),
    lambda lib, f: f(lib.tensor([1, 1]), lib.tensor(3), 1),
    lambda lib, f: f(lib.tensor([1, 1]), 3, 1),
    lambda lib, f: f(1, lib.zeros(2, 2), 1),
    lambda lib, f: f(0, 3, 1.0),
    lambda lib, f: f(0, 3, -1),
    lambda lib, f: f(lib.tensor(0), lib.tensor(3), -1),
])
def test_spaced_errors(name, call):
    got, want = error_pair(lambda: call(mt, getattr(mt, name)),
                           lambda: call(torch, getattr(torch, name)))
    # the overloads torch lists after the first line are spelled otherwise
    assert got.splitlines()[0] == want.splitlines()[0]


@pytest.mark.parametrize("shapes", [((), ()), ((5,), ()), ((5, 1), (5,)), ((3, 4), (3, 4))])
def test_rmod_gradients(shapes):
    rng = np.random.default_rng(2)
    a = rng.uniform(0.5, 3, size=shapes[0])
    b = rng.uniform(-9, 9, size=shapes[1])
    tx, ty = (torch.tensor(v, requires_grad=True) for v in (a, b))
    mx, my = (mt.tensor(v, requires_grad=True) for v in (a, b))
    tr, mr = tx.__rmod__(ty), mx.__rmod__(my)
    assert type(mr.grad_fn).__name__ == type(tr.grad_fn).__name__ == "RemainderBackward1"
    want = torch.autograd.grad(tr.sum(), (tx, ty))
    got = mt.autograd.grad(mr.sum(), (mx, my))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy())
    assert mt.autograd.gradcheck(lambda x, y: x.__rmod__(y), (mx, my))


def test_rmod_forward_ad():
    import minitorch.autograd.forward_ad as fwad
    x = mt.tensor([1.5, 2.5, 0.75], dtype=mt.float64)
    y = mt.tensor([7.0, -5.0, 2.0], dtype=mt.float64)
    with fwad.dual_level():
        out = fwad.make_dual(x, mt.ones(3, dtype=mt.float64)).__rmod__(y)
        tangent = fwad.unpack_dual(out).tangent
    np.testing.assert_allclose(tangent.numpy(), -np.floor(y.numpy() / x.numpy()))


def test_rmod_of_a_number_has_no_derivative():
    x = mt.tensor([1.5, 2.5], requires_grad=True)
    y = 5 % x
    assert type(y.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="is not implemented"):
        y.sum().backward()
    assert type(torch.remainder(5, torch.tensor([1.5], requires_grad=True)).grad_fn).__name__ \
        == "NotImplemented"


@pytest.mark.parametrize("replacement", [False, True])
@pytest.mark.parametrize("row", [[1.0, -1.0, 1.0], [1.0, float("inf"), 1.0],
                                 [1.0, -float("inf"), 1.0], [1.0, float("nan"), 1.0],
                                 [0.0, 0.0, 0.0]])
@pytest.mark.parametrize("samples", [1, 2])
@pytest.mark.parametrize("two_d", [False, True])
def test_multinomial_messages(replacement, row, samples, two_d):
    def call(lib):
        p = [[1.0, 1.0, 1.0], row] if two_d else row
        return lib.multinomial(lib.tensor(p), samples, replacement)
    same_error(lambda: call(mt), lambda: call(torch))


def test_multinomial_too_many_categories():
    same_error(lambda: mt.multinomial(mt.zeros(2**24 + 1), 3),
               lambda: torch.multinomial(torch.zeros(2**24 + 1), 3))
    assert mt.multinomial(mt.ones(2**24), 2).shape == (2,)


@pytest.mark.parametrize("call", [
    lambda lib: lib.cat([lib.zeros(1), None]),
    lambda lib: lib.cat((None, lib.zeros(1))),
    lambda lib: lib.cat([lib.zeros(1), 3]),
    lambda lib: lib.cat(tensors=[lib.zeros(1), [1.0]], dim=0),
    lambda lib: lib.stack([lib.zeros(1), None]),
    lambda lib: lib.cat(lib.zeros(2, 3)),
    lambda lib: lib.cat(5),
])
def test_tensor_list_element_messages(call):
    same_error(lambda: call(mt), lambda: call(torch))
