/* The normal CDF and density on 8 floats with AVX2 + FMA intrinsics: gelu's
 * float32 path on x86-64 machines that have AVX2 but not AVX-512 (or with
 * MINITORCH_NO_AVX512=1), by vmath16.h's method, where vmath.h's portable
 * form (a log-erfc fit with a scalar pass for the far tail, no guaranteed
 * fused multiply-add) took 2.6 times as long as torch's AVX2 gelu.
 *
 * Use: only where MT_HAVE_X86_DISPATCH (core/portable.h) is defined, from
 * functions marked MT_TARGET_AVX2_FMA that run only when
 * mt_cpu_has_avx2_fma(); values go by value between functions of that one
 * ISA. The API:
 *
 *   mt_vphi_pdf8x(x, &d)  Phi(x), with relative precision in the negative
 *                         tail down to the denormals; d the normal density.
 *
 * What differs from the 16-lane form: vpermps reaches 8 entries, so exp
 * reduces to eighths of ln 2 (a quartic for the rest); 2^n is two exponent
 * factors, so results in the denormal range are rounded once; 1/(1 + 0.38a)
 * is a division (no 14-bit reciprocal estimate); lanes are chosen by sign
 * with vblendvps. */
#ifndef MT_KERNELS_SIMD_VMATH_AVX2_H
#define MT_KERNELS_SIMD_VMATH_AVX2_H

#include "../../core/portable.h"
#include "erfc_fit.h"

#ifdef MT_HAVE_X86_DISPATCH
#include <immintrin.h>

#define MT_VX static inline __attribute__((always_inline)) MT_TARGET_AVX2_FMA
#define MT_CX(c) _mm256_set1_ps(c)

/* Adding it to a float below 2^19 in magnitude rounds to eighths, whose
 * count mod 8 is then the sum's low three bits */
#define MT_EXP8X_ROUND 1572864.0f /* 1.5 2^20 */

/* 2^n for integral n in [-152, 0] as two normal factors */
MT_VX __m256 mt_vscale8x(__m256 v, __m256i n)
{
    __m256i n1 = _mm256_srai_epi32(n, 1);
    __m256 f1 =
        _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, _mm256_set1_epi32(127)), 23));
    __m256 f2 = _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(n, n1), _mm256_set1_epi32(127)), 23));
    return _mm256_mul_ps(_mm256_mul_ps(v, f1), f2);
}

/* exp(-s2 x^2) for x in [0, 10.25 / s] or NaN, s2 = s^2 = 1 or 1/2: x^2 +
 * nf ln2 / s2 in one fma (nf in eighths; erfc_fit.h's ln 2 split), 2^(j/8) as T (1 + d) from two tables,
 * T + T q with q = expm1(-s2 rho) + d (a quartic, error 2e-10), and 2^n. */
MT_VX __m256 mt_vexp_negsq8x(__m256 x, float s2)
{
    const __m256 t8 = _mm256_setr_ps(1.0f, 1.0905077457427979f, 1.1892070770263672f,
                                     1.2968395948410034f, 1.4142135381698608f, 1.5422108173370361f,
                                     1.6817928552627563f, 1.8340080976486206f);
    const __m256 d8 =
        _mm256_setr_ps(0.0f, -1.199215748926008e-08f, 3.1934181521364735e-08f,
                       -3.0990719324108795e-08f, 1.7114270889351246e-08f, 5.233334210430485e-09f,
                       -1.4719605090363075e-08f, -6.128259677495862e-09f);
    const float c = -s2;
    __m256 sq = _mm256_mul_ps(x, x);
    __m256 kk = _mm256_fmadd_ps(sq, MT_CX(-s2 * 1.44269504088896341f), MT_CX(MT_EXP8X_ROUND));
    __m256 nf = _mm256_sub_ps(kk, MT_CX(MT_EXP8X_ROUND));
    __m256 rho = _mm256_fmadd_ps(x, x, _mm256_mul_ps(nf, MT_CX(MT_LN2_HI / s2)));
    rho = _mm256_fmadd_ps(nf, MT_CX(MT_LN2_LO / s2), rho);
    __m256i j = _mm256_castps_si256(kk);
    __m256 p = MT_CX(0.0416705496609211f * c * c * c * c);
    p = _mm256_fmadd_ps(p, rho, MT_CX(0.16668058931827545f * c * c * c));
    p = _mm256_fmadd_ps(p, rho, MT_CX(0.5f * c * c));
    p = _mm256_fmadd_ps(p, rho, MT_CX(c));
    __m256 q = _mm256_fmadd_ps(p, rho, _mm256_permutevar8x32_ps(d8, j));
    __m256 t = _mm256_permutevar8x32_ps(t8, j);
    __m256i n =
        _mm256_srai_epi32(_mm256_sub_epi32(j, _mm256_castps_si256(MT_CX(MT_EXP8X_ROUND))), 3);
    __m256 y = _mm256_fmadd_ps(t, q, t);
    __m256i low = _mm256_cmpgt_epi32(_mm256_set1_epi32(-126), n);
    if (_mm256_testz_si256(low, low))
        return _mm256_castsi256_ps(
            _mm256_add_epi32(_mm256_castps_si256(y), _mm256_slli_epi32(n, 23)));
    return mt_vscale8x(y, n);
}

/* Phi(x) = erfc(-x / sqrt 2) / 2 from h = erfc(|x| / sqrt 2) / 2 = t R(t)
 * exp(-x^2 / 2) by erfc_fit.h's form (R halved here): h below 0, 1 - h
 * elsewhere; NaN in gives NaN. */
MT_VX __m256 mt_vphi_pdf8x(__m256 x, __m256 *pdf)
{
    const float s = 0.70710678118654752440f;
    __m256 ax = _mm256_andnot_ps(MT_CX(-0.0f), x);
    __m256 xc = _mm256_min_ps(MT_CX(10.25f / s), ax);
    __m256 t = _mm256_div_ps(MT_CX(1.0f), _mm256_fmadd_ps(xc, MT_CX(MT_ERFC_P * s), MT_CX(1.0f)));
    __m256 r = MT_CX(MT_ERFC_R8 * 0.5f);
    r = _mm256_fmadd_ps(r, t, MT_CX(MT_ERFC_R7 * 0.5f));
    r = _mm256_fmadd_ps(r, t, MT_CX(MT_ERFC_R6 * 0.5f));
    r = _mm256_fmadd_ps(r, t, MT_CX(MT_ERFC_R5 * 0.5f));
    r = _mm256_fmadd_ps(r, t, MT_CX(MT_ERFC_R4 * 0.5f));
    r = _mm256_fmadd_ps(r, t, MT_CX(MT_ERFC_R3 * 0.5f));
    r = _mm256_fmadd_ps(r, t, MT_CX(MT_ERFC_R2 * 0.5f));
    r = _mm256_fmadd_ps(r, t, MT_CX(MT_ERFC_R1 * 0.5f));
    r = _mm256_fmadd_ps(r, t, MT_CX(MT_ERFC_R0 * 0.5f));
    __m256 e = mt_vexp_negsq8x(xc, 0.5f);
    *pdf = _mm256_mul_ps(e, MT_CX(0.39894228040143267794f));
    __m256 h = _mm256_mul_ps(_mm256_mul_ps(t, r), e);
    return _mm256_blendv_ps(_mm256_sub_ps(MT_CX(1.0f), h), h, x);
}

#endif
#endif
