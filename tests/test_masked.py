"""minitorch.masked against torch.masked: values over shapes, dims, keepdim,
dtypes and masks (none, full, broadcast, all-False, non-bool, with NaN or
inf under the masked-out elements), float64 gradients and forward
derivatives, the identities fully masked-out slices get, dtype=, and
torch's errors."""
import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch as mt  # noqa: E402

DTYPES = {torch.bool: mt.bool, torch.int32: mt.int32, torch.int64: mt.int64,
          torch.float32: mt.float32, torch.float64: mt.float64}


def to_mt(obj):
    """torch tensors (leaves keep requires_grad) and dtypes inside obj as minitorch's."""
    if isinstance(obj, torch.Tensor):
        out = mt.tensor(obj.detach().numpy()).to(DTYPES[obj.dtype])
        return out.requires_grad_() if obj.requires_grad else out
    if isinstance(obj, torch.dtype):
        return DTYPES[obj]
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_mt(v) for v in obj)
    if isinstance(obj, dict):
        return {k: to_mt(v) for k, v in obj.items()}
    return obj


def assert_same(got, want, tol=1e-6):
    assert isinstance(got, mt.Tensor)
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    g, w = got.detach().numpy(), want.detach().numpy()
    if w.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True)


def run_both(name, x, *args, **kwargs):
    """torch.masked.<name> and minitorch.masked.<name> on the same inputs."""
    want = getattr(torch.masked, name)(x, *args, **kwargs)
    m = to_mt((x, args, kwargs))
    got = getattr(mt.masked, name)(m[0], *m[1], **m[2])
    return got, want


def make(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if not dtype.is_floating_point:
        return torch.randint(-9, 10, shape, generator=g).to(dtype)
    return torch.randn(shape, generator=g, dtype=dtype)


def masks(shape, seed=1):
    """None, a random mask of shape, one masking out everything, and the
    broadcast ones: last dim 1, leading dims dropped, a 0/1 int mask."""
    g = torch.Generator().manual_seed(seed)
    out = [None, torch.rand(shape, generator=g) > 0.4, torch.zeros(shape, dtype=torch.bool),
           torch.randint(0, 2, shape, generator=g)]
    if len(shape) >= 1:
        out.append(torch.rand(shape[:-1] + (1,), generator=g) > 0.3)
    if len(shape) >= 2:
        out.append(torch.rand(shape[1:], generator=g) > 0.3)
        out.append(torch.rand((1,) + shape[1:], generator=g) > 0.3)
    return out


SHAPES = [(), (5,), (3, 4), (2, 3, 4)]


def dims_for(ndim, multiple=True):
    out = [None, 0, -1]
    if ndim >= 2 and multiple:
        out += [(0, 1), [-1, 0], ()]
    return out


REDUCTIONS = {  # name: dtypes torch.masked accepts
    "sum": (torch.bool, torch.int32, torch.int64, torch.float32, torch.float64),
    "prod": (torch.bool, torch.int32, torch.int64, torch.float32, torch.float64),
    "amax": (torch.int64, torch.float32, torch.float64),
    "amin": (torch.int64, torch.float32, torch.float64),
    "mean": (torch.float32, torch.float64),
    "logsumexp": (torch.float32, torch.float64),
    "var": (torch.int64, torch.float32, torch.float64),
    "std": (torch.float32, torch.float64),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_values(name):
    for shape, dtype in itertools.product(SHAPES, REDUCTIONS[name]):
        x = make(shape, dtype)
        for mask, dim, keepdim in itertools.product(masks(shape), dims_for(len(shape)),
                                                    (False, True)):
            got, want = run_both(name, x, dim, keepdim=keepdim, mask=mask)
            assert_same(got, want, 1e-5)


@pytest.mark.parametrize("ord", [2.0, 1, 3.5, 0, float("inf"), float("-inf")])
def test_norm_values(ord):
    for shape, dtype in itertools.product(SHAPES, (torch.float32, torch.float64)):
        x = make(shape, dtype)
        for mask, dim, keepdim in itertools.product(masks(shape), dims_for(len(shape)),
                                                    (False, True)):
            got, want = run_both("norm", x, ord, dim, keepdim=keepdim, mask=mask)
            assert_same(got, want, 1e-5)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions_return_the_input_dtype(name):
    for shape, dtype in itertools.product(SHAPES, (torch.int64, torch.float32, torch.float64)):
        x = make(shape, dtype)
        for mask, dim, keepdim in itertools.product(masks(shape),
                                                    dims_for(len(shape), multiple=False),
                                                    (False, True)):
            got, want = run_both(name, x, dim, keepdim=keepdim, mask=mask)
            assert_same(got, want)
    got, want = run_both(name, make((3, 4), torch.float32), 1, dtype=torch.int64)
    assert got.dtype == mt.int64
    assert_same(got, want)


@pytest.mark.parametrize("name", ["median", "cumsum", "cumprod", "softmax", "log_softmax",
                                  "softmin"])
def test_along_one_dim(name):
    dtypes = (torch.float32, torch.float64)
    if name in ("cumsum", "cumprod", "median"):
        dtypes += (torch.int32, torch.int64)
    for shape, dtype in itertools.product(SHAPES, dtypes):
        x = make(shape, dtype)
        for mask, dim in itertools.product(masks(shape), (0, -1, len(shape) // 2)):
            if name == "median" and not dtype.is_floating_point and mask is not None:
                continue  # a fully masked-out row is refused, tested below
            kwargs = {"keepdim": True} if name == "median" else {}
            got, want = run_both(name, x, dim, mask=mask, **kwargs)
            assert_same(got, want, 1e-5)


def test_cumulative_ops_keep_a_narrow_integral_dtype():
    x = make((3, 4), torch.int32)
    mask = torch.tensor([True, False, True, True])
    for name in ("cumsum", "cumprod"):
        got, want = run_both(name, x, 1, mask=mask)
        assert got.dtype == mt.int32
        assert_same(got, want)
        got, want = run_both(name, x, 0, mask=mask, dtype=torch.float64)
        assert got.dtype == mt.float64
        assert_same(got, want)


def test_sum_and_prod_promote_small_integral_types_to_int64():
    for dtype in (torch.bool, torch.int32):
        x = make((3, 4), dtype)
        for name in ("sum", "prod"):
            got, want = run_both(name, x, 1, mask=torch.tensor([True, True, False, True]))
            assert got.dtype == mt.int64
            assert_same(got, want)


@pytest.mark.parametrize("name,dtype", [("sum", torch.float64), ("prod", torch.float32),
                                        ("amax", torch.float64), ("amin", torch.int64),
                                        ("mean", torch.float64), ("logsumexp", torch.float64),
                                        ("var", torch.float64), ("std", torch.float32)])
def test_dtype_argument(name, dtype):
    x = make((3, 4), torch.float32)
    mask = torch.tensor([[True, False, True, True]] * 3)
    got, want = run_both(name, x, 1, dtype=dtype, mask=mask)
    assert got.dtype == to_mt(dtype)
    assert_same(got, want, 1e-5)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_masked_out_nonfinite_values_do_not_reach_the_result(value):
    x = make((4, 5), torch.float64)
    mask = torch.rand((4, 5), generator=torch.Generator().manual_seed(3)) > 0.5
    mask[:, :2] = True  # two per row: var's count less its correction stays positive
    x[~mask] = value
    for name in ("sum", "prod", "amax", "amin", "mean", "var", "std", "logsumexp", "median"):
        got, want = run_both(name, x, 1, mask=mask)
        assert_same(got, want)
        assert bool(mt.isfinite(got).all())
    for name in ("softmax", "log_softmax", "softmin", "cumsum", "cumprod"):
        got, want = run_both(name, x, 1, mask=mask)
        assert_same(got, want)
    got, want = run_both("normalize", x, 2.0, 1, mask=mask)
    assert_same(got, want)


def test_fully_masked_out_slices_take_the_identity():
    mask = torch.tensor([[True, True, False], [False, False, False]])
    for dtype in (torch.float64, torch.int64):
        x = make((2, 3), dtype)
        for name in ("sum", "prod", "amax", "amin", "argmax", "argmin"):
            got, want = run_both(name, x, 1, mask=mask)
            assert_same(got, want)
    x = make((2, 3), torch.float64)
    got = mt.masked.amax(to_mt(x), 1, mask=to_mt(mask))
    assert got[1].item() == float("-inf")
    got = mt.masked.amin(to_mt(x.long()), 1, mask=to_mt(mask))
    assert got[1].item() == torch.iinfo(torch.int64).max
    for name in ("mean", "median", "var", "std", "softmax", "softmin", "log_softmax"):
        got, want = run_both(name, x, 1, mask=mask)
        assert bool(mt.isnan(got[1]).all())
        assert_same(got, want)
    got, want = run_both("logsumexp", x, 1, mask=mask)
    assert got[1].item() == float("-inf")
    assert_same(got, want)


@pytest.mark.parametrize("unbiased,correction", [(None, None), (False, None), (True, None),
                                                 (None, 0), (None, 2), (None, 0.5)])
def test_var_std_correction(unbiased, correction):
    x = make((4, 6), torch.float64)
    mask = torch.rand((4, 6), generator=torch.Generator().manual_seed(5)) > 0.4
    for name, dim, keepdim in itertools.product(("var", "std"), (None, 1, 0), (False, True)):
        got, want = run_both(name, x, dim, unbiased, correction=correction, keepdim=keepdim,
                             mask=mask)
        assert_same(got, want)


def test_logaddexp():
    g = torch.Generator().manual_seed(0)
    for shape in [(5,), (3, 4), (2, 3, 4)]:
        x, y = torch.randn(shape, generator=g), torch.randn(shape, generator=g)
        for xm, ym in zip(masks(shape, 1), masks(shape, 2)):
            got, want = run_both("logaddexp", x, y, input_mask=xm, other_mask=ym)
            assert_same(got, want, 1e-5)
    got, want = run_both("logaddexp", x.double(), y.double(), dtype=torch.float32,
                         input_mask=masks(shape)[1])
    assert got.dtype == mt.float32
    assert_same(got, want, 1e-5)


@pytest.mark.parametrize("ord", [2.0, 1, float("inf"), float("-inf")])
def test_normalize(ord):
    for shape in [(5,), (3, 4), (2, 3, 4)]:
        x = make(shape, torch.float64)
        for mask, dim in itertools.product(masks(shape), (0, -1)):
            got, want = run_both("normalize", x, ord, dim, mask=mask)
            assert_same(got, want)
    got, want = run_both("normalize", torch.zeros(2, 3), ord, 1, eps=0.5)
    assert_same(got, want)


def test_non_contiguous_input_and_mask():
    x = make((4, 3), torch.float64).t()
    mask = (torch.rand((4, 3), generator=torch.Generator().manual_seed(2)) > 0.5).t()
    assert not x.is_contiguous()
    for name in ("sum", "amax", "mean", "var", "logsumexp"):
        got, want = run_both(name, x, 1, mask=mask)
        assert_same(got, want)
    for name in ("softmax", "cumsum", "median"):
        got, want = run_both(name, x, 0, mask=mask)
        assert_same(got, want)


def _torch_and_mt_grads(name, x, args, kwargs, seed=0):
    x = x.detach().requires_grad_()
    want_out = getattr(torch.masked, name)(x, *args, **kwargs)
    cot = torch.randn(want_out.shape, generator=torch.Generator().manual_seed(seed),
                      dtype=want_out.dtype)
    (want,) = torch.autograd.grad(want_out, x, cot)
    m = to_mt((x, args, kwargs))
    got_out = getattr(mt.masked, name)(m[0], *m[1], **m[2])
    (got,) = mt.autograd.grad(got_out, m[0], to_mt(cot))
    return got, want


GRAD_CASES = [  # name, args, kwargs
    ("sum", (1,), {}), ("sum", ((0, 1),), {"keepdim": True}), ("prod", (1,), {}),
    ("prod", (None,), {}), ("amax", (1,), {}), ("amin", ((0, 1),), {}), ("mean", (0,), {}),
    ("mean", (None,), {"keepdim": True}), ("median", (1,), {}), ("logsumexp", (1,), {}),
    ("var", (1,), {}), ("std", (0,), {"keepdim": True}), ("norm", (2.0, 1), {}),
    ("norm", (1, 0), {}), ("norm", (float("inf"), 1), {}), ("norm", (3.0, None), {}),
    ("softmax", (1,), {}), ("log_softmax", (0,), {}), ("softmin", (1,), {}),
    ("cumsum", (1,), {}), ("cumprod", (0,), {}), ("normalize", (2.0, 1), {}),
]


@pytest.mark.parametrize("name,args,kwargs", GRAD_CASES,
                         ids=[f"{c[0]}{i}" for i, c in enumerate(GRAD_CASES)])
def test_float64_gradients(name, args, kwargs):
    x = make((3, 5), torch.float64)
    # no ties: amax/amin/median split or pick among equal values
    mask_cases = [None, torch.tensor([True, False, True, True, False]),
                  torch.rand((3, 5), generator=torch.Generator().manual_seed(4)) > 0.3]
    for mask in mask_cases:
        if mask is not None and mask.ndim == 2:
            mask[:, 0] = True  # no fully masked-out slice (its gradient is NaN in torch too)
        got, want = _torch_and_mt_grads(name, x, args, dict(kwargs, mask=mask))
        assert_same(got, want)


def test_logaddexp_gradients():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 4, generator=g, dtype=torch.float64, requires_grad=True)
    y = torch.randn(3, 4, generator=g, dtype=torch.float64, requires_grad=True)
    xm = torch.tensor([True, False, True, True])
    ym = torch.tensor([[True], [False], [True]])
    want = torch.autograd.grad(torch.masked.logaddexp(x, y, input_mask=xm, other_mask=ym).sum(),
                               (x, y))
    mx, my = to_mt(x), to_mt(y)
    got = mt.autograd.grad(mt.masked.logaddexp(mx, my, input_mask=to_mt(xm),
                                               other_mask=to_mt(ym)).sum(), (mx, my))
    for gg, ww in zip(got, want):
        assert_same(gg, ww)


@pytest.mark.parametrize("name,args", [("sum", (1,)), ("amax", (1,)), ("mean", (None,)),
                                       ("var", (0,)), ("norm", (2.0, 1)), ("softmax", (1,)),
                                       ("cumprod", (1,)), ("logsumexp", (0,)), ("median", (1,))])
def test_forward_derivatives(name, args):
    import torch.autograd.forward_ad as fwAD
    g = torch.Generator().manual_seed(6)
    x = torch.randn(3, 5, generator=g, dtype=torch.float64)
    tangent = torch.randn(3, 5, generator=g, dtype=torch.float64)
    mask = torch.tensor([True, False, True, True, False])
    with fwAD.dual_level():
        out = getattr(torch.masked, name)(fwAD.make_dual(x, tangent), *args, mask=mask)
        want = fwAD.unpack_dual(out).tangent
    mfw = mt.autograd.forward_ad
    with mfw.dual_level():
        out = getattr(mt.masked, name)(mfw.make_dual(to_mt(x), to_mt(tangent)), *args,
                                       mask=to_mt(mask))
        got = mfw.unpack_dual(out).tangent
    assert_same(got, want)


def _error(fn):
    """(type name, message) of what fn() raises, dtypes read as torch's."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e).__name__, str(e).replace("minitorch.", "torch.")
    return None


@pytest.mark.parametrize("call", [
    lambda L, x: L.masked.sum(x, 2),
    lambda L, x: L.masked.amax(x, (0, -2)),
    lambda L, x: L.masked.prod(x, -3, mask=x > 0),
    lambda L, x: L.masked.cumsum(x, 5, mask=x > 0),
    lambda L, x: L.masked.softmax(x, -3),
    lambda L, x: L.masked.sum(x, 0, mask=(x > 0)[None]),
    lambda L, x: L.masked.mean(x.long(), 0),
    lambda L, x: L.masked.mean(x, 0, dtype=L.int64),
    lambda L, x: L.masked.median(x.long(), 1, mask=L.tensor([False, False, False])),
    lambda L, x: L.masked.amax(x.bool(), 1, mask=x > 0),
    lambda L, x: L.masked.var(x, 1, True, correction=1),
    lambda L, x: L.masked.sum(x[0, 0], 1),
    lambda L, x: L.masked.median(x, 3),
], ids=["dim-out-of-range", "dim-twice", "negative-dim-out-of-range", "cumsum-dim",
        "softmax-dim", "mask-of-more-dims", "mean-of-int", "mean-int-dtype",
        "median-int-fully-masked", "amax-of-bool", "unbiased-and-correction", "0-d-dim-1",
        "median-dim"])
def test_errors_as_torch(call):
    x = torch.randn(2, 3)
    want = _error(lambda: call(torch, x))
    assert want is not None
    assert _error(lambda: call(mt, to_mt(x))) == want


def test_public_names_are_torchs():
    torch_names = set(torch.masked.__all__) - {
        "MaskedTensor", "as_masked_tensor", "is_masked_tensor", "masked_tensor"}
    assert set(mt.masked.__all__) == torch_names
    for name in mt.masked.__all__:
        assert callable(getattr(mt.masked, name))
