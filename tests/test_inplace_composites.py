"""The in-place Tensor methods written over their ops (eq_ ... ge_, the
logical binaries, tril_/triu_, cumsum_/cumprod_, logit_) against torch:
values in self's dtype, self returned, broadcasting of other, gradients
through the write, and torch's refusals."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def pair(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-2, 3, size=shape)
    a = a.astype(bool) if dtype == "bool" else a.astype(dtype)
    return mt.from_numpy(a.copy()), torch.from_numpy(a.copy())


BINARY = ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "logical_and_", "logical_or_",
          "logical_xor_"]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("other_shape", [(3, 4), (4,), (1, 4), ()])
def test_binary_in_place_is_torchs(name, dtype, other_shape):
    m, t = pair((3, 4), dtype)
    om, ot = pair(other_shape, dtype, seed=1)
    got = getattr(m, name)(om)
    want = getattr(t, name)(ot)
    assert got is m
    assert str(m.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert m.tolist() == want.tolist()


@pytest.mark.parametrize("name", ["eq_", "lt_", "ge_"])
def test_comparison_with_a_number(name):
    m, t = pair((5,), "float64")
    getattr(m, name)(0.5)
    getattr(t, name)(0.5)
    assert m.tolist() == t.tolist()


def test_in_place_comparison_cannot_grow_self():
    m = mt.zeros(4)
    with pytest.raises(RuntimeError):
        m.eq_(mt.zeros(3, 4))


@pytest.mark.parametrize("name", ["tril_", "triu_"])
@pytest.mark.parametrize("diagonal", [-2, -1, 0, 1, 3])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (2, 4, 3)])
def test_triangles_in_place(name, diagonal, shape):
    m, t = pair(shape, "float64")
    assert getattr(m, name)(diagonal) is m
    getattr(t, name)(diagonal)
    assert m.tolist() == t.tolist()


@pytest.mark.parametrize("name", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize("dtype", ["float64", "int64", "int32"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumulative_in_place_keeps_dtype(name, dtype, dim):
    m, t = pair((3, 4), dtype)
    assert getattr(m, name)(dim) is m
    getattr(t, name)(dim)
    assert str(m.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    assert m.tolist() == t.tolist()


@pytest.mark.parametrize("name,args", [("tril_", (0,)), ("triu_", (1,)), ("cumsum_", (1,)),
                                       ("cumprod_", (0,)), ("logit_", ())])
def test_gradient_through_the_in_place_form(name, args):
    rng = np.random.default_rng(3)
    a = rng.uniform(0.1, 0.9, size=(3, 3))
    m0 = mt.tensor(a.tolist(), dtype=mt.float64, requires_grad=True)
    t0 = torch.tensor(a, requires_grad=True)
    gm, gt = m0 * 1, t0 * 1
    getattr(gm, name)(*args)
    getattr(gt, name)(*args)
    w = rng.normal(size=(3, 3))
    (gm * mt.tensor(w.tolist(), dtype=mt.float64)).sum().backward()
    (gt * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(m0.grad.numpy(), t0.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_in_place_on_a_leaf_requiring_grad_is_refused():
    leaf = mt.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.eq_(0)


@pytest.mark.parametrize("eps", [None, 0.1])
def test_logit_in_place(eps):
    a = np.random.default_rng(0).uniform(0, 1, size=(4, 3))
    m, t = mt.tensor(a.tolist()), torch.tensor(a.tolist())
    assert mt.logit_(m, eps) is m
    torch.logit_(t, eps)
    np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-6)
    m2 = mt.tensor(a.tolist())
    assert m2.logit_() is m2


def test_logit_in_place_refuses_integers():
    with pytest.raises(RuntimeError) as theirs:
        torch.tensor([1, 2]).logit_()
    with pytest.raises(RuntimeError) as ours:
        mt.tensor([1, 2]).logit_()
    assert str(ours.value) == str(theirs.value)
