/* Special functions of one real variable (and the incomplete gamma of two)
 * in double precision, for the pointwise kernels of pointwise.def and
 * pointwise_unary.def: digamma, trigamma, polygamma, the Hurwitz zeta
 * function, erfinv, the modified Bessel functions I0 and I1 and the
 * regularised incomplete gamma functions P and Q. Narrower float types
 * compute here in double and round once. Values at poles, at the edges of
 * the domains and for NaN follow torch's kernels (ATen's Math.h). */
#ifndef MT_KERNELS_SPECIAL_MATH_H
#define MT_KERNELS_SPECIAL_MATH_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#define MT_SPECIAL_PI 3.14159265358979323846
/* The form of fn for a kernel's lane: fn##f (computing in float, as torch
 * does for float32) where the lane is a float, fn (double) otherwise. */
#define MT_TYPED(lane, fn) _Generic((lane), float: fn##f, default: fn)
#define MT_SPECIAL_EPS 1.1102230246251565e-16

/* digamma: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then
 * the asymptotic series in 1/x^2 (Bernoulli numbers); the reflection
 * psi(x) = psi(1 - x) - pi / tan(pi x) for negative x, where the integers
 * are poles (NaN) and 0 gives an infinity of the sign opposite to its own */
static inline double mt_digamma(double x)
{
    if (x == 0)
        return copysign(INFINITY, -x);
    if (x < 0) {
        if (x == trunc(x))
            return NAN;
        return mt_digamma(1 - x) - MT_SPECIAL_PI / tan(MT_SPECIAL_PI * (x - trunc(x)));
    }
    double r = 0;
    while (x < 10) {
        r -= 1 / x;
        x += 1;
    }
    double y = 1 / (x * x);
    double s =
        y *
        (1.0 / 12 -
         y * (1.0 / 120 -
              y * (1.0 / 252 - y * (1.0 / 240 - y * (1.0 / 132 - y * (691.0 / 32760 - y / 12))))));
    return r + log(x) - 0.5 / x - s;
}

/* trigamma: the reflection pi^2 / sin^2(pi x) below 1/2, the recurrence
 * up to x >= 10, then the asymptotic series. With single, sin(pi x) is
 * taken in float as torch's float kernel does (its error dominates there). */
static inline double mt_trigamma(double x, int single)
{
    double sign = 1, r = 0;
    if (x < 0.5) {
        double sp = single ? (double)sinf((float)MT_SPECIAL_PI * (float)x) : sin(MT_SPECIAL_PI * x);
        sign = -1;
        r = -(MT_SPECIAL_PI * MT_SPECIAL_PI) / (sp * sp);
        x = 1 - x;
    }
    while (x < 10) {
        r += 1 / (x * x);
        x += 1;
    }
    double y = 1 / (x * x);
    r += (1 + 1 / (2 * x) +
          y * (1.0 / 6 - y * (1.0 / 30 - y * (1.0 / 42 - y * (1.0 / 30 - y * 5.0 / 66))))) /
         x;
    return sign * r;
}

/* The Hurwitz zeta function sum over k >= 0 of (k + q)^-s, s > 1: direct
 * terms until the base passes 9, then the Euler-Maclaurin tail, whose
 * Bernoulli terms have the divisors (2j)! / B_2j. A q at or below 0 is a
 * pole when an integer and undefined for a fractional s. */
static inline double mt_zeta(double s, double q)
{
    static const double divisors[12] = {
        12.0,
        -720.0,
        30240.0,
        -1209600.0,
        47900160.0,
        -1892437580.3183792,
        74724249600.0,
        -2950130727918.164,
        116467828143500.67,
        -4597978722407473.0,
        1.8152105401943546e+17,
        -7.166165256175667e+18,
    };
    if (s == 1)
        return INFINITY;
    if (s < 1)
        return NAN;
    if (q <= 0) {
        if (q == floor(q))
            return INFINITY;
        if (s != floor(s))
            return NAN;
    }
    double sum = pow(q, -s), a = q, b = 0;
    int i = 0;
    while (i < 9 || a <= 9) {
        i++;
        a += 1;
        b = pow(a, -s);
        sum += b;
        if (fabs(b / sum) < MT_SPECIAL_EPS)
            return sum;
    }
    double w = a, fac = 1, k = 0;
    sum += b * w / (s - 1) - 0.5 * b;
    for (int j = 0; j < 12; j++) {
        fac *= s + k;
        b /= w;
        double t = fac * b / divisors[j];
        sum += t;
        if (fabs(t / sum) < MT_SPECIAL_EPS)
            break;
        k += 1;
        fac *= s + k;
        b /= w;
        k += 1;
    }
    return sum;
}

/* polygamma(n, x): digamma and trigamma for n 0 and 1, else
 * (-1)^(n+1) n! zeta(n + 1, x); single as mt_trigamma's */
static inline double mt_polygamma(int64_t n, double x, int single)
{
    if (n == 0)
        return mt_digamma(x);
    if (n == 1)
        return mt_trigamma(x, single);
    double sign = n % 2 ? 1.0 : -1.0;
    return sign * exp(lgamma((double)n + 1)) * mt_zeta((double)n + 1, x);
}

/* erfinv: a closed-form first guess (relative error near 2e-3), then
 * Halley steps on erf(x) = y, solved through erfc beyond 1/2 where 1 - y
 * is exact */
static inline double mt_erfinv(double y)
{
    if (y != y || y < -1 || y > 1)
        return NAN;
    if (y == 1 || y == -1)
        return copysign(INFINITY, y);
    if (y == 0)
        return y;
    double ay = fabs(y);
    const double a = 0.147;
    double l = log((1 - ay) * (1 + ay));
    double t = 2 / (MT_SPECIAL_PI * a) + l / 2;
    double x = sqrt(sqrt(t * t - l / a) - t);
    for (int i = 0; i < 3; i++) {
        double f = ay < 0.5 ? erf(x) - ay : (1 - ay) - erfc(x);
        double d = 1.12837916709551257390 * exp(-x * x);
        x -= f / (d + x * f);
    }
    return copysign(x, y);
}

/* I_nu(x) for nu 0 or 1: the power series up to |x| = 30, beyond it the
 * asymptotic series times e^|x|, which overflows where torch's does (and
 * gives NaN at infinity, as torch's); with single, e^|x| is taken in float
 * as torch's float kernel does, overflowing past 88.7. I1 is odd. scaled
 * gives e^-|x| I_nu(x) (torch's i0e, i1e), which neither overflows nor
 * loses the factor: the asymptotic series alone, or the power series times
 * e^-|x|. */
static inline double mt_bessel_i_core(int nu, double x, int single, int scaled)
{
    double ax = fabs(x), r;
    if (ax > 30) {
        double mu = 4.0 * nu * nu, term = 1, sum = 1, z = 8 * ax;
        for (int k = 1; k < 60; k++) {
            double odd = 2.0 * k - 1;
            term *= -(mu - odd * odd) / (k * z);
            sum += term;
            if (fabs(term) < MT_SPECIAL_EPS * fabs(sum))
                break;
        }
        double e = scaled ? 1 : single ? (double)expf((float)ax) : exp(ax);
        r = e * sum / sqrt(2 * MT_SPECIAL_PI * ax);
    } else {
        double q = ax * ax / 4, term = nu ? ax / 2 : 1, sum = term;
        for (int k = 1; k < 200 && term > MT_SPECIAL_EPS * sum; k++) {
            term *= q / ((double)k * (k + nu));
            sum += term;
        }
        r = x != x ? x : scaled ? sum * exp(-ax) : sum;
    }
    return nu && x < 0 ? -r : r;
}

static inline double mt_bessel_i(int nu, double x, int single)
{
    return mt_bessel_i_core(nu, x, single, 0);
}

/* e^-x x^a / Gamma(a), in logs */
static inline double mt_igamma_factor(double a, double x)
{
    return exp(a * log(x) - x - lgamma(a));
}

/* P(a, x) by its series, for x < a + 1 */
static inline double mt_igamma_series(double a, double x)
{
    double ap = a, term = 1 / a, sum = term;
    for (int n = 0; n < 100000; n++) {
        ap += 1;
        term *= x / ap;
        sum += term;
        if (fabs(term) < fabs(sum) * MT_SPECIAL_EPS)
            break;
    }
    return sum * mt_igamma_factor(a, x);
}

/* Q(a, x) by its continued fraction (modified Lentz), for x >= a + 1 */
static inline double mt_igammac_fraction(double a, double x)
{
    const double tiny = DBL_MIN / MT_SPECIAL_EPS;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < MT_SPECIAL_EPS)
            break;
    }
    return h * mt_igamma_factor(a, x);
}

/* log(1 + d) - d, by its series where the two nearly cancel */
static inline double mt_log1pmx(double d)
{
    if (fabs(d) > 0.5)
        return log1p(d) - d;
    double power = d * d, sum = 0;
    for (int k = 2; k < 200; k++) {
        double term = (k % 2 ? power : -power) / k;
        sum += term;
        if (fabs(term) < MT_SPECIAL_EPS * fabs(sum))
            break;
        power *= d;
    }
    return sum;
}

/* Temme's uniform asymptotic expansion for large a, to its first term:
 * Q = erfc(eta sqrt(a / 2)) / 2 + e^(-a eta^2 / 2) / sqrt(2 pi a) C0(eta) and
 * P = erfc(-eta sqrt(a / 2)) / 2 - the same term, where eta^2 / 2 =
 * x/a - 1 - log(x/a) carries the sign of x - a and C0 = 1 / (x/a - 1) - 1 /
 * eta (its Taylor series near eta = 0). The next term is below 1e-12 past
 * a = 1e6, where the series and the fraction get slow and their prefactor
 * loses digits. */
static inline double mt_igamma_temme(double a, double x, int upper)
{
    double d = (x - a) / a, h = -mt_log1pmx(d);
    double eta = copysign(sqrt(2 * h), d);
    double c0 =
        fabs(eta) < 1e-2
            ? -1.0 / 3 + eta * (1.0 / 12 + eta * (-2.0 / 135 + eta * (1.0 / 864 + eta / 2835)))
            : 1 / d - 1 / eta;
    double r = exp(-a * h) / sqrt(2 * MT_SPECIAL_PI * a) * c0;
    double z = eta * sqrt(a / 2);
    return upper ? 0.5 * erfc(z) + r : 0.5 * erfc(-z) - r;
}

/* The regularised lower incomplete gamma P(a, x) = igamma, and the upper
 * Q(a, x) = 1 - P = igammac, with torch's values at the domain's edges */
static inline double mt_igamma(double a, double x)
{
    if (x < 0 || a < 0)
        return NAN;
    if (a == 0)
        return x > 0 ? 1.0 : NAN;
    if (x == 0)
        return 0.0;
    if (isinf(a))
        return isinf(x) ? NAN : 0.0;
    if (isinf(x))
        return 1.0;
    if (a != a || x != x)
        return NAN;
    if (a > 1e6)
        return mt_igamma_temme(a, x, 0);
    return x < a + 1 ? mt_igamma_series(a, x) : 1 - mt_igammac_fraction(a, x);
}

static inline double mt_igammac(double a, double x)
{
    if (x < 0 || a < 0)
        return NAN;
    if (a == 0)
        return x > 0 ? 0.0 : NAN;
    if (x == 0)
        return 1.0;
    if (isinf(a))
        return isinf(x) ? NAN : 1.0;
    if (isinf(x))
        return 0.0;
    if (a != a || x != x)
        return NAN;
    if (a > 1e6)
        return mt_igamma_temme(a, x, 1);
    return x < a + 1 ? 1 - mt_igamma_series(a, x) : mt_igammac_fraction(a, x);
}

/* torch's gcd and lcm: of the absolute values (INT64_MIN stays itself),
 * by Euclid's algorithm. mt_lcm_product is a / gcd * b, wrapping as torch's
 * does in the element type (whose absolute value the kernel takes there);
 * 0 when both are 0 */
static inline int64_t mt_gcd(int64_t a, int64_t b)
{
    a = a < 0 ? (int64_t)(0 - (uint64_t)a) : a;
    b = b < 0 ? (int64_t)(0 - (uint64_t)b) : b;
    while (a != 0) {
        int64_t c = a;
        a = a == -1 ? 0 : b % a;
        b = c;
    }
    return b;
}

static inline int64_t mt_lcm_product(int64_t a, int64_t b)
{
    int64_t g = mt_gcd(a, b);
    if (g == 0)
        return 0;
    int64_t q = g == -1 ? (int64_t)(0 - (uint64_t)a) : a / g;
    return (int64_t)((uint64_t)q * (uint64_t)b);
}

/* e^(x^2) erfc(x). Below 3, e^(x^2) with x^2 split exactly into its
 * rounded value and the rounding error (so the factor keeps full relative
 * precision) times libm's erfc; from 3 on, the continued fraction
 * 1 / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))) summed
 * backwards; for negative x, 2 e^(x^2) - erfcx(-x), infinite below -26.7. */
static inline double mt_exp_square(double x)
{
    double hi = x * x, lo = fma(x, x, -hi);
    return exp(hi) * (1 + lo);
}

static inline double mt_erfcx(double x)
{
    if (x != x)
        return x;
    if (x < 0)
        return x < -26.7 ? INFINITY : 2 * mt_exp_square(x) - mt_erfcx(-x);
    if (x < 3)
        return mt_exp_square(x) * erfc(x);
    if (x > 1e9)
        return 1 / (sqrt(MT_SPECIAL_PI) * x);
    double t = x;
    for (int k = 90; k > 0; k--)
        t = x + (k / 2.0) / t;
    return 1 / (sqrt(MT_SPECIAL_PI) * t);
}

/* log(ndtr(x)): log1p of the upper tail from -1 up, and below it
 * log(erfcx(-x / sqrt 2) / 2) - x^2 / 2, which does not underflow */
static inline double mt_log_ndtr(double x)
{
    double t = x * 0.70710678118654752440;
    if (x < -1)
        return log(mt_erfcx(-t) / 2) - t * t;
    return log1p(-erfc(t) / 2);
}

/* The inverse of ndtr on [0, 1] (-inf and inf at the ends, NaN outside).
 * The centre through erfinv; the tails from the rational guess of
 * Abramowitz and Stegun 26.2.23 refined by Halley steps on
 * (ndtr(x) - p) / ndtr'(x), written with erfcx and log(p) so that nothing
 * underflows down to the least subnormal p; the upper tail by symmetry
 * from 1 - p, exact there. */
static inline double mt_ndtri_lower(double p)
{
    double t = sqrt(-2 * log(p)), lp = log(p);
    double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                         (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
    for (int i = 0; i < 4; i++) {
        double r = sqrt(MT_SPECIAL_PI / 2) * mt_erfcx(-x * 0.70710678118654752440) -
                   sqrt(2 * MT_SPECIAL_PI) * exp(lp + x * x / 2);
        x -= r / (1 + x * r / 2);
    }
    return x;
}

static inline double mt_ndtri(double p)
{
    if (p != p || p < 0 || p > 1)
        return NAN;
    if (p == 0)
        return -INFINITY;
    if (p == 1)
        return INFINITY;
    if (p >= 0.3 && p <= 0.7)
        return 1.41421356237309504880 * mt_erfinv(2 * p - 1);
    return p < 0.5 ? mt_ndtri_lower(p) : -mt_ndtri_lower(1 - p);
}

/* -x log(x): 0 at 0, -inf below it */
static inline double mt_entr(double x)
{
    if (x != x)
        return x;
    if (x > 0)
        return -x * log(x);
    return x == 0 ? 0 : -INFINITY;
}

#endif
