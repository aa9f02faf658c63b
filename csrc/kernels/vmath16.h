/* Vector elementary functions on 16 floats (AVX-512F+DQ), the fast path of
 * the float32 kernels on machines that have it; vmath.h's 8-lane forms are
 * the path everywhere else and give the same results to a few ulp.
 *
 * Use: only where MT_HAVE_AVX512 (core/portable.h) is defined, from
 * functions marked MT_TARGET_AVX512 that run only when mt_use_avx512() is
 * true. The helpers take and return __m512 by value: caller and callee are
 * compiled for the same ISA, so clang's cross-ISA vector ABI check (see MT_VAT
 * in vmath.h) does not apply. The API, kept stable for the kernels using it:
 *
 *   mt_vexp16(x)          exp, about 1 ulp; NaN in gives NaN, overflow +inf,
 *                         results kept down to the denormals, 0 below them.
 *   mt_vexp_nonpos16(x)   the same for x <= 0 or NaN only (one clamp fewer).
 *   mt_vlog16(x)          log, about 1 ulp; log(0) = -inf, log(x < 0) = NaN,
 *                         log(+inf) = +inf, denormals exact.
 *   mt_vsigmoid16(x)      1 / (1 + exp(-x)), tiny results to the denormals.
 *   mt_vtanh16(x)         tanh.
 *
 * Where they are cheaper than the 8-lane forms: exp scales by 2^n with one
 * vscalefps (which also rounds results in the denormal range and overflows
 * to inf), a reciprocal is vrcp14ps plus a Newton step instead of a
 * division, lanes are chosen with mask registers, and special inputs are
 * fixed with vfixupimmps. */
#ifndef MT_KERNELS_VMATH16_H
#define MT_KERNELS_VMATH16_H

#include "../core/portable.h"

#ifdef MT_HAVE_AVX512
#include <immintrin.h>

#define MT_V16 static inline __attribute__((always_inline)) MT_TARGET_AVX512
#define MT_C16(c) _mm512_set1_ps(c)

/* |x| and -|x| by the sign bit; NaN stays NaN */
MT_V16 __m512 mt_vabs16(__m512 x)
{
    return _mm512_castsi512_ps(
        _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff)));
}
MT_V16 __m512 mt_vnegabs16(__m512 x)
{
    return _mm512_castsi512_ps(
        _mm512_or_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u)));
}

/* 1 / d for d in [1, 2^64]: the 14-bit estimate and one Newton step, under
 * 1 ulp more than a division's rounding */
MT_V16 __m512 mt_vrcp16(__m512 d)
{
    __m512 r = _mm512_rcp14_ps(d);
    return _mm512_fmadd_ps(r, _mm512_fnmadd_ps(d, r, MT_C16(1.0f)), r);
}

/* exp(hi + lo) for hi + lo in [-104, 89] or NaN, |lo| small beside the
 * reduced argument: n = round((hi + lo) / ln 2), r = hi - n ln 2 + lo exactly
 * enough (ln 2 in two parts; the first product is exact, so is hi - n ln2hi),
 * a degree-6 fit of exp on [-ln2/2, ln2/2] (relative error 2e-8), and
 * 2^n by vscalefps, which rounds once however small the result. */
MT_V16 __m512 mt_vexp2part16(__m512 hi, __m512 lo)
{
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(_mm512_add_ps(hi, lo),
                                                  MT_C16(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, MT_C16(0.693147182464599609375f), hi);
    r = _mm512_add_ps(r, lo);
    r = _mm512_fnmadd_ps(n, MT_C16(-1.904654299957768e-09f), r);
    __m512 p = MT_C16(0.001385929062962532f);
    p = _mm512_fmadd_ps(p, r, MT_C16(0.008374763652682304f));
    p = _mm512_fmadd_ps(p, r, MT_C16(0.04166772589087486f));
    p = _mm512_fmadd_ps(p, r, MT_C16(0.1666642129421234f));
    p = _mm512_fmadd_ps(p, r, MT_C16(0.4999999403953552f));
    p = _mm512_fmadd_ps(p, r, MT_C16(1.0f));
    p = _mm512_fmadd_ps(p, r, MT_C16(1.0f));
    return _mm512_scalef_ps(p, n);
}

MT_V16 __m512 mt_vexp_core16(__m512 xc)
{
    return mt_vexp2part16(xc, _mm512_setzero_ps());
}

/* The clamps keep the reduction finite: below -104 every result rounds to
 * 0, above 89 to inf (scalef overflows). max/min return their second operand
 * when either is NaN, so x goes second and a NaN passes. */
MT_V16 __m512 mt_vexp16(__m512 x)
{
    __m512 xc = _mm512_min_ps(MT_C16(89.0f), _mm512_max_ps(MT_C16(-104.0f), x));
    return mt_vexp_core16(xc);
}

MT_V16 __m512 mt_vexp_nonpos16(__m512 x)
{
    return mt_vexp_core16(_mm512_max_ps(MT_C16(-104.0f), x));
}

/* log: x = m 2^e with m in [sqrt(1/2), sqrt(2)) by vgetmantps/vgetexpps
 * (denormals included), log(m) by vmath.h's polynomial in m - 1, and
 * 0, negatives, infinities and NaN fixed by their class at the end. */
MT_V16 __m512 mt_vlog16(__m512 x)
{
    __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);
    __m512 e = _mm512_getexp_ps(x);
    __mmask16 big = _mm512_cmp_ps_mask(m, MT_C16(1.41421356237309505f), _CMP_GT_OQ);
    m = _mm512_mask_mul_ps(m, big, m, MT_C16(0.5f));
    e = _mm512_mask_add_ps(e, big, e, MT_C16(1.0f));
    m = _mm512_sub_ps(m, MT_C16(1.0f));
    __m512 z = _mm512_mul_ps(m, m);
    __m512 y = MT_C16(7.0376836292e-2f);
    y = _mm512_fmadd_ps(y, m, MT_C16(-1.1514610310e-1f));
    y = _mm512_fmadd_ps(y, m, MT_C16(1.1676998740e-1f));
    y = _mm512_fmadd_ps(y, m, MT_C16(-1.2420140846e-1f));
    y = _mm512_fmadd_ps(y, m, MT_C16(1.4249322787e-1f));
    y = _mm512_fmadd_ps(y, m, MT_C16(-1.6668057665e-1f));
    y = _mm512_fmadd_ps(y, m, MT_C16(2.0000714765e-1f));
    y = _mm512_fmadd_ps(y, m, MT_C16(-2.4999993993e-1f));
    y = _mm512_fmadd_ps(y, m, MT_C16(3.3333331174e-1f));
    y = _mm512_mul_ps(_mm512_mul_ps(y, m), z);
    y = _mm512_fmadd_ps(e, MT_C16(-2.12194440e-4f), y);
    y = _mm512_fnmadd_ps(MT_C16(0.5f), z, y);
    __m512 r = _mm512_add_ps(m, y);
    r = _mm512_fmadd_ps(e, MT_C16(0.693359375f), r);
    /* by class of x, nibble j: NaN -> NaN(x) (j 0, 1), 0 -> -inf, 1 -> +0,
     * -inf -> NaN, +inf -> +inf, negative -> NaN, positive -> r */
    return _mm512_fixupimm_ps(r, x, _mm512_set1_epi32(0x03538422), 0);
}

/* From e = exp(-|x|), which never overflows: 1/(1+e) for x >= 0, e/(1+e)
 * below, so tiny results keep their precision down to the denormals. */
MT_V16 __m512 mt_vsigmoid16(__m512 x)
{
    __m512 e = mt_vexp_nonpos16(mt_vnegabs16(x));
    __m512 r = mt_vrcp16(_mm512_add_ps(e, MT_C16(1.0f)));
    __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
    return _mm512_mask_mul_ps(r, neg, e, r);
}

/* tanh |x| = 1 - 2e/(1+e) with e = exp(-2|x|) <= 1 (no overflow), the sign
 * put back; below |x| = 0.625 vmath.h's odd polynomial. */
MT_V16 __m512 mt_vtanh16(__m512 x)
{
    __m512 a = mt_vabs16(x);
    __m512 e = mt_vexp_nonpos16(_mm512_mul_ps(a, MT_C16(-2.0f)));
    __m512 r = mt_vrcp16(_mm512_add_ps(e, MT_C16(1.0f)));
    __m512 big = _mm512_fnmadd_ps(_mm512_add_ps(e, e), r, MT_C16(1.0f));
    /* big >= 0 (or NaN): or-ing in x's sign bit gives the sign of tanh x */
    big = _mm512_castsi512_ps(_mm512_or_si512(
        _mm512_castps_si512(big),
        _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u))));
    __m512 z = _mm512_mul_ps(x, x);
    __m512 p = MT_C16(-5.70498872745e-3f);
    p = _mm512_fmadd_ps(p, z, MT_C16(2.06390887954e-2f));
    p = _mm512_fmadd_ps(p, z, MT_C16(-5.37397155531e-2f));
    p = _mm512_fmadd_ps(p, z, MT_C16(1.33314422036e-1f));
    p = _mm512_fmadd_ps(p, z, MT_C16(-3.33332819422e-1f));
    p = _mm512_fmadd_ps(_mm512_mul_ps(p, z), x, x);
    __mmask16 small = _mm512_cmp_ps_mask(a, MT_C16(0.625f), _CMP_LT_OQ);
    return _mm512_mask_mov_ps(big, small, p);
}

#endif
#endif
