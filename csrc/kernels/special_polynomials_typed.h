/* The body of special_polynomials.h, written once over the type MT_T and
 * included once per type (torch evaluates the polynomials in the input's
 * own type, float for float32): the includer defines MT_T, MT_FN(name) and
 * MT_M(fn) as for special_bessel_typed.h. Each recurrence step a p - b q is
 * one fma(a, p, -(b q)), the contraction torch's build makes of it, so the
 * rounding (which high orders amplify) is torch's. No include guard. */

static inline int64_t MT_FN(mt_poly_order)(MT_T n)
{
    return n == n && MT_M(fabs)(n) < (MT_T)9.2e18 ? (int64_t)n : -1;
}

/* p_n of the recurrence p_{k+1} = 2 t p_k - p_{k-1} from p_0 = 1, p_1 = q1 */
static inline MT_T MT_FN(mt_chebyshev_recur)(MT_T t, MT_T q1, int64_t n)
{
    if (n == 0)
        return 1;
    MT_T p = 1, q = q1;
    for (int64_t k = 2; k <= n && q == q; k++) {
        MT_T r = MT_M(fma)(t + t, q, -p);
        p = q;
        q = r;
    }
    return q;
}

/* kind 0..3: T, U, V, W at t; ends: their values at t = 1 and t = -1 */
static inline MT_T MT_FN(mt_chebyshev_at)(int kind, MT_T t, int64_t n, int64_t big)
{
    MT_T nn = (MT_T)n;
    if (MT_M(fabs)(t) < 1 && n > big) {
        MT_T th = MT_M(acos)(t);
        switch (kind) {
        case 0:
            return MT_M(cos)(nn * th);
        case 1:
            return MT_M(sin)(th) != 0 ? MT_M(sin)((nn + 1) * th) / MT_M(sin)(th)
                                      : (nn + 1) * MT_M(cos)((nn + 1) * th) / t;
        case 2:
            if (MT_M(sin)(th / 2) != 1)
                return MT_M(cos)((nn + (MT_T)0.5) * th) / MT_M(cos)(th / 2);
            return n % 2 == 0 ? nn + nn + 1 : -(nn + nn + 1);
        default:
            if (MT_M(cos)(th / 2) != 1)
                return MT_M(sin)((nn + (MT_T)0.5) * th) / MT_M(sin)(th / 2);
            return t > 0 ? nn + nn + 1 : n % 2 == 0 ? 1 : -1;
        }
    }
    static const int first[4][2] = {{1, 0}, {2, 0}, {2, -1}, {2, 1}};
    return MT_FN(mt_chebyshev_recur)(t, (MT_T)first[kind][0] * t + (MT_T)first[kind][1], n);
}

/* Chebyshev of kind 0..3 (T, U, V, W); shifted evaluates at 2x - 1, with
 * its ends at x = 1 and x = 0 */
static inline MT_T MT_FN(mt_chebyshev)(int kind, int shifted, MT_T x, MT_T order)
{
    int64_t n = MT_FN(mt_poly_order)(order);
    if (n < 0)
        return 0;
    MT_T nn = (MT_T)n;
    int at_one = shifted ? x == 1 : x == 1, at_minus = shifted ? x == 0 : x == -1;
    if (at_one)
        return kind == 0 || kind == 2 ? 1 : kind == 1 ? nn + 1 : nn + nn + 1;
    if (at_minus) {
        int even = n % 2 == 0;
        MT_T mag = kind == 0 || kind == 3 ? 1 : kind == 1 ? nn + 1 : nn + nn + 1;
        return even ? mag : -mag;
    }
    static const int64_t big[2][4] = {{6, 8, 8, 8}, {6, 6, 6, 4}};
    MT_T t = shifted ? x + x - 1 : x;
    return MT_FN(mt_chebyshev_at)(kind, t, n, big[shifted][kind]);
}

/* Hermite H (probabilists' He with prob): NaN past order 128 in float and
 * 512 in double, as torch's kernels */
static inline MT_T MT_FN(mt_hermite)(int prob, MT_T x, MT_T order)
{
    int64_t n = MT_FN(mt_poly_order)(order);
    if (n < 0)
        return 0;
    if (n == 0)
        return 1;
    if (n == 1)
        return prob ? x : x + x;
    if (n > (sizeof(MT_T) == sizeof(float) ? 128 : 512))
        return NAN;
    /* H_{k+1} = 2x H_k - 2k H_{k-1}, He_{k+1} = x He_k - k He_{k-1}, each
     * rounded in torch's order */
    MT_T p = 1, q = prob ? x : x + x;
    for (int64_t k = 1; k < n; k++) {
        MT_T r = prob ? MT_M(fma)(x, q, -((MT_T)k * p)) : MT_M(fma)(x + x, q, -((MT_T)(k + k) * p));
        p = q;
        q = r;
    }
    return q;
}

static inline MT_T MT_FN(mt_laguerre)(MT_T x, MT_T order)
{
    int64_t n = MT_FN(mt_poly_order)(order);
    if (n < 0)
        return 0;
    if (x == 0 || n == 0)
        return 1;
    if (n > MT_POLY_MAX_RECURRENCE)
        return NAN;
    MT_T p = 1, q = 1 - x;
    for (int64_t k = 1; k < n && q == q; k++) {
        MT_T r = MT_M(fma)((MT_T)(k + k) + (1 - x), q, -((MT_T)k * p)) / (MT_T)(k + 1);
        p = q;
        q = r;
    }
    return q;
}

static inline MT_T MT_FN(mt_legendre)(MT_T x, MT_T order)
{
    int64_t n = MT_FN(mt_poly_order)(order);
    if (n < 0)
        return 0;
    if (n > MT_POLY_MAX_RECURRENCE && MT_M(fabs)(x) != 1)
        return NAN;
    if (MT_M(fabs)(x) == 1)
        return x > 0 || n % 2 == 0 ? 1 : -1;
    if (n == 0)
        return 1;
    MT_T p = 1, q = x;
    for (int64_t k = 1; k < n && q == q; k++) {
        MT_T r = MT_M(fma)((MT_T)(k + k + 1) * x, q, -((MT_T)k * p)) / (MT_T)(k + 1);
        p = q;
        q = r;
    }
    return q;
}
