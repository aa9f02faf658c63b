"""Forward-mode AD through complex values against torch.autograd.forward_ad:
the tangent of a holomorphic op is f'(z) dz, of the others torch's formulas
(abs, angle, real, imag, conj, the part views), whether the op has a direct
jvp (mul, div, exp, ...) or one derived from its backward by the transpose
trick (which pairs tangents under the real inner product Re sum conj(v) t)."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

CDTYPES = ["complex64", "complex128"]


def values(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return v.astype(dtype)


def check(got, want):
    assert got is not None and want is not None
    assert str(got.dtype)[len("minitorch."):] == str(want.dtype)[len("torch."):]
    assert tuple(got.shape) == tuple(want.shape)
    g = torch.from_numpy(np.array(got.detach().resolve_conj().numpy()))
    torch.testing.assert_close(g, want.detach(), equal_nan=True)


def jvp_both(fn, primals, tangents):
    """fn's primal and tangent outputs in minitorch and in torch."""
    results = []
    for lib in (mt, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            duals = [fw.make_dual(lib.from_numpy(p.copy()), lib.from_numpy(t.copy()))
                     for p, t in zip(primals, tangents)]
            out = fn(lib, *duals)
            p, t = fw.unpack_dual(out)
            results.append((p, t))
    (mp, mtan), (tp, ttan) = results
    check(mp, tp)
    check(mtan, ttan)


UNARY = {
    "exp": lambda lib, z: z.exp(),
    "log": lambda lib, z: z.log(),
    "sin": lambda lib, z: z.sin(),
    "cos": lambda lib, z: z.cos(),
    "tan": lambda lib, z: z.tan(),
    "sqrt": lambda lib, z: z.sqrt(),
    "reciprocal": lambda lib, z: z.reciprocal(),
    "neg": lambda lib, z: -z,
    "square": lambda lib, z: z * z,
    "pow2": lambda lib, z: z ** 2,
    "pow_half": lambda lib, z: z ** 0.5,
    "scale_by_complex": lambda lib, z: z * (2 - 3j),
    "add_complex": lambda lib, z: z + 1j,
    "div_by_complex": lambda lib, z: z / (1 + 2j),
    "complex_over": lambda lib, z: (1 - 1j) / z,
    "sum": lambda lib, z: z.sum(),
    "sum_dim": lambda lib, z: z.sum(1),
    "mean": lambda lib, z: z.mean(),
    "mean_dim": lambda lib, z: z.mean(0, keepdim=True),
    "abs": lambda lib, z: z.abs(),
    "angle": lambda lib, z: z.angle(),
    "real": lambda lib, z: z.real,
    "imag": lambda lib, z: z.imag,
    "conj": lambda lib, z: z.conj(),
    "conj_physical": lambda lib, z: lib.conj_physical(z),
    "view_as_real": lambda lib, z: lib.view_as_real(z),
    "round_trip": lambda lib, z: lib.view_as_complex(lib.view_as_real(z) * 2),
    "transpose_matmul": lambda lib, z: z @ z.t(),
    "conj_mm": lambda lib, z: lib.mm(z.conj().t(), z),
    "abs_squared": lambda lib, z: (z * z.conj()).real,
    "sgn": lambda lib, z: z.sgn(),
    "reshape_expand": lambda lib, z: z.reshape(-1)[None].expand(2, -1),
}


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(dtype, name):
    z = values((3, 3), dtype, 1)
    t = values((3, 3), dtype, 2)
    jvp_both(UNARY[name], [z], [t])


BINARY = {
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b,
    "add_alpha": lambda lib, a, b: lib.add(a, b, alpha=2),
    "sub": lambda lib, a, b: a - b,
    "mm": lambda lib, a, b: lib.mm(a, b),
    "matmul_batched": lambda lib, a, b: a[None] @ b,
    "mv": lambda lib, a, b: lib.mv(a, b[0]),
    "dot": lambda lib, a, b: lib.dot(a[0], b[1]),
    "vdot": lambda lib, a, b: lib.vdot(a[0], b[1]),
    "pow": lambda lib, a, b: a ** b,
    "where": lambda lib, a, b: lib.where(a.real > 0, a, b),
    "cat": lambda lib, a, b: lib.cat([a, b]),
}


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(dtype, name):
    a, b = values((3, 3), dtype, 3), values((3, 3), dtype, 4)
    ta, tb = values((3, 3), dtype, 5), values((3, 3), dtype, 6)
    jvp_both(BINARY[name], [a, b], [ta, tb])


@pytest.mark.parametrize("rdtype", ["float32", "float64"])
def test_real_to_complex_and_mixed(rdtype):
    rng = np.random.default_rng(7)
    x, y = (rng.standard_normal((2, 3)).astype(rdtype) for _ in range(2))
    tx, ty = (rng.standard_normal((2, 3)).astype(rdtype) for _ in range(2))
    jvp_both(lambda lib, a, b: lib.complex(a, b), [x, y], [tx, ty])
    jvp_both(lambda lib, a, b: lib.polar(a.abs() + 0.5, b), [x, y], [tx, ty])
    jvp_both(lambda lib, a, b: (a * 1j).exp() * b, [x, y], [tx, ty])
    cd = "complex64" if rdtype == "float32" else "complex128"
    z, tz = values((2, 3), cd, 8), values((2, 3), cd, 9)
    jvp_both(lambda lib, z, a: z * a, [z, x], [tz, tx])
    jvp_both(lambda lib, z, a: (z.abs() * a).sum(), [z, x], [tz, tx])


def test_view_as_complex_of_a_real_dual():
    x = np.random.default_rng(10).standard_normal((4, 2))
    t = np.random.default_rng(11).standard_normal((4, 2))
    jvp_both(lambda lib, a: lib.view_as_complex(a).exp(), [x], [t])


def test_func_jvp_complex():
    if not hasattr(mt, "func") or not hasattr(mt.func, "jvp"):
        pytest.skip("minitorch.func.jvp is absent")
    z, t = values((4,), "complex128", 12), values((4,), "complex128", 13)

    def f(lib):
        return lambda x: (x.sin() * x.conj()).sum()
    mp, mtan = mt.func.jvp(f(mt), (mt.from_numpy(z.copy()),), (mt.from_numpy(t.copy()),))
    tp, ttan = torch.func.jvp(f(torch), (torch.from_numpy(z),), (torch.from_numpy(t),))
    check(mp, tp)
    check(mtan, ttan)


def test_chain_of_derived_jvps():
    z, t = values((5,), "complex128", 14), values((5,), "complex128", 15)
    jvp_both(lambda lib, z: (z.abs().log() + z.angle() * 1j).exp().flip(0) * z, [z], [t])
