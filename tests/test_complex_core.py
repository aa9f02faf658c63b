"""complex64 and complex128 against torch: the dtypes and their promotion,
tensors from Python and NumPy data, printing, conversions, the part views,
the elementwise ops and reductions that take complex tensors, their
gradients in torch's convention, and the clear refusal of the rows that do
not take them yet."""
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

CDTYPES = ["complex64", "complex128"]
REAL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
               "float32", "float64"]


def both(values, dtype):
    return mt.tensor(values, dtype=getattr(mt, dtype)), torch.tensor(values,
                                                                        dtype=getattr(torch, dtype))


def rand_complex(shape, dtype, seed=0, special=False):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    if special and v.size >= 6:
        flat = v.reshape(-1)
        flat[:6] = [0, 1j, -1, complex("inf"), complex(float("nan"), 1), complex(-0.0, -0.0)]
    v = v.astype(np.complex64 if dtype == "complex64" else np.complex128)
    return mt.from_numpy(v.copy()), torch.from_numpy(v.copy())


def check(got, want, rtol=None, atol=None):
    assert str(got.dtype)[len("minitorch."):] == str(want.dtype)[len("torch."):]
    assert tuple(got.shape) == tuple(want.shape)
    if got.dtype == mt.bfloat16:
        got, want = got.float(), want.float()
    g = torch.from_numpy(np.array(got.detach().resolve_conj().numpy()))
    torch.testing.assert_close(g, want.detach(), rtol=rtol, atol=atol, equal_nan=True)


# -------------------------------------------------------------------- dtypes

def test_dtype_objects():
    for name, alias in (("complex64", "cfloat"), ("complex128", "cdouble")):
        d, t = getattr(mt, name), getattr(torch, name)
        assert getattr(mt, alias) is d
        assert d.is_complex and not d.is_floating_point and d.is_signed
        assert d.itemsize == t.itemsize
        assert repr(d) == "minitorch." + name
        assert str(d.to_real()) == "minitorch." + str(t.to_real())[len("torch."):]
        assert d.to_complex() is d
    assert mt.float32.to_complex() is mt.complex64
    assert mt.float64.to_complex() is mt.complex128
    assert not mt.float32.is_complex
    assert mt.float32.to_real() is mt.float32


@pytest.mark.parametrize("a", REAL_DTYPES + CDTYPES)
@pytest.mark.parametrize("b", CDTYPES)
def test_promote_types(a, b):
    want = torch.promote_types(getattr(torch, a), getattr(torch, b))
    if want == torch.complex32:
        # minitorch has no complex32: float16 meets complex64 there
        want = torch.complex64
    got = mt.promote_types(getattr(mt, a), getattr(mt, b))
    assert str(got)[len("minitorch."):] == str(want)[len("torch."):]
    assert mt.can_cast(getattr(mt, b), getattr(mt, a)) == torch.can_cast(getattr(torch, b),
                                                                          getattr(torch, a))


@pytest.mark.parametrize("dtype", ["bool", "int64", "float32", "float64", "complex64",
                                   "complex128"])
@pytest.mark.parametrize("other", [2, 2.5, 1 + 2j])
def test_result_type_with_numbers(dtype, other):
    m, t = both([1, 0], dtype)
    assert (str(mt.result_type(m, other))[len("minitorch."):]
            == str(torch.result_type(t, other))[len("torch."):])


@pytest.mark.parametrize("lo", ["float32", "float64", "complex64", "complex128", "int32"])
@pytest.mark.parametrize("hi", ["float32", "float64", "complex64", "complex128", "int32"])
def test_result_type_zero_dim_against_dim(lo, hi):
    a, ta = both([1, 2], hi)
    b, tb = both(3, lo)
    assert (str(mt.result_type(a, b))[len("minitorch."):]
            == str(torch.result_type(ta, tb))[len("torch."):])


def test_finfo_and_iinfo():
    for name in CDTYPES:
        f, tf = mt.finfo(getattr(mt, name)), torch.finfo(getattr(torch, name))
        assert (f.bits, f.eps, f.max, f.tiny) == (tf.bits, tf.eps, tf.max, tf.tiny)
        with pytest.raises(TypeError):
            mt.iinfo(getattr(mt, name))


# ------------------------------------------------------------------ creation

@pytest.mark.parametrize("data", [[1 + 2j, 3], 1j, [[1, 2.5], [1j, -0.0j]], [True, 1j],
                                  [float("nan") + 1j, complex("inf")]])
def test_tensor_from_python(data):
    m, t = mt.tensor(data), torch.tensor(data)
    check(m, t)
    assert m.tolist() == t.tolist() or np.allclose(m.numpy(), t.numpy(), equal_nan=True)


def test_tensor_default_complex_follows_default_dtype():
    old = mt.get_default_dtype()
    try:
        mt.set_default_dtype(mt.float64)
        torch.set_default_dtype(torch.float64)
        assert mt.tensor([1j]).dtype == mt.complex128
        assert mt.tensor([1.0]).add(1j).dtype == mt.complex128
        assert repr(mt.tensor([1 + 1j])) == repr(torch.tensor([1 + 1j])).replace("torch",
                                                                                "minitorch")
    finally:
        mt.set_default_dtype(old)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_factories(dtype):
    md, td = getattr(mt, dtype), getattr(torch, dtype)
    check(mt.zeros(2, 3, dtype=md), torch.zeros(2, 3, dtype=td))
    check(mt.ones(4, dtype=md), torch.ones(4, dtype=td))
    check(mt.full((2, 2), 1 - 2j, dtype=md), torch.full((2, 2), 1 - 2j, dtype=td))
    assert mt.empty(3, dtype=md).dtype == md
    x = mt.full((3,), 2 + 1j, dtype=md)
    check(mt.zeros_like(x), torch.zeros_like(torch.full((3,), 2 + 1j, dtype=td)))
    check(mt.full_like(x, 1j), torch.full_like(torch.full((3,), 2 + 1j, dtype=td), 1j))
    check(x.new_full((2,), -1j), torch.full((3,), 2 + 1j, dtype=td).new_full((2,), -1j))
    check(x.fill_(3 - 1j), torch.full((3,), 0j, dtype=td).fill_(3 - 1j))
    check(x.zero_(), torch.zeros(3, dtype=td))


def test_full_infers_complex_and_refuses_it_for_real():
    check(mt.full((2,), 1 + 1j), torch.full((2,), 1 + 1j))
    for fn in (lambda m: m.full((2,), 1 + 1j, dtype=m.float32),
               lambda m: m.zeros(2).fill_(1j)):
        with pytest.raises(RuntimeError) as want:
            fn(torch)
        with pytest.raises(RuntimeError) as got:
            fn(mt)
        assert "cannot be converted" in str(want.value) and "cannot be converted" in str(
            got.value)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_numpy_round_trip_shares_memory(dtype):
    a = (np.arange(6) + 1j * np.arange(6)[::-1]).astype(dtype).reshape(2, 3)
    m = mt.from_numpy(a)
    assert m.dtype == (mt.complex64 if dtype == np.complex64 else mt.complex128)
    a[0, 0] = 7 - 7j
    assert m[0, 0].item() == 7 - 7j
    back = m.numpy()
    assert back.dtype == dtype and np.shares_memory(back, a)
    assert isinstance(m[1, 2].item(), complex) and complex(m[1, 2]) == complex(a[1, 2])
    check(mt.tensor(a[:, ::2]), torch.tensor(a[:, ::2]))


def test_numpy_scalars_and_arrays_of_complex():
    check(mt.tensor([np.complex64(1 + 2j), 3]), torch.tensor([np.complex64(1 + 2j), 3]))
    check(mt.tensor(np.complex128(2j)), torch.tensor(np.complex128(2j)))


# ------------------------------------------------------------------ printing

@pytest.mark.parametrize("values", [
    [1 + 2j, 3 - 1j], [0j], [[1.5 + 0.25j, -2j], [1e-5 + 1e5j, 3]],
    [complex("nan"), complex("inf") - 1j, -0.0j], [1e10 + 1j, 2],
])
@pytest.mark.parametrize("dtype", CDTYPES)
def test_repr_matches_torch(values, dtype):
    m, t = both(values, dtype)
    assert repr(m) == repr(t).replace("torch.", "minitorch.")


def test_repr_long_and_summarized():
    a = np.arange(30) * (1 + 0.5j)
    m, t = mt.tensor(a), torch.tensor(a)
    assert repr(m) == repr(t).replace("torch.", "minitorch.")
    b = np.arange(3000).reshape(30, 100) * (0.5 - 1j)
    m, t = mt.tensor(b, dtype=mt.complex64), torch.tensor(b, dtype=torch.complex64)
    assert repr(m) == repr(t).replace("torch.", "minitorch.")
    m.requires_grad_()
    assert repr(mt.tensor([1j], requires_grad=True)) == repr(
        torch.tensor([1j], requires_grad=True)).replace("torch.", "minitorch.")
    assert repr(mt.tensor([], dtype=mt.complex64)) == repr(
        torch.tensor([], dtype=torch.complex64)).replace("torch.", "minitorch.")


# --------------------------------------------------------------- conversions

@pytest.mark.parametrize("src", REAL_DTYPES)
@pytest.mark.parametrize("dst", CDTYPES)
def test_real_to_complex_and_back(src, dst):
    vals = [0, 1, 2, 3] if src != "bool" else [True, False, True, True]
    m, t = both(vals, src)
    mc, tc = m.to(getattr(mt, dst)), t.to(getattr(torch, dst))
    check(mc, tc)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        back = mc.to(getattr(mt, src))
    check(back, tc.to(getattr(torch, src)))
    assert any("discards the imaginary part" in str(w.message) for w in got)


def test_complex_to_real_keeps_the_real_part_and_bool_any_part():
    m, t = both([1.5 + 2j, 0j, 2j, -3 + 0j], "complex128")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(m.double(), t.double())
        check(m.long(), t.long())
        check(m.float(), t.float())
    check(m.bool(), t.bool())
    check(m.to(mt.complex64), t.to(torch.complex64))
    z = mt.zeros(4, dtype=mt.complex64)
    z.copy_(m)
    check(z, t.to(torch.complex64))
    r = mt.zeros(4)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        r.copy_(m)
    assert got and r.tolist() == [1.5, 0.0, 0.0, -3.0]


# ----------------------------------------------------------------- the parts

@pytest.mark.parametrize("dtype", CDTYPES)
def test_view_as_real_and_back(dtype):
    m, t = rand_complex((3, 4), dtype)
    check(mt.view_as_real(m), torch.view_as_real(t))
    check(mt.view_as_real(m.t()), torch.view_as_real(t.t()))
    check(mt.view_as_real(m[1:, ::2]), torch.view_as_real(t[1:, ::2]))
    r = mt.view_as_real(m)
    r[0, 0, 1] = 42
    assert m[0, 0].item().imag == 42
    back = mt.view_as_complex(r)
    assert back.data_ptr() == m.data_ptr() and back.dtype == m.dtype
    check(mt.view_as_complex(mt.view_as_real(m)[1:]), torch.view_as_complex(
        torch.view_as_real(t)[1:]))


@pytest.mark.parametrize("make", [
    lambda lib: lib.ones(3, 2, dtype=lib.int32),
    lambda lib: lib.ones(3, 3),
    lambda lib: lib.ones(3, 2).t(),
    lambda lib: lib.ones(3, 4)[:, 1:3],
    lambda lib: lib.ones(11)[1:].reshape(5, 2),
    lambda lib: lib.ones(3, 3)[:, :2],
    lambda lib: lib.ones(()),
])
def test_view_as_complex_errors(make):
    with pytest.raises(RuntimeError) as want:
        torch.view_as_complex(make(torch))
    with pytest.raises(RuntimeError) as got:
        mt.view_as_complex(make(mt))
    assert str(got.value) == str(want.value)


def test_view_as_real_refuses_real():
    with pytest.raises(RuntimeError, match="view_as_real is only supported for complex"):
        mt.view_as_real(mt.ones(2))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_real_and_imag_are_views(dtype):
    m, t = rand_complex((2, 5), dtype)
    check(m.real, t.real)
    check(m.imag, t.imag)
    check(mt.real(m[:, 1:]), torch.real(t[:, 1:]))
    check(mt.imag(m.t()), torch.imag(t.t()))
    m.imag[0] = 0
    t.imag[0] = 0
    m.real = mt.arange(5.0)
    t.real = torch.arange(5.0)
    check(m, t)
    x = mt.ones(3)
    assert mt.real(x) is x and x.real is x
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex"):
        x.imag


def test_is_complex_conj_bits():
    m, t = both([1j], "complex64")
    assert mt.is_complex(m) and m.is_complex() and not mt.ones(1).is_complex()
    assert not m.is_conj() and m.conj().is_conj() == t.conj().is_conj() is True
    assert not m.is_neg() and m.resolve_conj() is m and m.resolve_neg() is m
    x = mt.ones(2)
    assert x.conj() is x


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_complex_and_polar(dtype):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 1)), rng.standard_normal((4,))
    ma, ta = mt.tensor(a, dtype=getattr(mt, dtype)), torch.tensor(a, dtype=getattr(torch, dtype))
    mb, tb = mt.tensor(b, dtype=getattr(mt, dtype)), torch.tensor(b, dtype=getattr(torch, dtype))
    check(mt.complex(ma, mb), torch.complex(ta, tb))
    check(mt.polar(ma.abs(), mb), torch.polar(ta.abs(), tb))
    out = mt.empty(3, 4, dtype=mt.complex64 if dtype == "float32" else mt.complex128)
    mt.complex(ma, mb, out=out)
    check(out, torch.complex(ta, tb))


@pytest.mark.parametrize("args", [
    lambda lib: (lib.ones(2), lib.ones(2, dtype=lib.float64)),
    lambda lib: (lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64)),
    lambda lib: (lib.ones(2), lib.ones(3)),
])
def test_complex_errors(args):
    with pytest.raises(RuntimeError) as want:
        torch.complex(*args(torch))
    with pytest.raises(RuntimeError) as got:
        mt.complex(*args(mt))
    if "size" not in str(want.value):
        assert str(got.value) == str(want.value)


# --------------------------------------------------------------- elementwise

UNARY = ["neg", "conj", "conj_physical", "abs", "angle", "sgn", "exp", "log", "sqrt", "sin",
         "cos", "tan", "sinh", "cosh", "reciprocal", "square", "isnan", "isinf", "isfinite",
         "logical_not"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_unary(name, dtype):
    m, t = rand_complex((4, 6), dtype, seed=2, special=True)
    check(getattr(mt, name)(m), getattr(torch, name)(t))
    check(getattr(mt, name)(m[:, ::2].t()), getattr(torch, name)(t[:, ::2].t()))


@pytest.mark.parametrize("name", ["neg", "conj_physical", "exp", "sqrt", "sgn", "sin"])
def test_unary_in_place_and_out(name):
    m, t = rand_complex((5,), "complex64", seed=3)
    getattr(m, name + "_")(), getattr(t, name + "_")()
    check(m, t)
    out, tout = mt.empty(5, dtype=mt.complex64), torch.empty(5, dtype=torch.complex64)
    getattr(mt, name)(m, out=out), getattr(torch, name)(t, out=tout)
    check(out, tout)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_angle_and_conj_of_real(dtype):
    m, t = both([-2, 0, 3] if dtype != "bool" else [True, False, True], dtype)
    check(mt.angle(m), torch.angle(t))
    check(mt.conj_physical(m), torch.conj_physical(t))
    check(mt.sgn(m), torch.sgn(t))


BINARY = ["add", "sub", "mul", "div", "eq", "ne", "logical_and", "logical_or", "logical_xor"]
NUMBERS_TAKEN = {"add", "sub", "mul", "div", "eq", "ne"}


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_binary(name, dtype):
    a, ta = rand_complex((3, 4), dtype, seed=4, special=True)
    b, tb = rand_complex((4,), dtype, seed=5)
    fm, ft = getattr(mt, name), getattr(torch, name)
    check(fm(a, b), ft(a and ta if False else ta, tb))
    check(fm(b, a), ft(tb, ta))
    for other in (2, 0.5, 1 - 3j, True) if name in NUMBERS_TAKEN else ():
        try:
            want = ft(ta, other)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                fm(a, other)
            continue
        check(fm(a, other), want)
    r, tr = both([[1.0], [2.0], [-0.5]], "float64")
    check(fm(a, r), ft(ta, tr))
    i, ti = both([1, 0, 3, -2], "int32")
    check(fm(i, a), ft(ti, ta))


def test_division_by_zero_and_big_divisors():
    a, ta = both([1 + 1j, 0j, -1 + 0j, 1e300 + 1e300j, 1 + 0j], "complex128")
    b, tb = both([0j, 0j, 0j, 1e300 + 1e300j, 1e-300 + 1e300j], "complex128")
    check(a / b, ta / tb)
    a, ta = both([1 + 1j, 3e38 + 3e38j], "complex64")
    b, tb = both([3e38 - 3e38j, 2e38 + 1e38j], "complex64")
    check(a / b, ta / tb)


def test_operators_and_alpha():
    a, ta = rand_complex((3,), "complex64", seed=6)
    b, tb = rand_complex((3,), "complex64", seed=7)
    check(a + b, ta + tb)
    check(1j - a, 1j - ta)
    check(2 * a, 2 * ta)
    check(1 / a, 1 / ta)
    check(-a, -ta)
    check(abs(a), abs(ta))
    check(a == b, ta == tb)
    check(mt.add(a, b, alpha=2 - 1j), torch.add(ta, tb, alpha=2 - 1j))
    check(mt.sub(a, b, alpha=1j), torch.sub(ta, tb, alpha=1j))
    c, tc = a.clone(), ta.clone()
    c += b
    c *= 1j
    c /= 2
    tc += tb
    tc *= 1j
    tc /= 2
    check(c, tc)
    with pytest.raises(RuntimeError, match="argument alpha must not be a complex"):
        mt.add(mt.ones(2), mt.ones(2), alpha=1j)
    x = mt.ones(2)
    with pytest.raises(RuntimeError):
        x += 1j
    with pytest.raises(RuntimeError):
        mt.add(a, b, out=mt.empty(3))


def test_where():
    a, ta = rand_complex((4,), "complex128", seed=8)
    c, tc = both([True, False, False, True], "bool")
    check(mt.where(c, a, 0.0), torch.where(tc, ta, 0.0))
    check(mt.where(c, 1j, a), torch.where(tc, 1j, ta))


# ----------------------------------------------------------------- reductions

@pytest.mark.parametrize("dtype", CDTYPES)
def test_sum_and_mean(dtype):
    m, t = rand_complex((3, 4, 5), dtype, seed=9)
    check(m.sum(), t.sum())
    check(m.mean(), t.mean())
    check(m.sum(1), t.sum(1))
    check(m.sum((0, 2), keepdim=True), t.sum((0, 2), keepdim=True))
    check(m.mean(-1), t.mean(-1))
    check(m.transpose(0, 2).sum(0), t.transpose(0, 2).sum(0))
    check(m[:, ::2].mean((0, 1)), t[:, ::2].mean((0, 1)))
    check(mt.zeros(0, 3, dtype=getattr(mt, dtype)).sum(0),
          torch.zeros(0, 3, dtype=getattr(torch, dtype)).sum(0))


# ---------------------------------------------------------- moving elements

@pytest.mark.parametrize("dtype", CDTYPES)
def test_shape_and_index_ops(dtype):
    m, t = rand_complex((4, 3), dtype, seed=10)
    check(m.t().contiguous(), t.t().contiguous())
    check(m.reshape(3, 4), t.reshape(3, 4))
    check(m.t().reshape(-1), t.t().reshape(-1))
    check(mt.cat([m, m[:1]]), torch.cat([t, t[:1]]))
    check(mt.stack([m, m], 1), torch.stack([t, t], 1))
    check(m.flip(0), t.flip(0))
    check(m.roll(1, 1), t.roll(1, 1))
    check(m.repeat(2, 1), t.repeat(2, 1))
    idx = [2, 0, 2]
    check(m.index_select(0, mt.tensor(idx)), t.index_select(0, torch.tensor(idx)))
    check(m[mt.tensor(idx)], t[torch.tensor(idx)])
    check(m[mt.tensor([True, False, True, True])], t[torch.tensor([True, False, True, True])])
    g = [[0, 2, 1], [1, 1, 0], [2, 0, 0], [0, 0, 2]]
    check(m.gather(1, mt.tensor(g)), t.gather(1, torch.tensor(g)))
    check(m.take(mt.tensor([11, 0, 5])), t.take(torch.tensor([11, 0, 5])))
    check(m.unsqueeze(0).expand(2, 4, 3).contiguous(), t.unsqueeze(0).expand(2, 4, 3).contiguous())
    m[1] = 5j
    t[1] = 5j
    m[:, 0] = mt.tensor([1j, 2, 3, 4 + 4j], dtype=getattr(mt, dtype))
    t[:, 0] = torch.tensor([1j, 2, 3, 4 + 4j], dtype=getattr(torch, dtype))
    m[mt.tensor([0, 3]), 2] = -1j
    t[torch.tensor([0, 3]), 2] = -1j
    check(m, t)


# ------------------------------------------------------------------ autograd

def grads(fn, *inputs):
    """Gradients of a real loss of fn's complex output in both libraries."""
    ms, ts = [], []
    for v in inputs:
        mv, tv = mt.tensor(v), torch.tensor(v)
        mv.requires_grad_()
        tv.requires_grad_()
        ms.append(mv)
        ts.append(tv)

    def loss(lib, out):
        w = lib.tensor(np.linspace(-1, 2, out.numel()).reshape(tuple(out.shape)) * (1 - 0.5j))
        if not out.is_complex():
            w = w.real
        return (out * w).real.sum() + out.abs().sum()

    loss(mt, fn(mt, *ms)).backward()
    loss(torch, fn(torch, *ts)).backward()
    for mv, tv in zip(ms, ts):
        check(mv.grad, tv.grad, rtol=1e-9, atol=1e-9)


ZC = np.array([1 + 2j, -0.5 + 1j, 2 - 0.25j, -1.5 - 1j])
ZR = np.array([0.5, -1.0, 2.0, 1.5])


@pytest.mark.parametrize("fn", [
    lambda lib, z: z * z,
    lambda lib, z: z / (z + 3),
    lambda lib, z: 2 / z,
    lambda lib, z: z * 1j - 2,
    lambda lib, z: lib.add(z, z.conj(), alpha=1 - 2j),
    lambda lib, z: lib.sub(z, z * z, alpha=1j),
    lambda lib, z: z.exp() + z.log() + z.sqrt(),
    lambda lib, z: z.sin() * z.cos() + z.tan(),
    lambda lib, z: z.sinh() - z.cosh() + z.reciprocal() + z.square(),
    lambda lib, z: -z.conj_physical(),
    lambda lib, z: lib.view_as_real(z) * 3,
    lambda lib, z: lib.view_as_complex(lib.view_as_real(z) * 2),
    lambda lib, z: z.real * z.imag,
    lambda lib, z: z.abs(),
    lambda lib, z: z.angle(),
    lambda lib, z: z.sgn(),
    lambda lib, z: z.sum(0) * z,
    lambda lib, z: z.reshape(2, 2).mean(1),
    lambda lib, z: lib.where(z.real > 0, z, 1j),
    lambda lib, z: z[lib.tensor([1, 1, 3])] * z[0],
])
def test_gradients_of_complex_input(fn):
    grads(fn, ZC)


@pytest.mark.parametrize("fn", [
    lambda lib, x, y: lib.complex(x, y) * lib.complex(y, x),
    lambda lib, x, y: lib.polar(x.abs() + 0.5, y),
    lambda lib, x, y: x * 1j + y,
    lambda lib, x, y: (x.to(lib.complex128) / (y + 2j)).sum(),
])
def test_gradients_of_real_inputs_through_complex(fn):
    grads(fn, ZR, ZR[::-1].copy())


def test_mixed_real_and_complex_leaves():
    grads(lambda lib, z, x: z * x + x / z, ZC, ZR)


def test_complex_output_needs_a_grad():
    z = mt.tensor([1j], requires_grad=True)
    tz = torch.tensor([1j], requires_grad=True)
    with pytest.raises(RuntimeError) as want:
        (tz * 2).sum().backward()
    with pytest.raises(RuntimeError) as got:
        (z * 2).sum().backward()
    assert str(got.value) == str(want.value).replace("torch.", "minitorch.")
    (z * 2).backward(mt.tensor([1 - 1j]))
    (tz * 2).backward(torch.tensor([1 - 1j]))
    check(z.grad, tz.grad)


def test_requires_grad_on_complex():
    assert mt.zeros(2, dtype=mt.complex64, requires_grad=True).requires_grad
    assert mt.tensor([1j]).requires_grad_().requires_grad


# ------------------------------------------------------ rows not ready yet

@pytest.mark.parametrize("call", [
    lambda m: mt.sort(m),
    lambda m: mt.cummax(m, 0),
    lambda m: m.max(),
    lambda m: mt.clamp(m, 0, 1),
    lambda m: mt.relu(m),
    lambda m: mt.ones(2).add(mt.ones(2), alpha=2).clamp(min=1j),
])
def test_rows_without_complex_refuse_it_clearly(call):
    m = mt.tensor([1 + 1j, 2 - 1j])
    with pytest.raises(RuntimeError, match="not implemented for 'ComplexFloat'|complex"):
        call(m)


# ------------------------------------------------------------- checkpoints

@pytest.mark.parametrize("dtype", CDTYPES)
def test_save_and_load_cross_torch(dtype, tmp_path):
    m, t = rand_complex((3, 2), dtype, seed=11)
    mt.save({"z": m, "v": m[:, 1]}, tmp_path / "m.pt")
    got = torch.load(tmp_path / "m.pt")
    check(mt.from_numpy(got["z"].numpy()), t)
    torch.save({"z": t}, tmp_path / "t.pt")
    back = mt.load(tmp_path / "t.pt")["z"]
    check(back, t)
    assert back.dtype == getattr(mt, dtype)


# ------------------------------------------------------------------ products

@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((1, 7), (7, 1)), ((2, 3, 4), (4, 2)),
                                    ((4,), (4, 3)), ((2, 5), (5,)), ((6,), (6,)),
                                    ((2, 1, 3, 4), (5, 4, 2))])
def test_matmul(dtype, shapes):
    a, ta = rand_complex(shapes[0], dtype, seed=12)
    b, tb = rand_complex(shapes[1], dtype, seed=13)
    check(a @ b, ta @ tb)
    if len(shapes[0]) == 2 and len(shapes[1]) == 2:
        check(mt.mm(a, b), torch.mm(ta, tb))
        check(mt.mm(a.t().contiguous().t(), b), torch.mm(ta, tb))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_other_products(dtype):
    a, ta = rand_complex((2, 3, 4), dtype, seed=14)
    b, tb = rand_complex((2, 4, 5), dtype, seed=15)
    check(mt.bmm(a, b), torch.bmm(ta, tb))
    m, tm = rand_complex((3, 4), dtype, seed=16)
    v, tv = rand_complex((4,), dtype, seed=17)
    w, tw = rand_complex((3,), dtype, seed=18)
    check(mt.mv(m, v), torch.mv(tm, tv))
    check(mt.dot(v, v.conj()), torch.dot(tv, tv.conj()))
    check(mt.vdot(v, v * 1j), torch.vdot(tv, tv * 1j))
    check(mt.outer(w, v), torch.outer(tw, tv))
    with pytest.raises(RuntimeError):
        mt.mm(m, mt.ones(4, 2))


@pytest.mark.parametrize("fn", [
    lambda lib, z: z.reshape(2, 2) @ z.reshape(2, 2).t(),
    lambda lib, z: lib.mv(z.reshape(2, 2), z[:2].conj()),
    lambda lib, z: lib.dot(z, z * 2j).reshape(1),
    lambda lib, z: lib.vdot(z, z * (1 + 1j)).reshape(1),
    lambda lib, z: lib.outer(z, z[:2]),
    lambda lib, z: z @ z.reshape(4, 1),
])
def test_gradients_of_products(fn):
    grads(fn, ZC)


# ----------------------------------------------------------- powers, samples

@pytest.mark.parametrize("dtype", CDTYPES)
def test_pow(dtype):
    a, ta = rand_complex((3, 4), dtype, seed=19)
    b, tb = rand_complex((4,), dtype, seed=20)
    check(a ** b, ta ** tb)
    for e in (2, 0.5, -1, 1j, 0):
        check(a ** e, ta ** e)
    check(2 ** a, 2 ** ta)
    check(mt.pow(a, 3), torch.pow(ta, 3))


@pytest.mark.parametrize("fn", [
    lambda lib, z: z ** 2 + z ** 0.5,
    lambda lib, z: z ** (1 + 1j),
    lambda lib, z: z ** z,
    lambda lib, z: 2 ** z,
])
def test_gradients_of_powers(fn):
    grads(fn, ZC)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_random_complex(dtype):
    d = getattr(mt, dtype)
    mt.manual_seed(0)
    x = mt.randn(20000, dtype=d)
    assert x.dtype == d
    re, im = x.real.numpy(), x.imag.numpy()
    # each part has variance 1/2, so E|z|^2 = 1, as torch's
    assert abs(re.var() - 0.5) < 0.03 and abs(im.var() - 0.5) < 0.03
    assert abs(np.mean(np.abs(x.numpy()) ** 2) - 1) < 0.05
    u = mt.rand(20000, dtype=d)
    assert 0 <= u.real.min().item() and u.real.max().item() < 1
    assert 0 <= u.imag.min().item() and u.imag.max().item() < 1
    assert mt.randn_like(x[:3]).dtype == d and mt.rand_like(x[:3]).shape == (3,)
