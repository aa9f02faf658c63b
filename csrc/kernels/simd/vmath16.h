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
 *   mt_verf16(x)          erf, a few ulp.
 *   mt_vphi16(x)          the standard normal CDF, with relative precision in
 *                         the negative tail down to the denormals.
 *   mt_vphi_pdf16(x, &d)  the same, and the normal density in d.
 *   mt_verfc_abs16(a, s2, k, &e0)  k erfc(a s) for a >= 0, s^2 = s2 = 1 or
 *                         1/2, k a constant; e0 = exp(-(a s)^2).
 *
 * Where they are cheaper than the 8-lane forms: exp reduces to sixteenths of
 * ln 2 and takes 2^(j/16) from register tables (a cubic where vmath.h has a
 * degree-7 polynomial), scales by 2^n with one vscalefps (which also rounds
 * results in the denormal range and overflows to inf), a reciprocal is
 * vrcp14ps plus a Newton step instead of a division, lanes are chosen with
 * mask registers, and special inputs are fixed with vfixupimmps. */
#ifndef MT_KERNELS_SIMD_VMATH16_H
#define MT_KERNELS_SIMD_VMATH16_H

#include "../../core/portable.h"
#include "erfc_fit.h"

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

/* Adding MT_EXP16_ROUND to a float below 2^18 in magnitude rounds it to
 * sixteenths, and the sum's low four bits are then its sixteenths mod 16 */
#define MT_EXP16_ROUND 786432.0f /* 1.5 2^19 */

/* exp(c rho) 2^nf, the last step of every exp here, for kk = nf +
 * MT_EXP16_ROUND as computed (nf in sixteenths, |nf| < 2^18) and |c rho| <=
 * ln2/32 (plus roundings). 2^(j/16) for nf's sixteenths j is T (1 + d),
 * both from 16-entry tables by vpermps: T is the float nearest, d its
 * relative error. Then exp(c rho) 2^(j/16) = T + T q with q = expm1(c rho)
 * + d to first order, expm1 a cubic fit (relative error 2e-9), so the result
 * is rounded once. 2^floor(nf) by vscalefps, which rounds once however small
 * the result. c is a compile-time constant, folded into the coefficients. */
MT_V16 __m512 mt_vexp_finish16(__m512 kk, __m512 nf, __m512 rho, float c)
{
    const __m512 t16 = _mm512_setr_ps(
        1.0f, 1.0442737340927124f, 1.0905077457427979f, 1.1387885808944702f, 1.1892070770263672f,
        1.2418577671051025f, 1.2968395948410034f, 1.3542555570602417f, 1.4142135381698608f,
        1.4768261909484863f, 1.5422108173370361f, 1.610490322113037f, 1.6817928552627563f,
        1.7562521696090698f, 1.8340080976486206f, 1.9152065515518188f);
    const __m512 d16 = _mm512_setr_ps(
        0.0f, 4.6285471455576044e-08f, -1.199215748926008e-08f, 4.7297824323777604e-08f,
        3.1934181521364735e-08f, 3.621057231839586e-08f, -3.0990719324108795e-08f,
        -7.475213337215791e-09f, 1.7114270889351246e-08f, -3.047683350132502e-08f,
        5.233334210430485e-09f, 6.10759176566944e-09f, -1.4719605090363075e-08f,
        -5.258795177098818e-09f, -6.128259677495862e-09f, 5.140609271592211e-09f);
    __m512i j = _mm512_castps_si512(kk);
    __m512 p = MT_C16(0.16666854918003082f * c * c * c);
    p = _mm512_fmadd_ps(p, rho, MT_C16(0.5000165700912476f * c * c));
    p = _mm512_fmadd_ps(p, rho, MT_C16(c));
    __m512 q = _mm512_fmadd_ps(p, rho, _mm512_permutexvar_ps(j, d16));
    __m512 t = _mm512_permutexvar_ps(j, t16);
    return _mm512_scalef_ps(_mm512_fmadd_ps(t, q, t), nf);
}

/* exp(x) for x in [-104, 89] or NaN: nf = x / ln 2 in sixteenths, r = x -
 * nf ln 2 exactly enough (the first product is exact, so is x - nf ln2hi,
 * a single rounding). */
MT_V16 __m512 mt_vexp_core16(__m512 x)
{
    __m512 kk = _mm512_fmadd_ps(x, MT_C16(1.44269504088896341f), MT_C16(MT_EXP16_ROUND));
    __m512 nf = _mm512_sub_ps(kk, MT_C16(MT_EXP16_ROUND));
    __m512 r = _mm512_fnmadd_ps(nf, MT_C16(MT_LN2_HI), x);
    r = _mm512_fnmadd_ps(nf, MT_C16(MT_LN2_LO), r);
    return mt_vexp_finish16(kk, nf, r, 1.0f);
}

/* exp(-s2 x^2) for x in [0, 10.25 / s] or NaN, s2 = s^2 = 1 or 1/2: the
 * reduction is taken from x^2 + nf ln2 / s2 in one fma, so x^2's rounding
 * never enters and the tail keeps its relative precision. */
MT_V16 __m512 mt_vexp_negsq16(__m512 x, float s2)
{
    __m512 sq = _mm512_mul_ps(x, x);
    __m512 kk = _mm512_fmadd_ps(sq, MT_C16(-s2 * 1.44269504088896341f), MT_C16(MT_EXP16_ROUND));
    __m512 nf = _mm512_sub_ps(kk, MT_C16(MT_EXP16_ROUND));
    __m512 rho = _mm512_fmadd_ps(x, x, _mm512_mul_ps(nf, MT_C16(MT_LN2_HI / s2)));
    rho = _mm512_fmadd_ps(nf, MT_C16(MT_LN2_LO / s2), rho);
    return mt_vexp_finish16(kk, nf, rho, -s2);
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

/* tanh |x| = 1 - 2e/(1+e) with e = exp(-2|x|) <= 1 (no overflow); below
 * |x| = 0.625 vmath.h's odd polynomial. Both are computed for |x| and x's
 * sign bit or-ed in at the end, so tanh(-0) = -0. */
MT_V16 __m512 mt_vtanh16(__m512 x)
{
    __m512 a = mt_vabs16(x);
    __m512 e = mt_vexp_nonpos16(_mm512_mul_ps(a, MT_C16(-2.0f)));
    __m512 r = mt_vrcp16(_mm512_add_ps(e, MT_C16(1.0f)));
    __m512 big = _mm512_fnmadd_ps(_mm512_add_ps(e, e), r, MT_C16(1.0f));
    __m512 z = _mm512_mul_ps(x, x);
    __m512 p = MT_C16(-5.70498872745e-3f);
    p = _mm512_fmadd_ps(p, z, MT_C16(2.06390887954e-2f));
    p = _mm512_fmadd_ps(p, z, MT_C16(-5.37397155531e-2f));
    p = _mm512_fmadd_ps(p, z, MT_C16(1.33314422036e-1f));
    p = _mm512_fmadd_ps(p, z, MT_C16(-3.33332819422e-1f));
    p = _mm512_fmadd_ps(_mm512_mul_ps(p, z), a, a);
    __mmask16 small = _mm512_cmp_ps_mask(a, MT_C16(0.625f), _CMP_LT_OQ);
    __m512 t = _mm512_mask_mov_ps(big, small, p);
    return _mm512_castsi512_ps(_mm512_or_si512(
        _mm512_castps_si512(t),
        _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u))));
}

/* scale erfc(a), a = |x| s for s^2 = 1 or 1/2 (exact), by erfc_fit.h's
 * form; scale, a compile-time constant, is folded into R's coefficients.
 * *e0 receives exp(-a^2), which gelu's derivative needs. NaN in gives NaN. */
MT_V16 __m512 mt_verfc_abs16(__m512 ax, float s2, float scale, __m512 *e0)
{
    const float s = s2 == 1.0f ? 1.0f : 0.70710678118654752440f;
    __m512 xc = _mm512_min_ps(MT_C16(10.25f / s), ax);
    __m512 t = mt_vrcp16(_mm512_fmadd_ps(xc, MT_C16(MT_ERFC_P * s), MT_C16(1.0f)));
    __m512 r = MT_C16(MT_ERFC_R8 * scale);
    r = _mm512_fmadd_ps(r, t, MT_C16(MT_ERFC_R7 * scale));
    r = _mm512_fmadd_ps(r, t, MT_C16(MT_ERFC_R6 * scale));
    r = _mm512_fmadd_ps(r, t, MT_C16(MT_ERFC_R5 * scale));
    r = _mm512_fmadd_ps(r, t, MT_C16(MT_ERFC_R4 * scale));
    r = _mm512_fmadd_ps(r, t, MT_C16(MT_ERFC_R3 * scale));
    r = _mm512_fmadd_ps(r, t, MT_C16(MT_ERFC_R2 * scale));
    r = _mm512_fmadd_ps(r, t, MT_C16(MT_ERFC_R1 * scale));
    r = _mm512_fmadd_ps(r, t, MT_C16(MT_ERFC_R0 * scale));
    __m512 e = mt_vexp_negsq16(xc, s2);
    *e0 = e;
    return _mm512_mul_ps(_mm512_mul_ps(t, r), e);
}

/* The standard normal CDF Phi(x) = erfc(-x / sqrt 2) / 2 from h = erfc(|x| /
 * sqrt 2) / 2: below 0 it is h itself, with its relative precision to the
 * denormals, 1 - h elsewhere (NaN included); *pdf receives the density
 * exp(-x^2 / 2) / sqrt(2 pi). */
MT_V16 __m512 mt_vphi_pdf16(__m512 x, __m512 *pdf)
{
    __m512 e0;
    __m512 h = mt_verfc_abs16(mt_vabs16(x), 0.5f, 0.5f, &e0);
    *pdf = _mm512_mul_ps(e0, MT_C16(0.39894228040143267794f));
    __mmask16 upper = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NLT_UQ);
    return _mm512_mask_sub_ps(h, upper, MT_C16(1.0f), h);
}

MT_V16 __m512 mt_vphi16(__m512 x)
{
    __m512 pdf;
    return mt_vphi_pdf16(x, &pdf);
}

/* erf: x P(x^2) below |x| = 1 (vmath.h's fit), sign(x) (1 - erfc|x|) above;
 * each piece only when some lane needs it. */
MT_V16 __m512 mt_verf16(__m512 x)
{
    __mmask16 small = _mm512_cmp_ps_mask(mt_vabs16(x), MT_C16(1.0f), _CMP_LT_OQ);
    __m512 r = x;
    if (small != 0xffff) {
        __m512 e0;
        __m512 big = _mm512_sub_ps(MT_C16(1.0f), mt_verfc_abs16(mt_vabs16(x), 1.0f, 1.0f, &e0));
        /* big >= 0 or NaN: x's sign bit or-ed in */
        r = _mm512_castsi512_ps(_mm512_or_si512(
            _mm512_castps_si512(big),
            _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u))));
    }
    if (small) {
        __m512 z = _mm512_mul_ps(x, x);
        __m512 p = MT_C16(7.890584674896672e-05f);
        p = _mm512_fmadd_ps(p, z, MT_C16(-8.021255489438772e-04f));
        p = _mm512_fmadd_ps(p, z, MT_C16(5.189578980207443e-03f));
        p = _mm512_fmadd_ps(p, z, MT_C16(-2.6854464784264565e-02f));
        p = _mm512_fmadd_ps(p, z, MT_C16(1.1283600330352783e-01f));
        p = _mm512_fmadd_ps(p, z, MT_C16(-3.761262595653534e-01f));
        p = _mm512_fmadd_ps(p, z, MT_C16(1.1283791065216064f));
        r = _mm512_mask_mul_ps(r, small, x, p);
    }
    return r;
}

#endif
#endif
