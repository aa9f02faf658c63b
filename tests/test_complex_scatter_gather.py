"""gather, scatter, scatter_add, index_add and repeat_interleave on complex
tensors against torch: values of every variant, int32 and empty indices,
index_add's out=, and gradients in torch's conjugate convention."""
import numpy as np
import pytest

import minitorch as mt

from torch_errors import same_error

torch = pytest.importorskip("torch")
from torch_pairs import random_pair  # noqa: E402

CDTYPES = ["complex64", "complex128"]
DTYPES = CDTYPES + ["float32", "float64"]


def index_pair(values, dtype="int64"):
    return mt.tensor(values, dtype=getattr(mt, dtype)), torch.tensor(values,
                                                                      dtype=getattr(torch, dtype))


def check(got, want):
    assert str(got.dtype)[len("minitorch."):] == str(want.dtype)[len("torch."):]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather(dtype, index_dtype, dim):
    m, t = random_pair((4, 5), dtype)
    rng = np.random.default_rng(1)
    size = 4 if dim == 0 else 5
    im, it = index_pair(rng.integers(0, size, (3, 2)).tolist(), index_dtype)
    check(mt.gather(m, dim, im), torch.gather(t, dim, it))
    check(m.gather(dim, im), t.gather(dim, it))
    om = mt.empty(3, 2, dtype=m.dtype)
    ot = torch.empty(3, 2, dtype=t.dtype)
    mt.gather(m, dim, im, out=om)
    torch.gather(t, dim, it, out=ot)
    check(om, ot)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5,), (2, 0), (0,)])
def test_gather_empty_index_of_any_integer_dtype(dtype, shape):
    m, t = random_pair((5,), dtype)
    im, it = mt.zeros(*shape, dtype=mt.uint8), torch.zeros(*shape, dtype=torch.uint8)
    if 0 in shape:
        check(mt.gather(m, 0, im), torch.gather(t, 0, it))
    else:
        same_error(lambda: mt.gather(m, 0, im), lambda: torch.gather(t, 0, it))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("reduce", [None, "add", "multiply"])
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter(dtype, index_dtype, reduce, dim):
    m, t = random_pair((4, 5), dtype)
    sm, st = random_pair((3, 4), dtype, seed=2)
    rng = np.random.default_rng(3)
    im, it = index_pair(rng.integers(0, 4 if dim == 0 else 5, (3, 4)).tolist(), index_dtype)
    kw = {} if reduce is None else {"reduce": reduce}
    check(mt.scatter(m, dim, im, sm, **kw), torch.scatter(t, dim, it, st, **kw))
    check(m.scatter(dim, im, sm, **kw), t.scatter(dim, it, st, **kw))
    mm, tt = m.clone(), t.clone()
    mm.scatter_(dim, im, sm, **kw)
    tt.scatter_(dim, it, st, **kw)
    check(mm, tt)
    value = 1.5 - 2j if dtype.startswith("complex") else 1.5
    check(mt.scatter(m, dim, im, value, **kw), torch.scatter(t, dim, it, value, **kw))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_add(dtype, index_dtype, dim):
    m, t = random_pair((4, 5), dtype)
    sm, st = random_pair((4, 3), dtype, seed=4)
    rng = np.random.default_rng(5)
    im, it = index_pair(rng.integers(0, 4 if dim == 0 else 5, (4, 3)).tolist(), index_dtype)
    check(mt.scatter_add(m, dim, im, sm), torch.scatter_add(t, dim, it, st))
    mm, tt = m.clone(), t.clone()
    mm.scatter_add_(dim, im, sm)
    tt.scatter_add_(dim, it, st)
    check(mm, tt)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_scatter_empty_index_leaves_input(dtype):
    m, t = random_pair((3, 4), dtype)
    im, it = mt.zeros(0, dtype=mt.uint8), torch.zeros(0, dtype=torch.uint8)
    sm, st = random_pair((0,), dtype)
    check(mt.scatter(m, 0, im, sm), torch.scatter(t, 0, it, st))
    check(mt.scatter_add(m, 1, im, sm), torch.scatter_add(t, 1, it, st))
    same_error(lambda: mt.scatter(m, 0, mt.zeros(2, 4, dtype=mt.uint8), sm[:1]),
               lambda: torch.scatter(t, 0, torch.zeros(2, 4, dtype=torch.uint8), st[:1]))


def _grads(fn_m, fn_t, inputs):
    """Gradients of a real loss through complex fn, ours and torch's."""
    ms = [mt.from_numpy(x.copy()).requires_grad_() for x in inputs]
    ts = [torch.from_numpy(x.copy()).requires_grad_() for x in inputs]
    ym, yt = fn_m(*ms), fn_t(*ts)
    wm = mt.from_numpy(np.linspace(0.5, 2, ym.numel()).reshape(tuple(ym.shape)) * (1 - 0.5j))
    wt = torch.from_numpy(np.linspace(0.5, 2, yt.numel()).reshape(tuple(yt.shape)) * (1 - 0.5j))
    (ym * wm).abs().sum().backward()
    (yt * wt).abs().sum().backward()
    for a, b in zip(ms, ts):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-10)


def _c128(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_gradients(index_dtype):
    ix = [[0, 2, 1, 0], [3, 3, 0, 1], [1, 0, 2, 2]]
    im, it = index_pair(ix, index_dtype)
    x, s = _c128((4, 4), 0), _c128((3, 4), 1)
    _grads(lambda a: mt.gather(a, 0, im), lambda a: torch.gather(a, 0, it), [x])
    _grads(lambda a, b: mt.scatter(a, 0, im, b), lambda a, b: torch.scatter(a, 0, it, b), [x, s])
    _grads(lambda a, b: mt.scatter_add(a, 0, im, b), lambda a, b: torch.scatter_add(a, 0, it, b),
           [x, s])
    one = index_pair([2, 0, 2], index_dtype)
    _grads(lambda a, b: mt.index_add(a, 0, one[0], b, alpha=2),
           lambda a, b: torch.index_add(a, 0, one[1], b, alpha=2), [x, _c128((3, 4), 2)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_add_out(dtype, dim):
    m, t = random_pair((4, 5), dtype)
    n = 3
    shape = (n, 5) if dim == 0 else (4, n)
    sm, st = random_pair(shape, dtype, seed=6)
    im, it = index_pair([1, 0, 1] if dim == 0 else [4, 0, 4])
    om, ot = mt.empty(0, dtype=m.dtype), torch.empty(0, dtype=t.dtype)
    rm = mt.index_add(m, dim, im, sm, alpha=2, out=om)
    rt = torch.index_add(t, dim, it, st, alpha=2, out=ot)
    assert rm is om and rt is ot
    check(om, ot)
    check(mt.index_add(m, dim, im, sm), torch.index_add(t, dim, it, st))
    other = "float64" if dtype != "float64" else "float32"
    same_error(lambda: mt.index_add(m, dim, im, sm, out=mt.empty(4, 5, dtype=getattr(mt, other))),
               lambda: torch.index_add(t, dim, it, st,
                                       out=torch.empty(4, 5, dtype=getattr(torch, other))))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_repeat_interleave(dtype, dim):
    m, t = random_pair((3, 2), dtype)
    check(mt.repeat_interleave(m, 2, dim=dim), torch.repeat_interleave(t, 2, dim=dim))
    check(m.repeat_interleave(3, dim), t.repeat_interleave(3, dim))
    if dim is not None:
        reps = [1, 0, 3] if dim == 0 else [2, 1]
        check(mt.repeat_interleave(m, mt.tensor(reps), dim=dim),
              torch.repeat_interleave(t, torch.tensor(reps), dim=dim))
    _grads(lambda a: mt.repeat_interleave(a, 2, dim=dim),
           lambda a: torch.repeat_interleave(a, 2, dim=dim), [_c128((3, 2), 7)])
