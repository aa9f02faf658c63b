"""What differs between builds (core/portable.h, core/half.h): float16
conversions give NumPy's bits (a float64 narrowed through float32, as
torch's Half is made from a float) whether the compiler has _Float16 or the
software conversion runs (the clang build in tools/ci_portability.sh takes the
latter), and minitorch.__config__.show() reports the build."""
import numpy as np

import minitorch as mt

ALL_HALF = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)


def same_halves(got, expected):
    got, expected = np.asarray(got, np.float16), np.asarray(expected, np.float16)
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint16), expected[~nan].view(np.uint16))


def test_every_half_widens_exactly():
    for dtype, np_dtype in ((mt.float32, np.float32), (mt.float64, np.float64)):
        got = mt.from_numpy(ALL_HALF.copy()).to(dtype).numpy()
        expected = ALL_HALF.astype(np_dtype)
        nan = np.isnan(expected)
        np.testing.assert_array_equal(np.isnan(got), nan)
        np.testing.assert_array_equal(got[~nan], expected[~nan])
        np.testing.assert_array_equal(np.signbit(got[~nan]), np.signbit(expected[~nan]))


def narrowing_inputs():
    """Every finite half, the midpoints between neighbours (ties round to even),
    a hair either side of them, the overflow and underflow edges, and random
    values over the whole exponent range."""
    finite = ALL_HALF[np.isfinite(ALL_HALF)].astype(np.float64)
    finite = np.unique(finite)
    mid = (finite[:-1] + finite[1:]) / 2
    edges = np.array([65504.0, 65519.99, 65520.0, 65536.0, 1e300, 2.0 ** -24, 2.0 ** -25,
                      2.0 ** -25 * 1.0000001, 2.0 ** -26, 2.0 ** -14 * (1 - 2.0 ** -11),
                      1e-300, 0.0, np.inf, np.nan])
    rng = np.random.default_rng(0)
    wide = rng.standard_normal(20000) * 2.0 ** rng.integers(-30, 20, 20000)
    values = np.concatenate([finite, mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf),
                             edges, wide])
    return np.concatenate([values, -values])


def test_narrowing_rounds_like_numpy():
    x = narrowing_inputs()
    with np.errstate(over="ignore"):
        for np_dtype in (np.float64, np.float32):
            src = x.astype(np_dtype)
            # torch rounds a float64 to float32 first: twice, where NumPy rounds once
            same_halves(mt.from_numpy(src).to(mt.float16).numpy(),
                        src.astype(np.float32).astype(np.float16))


def test_half_arithmetic_rounds_each_result():
    a = ALL_HALF[np.isfinite(ALL_HALF)][::7].copy()
    b = a[::-1].copy()
    with np.errstate(over="ignore", invalid="ignore"):
        expected = (a.astype(np.float32) * b.astype(np.float32)).astype(np.float16)
    same_halves((mt.from_numpy(a) * mt.from_numpy(b)).numpy(), expected)


def test_half_scalars():
    assert mt.tensor([1 / 3], dtype=mt.float16).item() == float(np.float16(1 / 3))
    assert mt.tensor(65519.99, dtype=mt.float16).item() == 65504.0
    assert mt.tensor(65520.0, dtype=mt.float16).item() == float("inf")


def test_show_config_reports_the_build():
    info = mt._C._build_info()
    assert set(info) == {"compiler", "simd_clones", "cpu_avx2_fma", "native_float16"}
    text = mt.__config__.show()
    assert text.startswith("minitorch built with:\n")
    assert f"  - {info['compiler'].strip()}\n" in text
    assert ("compiler _Float16" if info["native_float16"] else "software conversion") in text
    assert "  - BLAS: " in text
    assert f"  - threads: {mt.get_num_threads()}\n" in text
