/* The symmetric eigensolver for small matrices (eigh_small.h): the matrix,
 * in its own type (eigh_small_typed.h, once per type), is reduced to tridiagonal form by Householder reflections, Q
 * (their product) is accumulated backwards, and the tridiagonal's
 * eigenvalues are found by implicit QL with Wilkinson-like shifts, each
 * rotation applied to two neighbouring columns of Q. Everything runs down
 * contiguous columns, so the compiler's vectors carry the O(n^3) loops; for
 * n up to a few dozen this beats syevd, whose divide and conquer and
 * workspace handling are made for large n. Plain C, no Python. */
#include "eigh_small.h"
#include "lapack/lapack.h"

#include "../core/portable.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The largest n solved here; syevd takes larger ones. The sweep beside
 * torch's MKL syevd (float32, one thread) had ours at 0.5x torch's time to
 * n = 32, 0.75x at 64, 0.97x at 96 (syevd 1.06x), and syevd ahead from 128
 * on (1.1x torch's; ours 1.2x). */
#define SMALL_MAX 112

/* QL sweeps allowed per eigenvalue before giving up (LAPACK's steqr: 30). */
#define MAX_SWEEPS 30

#define R float
#define FN(name) name##_f
#define R_EPS FLT_EPSILON
#define R_SQRT sqrtf
#define R_HYPOT hypotf
#define R_ABS fabsf
#define R_MAX fmaxf
#define R_SAFE_LO 1e-18f
#define R_SAFE_HI 1e18f
#define R_MAX_EXP FLT_MAX_EXP
#include "eigh_small_typed.h"
#undef R
#undef FN
#undef R_EPS
#undef R_SQRT
#undef R_HYPOT
#undef R_ABS
#undef R_MAX
#undef R_SAFE_LO
#undef R_SAFE_HI
#undef R_MAX_EXP

#define R double
#define FN(name) name##_d
#define R_EPS DBL_EPSILON
#define R_SQRT sqrt
#define R_HYPOT hypot
#define R_ABS fabs
#define R_MAX fmax
#define R_SAFE_LO 1e-150
#define R_SAFE_HI 1e150
#define R_MAX_EXP DBL_MAX_EXP
#include "eigh_small_typed.h"

int64_t mt_eigh_small(mt_dtype dt, bool vectors, bool upper, int64_t n, void *a, int64_t lda,
                      void *w)
{
    if (n == 0)
        return 0;
    if (n > SMALL_MAX)
        return MT_EIGH_SMALL_DECLINED;
    size_t es = dt == MT_FLOAT32 ? sizeof(float) : sizeof(double);
    void *z = malloc(es * (size_t)(2 * n * n + 4 * n));
    if (!z)
        return MT_LAPACK_FAILED;
    int64_t info = dt == MT_FLOAT32 ? solve_f(vectors, upper, n, a, lda, w, z)
                                    : solve_d(vectors, upper, n, a, lda, w, z);
    free(z);
    return info;
}
