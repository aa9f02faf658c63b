/* The singular values and vectors of a real n x n upper bidiagonal matrix
 * as LAPACK's bdsdc ('U', 'I') computes them, its first divide-and-conquer
 * split ours: the matrix cut at its middle row, as lasd0 cuts it, each
 * part solved by lasd0 on a thread of its own, and the two merged by
 * LAPACK's lasd1. bdsdc runs on one thread, so a single matrix had no
 * parallelism there. float32 and float64.
 *
 * Contract: d (n) and e (n - 1, room for n) are the diagonal and
 * superdiagonal, both overwritten; U (n x n at u, ldu) and Vh (n x n at
 * vt, ldvt) receive the vectors and idx (n) their order: singular value
 * i, descending, is d[idx[i]] with U's column and Vh's row idx[i]. The
 * result does not depend on the thread count. Returns LAPACK's info, or
 * MT_LAPACK_FAILED with the error set (no memory). */
#ifndef MT_KERNELS_LAPACK_BIDIAG_SVD_H
#define MT_KERNELS_LAPACK_BIDIAG_SVD_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/dtype.h"

/* Whether the routines it calls are loaded for dtype d. */
bool mt_bidiag_svd_available(mt_dtype d);
int64_t mt_bidiag_svd(mt_dtype d, int64_t n, void *dv, void *e, void *u, int64_t ldu, void *vt,
                      int64_t ldvt, int64_t *idx);

#endif
