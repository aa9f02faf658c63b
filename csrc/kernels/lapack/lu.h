/* minitorch's own LU with partial pivoting, for float32 and float64: getrf
 * and getrs as LAPACK defines them (lapack.h's contract: column-major, ld,
 * 64-bit integers, 1-based pivots, info), computed by recursive splitting
 * whose products run on our gemm (and so on our threads): faster than
 * OpenBLAS's getrf (512 x 512 float32 on one thread: 1.1-1.3 against 1.6
 * ms), and its threads stay out of the way.
 * mt_lapack_getrf/getrs/trsm hand real matrices here (trsm those on the
 * left), so that solve and its triangular solves round alike; complex ones
 * stay LAPACK's. */
#ifndef MT_KERNELS_LAPACK_LU_H
#define MT_KERNELS_LAPACK_LU_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/dtype.h"

/* Whether d is one of ours (float32, float64). */
bool mt_lu_handles(mt_dtype d);
/* A = P L U in place; pivots as LAPACK's (row i swapped with ipiv[i] - 1,
 * the first of the column's largest magnitudes). Returns LAPACK's info (the
 * 1-based index of U's first zero diagonal element, or 0), or
 * MT_LAPACK_FAILED with the error set (no scratch memory). */
int64_t mt_lu_getrf(mt_dtype d, int64_t m, int64_t n, void *a, int64_t lda, int64_t *ipiv);
/* B <- A^-1 B (A^T when trans) from getrf's n x n factors; 0, or
 * MT_LAPACK_FAILED with the error set. */
int64_t mt_lu_getrs(mt_dtype d, bool trans, int64_t n, int64_t nrhs, const void *a, int64_t lda,
                    const int64_t *ipiv, void *b, int64_t ldb);
/* B (n x nrhs) <- op(A)^-1 B, A n x n lower (upper when upper) triangular,
 * op(A) = A^T when trans, of unit diagonal when unit, as getrs' own
 * solves. 0, or MT_LAPACK_FAILED with the error set. */
int64_t mt_lu_trsm(mt_dtype d, bool upper, bool trans, bool unit, int64_t n, int64_t nrhs,
                   const void *a, int64_t lda, void *b, int64_t ldb);

#endif
