/* The classical orthogonal polynomials of torch.special at a point x and
 * an order n, in the input's type (float or double) as torch computes
 * them, for the binary kernels of pointwise.def:
 * Chebyshev T, U, V, W, their shifted forms on [0, 1], the physicists' and
 * probabilists' Hermite H and He, Laguerre L and Legendre P. The order
 * arrives as a float and is truncated to an integer as torch does (NaN and
 * infinities give a negative order); a negative order gives 0. The
 * three-term recurrences run as torch's do, switching to the trigonometric
 * forms of the Chebyshev families inside (-1, 1) for large n, with the same
 * special values at the ends of the interval, so results agree to rounding. */
#ifndef MT_KERNELS_SPECIAL_POLYNOMIALS_H
#define MT_KERNELS_SPECIAL_POLYNOMIALS_H

#include <math.h>
#include <stdint.h>

/* Laguerre and Legendre recurrences stay finite inside their interval and
 * so run all n steps (torch's would run 2^62 of them for n = 2^62): past
 * this order they give NaN instead of looping for hours. */
#define MT_POLY_MAX_RECURRENCE ((int64_t)1 << 24)

#define MT_T double
#define MT_FN(name) name
#define MT_M(fn) fn
#include "special_polynomials_typed.h"
#undef MT_T
#undef MT_FN
#undef MT_M
#define MT_T float
#define MT_FN(name) name##f
#define MT_M(fn) fn##f
#include "special_polynomials_typed.h"
#undef MT_T
#undef MT_FN
#undef MT_M

#endif
