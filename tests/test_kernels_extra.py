"""Vector math, outer reductions, the extra data-movement ops, linalg norms and einsum
diagonals/ellipsis, against NumPy and torch."""
import math

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")
F = mt.nn.functional
TF = torch.nn.functional

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e-45, 1e-40, 88.7, 88.8, -87.4,
           -103.9, -104.0, 709.7, 710.0, -745.0, 1e30, -1e30]


def ulps(got, ref, dtype):
    """Error in units in the last place of dtype, against a float64 reference."""
    with np.errstate(all="ignore"):
        r = ref.astype(dtype)
        ok = np.isfinite(r)
        assert np.array_equal(np.isnan(got), np.isnan(r))
        assert np.array_equal(got[~ok & ~np.isnan(r)], r[~ok & ~np.isnan(r)])
        sp = np.spacing(np.abs(r[ok])).astype(np.float64)
        return (np.abs(got[ok].astype(np.float64) - ref[ok]) / sp).max(initial=0)


@pytest.mark.parametrize("name,lo,hi,bound32", [
    ("exp", -110, 90, 1.0), ("log", 0, 1e4, 1.0), ("log", 1e-44, 1e-36, 1.0),
    ("tanh", -12, 12, 2.5), ("tanh", -0.7, 0.7, 2.5), ("sigmoid", -100, 90, 3.0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_math_accuracy(name, lo, hi, bound32, dtype):
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(lo, hi, 20011), np.array(SPECIAL)]).astype(dtype)
    got = getattr(mt, name)(mt.from_numpy(x)).numpy()
    ref = getattr(torch, name)(torch.from_numpy(x.astype(np.float64))).numpy()
    # float64 sigmoid is libm's 1 / (1 + exp(-x))
    bound64 = 4.0 if name == "sigmoid" else 2.0
    assert ulps(got, ref, dtype) <= (bound32 if dtype == np.float32 else bound64)


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "sigmoid"])
def test_vector_math_strided_tails_and_silu(name):
    rng = np.random.default_rng(1)
    for shape in [(0,), (1,), (7,), (9, 13), (3, 17, 5)]:
        x = rng.uniform(0.1, 3, shape).astype(np.float32)
        m = mt.from_numpy(x)
        views = [(m, x)] if len(shape) < 2 else [(m.transpose(0, -1), x.swapaxes(0, -1)),
                                                   (m[..., ::2], x[..., ::2])]
        for mv, xv in views:
            ref = getattr(torch, name)(torch.from_numpy(np.ascontiguousarray(xv)))
            np.testing.assert_allclose(getattr(mt, name)(mv).numpy(), ref.numpy(), rtol=3e-7,
                                       atol=1e-30)
    x = rng.uniform(-20, 20, 1001).astype(np.float32)
    np.testing.assert_allclose(F.silu(mt.from_numpy(x)).numpy(),
                               TF.silu(torch.from_numpy(x)).numpy(), rtol=1e-6, atol=1e-30)


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "amax", "amin"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_outer_reductions(op, dtype):
    rng = np.random.default_rng(2)
    for shape, dims in [((64, 300), (0,)), ((5, 6, 7), (0, 1)), ((4, 1, 9), (0,)),
                        ((3, 2000), (0,)), ((7, 5, 3), (1,)), ((0, 4), (0,))]:
        if op in ("amax", "amin") and 0 in shape:
            continue
        x = rng.uniform(0.5, 1.5, shape).astype(dtype)
        m, t = mt.from_numpy(x), torch.from_numpy(x)
        for keepdim in (False, True):
            got = getattr(m, op)(dims[0] if op == "prod" else dims, keepdim=keepdim)
            ref = getattr(t, op)(dims[0] if op == "prod" else dims, keepdim=keepdim)
            np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=2e-5 if dtype ==
                                       "float32" else 1e-12)
        arg = dims[-1] if op == "prod" else dims
        got = getattr(m.t() if m.dim() == 2 else m.transpose(0, 2), op)(arg)
        ref = getattr(t.t() if t.dim() == 2 else t.transpose(0, 2), op)(arg)
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=2e-5 if dtype == "float32"
                                   else 1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8", "uint8",
                                   "bool"])
def test_amax_amin_nan_and_dtypes(dtype):
    rng = np.random.default_rng(3)
    for shape in [(100,), (33, 70), (5, 64)]:
        x = (rng.integers(0, 2, shape).astype(bool) if dtype == "bool"
             else rng.integers(-100, 100, shape).astype(dtype))
        if dtype.startswith("float"):
            x.reshape(-1)[rng.integers(0, x.size, 3)] = np.nan
        m, t = mt.from_numpy(x), torch.from_numpy(x)
        for fn in ("amax", "amin"):
            for dim in ([], [-1], [0]):
                np.testing.assert_array_equal(getattr(m, fn)(dim).numpy(),
                                              getattr(t, fn)(dim).numpy())
            np.testing.assert_array_equal(getattr(m, fn[1:])().numpy(),
                                          getattr(t, fn[1:])().numpy())


def test_sum_all_and_last_dim_accuracy():
    rng = np.random.default_rng(4)
    x = rng.uniform(0, 1, 10 ** 6 + 3).astype(np.float32)
    m = mt.from_numpy(x)
    assert abs(m.sum().item() - x.astype(np.float64).sum()) <= 1e-6 * x.size
    a = rng.uniform(0, 1, (37, 4099)).astype(np.float32)
    np.testing.assert_allclose(mt.from_numpy(a).sum(-1).numpy(), a.astype(np.float64).sum(-1),
                               rtol=1e-6)


def both(fn, *arrays):
    out = []
    for lib in (mt, torch):
        try:
            r = fn(lib, *[lib.from_numpy(np.array(a, copy=True)) for a in arrays])
            out.append(("ok", r))
        except Exception as e:  # noqa: BLE001 - type and message are compared
            out.append((type(e).__name__, str(e)))
    (s1, r1), (s2, r2) = out
    assert s1 == s2, out
    if s1 == "ok":
        assert tuple(r1.shape) == tuple(r2.shape)
        assert str(r1.dtype).split(".")[-1] == str(r2.dtype).split(".")[-1]
        np.testing.assert_array_equal(r1.numpy(), r2.numpy())
    else:
        assert r1 == r2


def test_hstack_vstack():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 4))
    both(lambda L, x, y: L.hstack([x, y]), a, b)
    both(lambda L, x, y: L.vstack([x, y.t()[:3].t()]), a, b)
    both(lambda L, x, y: L.vstack([x[0], y[0][:3]]), a, b)
    both(lambda L, x, y: L.hstack([x[0], y[1]]), a, b)
    both(lambda L, x, y: L.row_stack([x[0], x]), a, b)
    both(lambda L, x, y: L.hstack([x[0, 0], y[0, :2]]), a, b)
    both(lambda L, x, y: L.vstack([x[0, 0], y[0, :2]]), a, b)
    both(lambda L, x: L.hstack([]), a)


@pytest.mark.parametrize("k", [-3, -1, 0, 2, 5])
def test_diag(k):
    rng = np.random.default_rng(6)
    for arr in [rng.integers(0, 9, 4), rng.standard_normal((3, 5)), np.zeros((0,)),
                rng.standard_normal((4, 2))]:
        both(lambda L, x: L.diag(x, k), arr)
        if arr.ndim == 2:
            both(lambda L, x: x.t().diag(k), arr)
    both(lambda L, x: L.diag(x), np.zeros((2, 2, 2)))
    both(lambda L, x: L.diag(x), np.float32(3.0))


def test_repeat_interleave():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    both(lambda L, a: a.repeat_interleave(2), x)
    both(lambda L, a: a.repeat_interleave(3, dim=1), x)
    both(lambda L, a: a.t().repeat_interleave(0, dim=0), x)
    both(lambda L, a: L.repeat_interleave(a, L.tensor([1, 0, 2]), dim=1), x)
    both(lambda L, a: a.repeat_interleave(L.tensor([2]), dim=0), x)
    both(lambda L, a: a.repeat_interleave(L.tensor(2)), x)
    both(lambda L, a: a.repeat_interleave(L.tensor([1, 2, 3])), x)
    both(lambda L, a: a.repeat_interleave(L.tensor([1, -2]), dim=0), x)
    both(lambda L, a: a.repeat_interleave(-1), x)
    both(lambda L, a: a.repeat_interleave(L.tensor([[1, 2]]), dim=0), x)
    both(lambda L, a: a.repeat_interleave(2, dim=2), x)
    both(lambda L, r: L.repeat_interleave(r), np.array([1, 0, 3]))
    both(lambda L, a: a.repeat_interleave(3), np.array([True, False]))


def test_one_hot():
    both(lambda L, a: L.nn.functional.one_hot(a), np.array([[0, 2], [1, 4]]))
    both(lambda L, a: L.nn.functional.one_hot(a, 6), np.array([0, 2, 5]))
    both(lambda L, a: L.nn.functional.one_hot(a.t()), np.array([[0, 2], [1, 3]]))
    both(lambda L, a: L.nn.functional.one_hot(a, 3), np.zeros((0,), np.int64))
    both(lambda L, a: L.nn.functional.one_hot(a), np.zeros((0,), np.int64))
    both(lambda L, a: L.nn.functional.one_hot(a), np.array(2))
    both(lambda L, a: L.nn.functional.one_hot(a), np.array([1.0]))
    both(lambda L, a: L.nn.functional.one_hot(a), np.array([-1]))
    both(lambda L, a: L.nn.functional.one_hot(a, 2), np.array([3]))


@pytest.mark.parametrize("pad", [[1, 2], [0, 0], [1, 1, 2, 0], [-1, 2], [2, -3, -1, 1],
                                 [1, 1, 1, 1, 1, 1], [1], [-2, -2], [0, 0, 0, 0, 1, 1]])
def test_pad_constant(pad):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 3)).astype(np.float32)
    both(lambda L, a: L.nn.functional.pad(a, pad), x)
    both(lambda L, a: L.nn.functional.pad(a.transpose(0, 2), pad, value=-7.5), x)
    both(lambda L, a: L.nn.functional.pad(a, pad, "constant", 3), x.astype(np.int32))
    both(lambda L, a: L.nn.functional.pad(a, pad, mode="foo"), x)


NORMS = [
    ("vector_norm", ()), ("vector_norm", (1,)), ("vector_norm", (math.inf,)),
    ("vector_norm", (-math.inf, 1)), ("vector_norm", (0,)), ("vector_norm", (3.5, (0, 2))),
    ("vector_norm", (2, 1, True)), ("vector_norm", (-1, -1)),
    ("matrix_norm", ()), ("matrix_norm", (1,)), ("matrix_norm", (-1,)),
    ("matrix_norm", (math.inf,)), ("matrix_norm", (-math.inf, (0, 2))),
    ("matrix_norm", ("fro", (2, 0), True)), ("matrix_norm", (1, (0, 1), True)),
    ("norm", ()), ("norm", (None, (1, 2))), ("norm", (3, 2)), ("norm", ("fro", (0, 1))),
    ("norm", (math.inf, (0, 1))),
]


@pytest.mark.parametrize("name,args", NORMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linalg_norms(name, args, dtype):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 4, 5)).astype(dtype)
    got = getattr(mt.linalg, name)(mt.from_numpy(x), *args)
    ref = getattr(torch.linalg, name)(torch.from_numpy(x), *args)
    assert tuple(got.shape) == tuple(ref.shape) and str(got.dtype)[-7:] == str(ref.dtype)[-7:]
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5)
    v = mt.from_numpy(x).transpose(0, 2)
    np.testing.assert_allclose(getattr(mt.linalg, name)(v, *args).numpy(),
                               getattr(torch.linalg, name)(torch.from_numpy(x).transpose(0, 2),
                                                           *args).numpy(), rtol=1e-5)


def test_linalg_norm_errors_and_2d():
    x = np.arange(6.0).reshape(2, 3)
    for fn in [lambda L, a: L.linalg.vector_norm(a.long()),
               lambda L, a: L.linalg.matrix_norm(a[0]),
               lambda L, a: L.linalg.norm(a.reshape(1, 2, 3), 2),
               lambda L, a: L.linalg.matrix_norm(a, "foo"),
               lambda L, a: L.linalg.matrix_norm(a, 3),
               lambda L, a: L.linalg.vector_norm(a[:0], math.inf),
               lambda L, a: L.linalg.matrix_norm(a, dim=(0, 0)),
               lambda L, a: L.linalg.norm(a, "fro", dim=0),
               lambda L, a: L.linalg.norm(a),
               lambda L, a: L.linalg.norm(a, 1),
               lambda L, a: L.linalg.norm(a, -math.inf),
               lambda L, a: L.linalg.norm(a[0], 4)]:
        out = []
        for lib in (mt, torch):
            try:
                out.append(("ok", fn(lib, lib.from_numpy(x.copy())).numpy()))
            except Exception as e:  # noqa: BLE001 - compared below
                out.append((type(e).__name__, str(e)))
        assert out[0][0] == out[1][0]
        if out[0][0] == "ok":
            np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12)
        else:
            assert out[0][1] == out[1][1]


EINSUM = [("ii->i", [(3, 3)]), ("ii->", [(3, 3)]), ("ii", [(4, 4)]), ("bii->bi", [(2, 3, 3)]),
          ("bii->b", [(2, 3, 3)]), ("iij->j", [(3, 3, 2)]), ("ii,i->i", [(3, 3), (3,)]),
          ("...ij,jk->...ik", [(2, 3, 4), (4, 5)]), ("...ij,jk", [(2, 3, 4), (4, 5)]),
          ("b...,b...->b", [(2, 3, 4), (2, 3, 4)]), ("...->...", [(3,)]),
          ("i...->...", [(3, 3)]), ("...ii->...i", [(2, 3, 3)]), ("...,...->...", [(3,), (2, 3)]),
          ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("ij,jk", [(3, 3)]),
          ("ii->i", [(2, 3)]), ("ijk->i", [(3, 3)]), ("i.j->i", [(3, 3)])]


@pytest.mark.parametrize("eq,shapes", EINSUM)
def test_einsum_diagonals_and_ellipsis(eq, shapes):
    rng = np.random.default_rng(10)
    arrays = [rng.standard_normal(s) for s in shapes]
    out = []
    for lib in (mt, torch):
        try:
            out.append(("ok", lib.einsum(eq, *[lib.from_numpy(a.copy()) for a in arrays]).numpy()))
        except Exception as e:  # noqa: BLE001 - compared below
            out.append((type(e).__name__, str(e)))
    assert out[0][0] == out[1][0], out
    if out[0][0] == "ok":
        assert out[0][1].shape == out[1][1].shape
        np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-10, atol=1e-12)
    else:
        assert out[0][1] == out[1][1]
