"""The float32 vector math on each of its paths: the 16-lane AVX-512 forms
(kernels/simd/vmath16.h, taken on machines that have AVX-512), the 8-lane ones
(kernels/simd/vmath.h, forced with MINITORCH_NO_AVX512=1 in a subprocess) with
gelu's AVX2 form (kernels/simd/vmath_avx2.h), and gelu's portable 8-lane form
(MINITORCH_NO_AVX2=1 as well). Each path is checked against float64
references in ulp over the whole float range, special values exactly, and
every tail length of the masked loop."""
import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

F = mt.nn.functional
HERE = os.path.dirname(os.path.abspath(__file__))

TINY = np.float32(1.17549435e-38)  # below this the results are denormal: absolute checks

# name: (minitorch f32 function, float64 reference via torch, max ulp)
FUNCS = {
    "exp": (mt.exp, torch.exp, 2),
    "log": (mt.log, torch.log, 2),
    "sigmoid": (mt.sigmoid, torch.sigmoid, 4),
    "tanh": (mt.tanh, torch.tanh, 3),
    "erf": (mt.erf, torch.erf, 4),
    "silu": (F.silu, torch.nn.functional.silu, 6),
    "gelu": (F.gelu, lambda t: t * 0.5 * torch.special.erfc(-t / np.sqrt(2.0)), 12),
}
# the portable gelu's log-erfc fit (simd/vmath.h) is about 50 ulp in the negative tail
MAX_ULP_PORTABLE = {"gelu": 64}


def inputs():
    rng = np.random.default_rng(7)
    parts = [
        rng.standard_normal(50000) * 4,
        rng.uniform(-110, 95, 50000),
        np.linspace(-15, 15, 30001),
        np.exp(rng.uniform(-103, 88, 20000)) * rng.choice([-1, 1], 20000),
        [0.0, -0.0, 1e-45, -1e-45, 1e-40, float(TINY), 3.4e38, -3.4e38, 1.0, -1.0, 0.625,
         -0.625, 0.999, 1.001, 88.7, 88.8, -87.3, -103.9, -104.0, -110.0, 9.0, -9.0],
    ]
    return np.concatenate([np.asarray(p, dtype=np.float64) for p in parts]).astype(np.float32)


def ulp_errors(name, x):
    f, ref_f, _ = FUNCS[name]
    got = f(mt.tensor(x)).numpy().astype(np.float64)
    with np.errstate(all="ignore"):
        ref = ref_f(torch.tensor(x.astype(np.float64))).numpy()
        # silu and gelu are x times a factor: where that is denormal, so are
        # its precision steps, scaled by |x|
        scale = np.maximum(1.0, np.abs(x.astype(np.float64)))
        normal = np.isfinite(ref) & (np.abs(ref) >= TINY * scale) & (np.abs(ref) < 3.4e38)
        ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
        err = np.where(normal, np.abs(got - ref) / ulp, 0.0)
        denormal = np.isfinite(ref) & ~normal & (np.abs(ref) < 3.4e38)
        den_err = np.where(denormal, np.abs(got - ref) / scale, 0.0)
        # results that overflow float32 must be inf of the right sign
        over = np.isfinite(ref) & (np.abs(ref) >= 3.5e38)
        assert np.array_equal(got[over], np.sign(ref[over]) * np.inf), name
    return err, den_err


def check_path(portable=False):
    """All checks of one process's path; the subprocesses run this too."""
    x = inputs()
    for name, (_, _, max_ulp) in FUNCS.items():
        if portable:
            max_ulp = MAX_ULP_PORTABLE.get(name, max_ulp)
        err, den_err = ulp_errors(name, x)
        assert err.max() <= max_ulp, (name, err.max(), x[np.argmax(err)])
        # a few denormal steps (1.4e-45 each)
        assert den_err.max() <= 6e-45, (name, den_err.max(), x[np.argmax(den_err)])
    special = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, -1.0, 1e-45], dtype=np.float32)
    d = float(special[-1])  # the smallest denormal
    exact = {
        "exp": [np.inf, 0.0, np.nan, 1.0, 1.0, np.exp(-1.0), 1.0],
        "log": [np.inf, np.nan, np.nan, -np.inf, -np.inf, np.nan, np.log(d)],
        "sigmoid": [1.0, 0.0, np.nan, 0.5, 0.5, 1 / (1 + np.e), 0.5],
        "tanh": [1.0, -1.0, np.nan, 0.0, -0.0, np.tanh(-1.0), d],
        "erf": [1.0, -1.0, np.nan, 0.0, -0.0, -0.8427007929497149, 1.1283791670955126 * d],
        "silu": [np.inf, np.nan, np.nan, 0.0, -0.0, -1 / (1 + np.e), 0.0],
        "gelu": [np.inf, np.nan, np.nan, 0.0, -0.0, -0.15865525393145705, 0.0],
    }
    for name, want in exact.items():
        got = FUNCS[name][0](mt.tensor(special)).numpy()
        want = np.array(want, dtype=np.float32)
        np.testing.assert_allclose(got, want, rtol=3e-7, atol=1.5e-45, equal_nan=True, err_msg=name)
        assert np.array_equal(np.signbit(got[3:5]), np.signbit(want[3:5])), name
    # gelu(tanh): u = sqrt(2/pi) (x + 0.044715 x^3) is rounded in float32
    # first (by torch too), so the reference is torch's float32 at its
    # test tolerance rather than a ulp bound
    y = F.gelu(mt.tensor(x), approximate="tanh").numpy()
    want = torch.nn.functional.gelu(torch.tensor(x), approximate="tanh").numpy()
    finite = np.isfinite(want)
    np.testing.assert_allclose(y[finite], want[finite], rtol=1.3e-6, atol=1e-5)
    # every tail length of the masked loop, contiguous and strided
    base = np.random.default_rng(3).standard_normal(80).astype(np.float32) * 3
    for name, (f, ref_f, max_ulp) in FUNCS.items():
        full = f(mt.tensor(base)).numpy()
        for n in range(1, 40):
            np.testing.assert_array_equal(f(mt.tensor(base[:n])).numpy(), full[:n], err_msg=name)
        strided = f(mt.tensor(base)[::3]).numpy()
        np.testing.assert_array_equal(strided, full[::3], err_msg=name)


def check_backward_rows():
    """Against torch's float64 rows. Torch's float64 gelu gradient loses its
    relative precision below x = -7 (1 + erf); the mpmath tail test in
    test_kernels_activations.py checks ours there."""
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.standard_normal(3001) * 4, [0.0, -0.0, 30.0, -30.0, 1e-40]])
    x = x.astype(np.float32)
    g = rng.standard_normal(x.size).astype(np.float32)
    rows = {
        "_gelu_backward": (lambda v: v, torch.ops.aten.gelu_backward),
        "_silu_backward": (lambda v: v, torch.ops.aten.silu_backward),
        "_tanh_backward": (torch.tanh, torch.ops.aten.tanh_backward),
        "_sigmoid_backward": (torch.sigmoid, torch.ops.aten.sigmoid_backward),
    }
    def close(got, want, gs, row):
        # the float32 rounding of the terms (gelu's Phi + x pdf cancels near
        # x = -0.75) as an absolute part scaled by the incoming gradient
        bad = np.abs(got - want) > 5e-6 * np.abs(want) + 2e-7 * np.abs(gs) + 1e-30
        assert not bad.any(), (row, got[bad][:5], want[bad][:5])

    for row, (make, aten) in rows.items():
        v = make(torch.tensor(x.astype(np.float64))).float()
        want = aten(torch.tensor(g, dtype=torch.float64), v.double()).numpy()
        for n in (x.size, 1, 15, 17, 33):
            got = getattr(mt, row)(mt.tensor(g[:n]), mt.tensor(v.numpy()[:n])).numpy()
            close(got, want[:n], g[:n], row)
        got = getattr(mt, row)(mt.tensor(g)[::2], mt.tensor(v.numpy())[::2]).numpy()
        close(got, want[::2], g[::2], row)
        # the saved tensor broadcast along rows (stride 0)
        gb = g[:5 * 33].reshape(5, 33)
        got = getattr(mt, row)(mt.tensor(gb), mt.tensor(v.numpy()[:33])).numpy()
        want = aten(torch.tensor(gb, dtype=torch.float64), v[:33].double().expand(5, 33)).numpy()
        close(got, want, gb, row)


def test_this_process_path():
    check_path()
    check_backward_rows()


def run_forced_8_lane(code, portable=False):
    env = dict(os.environ, MINITORCH_NO_AVX512="1")
    if portable:
        env["MINITORCH_NO_AVX2"] = "1"
    # the same minitorch as this process's, and this file as a module
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(mt.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg_root, HERE] + env.get("PYTHONPATH", "").split(os.pathsep))
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=HERE,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("portable", [False, True], ids=["avx2-gelu", "portable-gelu"])
def test_8_lane_path_in_a_subprocess(portable):
    r = run_forced_8_lane("import test_vmath16 as t; t.check_path(%s); t.check_backward_rows()"
                          % portable, portable)
    assert r.returncode == 0, r.stderr[-3000:]


def cpu_has(*flags):
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
    except OSError:
        return False
    return all(" %s" % flag in text for flag in flags)


RANGE = np.linspace(-20, 20, 4001, dtype=np.float32)


def values_in_child(fn, portable):
    """fn's float32 results on RANGE in a forced 8-lane subprocess."""
    r = run_forced_8_lane(
        "import numpy as np, minitorch as mt, sys\n"
        "x = np.linspace(-20, 20, 4001, dtype=np.float32)\n"
        "sys.stdout.write(%s(mt.tensor(x)).numpy().tobytes().hex())\n" % fn, portable)
    assert r.returncode == 0, r.stderr[-3000:]
    return np.frombuffer(bytes.fromhex(r.stdout), dtype=np.float32)


@pytest.mark.skipif(not cpu_has("avx512f", "avx512dq"),
                    reason="the two paths are the same without AVX-512")
def test_the_knob_selects_the_other_path():
    """The paths use different polynomials: some results differ in the last
    bits, which shows the subprocess really ran the 8-lane code."""
    here, there = mt.exp(mt.tensor(RANGE)).numpy(), values_in_child("mt.exp", False)
    assert there.shape == here.shape
    assert np.any(there != here)
    np.testing.assert_allclose(there, here, rtol=3e-7)


@pytest.mark.skipif(not cpu_has("avx2", "fma"), reason="no AVX2 gelu without AVX2 + FMA")
def test_the_avx2_knob_selects_the_portable_gelu():
    avx2 = values_in_child("mt.nn.functional.gelu", False)
    portable = values_in_child("mt.nn.functional.gelu", True)
    assert np.any(avx2 != portable)
    # within the portable form's 64 ulp (MAX_ULP_PORTABLE)
    np.testing.assert_allclose(portable, avx2, rtol=8e-6, atol=1e-37)
