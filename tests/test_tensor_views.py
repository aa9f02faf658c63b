"""Views share storage with their base: every view against NumPy and torch."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)


def sources(shape):
    """The same values as a contiguous tensor and as a non-contiguous view."""
    a = RNG.standard_normal(shape).astype(np.float32)
    yield a, mt.from_numpy(a.copy())
    big = np.zeros(tuple(2 * s for s in shape), np.float32)
    big[tuple(slice(None, None, 2) for _ in shape)] = a
    yield a, mt.from_numpy(big[tuple(slice(None, None, 2) for _ in shape)])
    p = RNG.standard_normal(shape[::-1]).astype(np.float32)
    yield p.T, mt.from_numpy(p.copy()).permute(*range(len(shape) - 1, -1, -1))


def check_shared(view, base):
    """A write through the view shows in the base's memory."""
    if view.numel() == 0:
        return
    first = view
    while first.dim():
        first = first.select(0, 0)
    saved = base.clone()
    first.copy_(mt.tensor(123.0))
    assert (base.numpy() == 123.0).sum() == 1
    base.copy_(saved)


SHAPES = [(2, 3, 4), (1, 5, 1, 2), (3, 1), (4, 0, 2)]


@pytest.mark.parametrize("shape", SHAPES)
def test_flatten_unflatten(shape):
    for a, t in sources(shape):
        if t.is_contiguous():
            check_shared(t.flatten(), t)
        np.testing.assert_array_equal(t.flatten().numpy(), a.reshape(-1))
        np.testing.assert_array_equal(mt.flatten(t, 1).numpy(), a.reshape(a.shape[0], -1))
        np.testing.assert_array_equal(t.flatten(0, 1).numpy(),
                                      a.reshape((-1,) + a.shape[2:]))
        if a.shape[1]:
            u = t.unflatten(1, (1, -1))
            np.testing.assert_array_equal(u.numpy(), a.reshape(a.shape[:1] + (1, -1) + a.shape[2:]))
            assert u.data_ptr() == t.data_ptr()
            check_shared(u, t)


def test_flatten_edge_cases():
    x = mt.zeros(2, 3, 4)
    assert mt.zeros(()).flatten().shape == (1,)
    assert x.flatten(1, 1) is x
    with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
        x.flatten(2, 1)
    with pytest.raises(IndexError, match=r"range of \[-3, 2\], but got 3"):
        x.flatten(3)
    with pytest.raises(RuntimeError, match=r"Provided sizes \[2, 2\] don't multiply up to the "
                       r"size of dim 1 \(3\) in the input tensor"):
        x.unflatten(1, (2, 2))
    with pytest.raises(RuntimeError, match="sizes must be non-empty"):
        x.unflatten(1, ())
    y = x.transpose(0, 1)
    assert y.flatten().is_contiguous()
    np.testing.assert_array_equal(y.flatten().numpy(), y.numpy().reshape(-1))


@pytest.mark.parametrize("shape", SHAPES)
def test_squeeze_unsqueeze(shape):
    for a, t in sources(shape):
        np.testing.assert_array_equal(t.squeeze().numpy(), a.squeeze())
        np.testing.assert_array_equal(mt.squeeze(t, 1).numpy(), torch.from_numpy(a).squeeze(1).numpy())
        np.testing.assert_array_equal(t.squeeze((0, -1)).numpy(),
                                      torch.from_numpy(a).squeeze((0, -1)).numpy())
        assert t.squeeze().data_ptr() == t.data_ptr()
        check_shared(t.squeeze(), t)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        mt.zeros(1, 2).squeeze((0, 0))


def test_transposes():
    for a, t in sources((2, 3, 4)):
        np.testing.assert_array_equal(t.swapaxes(0, 2).numpy(), a.swapaxes(0, 2))
        np.testing.assert_array_equal(mt.swapdims(t, 1, 2).numpy(), a.swapaxes(1, 2))
        np.testing.assert_array_equal(t.mT.numpy(), a.swapaxes(-1, -2))
        np.testing.assert_array_equal(t.mH.numpy(), a.swapaxes(-1, -2))
        np.testing.assert_array_equal(t.adjoint().numpy(), a.swapaxes(-1, -2))
        with pytest.warns(UserWarning, match="deprecated"):
            np.testing.assert_array_equal(t.T.numpy(), a.T)
    m = mt.from_numpy(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(m.T.numpy(), np.arange(6.0).reshape(2, 3).T)
    np.testing.assert_array_equal(m.H.numpy(), np.arange(6.0).reshape(2, 3).T)
    with pytest.raises(RuntimeError, match="tensor.mT is only supported on matrices or batches "
                       "of matrices. Got 1-D tensor."):
        mt.zeros(3).mT
    with pytest.raises(RuntimeError, match="For batches of matrices, consider using tensor.mH"):
        mt.zeros(2, 2, 2).H


def test_expand_as_view_as_reshape_as():
    a = RNG.standard_normal((3, 1)).astype(np.float32)
    t = mt.from_numpy(a)
    e = t.expand_as(mt.zeros(2, 3, 4))
    assert e.shape == (2, 3, 4) and e.stride() == (0, 1, 0)
    np.testing.assert_array_equal(e.numpy(), np.broadcast_to(a, (2, 3, 4)))
    v = t.view_as(mt.zeros(1, 3))
    assert v.shape == (1, 3) and v.data_ptr() == t.data_ptr()
    r = t.T.reshape_as(mt.zeros(3))
    np.testing.assert_array_equal(r.numpy(), a.reshape(-1))
    with pytest.raises(RuntimeError, match=r"shape '\[5\]' is invalid for input of size 3"):
        t.view_as(mt.zeros(5))
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's "
                       "size and stride"):
        mt.zeros(2, 3).t().view_as(mt.zeros(6))


@pytest.mark.parametrize("expr", ["x.expand(2, 4)", "x.expand((2, 4))", "x.expand([2, 4])",
                                  "x.expand(size=(2, 4))", "x.expand_as(lib.zeros(2, 4))"])
def test_expand_mismatch_message(expr):
    """The sizes are printed as torch prints them, however they were given."""
    for lib in (mt, torch):
        with pytest.raises(RuntimeError) as info:
            eval(expr, {"x": lib.zeros(2, 3), "lib": lib})
        assert str(info.value) == (
            "The expanded size of the tensor (4) must match the existing size (3) at "
            "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]")


@pytest.mark.parametrize("shape", [(5,), (4, 6), (3, 5, 2)])
def test_narrow_select(shape):
    for a, t in sources(shape):
        for d in range(len(shape)):
            n = shape[d]
            for start in (0, 1, -2):
                length = n - (start % n)
                np.testing.assert_array_equal(
                    t.narrow(d, start, length).numpy(),
                    torch.from_numpy(a).narrow(d, start, length).numpy())
            for i in (0, n - 1, -1):
                np.testing.assert_array_equal(mt.select(t, d, i).numpy(), np.take(a, i, axis=d))
                check_shared(t.select(d, i), t)
    base = mt.from_numpy(np.arange(10.0))
    n = base.narrow(0, 2, 3)
    n.copy_(mt.tensor([-1.0, -2.0, -3.0]))
    np.testing.assert_array_equal(base.numpy()[2:5], [-1, -2, -3])
    assert n.storage_offset() == 2


def test_narrow_select_errors():
    x = mt.zeros(5)
    with pytest.raises(RuntimeError, match=r"start \(4\) \+ length \(3\) exceeds dimension "
                       r"size \(5\)\."):
        x.narrow(0, 4, 3)
    with pytest.raises(IndexError, match=r"start out of range \(expected to be in range of "
                       r"\[-5, 5\], but got 6\)"):
        x.narrow(0, 6, 0)
    with pytest.raises(RuntimeError, match="length must be non-negative"):
        x.narrow(0, 1, -1)
    with pytest.raises(IndexError, match=r"select\(\): index 5 out of range for tensor of size "
                       r"\[3\] at dimension 0"):
        mt.zeros(3).select(0, 5)
    with pytest.raises(IndexError, match="select\\(\\) cannot be applied to a 0-dim tensor."):
        mt.zeros(()).select(0, 0)


@pytest.mark.parametrize("shape", [(6, 4), (5, 3, 2), (0, 3)])
def test_unbind_split_chunk(shape):
    ta = torch.from_numpy
    for a, t in sources(shape):
        for d in range(len(shape)):
            got = t.unbind(d)
            want = ta(a).unbind(d)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g.numpy(), w.numpy())
            for step in (1, 2, 4):
                for g, w in zip(t.split(step, d), ta(a).split(step, d), strict=True):
                    np.testing.assert_array_equal(g.numpy(), w.numpy())
                for g, w in zip(mt.chunk(t, step, d), ta(a).chunk(step, d), strict=True):
                    np.testing.assert_array_equal(g.numpy(), w.numpy())
            sizes = [shape[d] // 2, shape[d] - shape[d] // 2]
            for g, w in zip(mt.split(t, sizes, d), ta(a).split(sizes, d), strict=True):
                np.testing.assert_array_equal(g.numpy(), w.numpy())
                check_shared(g, t)


def test_split_chunk_errors():
    y = mt.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="split_size can only be 0 if dimension size is 0, "
                       "but got dimension size of 2"):
        y.split(0)
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative, but got "
                       "split_size=-1"):
        y.split(-1)
    with pytest.raises(RuntimeError, match=r"split_with_sizes expects split_sizes to sum exactly "
                       r"to 3 \(input tensor's size at dimension 1\), but got "
                       r"split_sizes=\[1, 1\]"):
        y.split([1, 1], 1)
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        y.chunk(0)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        mt.zeros(()).unbind(0)
    assert len(mt.zeros(0).chunk(3)) == 3


def test_as_strided():
    base = mt.from_numpy(np.arange(12.0))
    v = base.as_strided((3, 3), (4, 1), 1)
    np.testing.assert_array_equal(v.numpy(), torch.arange(12.0).as_strided((3, 3), (4, 1), 1).numpy())
    v.copy_(mt.zeros(3, 3))
    assert base.numpy()[1] == 0 and base.numpy()[0] == 0 and base.numpy()[4] == 4
    w = mt.as_strided(base.narrow(0, 2, 3), (2,), (1,))
    assert w.storage_offset() == 2
    with pytest.raises(RuntimeError, match="mismatch in length of strides and shape"):
        base.as_strided((2,), (1, 2))
    with pytest.raises(RuntimeError, match="Tensor: invalid storage offset -1"):
        base.as_strided((2,), (1,), -1)
    with pytest.raises(RuntimeError, match=r"setStorage: sizes \[100\], strides \[1\], storage "
                       r"offset 0, and itemsize 8 requiring a storage size of 800 are out of "
                       r"bounds for storage of size 96"):
        base.as_strided((100,), (1,))
    with pytest.raises(RuntimeError, match="Negative strides are not supported"):
        base.as_strided((2,), (-1,))


@pytest.mark.parametrize("src,dst", [(0, -1), (-1, 0), ((0, 1), (2, 0)), ((2,), (0,)),
                                     ((0, 1, 2), (2, 1, 0))])
def test_movedim(src, dst):
    for a, t in sources((2, 3, 4)):
        np.testing.assert_array_equal(t.movedim(src, dst).numpy(), np.moveaxis(a, src, dst))
        check_shared(t.movedim(src, dst), t)
        np.testing.assert_array_equal(mt.moveaxis(t, src, dst).numpy(), np.moveaxis(a, src, dst))


def test_movedim_errors():
    y = mt.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match=r"movedim: Invalid source or destination dims: source "
                       r"\(\[0, 1\] dims\) should contain the same number of dims as destination "
                       r"\(\[1\] dims\)"):
        y.movedim((0, 1), (1,))
    with pytest.raises(RuntimeError, match=r"repeated dim in `source` \(\[0, 0\]\)"):
        y.movedim((0, 0), (1, 2))
    with pytest.raises(RuntimeError, match=r"repeated dim in `destination` \(\[1, 1\]\)"):
        y.movedim((0, 1), (1, 1))


@pytest.mark.parametrize("offset,d1,d2", [(0, 0, 1), (1, 0, 1), (-1, 0, 1), (2, 1, 2),
                                          (0, 2, 0), (-3, -1, -2), (10, 0, 1)])
def test_diagonal(offset, d1, d2):
    for a, t in sources((3, 4, 5)):
        d = t.diagonal(offset, d1, d2)
        check_shared(d, t)
        np.testing.assert_array_equal(d.numpy(), np.diagonal(a, offset, d1, d2))
        np.testing.assert_array_equal(mt.diagonal(t, offset=offset, dim1=d1, dim2=d2).numpy(),
                                      np.diagonal(a, offset, d1, d2))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 1, 1"):
        mt.zeros(2, 3).diagonal(0, 1, 1)
    eye = mt.zeros(3, 3)
    eye.diagonal().copy_(mt.tensor(1.0))
    np.testing.assert_array_equal(eye.numpy(), np.eye(3))


DTYPES = [mt.bool, mt.uint8, mt.int8, mt.int16, mt.int32, mt.int64, mt.float16, mt.float32,
          mt.float64]


def test_view_dtype():
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    t = mt.from_numpy(a)
    np.testing.assert_array_equal(t.view(mt.int32).numpy(), a.view(np.int32))
    np.testing.assert_array_equal(t.view(mt.int16).numpy(), a.view(np.int16))
    np.testing.assert_array_equal(t.view(mt.float64).numpy(), a.view(np.float64))
    assert t.view(mt.bfloat16).shape == (3, 8)
    assert t.view(mt.uint8).data_ptr() == t.data_ptr()
    with pytest.raises(RuntimeError, match=r"self.size\(-1\) must be divisible by 2 to view Half "
                       r"as Float \(different element sizes\), but got 3"):
        mt.zeros(3, dtype=mt.float16).view(mt.float32)
    with pytest.raises(RuntimeError, match=r"self.stride\(-1\) must be 1 to view Float as Half "
                       r"\(different element sizes\), but got 2"):
        mt.zeros(3, 2).t().view(mt.float16)


def test_views_of_every_dtype_share_storage():
    for dt in DTYPES:
        x = mt.zeros(2, 3, dtype=dt)
        for v in (x.flatten(), x.t(), x.narrow(1, 1, 2), x.select(0, 1), x.unsqueeze(0).squeeze(0),
                  x.movedim(0, 1), x.diagonal(), x.split(1)[1], x.unbind(1)[2]):
            assert v.dtype == dt
            assert x.data_ptr() <= v.data_ptr() < x.data_ptr() + x.nbytes


def test_functions_and_methods_exist_where_torch_has_them():
    for name in ("flatten", "unflatten", "squeeze", "swapaxes", "swapdims", "narrow", "select",
                 "unbind", "split", "chunk", "as_strided", "movedim", "moveaxis", "diagonal",
                 "adjoint"):
        assert callable(getattr(mt, name)) and callable(getattr(mt.Tensor, name))
    for name in ("expand_as", "view_as", "reshape_as"):
        assert hasattr(mt.Tensor, name) and hasattr(torch.Tensor, name)


@pytest.mark.parametrize("sizes,strides", [((2,), (2**61,)), ((2,), (2**63 - 1,)),
                                           ((2**40, 2**40), (1, 1)), ((3, 2**62), (2**62, 1))])
def test_as_strided_storage_bounds_never_overflow(sizes, strides):
    with pytest.raises(RuntimeError) as want:
        torch.ones(4).as_strided(sizes, strides)
    with pytest.raises(RuntimeError) as got:
        mt.ones(4).as_strided(sizes, strides)
    assert str(got.value) == str(want.value)
