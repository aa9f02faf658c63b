"""The overloads torch has beside an existing row: max/min(input, other),
narrow(start: Tensor), bernoulli(input, p), where(condition) and the
out_dtype forms of mm/bmm/addmm/baddbmm, compared with torch."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def pair(shape, seed=0, dtype=np.float32):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return mt.tensor(a), torch.tensor(a)


@pytest.mark.parametrize("name,grad_fn", [("max", "MaximumBackward0"),
                                          ("min", "MinimumBackward0")])
def test_max_min_of_two_tensors_is_maximum_minimum(name, grad_fn):
    (ma, ta), (mb, tb) = pair((3, 4), 1), pair((4,), 2)
    for lib, a, b in ((mt, ma, mb), (torch, ta, tb)):
        a.requires_grad_()
    got, want = getattr(mt, name)(ma, mb), getattr(torch, name)(ta, tb)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__ == grad_fn
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_array_equal(ma.grad.numpy(), ta.grad.numpy())
    np.testing.assert_array_equal(getattr(ma.detach(), name)(mb).numpy(),
                                  getattr(ta.detach(), name)(tb).numpy())
    assert getattr(mt, name)(ma.detach().int(), mb).dtype == mt.float32
    out = mt.empty(3, 4)
    assert getattr(mt, name)(ma.detach(), mb, out=out) is out
    # the other overloads still win where they fit
    assert getattr(mt, name)(ma.detach(), 1)[0].shape == (3,)


def test_narrow_with_a_tensor_start():
    (mx, tx) = pair((5, 4))
    for start in (0, 2, -3):
        for dim in (0, 1, -1):
            got = mt.narrow(mx, dim, mt.tensor(start), 2)
            want = torch.narrow(tx, dim, torch.tensor(start), 2)
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert mx.narrow(0, mt.tensor(1, dtype=mt.int32), 3).shape == (3, 4)
    mx.requires_grad_()
    tx.requires_grad_()
    got, want = mt.narrow(mx, 0, mt.tensor(1), 2), torch.narrow(tx, 0, torch.tensor(1), 2)
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__ == "SliceBackward0"
    assert got._base is mx
    (got * 3).sum().backward()
    (want * 3).sum().backward()
    np.testing.assert_array_equal(mx.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("bad", [[1], 1.0, True])
def test_narrow_start_must_be_a_0_dim_integer_tensor(bad):
    x, tx = pair((5, 4))
    for lib, t in ((mt, x), (torch, tx)):
        with pytest.raises(RuntimeError) as e:
            lib.narrow(t, 0, lib.tensor(bad), 2)
        assert str(e.value) == "start must be an 0-dim integral Tensor."
    with pytest.raises(IndexError, match=r"start out of range \(expected to be in range of "
                                         r"\[-5, 5\], but got 6\)"):
        mt.narrow(x, 0, mt.tensor(6), 1)


def test_where_of_a_condition_alone_is_nonzero_as_tuple():
    for shape in ((3, 4), (6,), ()):
        mx, tx = pair(shape, 3)
        got, want = mt.where(mx > 0), torch.where(tx > 0)
        assert type(got) is tuple and len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == mt.int64
            np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_bernoulli_with_a_probability():
    x = mt.zeros(400, 50, dtype=mt.float64)
    mt.manual_seed(3)
    b = mt.bernoulli(x, 0.3)
    assert b.shape == x.shape and b.dtype == mt.float64
    assert set(np.unique(b.numpy())) <= {0.0, 1.0}
    assert abs(b.mean().item() - 0.3) < 0.01
    assert mt.bernoulli(x.int(), p=1.0).dtype == mt.int32
    assert (mt.bernoulli(x.int(), p=1.0) == 1).all()
    assert (x.bernoulli(0.0) == 0).all()
    mt.manual_seed(3)
    assert mt.equal(mt.bernoulli(x, 0.3), b)
    g = mt.Generator().manual_seed(7)
    h = mt.Generator().manual_seed(7)
    assert mt.equal(mt.bernoulli(x, 0.5, generator=g), mt.bernoulli(x, 0.5, generator=h))
    for lib in (mt, torch):
        with pytest.raises(RuntimeError) as e:
            lib.bernoulli(lib.zeros(2), 1.5)
        assert str(e.value) == "bernoulli_ expects p to be in [0, 1], but got p=1.5"


@pytest.mark.parametrize("name,args", [
    ("mm", lambda l: (l.ones(2, 3), l.ones(3, 2))),
    ("bmm", lambda l: (l.ones(1, 2, 3), l.ones(1, 3, 2))),
    ("addmm", lambda l: (l.ones(2, 2), l.ones(2, 3), l.ones(3, 2))),
    ("baddbmm", lambda l: (l.ones(1, 2, 2), l.ones(1, 2, 3), l.ones(1, 3, 2))),
])
def test_out_dtype_overloads_are_refused_on_cpu_as_torch_does(name, args):
    for lib in (mt, torch):
        with pytest.raises(NotImplementedError) as e:
            getattr(lib, name)(*args(lib), out_dtype=lib.float32)
        assert str(e.value).startswith(
            f"Could not run 'aten::{name}.dtype' with arguments from the 'CPU' backend. This "
            "could be because the operator doesn't exist for this backend, or was omitted "
            "during the selective/custom build process (if using custom build).")
        a = args(lib)
        with pytest.raises(NotImplementedError, match=f"'aten::{name}.dtype_out'"):
            getattr(lib, name)(*a, out_dtype=lib.float32, out=lib.empty(a[0].shape))
    # only the function takes it, as torch's
    with pytest.raises(TypeError, match="unexpected keyword argument 'out_dtype'"):
        getattr(mt.Tensor, name)(*args(mt), out_dtype=mt.float32)
