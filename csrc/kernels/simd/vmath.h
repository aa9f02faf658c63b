/* Vector elementary functions on GCC vector types (8 floats, 4 doubles), for
 * kernels compiled with MT_CLONES_* (core/portable.h): the avx2 clone keeps a vector in one
 * register, the default clone splits it into SSE halves. Range reduction plus
 * a polynomial, accurate to about 1 ulp (Cephes coefficients; erf's float
 * ones fitted for this file, a few ulp), with IEEE
 * results at the edges: NaN in gives NaN, overflow gives inf, and results
 * down to the denormals are kept. On AVX-512 machines the float32 kernels
 * take vmath16.h's 16-lane forms instead; these stay the path everywhere
 * else. */
#ifndef MT_KERNELS_SIMD_VMATH_H
#define MT_KERNELS_SIMD_VMATH_H

#include <stdint.h>

/* The helpers are always inlined, so the vector-argument ABI never applies. */
#pragma GCC diagnostic ignored "-Wpsabi"

typedef float mt_v8f __attribute__((vector_size(32)));
typedef int32_t mt_v8i __attribute__((vector_size(32)));
typedef double mt_v4d __attribute__((vector_size(32)));
typedef int64_t mt_v4l __attribute__((vector_size(32)));

#define MT_VINLINE static inline __attribute__((always_inline))

/* mask ? a : b for masks of all-ones/all-zeros lanes (C has no vector ?:). */
MT_VINLINE mt_v8f mt_vsel8(mt_v8i m, mt_v8f a, mt_v8f b)
{
    return (mt_v8f)((m & (mt_v8i)a) | (~m & (mt_v8i)b));
}
MT_VINLINE mt_v4d mt_vsel4(mt_v4l m, mt_v4d a, mt_v4d b)
{
    return (mt_v4d)((m & (mt_v4l)a) | (~m & (mt_v4l)b));
}

/* Rounds to the nearest integer n (|n| < 2^21) by adding 1.5 * 2^mantissa-bits:
 * the sum's low bits then hold n, so the integer comes without a conversion. */
#define MT_MAGIC8 12582912.0f
#define MT_MAGIC4 6755399441055744.0
MT_VINLINE mt_v8f mt_vrint8(mt_v8f x, mt_v8i *n)
{
    mt_v8f t = x + MT_MAGIC8;
    *n = (mt_v8i)t - (mt_v8i)((mt_v8f){0} + MT_MAGIC8);
    return t - MT_MAGIC8;
}
MT_VINLINE mt_v4d mt_vrint4(mt_v4d x, mt_v4l *n)
{
    mt_v4d t = x + MT_MAGIC4;
    *n = (mt_v4l)t - (mt_v4l)((mt_v4d){0} + MT_MAGIC4);
    return t - MT_MAGIC4;
}

/* 2^n for integral n in [-126, 127] */
MT_VINLINE mt_v8f mt_vpow2i8(mt_v8i n) { return (mt_v8f)((n + 127) << 23); }
MT_VINLINE mt_v4d mt_vpow2i4(mt_v4l n) { return (mt_v4d)((n + 1023) << 52); }

/* exp(xc) for xc already in [lo, hi]: the shared core of the float exps */
MT_VINLINE mt_v8f mt_vexp_core8(mt_v8f xc)
{
    mt_v8i ni;
    mt_v8f n = mt_vrint8(xc * 1.44269504088896341f, &ni);
    /* r = x - n ln2 in two steps so r is exact enough */
    mt_v8f r = xc - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    mt_v8f p = (mt_v8f){0} + 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    /* 2^n as two factors, so results in the denormal range survive */
    mt_v8i n1 = ni >> 1;
    return p * mt_vpow2i8(n1) * mt_vpow2i8(ni - n1);
}

#define MT_VEXP8_LO (-103.97208f)

MT_VINLINE mt_v8f mt_vexp8(mt_v8f x)
{
    const mt_v8f hi = (mt_v8f){0} + 88.72283935546875f, lo = (mt_v8f){0} + MT_VEXP8_LO;
    mt_v8f p = mt_vexp_core8(mt_vsel8(x > hi, hi, mt_vsel8(x < lo, lo, x)));
    p = mt_vsel8(x > hi, (mt_v8f){0} + __builtin_inff(), p);
    p = mt_vsel8(x < lo, (mt_v8f){0}, p);
    return mt_vsel8(x != x, x, p);
}

/* exp for x <= 0 or NaN, as sigmoid needs: nothing overflows, and a NaN
 * passes through the core's arithmetic (a NaN lane stays NaN) */
MT_VINLINE mt_v8f mt_vexp_nonpos8(mt_v8f x)
{
    mt_v8i under = x < MT_VEXP8_LO;
    mt_v8f p = mt_vexp_core8(mt_vsel8(under, (mt_v8f){0} + MT_VEXP8_LO, x));
    return (mt_v8f)(~under & (mt_v8i)p);
}

MT_VINLINE mt_v4d mt_vexp4(mt_v4d x)
{
    const mt_v4d hi = (mt_v4d){0} + 709.782712893384, lo = (mt_v4d){0} - 745.2;
    mt_v4d xc = mt_vsel4(x > hi, hi, mt_vsel4(x < lo, lo, x));
    mt_v4l ni;
    mt_v4d n = mt_vrint4(xc * 1.4426950408889634, &ni);
    mt_v4d r = xc - n * 6.93145751953125e-1;
    r = r - n * 1.42860682030941723212e-6;
    /* Cephes exp: exp(r) = 1 + 2 r P(r^2) / (Q(r^2) - r P(r^2)) */
    mt_v4d rr = r * r;
    mt_v4d pp = (mt_v4d){0} + 1.26177193074810590878e-4;
    pp = pp * rr + 3.02994407707441961300e-2;
    pp = pp * rr + 9.99999999999999999910e-1;
    pp = pp * r;
    mt_v4d qq = (mt_v4d){0} + 3.00198505138664455042e-6;
    qq = qq * rr + 2.52448340349684104192e-3;
    qq = qq * rr + 2.27265548208155028766e-1;
    qq = qq * rr + 2.00000000000000000009e0;
    mt_v4d p = 1.0 + 2.0 * pp / (qq - pp);
    mt_v4l n1 = ni >> 1;
    p = p * mt_vpow2i4(n1) * mt_vpow2i4(ni - n1);
    p = mt_vsel4(x > hi, (mt_v4d){0} + __builtin_inf(), p);
    p = mt_vsel4(x < lo, (mt_v4d){0}, p);
    return mt_vsel4(x != x, x, p);
}

/* log: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) by a polynomial in m - 1. */
MT_VINLINE mt_v8f mt_vlog8(mt_v8f x)
{
    const mt_v8i tiny = x < 1.17549435e-38f; /* denormals are scaled up first */
    mt_v8f xs = mt_vsel8(tiny, x * 8388608.0f, x);
    mt_v8i bits = (mt_v8i)xs;
    mt_v8i e = ((bits >> 23) & 0xff) - 126 - (tiny & 23);
    mt_v8f m = (mt_v8f)((bits & 0x807fffff) | 0x3f000000); /* [0.5, 1) */
    mt_v8i small = m < 0.707106781186547524f;
    e = e + small; /* small lanes are -1 */
    m = m + (mt_v8f)(small & (mt_v8i)m) - 1.0f;
    mt_v8f ef = __builtin_convertvector(e, mt_v8f);
    mt_v8f z = m * m;
    mt_v8f y = (mt_v8f){0} + 7.0376836292e-2f;
    y = y * m - 1.1514610310e-1f;
    y = y * m + 1.1676998740e-1f;
    y = y * m - 1.2420140846e-1f;
    y = y * m + 1.4249322787e-1f;
    y = y * m - 1.6668057665e-1f;
    y = y * m + 2.0000714765e-1f;
    y = y * m - 2.4999993993e-1f;
    y = y * m + 3.3333331174e-1f;
    y = y * m * z;
    y = y + ef * -2.12194440e-4f;
    y = y - 0.5f * z;
    mt_v8f r = m + y + ef * 0.693359375f;
    r = mt_vsel8(x == __builtin_inff(), x, r);
    r = mt_vsel8(x == 0.0f, (mt_v8f){0} - __builtin_inff(), r);
    r = mt_vsel8(x < 0.0f, (mt_v8f){0} + __builtin_nanf(""), r);
    return mt_vsel8(x != x, x, r);
}

/* From e = exp(-|x|), which never overflows: 1/(1+e) for x >= 0, e/(1+e) below,
 * so tiny results keep their precision down to the denormals. */
MT_VINLINE mt_v8f mt_vsigmoid8(mt_v8f x)
{
    mt_v8i neg = x < 0.0f;
    mt_v8f e = mt_vexp_nonpos8((mt_v8f)((mt_v8i)x | INT32_MIN)); /* -|x| */
    mt_v8f r = 1.0f / (1.0f + e);
    return mt_vsel8(neg, e * r, r);
}

/* computed for |x| with x's sign bit or-ed in at the end: tanh(-0) = -0 */
MT_VINLINE mt_v8f mt_vtanh8(mt_v8f x)
{
    mt_v8f ax = (mt_v8f)((mt_v8i)x & INT32_MAX);
    mt_v8f big = 1.0f - 2.0f / (mt_vexp8(ax + ax) + 1.0f);
    mt_v8f z = x * x;
    mt_v8f p = (mt_v8f){0} - 5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    p = p * z * ax + ax;
    mt_v8f t = mt_vsel8(ax < 0.625f, p, big);
    return (mt_v8f)((mt_v8i)t | ((mt_v8i)x & INT32_MIN));
}

MT_VINLINE mt_v4d mt_vsigmoid4(mt_v4d x)
{
    mt_v4l neg = x < 0.0;
    mt_v4d e = mt_vexp4(mt_vsel4(neg, x, -x));
    mt_v4d r = 1.0 / (1.0 + e);
    return mt_vsel4(neg, e * r, r);
}

/* erf in two pieces: x P(x^2) below |x| = 1, and 1 - erfc(|x|) above, with
 * erfc = exp(q(|x|)) from a fit of log erfc on [1, 3.92] (beyond, erf rounds
 * to +-1). Coefficients fitted for this file: about 3 ulp below 1, 1 ulp of 1
 * above. *tail receives erfc(|x|) for |x| >= 1 (0 beyond 3.92), which the
 * normal CDF needs without the cancellation of 1 - erf. */
MT_VINLINE mt_v8f mt_verf_parts8(mt_v8f x, mt_v8f *tail)
{
    mt_v8f a = mt_vsel8(x < 0.0f, -x, x);
    mt_v8f z = x * x;
    mt_v8f p = (mt_v8f){0} + 7.890584674896672e-05f;
    p = p * z - 8.021255489438772e-04f;
    p = p * z + 5.189578980207443e-03f;
    p = p * z - 2.6854464784264565e-02f;
    p = p * z + 1.1283600330352783e-01f;
    p = p * z - 3.761262595653534e-01f;
    p = p * z + 1.1283791065216064f;
    mt_v8f small = x * p;
    mt_v8i far = a > 3.92f;
    mt_v8f t = mt_vsel8(far, (mt_v8f){0} + 3.92f, mt_vsel8(a < 1.0f, (mt_v8f){0} + 1.0f, a));
    mt_v8f q = (mt_v8f){0} + 1.6203305222006747e-06f;
    q = q * t - 4.569423253997229e-05f;
    q = q * t + 5.934665095992386e-04f;
    q = q * t - 4.742637276649475e-03f;
    q = q * t + 2.636910043656826e-02f;
    q = q * t - 1.099814921617508e-01f;
    q = q * t - 6.319384574890137e-01f;
    q = q * t - 1.1301629543304443f;
    q = q * t + 3.015885304193944e-04f;
    /* q lies in [-17, -1.8] (NaN for a NaN x): the exp core needs no clamps */
    mt_v8f c = mt_vexp_core8(q);
    c = mt_vsel8(far, (mt_v8f){0}, c);
    *tail = c;
    mt_v8f big = 1.0f - c;
    big = mt_vsel8(x < 0.0f, -big, big);
    return mt_vsel8(a < 1.0f, small, mt_vsel8(x != x, x, big));
}

MT_VINLINE mt_v8f mt_verf8(mt_v8f x)
{
    mt_v8f tail;
    return mt_verf_parts8(x, &tail);
}

/* erf in double with the Cephes rational forms: x T(x^2)/U(x^2) below 1,
 * 1 - exp(-x^2) P(|x|)/Q(|x|) up to 6, +-1 beyond (erfc(6) < 2^-55). */
MT_VINLINE mt_v4d mt_verf_parts4(mt_v4d x, mt_v4d *tail)
{
    mt_v4d a = mt_vsel4(x < 0.0, -x, x);
    mt_v4d z = x * x;
    mt_v4d t = (mt_v4d){0} + 9.60497373987051638749E0;
    t = t * z + 9.00260197203842689217E1;
    t = t * z + 2.23200534594684319226E3;
    t = t * z + 7.00332514112805075473E3;
    t = t * z + 5.55923013010394962768E4;
    mt_v4d u = z + 3.35617141647503099647E1;
    u = u * z + 5.21357949780152679795E2;
    u = u * z + 4.59432382970980127987E3;
    u = u * z + 2.26290000613890934246E4;
    u = u * z + 4.92673942608635921086E4;
    mt_v4d small = x * t / u;
    mt_v4l far = a > 6.0;
    mt_v4d b = mt_vsel4(far, (mt_v4d){0} + 6.0, mt_vsel4(a < 1.0, (mt_v4d){0} + 1.0, a));
    mt_v4d p = (mt_v4d){0} + 2.46196981473530512524E-10;
    p = p * b + 5.64189564831068821977E-1;
    p = p * b + 7.46321056442269912687E0;
    p = p * b + 4.86371970985681366614E1;
    p = p * b + 1.96520832956077098242E2;
    p = p * b + 5.26445194995477358631E2;
    p = p * b + 9.34528527171957607540E2;
    p = p * b + 1.02755188689515710272E3;
    p = p * b + 5.57535335369399327526E2;
    mt_v4d q = b + 1.32281951154744992508E1;
    q = q * b + 8.67072140885989742329E1;
    q = q * b + 3.54937778887819891062E2;
    q = q * b + 9.75708501743205489753E2;
    q = q * b + 1.82390916687909736289E3;
    q = q * b + 2.24633760818710981792E3;
    q = q * b + 1.65666309194161350182E3;
    q = q * b + 5.57535340817727675546E2;
    mt_v4d c = mt_vexp4(-(b * b)) * p / q;
    c = mt_vsel4(far, (mt_v4d){0}, c);
    *tail = c;
    mt_v4d big = 1.0 - c;
    big = mt_vsel4(x < 0.0, -big, big);
    return mt_vsel4(a < 1.0, small, mt_vsel4(x != x, x, big));
}

MT_VINLINE mt_v4d mt_verf4(mt_v4d x)
{
    mt_v4d tail;
    return mt_verf_parts4(x, &tail);
}

/* The standard normal CDF Phi(x) = (1 + erf(x / sqrt 2)) / 2; below
 * x = -sqrt 2 it is erfc / 2 itself, with its relative precision. Where that
 * erfc is past the fitted range (x < -5.5 in float, -8.4 in double) the lane
 * is left at 0 and *far flags it for the caller's exact scalar fix-up. */
MT_VINLINE mt_v8f mt_vphi8(mt_v8f x, mt_v8i *far)
{
    mt_v8f u = x * 0.70710678118654752440f, c;
    mt_v8f e = mt_verf_parts8(u, &c);
    *far = u < -3.92f;
    mt_v8f r = 0.5f + 0.5f * e;
    return mt_vsel8(u <= -1.0f, 0.5f * c, r);
}

MT_VINLINE mt_v4d mt_vphi4(mt_v4d x, mt_v4l *far)
{
    mt_v4d u = x * 0.70710678118654752440, c;
    mt_v4d e = mt_verf_parts4(u, &c);
    *far = u < -6.0;
    mt_v4d r = 0.5 + 0.5 * e;
    return mt_vsel4(u <= -1.0, 0.5 * c, r);
}

/* In-place forms, the ones to call from a loop compiled for another ISA
 * (MT_CLONES_*): clang checks a call's vector-argument ABI before inlining and
 * refuses a by-value vector passed between an AVX and a non-AVX function,
 * while a pointer crosses; after inlining the code is the same. */
#define MT_VAT(F, VT) \
    MT_VINLINE void F##_at(VT *x) { *x = F(*x); }
MT_VAT(mt_vexp8, mt_v8f)
MT_VAT(mt_vexp4, mt_v4d)
MT_VAT(mt_vexp_nonpos8, mt_v8f)
MT_VAT(mt_vlog8, mt_v8f)
MT_VAT(mt_vsigmoid8, mt_v8f)
MT_VAT(mt_vtanh8, mt_v8f)
MT_VAT(mt_vsigmoid4, mt_v4d)
MT_VAT(mt_verf8, mt_v8f)
MT_VAT(mt_verf4, mt_v4d)

#endif
