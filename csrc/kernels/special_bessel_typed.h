/* The body of special_bessel.h's Airy and Bessel functions, written once
 * over the type MT_T and included once per type: torch evaluates them in
 * the input's own type (float for float32), so ours run the same steps in
 * the same type and round alike. The includer defines MT_T, MT_FN(name)
 * (the function's name for the type), MT_M(fn) (libm's fn for the type)
 * and MT_EPSILON; the coefficient tables are special_bessel.h's, in double,
 * each coefficient rounded to MT_T where it is used as torch's tables of T
 * round them. A product followed by a sum is one fma, the contraction
 * torch's build makes of it. No include guard: it is meant to be included
 * twice. */

/* c[0] z^(n-1) + ... + c[n-1], by Horner's rule, as torch's loops run it */
static inline MT_T MT_FN(mt_horner)(const double *c, int n, MT_T z)
{
    MT_T r = 0;
    for (int i = 0; i < n; i++)
        r = MT_M(fma)(r, z, (MT_T)c[i]);
    return r;
}

/* Ai as torch computes it (Cephes' airy, evaluated the way ATen's Math.h
 * evaluates it, so results agree to rounding): below -(MT_T)2.09 the modulus and
 * phase rationals in 1/zeta; from (MT_T)2.09 the rational in 1/zeta times
 * e^-zeta, taken alone past (MT_T)8.3203353; elsewhere the Maclaurin series of
 * the two solutions f and g. NaN at the infinities, 0 past (MT_T)103.892. */
static inline MT_T MT_FN(mt_airy_ai)(MT_T x)
{
    const MT_T inv_sqrt_pi = (MT_T)5.64189583547756286948e-01;
    if (isinf(x))
        return NAN;
    if (x > (MT_T)103.892)
        return 0;
    if (x < -(MT_T)2.09) {
        MT_T zeta = -(MT_T)2.0 * x * MT_M(sqrt)(-x) / (MT_T)3.0, z = (MT_T)1.0 / zeta, zz = z * z;
        MT_T modulus = (MT_T)1.0 + zz * MT_FN(mt_horner)(mt_airy_afn, 9, zz) /
                                       MT_FN(mt_horner)(mt_airy_afd, 9, zz);
        MT_T phase =
            z * MT_FN(mt_horner)(mt_airy_agn, 11, zz) / MT_FN(mt_horner)(mt_airy_agd, 10, zz);
        MT_T t = zeta + (MT_T)0.25 * (MT_T)MT_SPECIAL_PI;
        return inv_sqrt_pi / MT_M(sqrt)(MT_M(sqrt)(-x)) *
               MT_M(fma)(MT_M(sin)(t), modulus, -(MT_M(cos)(t) * phase));
    }
    MT_T ai = 0;
    if (x >= (MT_T)2.09) {
        MT_T zeta = (MT_T)2.0 * x * MT_M(sqrt)(x) / (MT_T)3.0;
        ai = inv_sqrt_pi *
             (MT_FN(mt_horner)(mt_airy_an, 8, (MT_T)1.0 / zeta) /
              MT_FN(mt_horner)(mt_airy_ad, 8, (MT_T)1.0 / zeta)) /
             ((MT_T)2.0 * MT_M(sqrt)(MT_M(sqrt)(x)) * MT_M(exp)(zeta));
        if (x > (MT_T)8.3203353)
            return ai;
    }
    MT_T f = 1, g = x, k = 1, m = 1, n = x, t = 1, z = x * x * x;
    while (t > MT_EPSILON) {
        m *= z;
        k += 1;
        m /= k;
        n *= z;
        k += 1;
        n /= k;
        m /= k;
        f += m;
        k += 1;
        n /= k;
        g += n;
        t = MT_M(fabs)(m / f);
    }
    return x >= (MT_T)2.09
               ? ai
               : MT_M(fma)((MT_T)0.355028053887817239260, f, -((MT_T)0.258819403792806798405 * g));
}

/* J0, J1, Y0, Y1 as torch computes them (Cephes' j0, j1, y0, y1 with the
 * rationals evaluated as ATen's Math.h evaluates them): below 5 a rational
 * in x^2 (with the log term for Y), above it the asymptotic amplitude and
 * phase rationals in 25 / x^(MT_T)2. NaN at the infinities; Y is -inf at 0 and
 * NaN below. */
/* the asymptotic form above 5: amplitude P / phase Q in z, combined with
 * the cosine (J) or the sine (Y) of x - shift */
static inline MT_T MT_FN(mt_bessel_asymptotic)(int order, int second, MT_T x, MT_T z)
{
    const double *pp = order ? mt_j1_pp : mt_j0_pp, *pq = order ? mt_j1_pq : mt_j0_pq;
    const double *qp = order ? mt_j1_qp : mt_j0_qp, *qq = order ? mt_j1_qq : mt_j0_qq;
    MT_T p = MT_FN(mt_horner)(pp, 7, z) / MT_FN(mt_horner)(pq, 7, z);
    MT_T q = (MT_T)5.0 / x * (MT_FN(mt_horner)(qp, 8, z) / MT_FN(mt_horner)(qq, 7, z));
    MT_T s = x - (order ? (MT_T)2.356194490192344928846982537459627163
                        : (MT_T)0.785398163397448309615660845819875721);
    MT_T r = second ? MT_M(fma)(p, MT_M(sin)(s), q * MT_M(cos)(s))
                    : MT_M(fma)(p, MT_M(cos)(s), -(q * MT_M(sin)(s)));
    return r * (MT_T)0.797884560802865355879892119868763737 / MT_M(sqrt)(x);
}

static inline MT_T MT_FN(mt_bessel_j0)(MT_T x)
{
    x = MT_M(fabs)(x);
    if (isinf(x))
        return NAN;
    if (x <= (MT_T)5.0) {
        if (x < (MT_T)0.00001)
            return (MT_T)1.0 - x * x / (MT_T)4.0;
        MT_T z = x * x;
        return (z - (MT_T)5.78318596294678452118e+00) * (z - (MT_T)3.04712623436620863991e+01) *
               MT_FN(mt_horner)(mt_j0_rp, 4, z) / MT_FN(mt_horner)(mt_j0_rq, 8, z);
    }
    return MT_FN(mt_bessel_asymptotic)(0, 0, x, (MT_T)25.0 / (x * x));
}

static inline MT_T MT_FN(mt_bessel_j1)(MT_T x)
{
    if (x < 0)
        return -MT_FN(mt_bessel_j1)(-x);
    if (isinf(x))
        return NAN;
    if (x <= (MT_T)5.0) {
        MT_T z = x * x;
        return MT_FN(mt_horner)(mt_j1_rp, 4, z) / MT_FN(mt_horner)(mt_j1_rq, 8, z) * x *
               (z - (MT_T)1.46819706421238932572e+01) * (z - (MT_T)4.92184563216946036703e+01);
    }
    return MT_FN(mt_bessel_asymptotic)(1, 0, x, (MT_T)5.0 / x * ((MT_T)5.0 / x));
}

static inline MT_T MT_FN(mt_bessel_y0)(MT_T x)
{
    if (isinf(x))
        return NAN;
    if (x <= (MT_T)5.0) {
        if (x == 0)
            return -INFINITY;
        if (x < 0)
            return NAN;
        MT_T z = x * x;
        return MT_M(fma)((MT_T)0.636619772367581343075535053490057448 * MT_M(log)(x),
                         MT_FN(mt_bessel_j0)(x),
                         MT_FN(mt_horner)(mt_y0_yp, 8, z) / MT_FN(mt_horner)(mt_y0_yq, 7, z));
    }
    return MT_FN(mt_bessel_asymptotic)(0, 1, x, (MT_T)25.0 / (x * x));
}

static inline MT_T MT_FN(mt_bessel_y1)(MT_T x)
{
    if (isinf(x))
        return NAN;
    if (x <= (MT_T)5.0) {
        if (x == 0)
            return -INFINITY;
        if (x < 0)
            return NAN;
        MT_T z = x * x;
        MT_T logged = MT_M(fma)(MT_FN(mt_bessel_j1)(x), MT_M(log)(x), -((MT_T)1.0 / x));
        return MT_M(fma)(x, MT_FN(mt_horner)(mt_y1_yp, 6, z) / MT_FN(mt_horner)(mt_y1_yq, 8, z),
                         (MT_T)0.636619772367581343075535053490057448 * logged);
    }
    return MT_FN(mt_bessel_asymptotic)(1, 1, x, (MT_T)5.0 / x * ((MT_T)5.0 / x));
}
