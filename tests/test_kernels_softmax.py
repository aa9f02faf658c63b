"""softmax / log_softmax kernels (the last dim in one row pass, other dims
with lanes across the inner dims) and the fused backward rows
_softmax_backward_data / _log_softmax_backward_data, against torch: every dim
of 1-4-d inputs, odd sizes, NaN/inf lines, non-contiguous inputs, dtype=,
float16/bfloat16, gradcheck and gradgradcheck in float64."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(77)
F = mt.nn.functional
NAMES = ["softmax", "log_softmax"]
DTYPES = [  # minitorch, torch, tolerance
    (mt.float32, torch.float32, 1e-5),
    (mt.float64, torch.float64, 1e-10),
    (mt.bfloat16, torch.bfloat16, 2e-2),
    (mt.float16, torch.float16, 2e-3),
]
SHAPES = [(1,), (3,), (17,), (1025,), (3, 17), (4, 1000), (2, 3, 5), (5, 1, 3), (2, 3, 4, 5),
          (3, 2, 33, 2), (9, 1025)]


def close(a, b, tol):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=tol,
                               atol=tol, equal_nan=True)


def sample(shape):
    x = RNG.standard_normal(shape) * 3
    if x.size > 4:
        flat = x.reshape(-1)
        flat[RNG.choice(x.size, 3, replace=False)] = [-np.inf, 40.0, -40.0]
    return x


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: str(d[1]))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_every_dim_forward_and_backward(name, dt, shape):
    mdt, tdt, tol = dt
    for dim in range(-len(shape), len(shape)):
        x = sample(shape)
        g = RNG.standard_normal(shape)
        tx = torch.tensor(x, dtype=tdt, requires_grad=True)
        mx = mt.tensor(x).to(mdt).requires_grad_(True)
        ty, my = getattr(torch, name)(tx, dim), getattr(mt, name)(mx, dim)
        assert my.dtype == mdt
        close(my.detach().to(mt.float64).numpy(), ty.detach().double().numpy(), tol)
        tg = torch.autograd.grad(ty, tx, torch.tensor(g, dtype=tdt))[0]
        mg = mt.autograd.grad(my, mx, mt.tensor(g).to(mdt))[0]
        assert mg.dtype == mdt
        close(mg.to(mt.float64).numpy(), tg.double().numpy(), tol * 10)


LINES = [[-np.inf] * 5, [np.inf, 1, 2, 3, 4], [np.nan, 1, 2, 3, 4], [1, 2, -np.inf, 3, 4],
         [np.inf, np.inf, 0, 0, 0], [1e30, -1e30, 0, 1, 2], [-np.inf, 0, -np.inf, 1, 2]]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dt", DTYPES[:2], ids=lambda d: str(d[1]))
@pytest.mark.parametrize("line", LINES, ids=str)
def test_nan_and_inf_lines_as_torch(name, dt, line):
    mdt, tdt, tol = dt
    base = np.array([line] * 19)  # 19 lines of 5: rows and, transposed, columns
    for x, dim in ((base, 1), (base.T.copy(), 0), (np.tile(base, (1, 5)), 1)):
        ty = getattr(torch, name)(torch.tensor(x, dtype=tdt), dim)
        my = getattr(mt, name)(mt.tensor(x).to(mdt), dim)
        got, want = my.to(mt.float64).numpy(), ty.double().numpy()
        assert np.array_equal(np.isnan(got), np.isnan(want))
        close(got, want, tol)


@pytest.mark.parametrize("name", NAMES)
def test_non_contiguous_and_dtype_argument(name):
    x = RNG.standard_normal((6, 8, 10))
    tx = torch.tensor(x, dtype=torch.float32).permute(2, 0, 1)[::2]
    mx = mt.tensor(x).float().permute(2, 0, 1)[::2]
    for dim in range(3):
        close(getattr(mt, name)(mx, dim).numpy(), getattr(torch, name)(tx, dim).numpy(), 1e-5)
        ty = getattr(torch, name)(tx.half(), dim, dtype=torch.float32)
        my = getattr(mt, name)(mx.half(), dim, dtype=mt.float32)
        assert my.dtype == mt.float32
        close(my.numpy(), ty.numpy(), 1e-5)
    # dtype= with autograd: the gradient comes back in the input's dtype
    txh = tx.half().requires_grad_(True)
    mxh = mx.half().requires_grad_(True)
    g = RNG.standard_normal(tuple(tx.shape))
    getattr(torch, name)(txh, 1, dtype=torch.float64).backward(torch.tensor(g))
    getattr(mt, name)(mxh, 1, dtype=mt.float64).backward(mt.tensor(g))
    assert mxh.grad.dtype == mt.float16
    close(mxh.grad.to(mt.float64).numpy(), txh.grad.double().numpy(), 2e-3)


@pytest.mark.parametrize("name", NAMES)
def test_nn_functional_form_and_empty(name):
    x = RNG.standard_normal((0, 4))
    assert tuple(getattr(mt, name)(mt.tensor(x), 0).shape) == (0, 4)
    x = RNG.standard_normal((2, 3, 4))
    mx = mt.tensor(x).requires_grad_(True)
    tx = torch.tensor(x, requires_grad=True)
    my = getattr(F, name)(mx, dim=0)
    ty = getattr(torch.nn.functional, name)(tx, dim=0)
    close(my.detach().numpy(), ty.detach().numpy(), 1e-12)
    (mg,) = mt.autograd.grad(my.sum() * 0 + (my * my).sum(), mx, create_graph=True)
    (tg,) = torch.autograd.grad(ty.sum() * 0 + (ty * ty).sum(), tx, create_graph=True)
    close(mg.detach().numpy(), tg.detach().numpy(), 1e-12)
    assert type(mg.grad_fn).__name__ in {type(tg.grad_fn).__name__, "AddBackward0"}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape,dim", [((4, 5), 1), ((4, 5), 0), ((2, 3, 4), 1), ((5,), 0), ((), 0)])
def test_gradcheck_and_gradgradcheck(name, shape, dim):
    x = mt.tensor(RNG.standard_normal(shape)).requires_grad_(True)

    def f(a):
        return getattr(mt, name)(a, dim)

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape,dim", [((4, 5), 1), ((3, 4, 2), 1), ((6,), -1)])
def test_backward_rows_match_aten_and_gradcheck(name, shape, dim):
    row = getattr(mt, f"_{name}_backward_data")
    aten = getattr(torch.ops.aten, f"_{name}_backward_data")
    x = torch.tensor(RNG.standard_normal(shape))
    y = getattr(torch, name)(x, dim)
    g = torch.tensor(RNG.standard_normal(shape))
    got = row(mt.tensor(g.numpy()), mt.tensor(y.numpy()), dim, mt.float64)
    close(got.numpy(), aten(g, y, dim, torch.float64).numpy(), 1e-12)
    got = row(mt.tensor(g.numpy()).float(), mt.tensor(y.numpy()).float(), dim, mt.float16)
    assert got.dtype == mt.float16
    want = aten(g.float(), y.float(), dim, torch.float32).half()
    close(got.to(mt.float64).numpy(), want.double().numpy(), 2e-3)
    gm = mt.tensor(g.numpy()).requires_grad_(True)
    ym = mt.tensor(y.numpy()).requires_grad_(True)

    def f(a, b):
        return row(a, b, dim, mt.float64)

    assert gradcheck(f, (gm, ym))
    assert gradgradcheck(f, (gm, ym))


def test_backward_row_errors():
    with pytest.raises(RuntimeError, match="does not match output"):
        mt._softmax_backward_data(mt.ones(2, 3), mt.ones(3, 2), 1, mt.float32)
    with pytest.raises(IndexError):
        mt._log_softmax_backward_data(mt.ones(2, 3), mt.ones(2, 3), 2, mt.float32)
    with pytest.raises(RuntimeError):
        mt._softmax_backward_data(mt.ones(2, 3, dtype=mt.int64), mt.ones(2, 3, dtype=mt.int64), 1,
                                  mt.float32)


def test_grad_fn_names_match_torch():
    x = RNG.standard_normal((3, 4))
    for name in NAMES:
        mx = mt.tensor(x).requires_grad_(True)
        tx = torch.tensor(x, requires_grad=True)
        (mg,) = mt.autograd.grad(getattr(mt, name)(mx, 1)[0, 0], mx, create_graph=True)
        (tg,) = torch.autograd.grad(getattr(torch, name)(tx, 1)[0, 0], tx, create_graph=True)
        assert type(mg.grad_fn).__name__ == type(tg.grad_fn).__name__
