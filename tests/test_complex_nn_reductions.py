"""Complex tensors through the softmax family, the log-sum-exp ops, rms_norm,
linear, the addmm family's complex scalars, convolutions, unfold, constant
padding, block_diag and the masked mean/var/std, against torch: values at
complex64 and complex128, and complex128 gradients (torch's conjugate
Wirtinger convention) for a random complex cotangent."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as MF

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CD = ["complex64", "complex128"]


def carray(shape, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    return np.asarray(scale * (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)))


def close(got, want, dtype):
    tol = 2e-5 if dtype in ("complex64", "float32") else 1e-10
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=tol, atol=tol)


def compare(mfn, tfn, arrays, dtype, grad=True):
    """mfn and tfn over the arrays (as dtype; numpy values pass through as
    they are): equal values, and at complex128 equal gradients of every
    complex input for a random cotangent."""
    grad = grad and dtype == "complex128"
    mins, tins = [], []
    for a in arrays:
        if isinstance(a, np.ndarray):
            m, t = mt.tensor(a).to(getattr(mt, dtype)), torch.tensor(a).to(getattr(torch, dtype))
            if grad:
                m.requires_grad_()
                t.requires_grad_()
        else:
            m = t = a
        mins.append(m)
        tins.append(t)
    mo, to = mfn(*mins), tfn(*tins)
    close(mo, to, str(to.dtype).split(".")[-1])
    if not grad:
        return
    rng = np.random.default_rng(99)
    cot = rng.standard_normal(tuple(to.shape))
    if to.is_complex():
        cot = cot + 1j * rng.standard_normal(tuple(to.shape))
    leaves = [i for i, a in enumerate(arrays) if isinstance(a, np.ndarray)]
    want = torch.autograd.grad(to, [tins[i] for i in leaves], torch.tensor(cot, dtype=to.dtype))
    got = mt.autograd.grad(mo, [mins[i] for i in leaves], mt.tensor(cot).to(mo.dtype))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.resolve_conj().numpy(), w.resolve_conj().numpy(), rtol=1e-9, atol=1e-10)


# ------------------------------------------------------------ softmax family

SOFTMAX = {
    "softmax": (lambda m, x, d: m.softmax(x, d, dtype=m.float64)),
    "log_softmax": (lambda m, x, d: m.log_softmax(x, d, dtype=m.float64)),
    "method": (lambda m, x, d: x.softmax(d, dtype=m.float64)),
    "nn_softmax": (lambda m, x, d: m.nn.functional.softmax(x, d, dtype=m.float64)),
    "nn_log_softmax": (lambda m, x, d: m.nn.functional.log_softmax(x, d, dtype=m.float64)),
    "softmin": (lambda m, x, d: m.nn.functional.softmin(x, d, dtype=m.float64)),
}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", list(SOFTMAX))
@pytest.mark.parametrize("shape,dim", [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1)])
@pytest.mark.parametrize("dtype", CD)
def test_softmax_of_complex_cast_to_real(name, shape, dim, dtype):
    f = SOFTMAX[name]
    compare(lambda x: f(mt, x, dim), lambda x: f(torch, x, dim), [carray(shape, 1, 3)], dtype)


@pytest.mark.parametrize("name", list(SOFTMAX))
def test_softmax_cast_to_real_warns_as_torch(name):
    # torch warns so (once per process, hence not asked of it here), as a cast by to() does
    f = SOFTMAX[name]
    a = carray((3, 4), 3)
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary"):
        f(mt, mt.tensor(a), 1)


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", CD)
def test_softmax_refuses_complex_as_torch(op, dim, dtype):
    m = mt.tensor(carray((3, 4), 2)).to(getattr(mt, dtype))
    t = torch.tensor(carray((3, 4), 2)).to(getattr(torch, dtype))
    with pytest.raises(NotImplementedError) as want:
        getattr(torch, op)(t, dim)
    with pytest.raises(NotImplementedError) as got:
        getattr(mt, op)(m, dim)
    assert str(got.value) == str(want.value)
    real = torch.randn(3, 4, dtype=torch.float64)
    with pytest.raises(NotImplementedError) as want:
        getattr(torch, op)(real, dim, dtype=getattr(torch, dtype))
    with pytest.raises(NotImplementedError) as got:
        getattr(mt, op)(mt.tensor(real.numpy()), dim, dtype=getattr(mt, dtype))
    assert str(got.value) == str(want.value)


# ------------------------------------------------------------ log-sum-exp ops

def with_specials(a):
    flat = a.reshape(-1)
    specials = [complex(-np.inf, 0.5), complex(np.inf, -1.0), complex(-np.inf, 0), complex(2, 30)]
    flat[:len(specials)] = specials[:flat.size]
    return a


@pytest.mark.parametrize("dtype", CD)
@pytest.mark.parametrize("shape,dims", [((5,), (0,)), ((3, 4), (1,)), ((3, 4), (0, 1)),
                                        ((2, 3, 4), (0, 2)), ((), (0,)), ((0, 3), (1,)),
                                        ((3, 0), (1,))])
@pytest.mark.parametrize("keepdim", [False, True])
def test_logsumexp(dtype, shape, dims, keepdim):
    a = carray(shape, 3, 4)
    compare(lambda x: mt.logsumexp(x, dims, keepdim), lambda x: torch.logsumexp(x, dims, keepdim),
            [a], dtype)
    compare(lambda x: x.logsumexp(dims[0]), lambda x: x.logsumexp(dims[0]), [a], dtype)


@pytest.mark.parametrize("dtype", CD)
def test_logsumexp_infinite_real_parts_and_masked(dtype):
    a = with_specials(carray((3, 4), 4))
    compare(lambda x: mt.logsumexp(x, 1), lambda x: torch.logsumexp(x, 1), [a], dtype, grad=False)
    b = carray((3, 4), 5)
    mask = np.random.default_rng(6).uniform(size=(3, 4)) > 0.3
    compare(lambda x: mt.masked.logsumexp(x, 1, mask=mt.tensor(mask)),
            lambda x: torch.masked.logsumexp(x, 1, mask=torch.tensor(mask)), [b], dtype)


@pytest.mark.parametrize("dtype", CD)
@pytest.mark.parametrize("shapes", [((5,), (5,)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (2,))])
def test_logaddexp(dtype, shapes):
    a, b = carray(shapes[0], 7, 3), carray(shapes[1], 8, 3)
    compare(mt.logaddexp, torch.logaddexp, [a, b], dtype)
    compare(lambda x, y: x.logaddexp(y), lambda x, y: x.logaddexp(y), [a, b], dtype)


@pytest.mark.parametrize("dtype", CD)
def test_logaddexp_special_values(dtype):
    vals = [complex(-np.inf, 0.5), complex(np.inf, -1.0), complex(-np.inf, 0), complex(np.nan, 0),
            complex(0, np.nan), complex(1, 2), complex(np.inf, 0), complex(-3, 40)]
    a = np.array([[v] * len(vals) for v in vals])
    compare(mt.logaddexp, torch.logaddexp, [a, a.T.copy()], dtype, grad=False)


@pytest.mark.parametrize("dtype", CD)
@pytest.mark.parametrize("shape,dim", [((6,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1),
                                       ((), 0), ((0, 3), 1)])
def test_logcumsumexp(dtype, shape, dim):
    a = carray(shape, 9, 3)
    compare(lambda x: mt.logcumsumexp(x, dim), lambda x: torch.logcumsumexp(x, dim), [a], dtype)
    if len(shape) >= 2:
        compare(lambda x: x.transpose(0, 1).logcumsumexp(0),
                lambda x: x.transpose(0, 1).logcumsumexp(0), [a], dtype)


@pytest.mark.parametrize("dtype", CD)
def test_logcumsumexp_special_values_and_out(dtype):
    a = with_specials(carray((2, 6), 10))
    compare(lambda x: mt.logcumsumexp(x, 1), lambda x: torch.logcumsumexp(x, 1), [a], dtype,
            grad=False)
    m = mt.tensor(a).to(getattr(mt, dtype))
    out = mt.empty(0, dtype=m.dtype)
    assert mt.logcumsumexp(m, 0, out=out) is out
    close(out, torch.logcumsumexp(torch.tensor(a).to(getattr(torch, dtype)), 0), dtype)


# ------------------------------------------------------------ rms_norm, linear, addmm family

@pytest.mark.parametrize("dtype", CD)
@pytest.mark.parametrize("shape,norm", [((3, 4), (4,)), ((2, 3, 4), (3, 4)), ((5,), (5,))])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("eps", [None, 0.1])
def test_rms_norm(dtype, shape, norm, weighted, eps):
    arrays = [carray(shape, 11)] + ([carray(norm, 12)] if weighted else [None])
    compare(lambda x, w: MF.rms_norm(x, norm, w, eps), lambda x, w: TF.rms_norm(x, norm, w, eps),
            arrays, dtype)


@pytest.mark.parametrize("dtype", CD)
@pytest.mark.parametrize("xshape,wshape,bias", [((3, 4), (5, 4), True), ((3, 4), (5, 4), False),
                                                ((4,), (5, 4), True), ((2, 3, 4), (5, 4), True),
                                                ((2, 3, 4), (5, 4), False), ((3, 4), (4,), False),
                                                ((4,), (4,), False)])
def test_linear(dtype, xshape, wshape, bias):
    arrays = [carray(xshape, 13), carray(wshape, 14)]
    if bias:
        arrays.append(carray(wshape[:1], 15))
    compare(MF.linear, TF.linear, arrays, dtype)
    if bias and len(xshape) == 3:
        # a non-contiguous input takes the matmul-then-add path
        compare(lambda x, w, b: MF.linear(x.transpose(0, 1), w, b),
                lambda x, w, b: TF.linear(x.transpose(0, 1), w, b), arrays, dtype)


ALPHAS = [(1, 1), (0.5 + 1j, 2 - 0.5j), (0.3j, 1), (1, -2j)]


@pytest.mark.parametrize("beta,alpha", ALPHAS)
def test_addmm_family_complex_scalars_gradients(beta, alpha):
    dtype = "complex128"
    compare(lambda i, a, b: mt.addmm(i, a, b, beta=beta, alpha=alpha),
            lambda i, a, b: torch.addmm(i, a, b, beta=beta, alpha=alpha),
            [carray((3, 5), 16), carray((3, 4), 17), carray((4, 5), 18)], dtype)
    compare(lambda i, a, b: mt.baddbmm(i, a, b, beta=beta, alpha=alpha),
            lambda i, a, b: torch.baddbmm(i, a, b, beta=beta, alpha=alpha),
            [carray((2, 3, 5), 19), carray((2, 3, 4), 20), carray((2, 4, 5), 21)], dtype)
    compare(lambda i, a, b: mt.addbmm(i, a, b, beta=beta, alpha=alpha),
            lambda i, a, b: torch.addbmm(i, a, b, beta=beta, alpha=alpha),
            [carray((3, 5), 22), carray((2, 3, 4), 23), carray((2, 4, 5), 24)], dtype)


# ------------------------------------------------------------ convolutions, unfold

CONV = [
    ("conv1d", (2, 4, 7), (6, 2, 3), dict(stride=2, padding=1, groups=2)),
    ("conv1d", (4, 7), (3, 4, 2), dict(dilation=2)),
    ("conv1d", (2, 4, 7), (3, 4, 3), dict(padding="same")),
    ("conv2d", (2, 3, 6, 5), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0))),
    ("conv2d", (2, 4, 5, 5), (4, 2, 3, 3), dict(groups=2, padding="valid")),
    ("conv3d", (1, 2, 4, 5, 4), (3, 2, 2, 3, 2), dict(padding=1)),
    ("conv_transpose1d", (2, 4, 5), (4, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ("conv_transpose2d", (2, 4, 3, 4), (4, 2, 3, 2), dict(groups=2, stride=(1, 2))),
    ("conv_transpose3d", (1, 2, 3, 3, 2), (2, 3, 2, 2, 2), dict(stride=2)),
]


@pytest.mark.parametrize("dtype", CD)
@pytest.mark.parametrize("case", range(len(CONV)))
@pytest.mark.parametrize("bias", [False, True])
def test_convolutions(dtype, case, bias):
    name, xs, ws, kw = CONV[case]
    out_ch = ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0]
    arrays = [carray(xs, 25), carray(ws, 26), carray((out_ch,), 27) if bias else None]
    compare(lambda x, w, b: getattr(MF, name)(x, w, b, **kw),
            lambda x, w, b: getattr(TF, name)(x, w, b, **kw), arrays, dtype)


MISMATCH = [("conv1d", (1, 2, 5), (3, 2, 2)), ("conv2d", (1, 2, 5, 5), (3, 2, 2, 2)),
            ("conv3d", (1, 2, 4, 4, 4), (3, 2, 2, 2, 2)), ("conv_transpose1d", (1, 2, 5), (2, 3, 2)),
            ("conv_transpose2d", (1, 2, 4, 4), (2, 3, 2, 2))]


@pytest.mark.parametrize("name,xs,ws", MISMATCH)
@pytest.mark.parametrize("xd,wd", [("complex64", "float32"), ("complex128", "float64"),
                                   ("complex64", "complex128"), ("float64", "complex128")])
def test_conv_mixed_dtypes_refused_as_torch(name, xs, ws, xd, wd):
    if name == "conv3d" and not xd.startswith("complex"):
        pytest.skip("torch's real 3-d path words it by its backend choice")
    with pytest.raises(RuntimeError) as want:
        getattr(TF, name)(torch.ones(xs, dtype=getattr(torch, xd)),
                          torch.ones(ws, dtype=getattr(torch, wd)))
    with pytest.raises(RuntimeError) as got:
        getattr(MF, name)(mt.ones(xs, dtype=getattr(mt, xd)), mt.ones(ws, dtype=getattr(mt, wd)))
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", CD)
@pytest.mark.parametrize("shape,kw", [((2, 3, 5, 4), dict(kernel_size=2)),
                                      ((3, 5, 4), dict(kernel_size=(2, 3), padding=1, stride=2)),
                                      ((1, 2, 4, 4), dict(kernel_size=2, dilation=2))])
def test_unfold(dtype, shape, kw):
    compare(lambda x: MF.unfold(x, **kw), lambda x: TF.unfold(x, **kw), [carray(shape, 30)], dtype)


# ------------------------------------------------------------ padding, block_diag, diag

@pytest.mark.parametrize("dtype", CD)
@pytest.mark.parametrize("pad", [(1, 2), (0, 1, 2, 0), (-1, 2, 1, -1), (1, 1, 1, 1, 1, 1)])
@pytest.mark.parametrize("value", [None, 2.5, 1 - 2j, 3 + 0j])
def test_constant_pad(dtype, pad, value):
    a = carray((2, 3, 4), 31)
    if value is None or not isinstance(value, complex):
        compare(lambda x: MF.pad(x, pad, value=value), lambda x: TF.pad(x, pad, value=value), [a],
                dtype)
    v = 0 if value is None else value
    compare(lambda x: mt.constant_pad_nd(x, pad, v), lambda x: torch.constant_pad_nd(x, pad, v),
            [a], dtype)


def test_constant_pad_complex_value_on_real_input():
    x = np.arange(4.0)
    assert mt.constant_pad_nd(mt.tensor(x), (1, 1), 2 + 0j).tolist() == \
        torch.constant_pad_nd(torch.tensor(x), (1, 1), 2 + 0j).tolist()
    b = np.array([True, False])
    for v in (1 + 2j, 0j):
        assert mt.constant_pad_nd(mt.tensor(b), (1, 1), v).tolist() == \
            torch.constant_pad_nd(torch.tensor(b), (1, 1), v).tolist()
    for m, t in [(mt.tensor(x), torch.tensor(x)), (mt.arange(3), torch.arange(3)),
                 (mt.tensor(x).float(), torch.tensor(x).float())]:
        with pytest.raises(RuntimeError) as want:
            torch.constant_pad_nd(t, (1, 1), 1 + 2j)
        with pytest.raises(RuntimeError) as got:
            mt.constant_pad_nd(m, (1, 1), 1 + 2j)
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", CD)
def test_block_diag_and_diag(dtype):
    compare(mt.block_diag, torch.block_diag, [carray((2, 3), 32), carray((3,), 33),
                                              carray((1, 2), 34)], dtype)
    for k in (-1, 0, 2):
        compare(lambda x: mt.diag(x, k), lambda x: torch.diag(x, k), [carray((4,), 35)], dtype)
        compare(lambda x: mt.diag(x, k), lambda x: torch.diag(x, k), [carray((3, 4), 36)], dtype)


# ------------------------------------------------------------ masked mean, var, std

@pytest.mark.parametrize("dtype", CD)
@pytest.mark.parametrize("op", ["mean", "var", "std"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), ((0, 2), True)])
@pytest.mark.parametrize("masked", [False, True])
def test_masked_mean_var_std(dtype, op, dim, keepdim, masked):
    a = carray((3, 4, 2), 37)
    mask = np.random.default_rng(38).uniform(size=(3, 4, 2)) > 0.3 if masked else None
    mm = None if mask is None else mt.tensor(mask)
    tm = None if mask is None else torch.tensor(mask)
    compare(lambda x: getattr(mt.masked, op)(x, dim, keepdim=keepdim, mask=mm),
            lambda x: getattr(torch.masked, op)(x, dim, keepdim=keepdim, mask=tm), [a], dtype)


# ------------------------------------------------------------ norm 'nuc'

@pytest.mark.parametrize("dtype", CD + ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((4, 4), None), ((3, 5), None), ((2, 4, 3), (1, 2)),
                                       ((2, 4, 3), (2, 0)), ((3, 2, 4), (-3, -1))])
@pytest.mark.parametrize("keepdim", [False, True])
def test_norm_nuc(dtype, shape, dim, keepdim):
    a = carray(shape, 39)
    if not dtype.startswith("complex"):
        a = a.real.copy()
    grad_dtype = "complex128" if dtype.startswith("complex") else "float64"
    for d in (dtype, grad_dtype):
        compare(lambda x: mt.norm(x, "nuc", dim, keepdim), lambda x: torch.norm(x, "nuc", dim, keepdim),
                [a], d, grad=d == "complex128")
        compare(lambda x: x.norm("nuc", dim, keepdim), lambda x: x.norm("nuc", dim, keepdim), [a], d,
                grad=False)
    if grad_dtype == "float64":
        m, t = mt.tensor(a).requires_grad_(), torch.tensor(a, requires_grad=True)
        (gm,) = mt.autograd.grad(mt.norm(m, "nuc", dim, keepdim).sum(), m)
        (gt,) = torch.autograd.grad(torch.norm(t, "nuc", dim, keepdim).sum(), t)
        np.testing.assert_allclose(gm.numpy(), gt.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("args", [((2, 3, 4), "nuc"), ((3,), "nuc"), ((3, 4), "nuc", (0, 0)),
                                  ((3, 4), "nuc", (0, 1, 1))])
def test_norm_nuc_errors_as_torch(args):
    shape, rest = args[0], args[1:]
    with pytest.raises(RuntimeError) as want:
        torch.norm(torch.ones(shape), *rest)
    with pytest.raises(RuntimeError) as got:
        mt.norm(mt.ones(shape), *rest)
    assert str(got.value) == str(want.value)
    with pytest.raises(RuntimeError) as want:
        torch.norm(torch.ones((3, 4), dtype=torch.int64), "nuc")
    with pytest.raises(RuntimeError) as got:
        mt.norm(mt.ones((3, 4), dtype=mt.int64), "nuc")
    assert str(got.value) == str(want.value)


def test_norm_nuc_second_derivative_raises_first_order_graph_works():
    # the formula's U Vh comes from a row without a derivative: a create_graph
    # backward is right in the incoming gradient (what forward AD needs), and a
    # second derivative through U Vh raises instead of coming out wrong
    v = np.arange(12.0).reshape(4, 3) ** 1.5
    x = mt.tensor(v, requires_grad=True)
    tx = torch.tensor(v, requires_grad=True)
    (g,) = mt.autograd.grad(mt.norm(x, "nuc"), x, create_graph=True)
    (tg,) = torch.autograd.grad(torch.norm(tx, "nuc"), tx, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-10)
    w = mt.ones((), dtype=mt.float64, requires_grad=True)
    (gw,) = mt.autograd.grad(mt.norm(x, "nuc") * w, w, create_graph=True)
    assert abs(gw.item() - torch.norm(tx, "nuc").item()) < 1e-9
    with pytest.raises(RuntimeError, match="derivative for '_nuclear_norm_factor' is not implemented"):
        mt.autograd.grad(g.sum(), x)
