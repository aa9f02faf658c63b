/* torch's log(exp(x) + exp(y)) of two complex numbers, in double: the one
 * kernel behind complex logaddexp and the running sum of complex
 * logcumsumexp. The operands are ordered by real part (equal real parts put
 * y first); a NaN part anywhere gives NaN; equal infinite real parts give
 * the smaller operand at -inf and log(exp(x) + exp(y)) at +inf; else
 * hi + log1p(exp(lo - hi)). */
#ifndef MT_KERNELS_COMPLEX_LOG_ADD_EXP_H
#define MT_KERNELS_COMPLEX_LOG_ADD_EXP_H

#include "typed.h"

#include <complex.h>
#include <math.h>

static inline mt_c128 mt_clog_add_exp(mt_c128 x, mt_c128 y)
{
    if (isnan(creal(x)) || isnan(cimag(x)) || isnan(creal(y)) || isnan(cimag(y)))
        return mt_cmplx(NAN, NAN);
    int x_low = creal(x) < creal(y);
    mt_c128 lo = x_low ? x : y, hi = x_low ? y : x;
    if (!isfinite(creal(lo)) && creal(lo) == creal(hi))
        return creal(lo) < 0 ? lo : clog(cexp(lo) + cexp(hi));
    /* log1p of the complex e, its real part without cancellation near 0 */
    mt_c128 e = cexp(lo - hi);
    double a = creal(e), b = cimag(e);
    return mt_cmplx(log1p(a * (2 + a) + b * b) / 2 + creal(hi), atan2(b, 1 + a) + cimag(hi));
}

#endif
