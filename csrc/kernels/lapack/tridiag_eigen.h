/* The eigenvalues and eigenvectors of a real symmetric tridiagonal matrix
 * as LAPACK's stedc ('I') computes them, its first divide-and-conquer
 * split ours: the matrix torn in two halves by a rank-one correction (as
 * stedc's laed0 tears it), each half solved by stedc on a thread of its
 * own, and the two merged by LAPACK's laed1. stedc runs on one thread, so
 * a single matrix had no parallelism there; the halves take half its time
 * and the merge a third of it (512 x 512 float32). float32 and float64.
 *
 * Contract: d (n) and e (n - 1) are the diagonal and subdiagonal, both
 * overwritten; z (n x n, column-major, ld n) receives the eigenvectors,
 * and idx (n) their order: eigenvalue i, ascending, is d[idx[i]] with
 * vector z(:, idx[i]). The result does not depend on the thread count.
 * Returns LAPACK's info, or MT_LAPACK_FAILED with the error set (no
 * memory). */
#ifndef MT_KERNELS_LAPACK_TRIDIAG_EIGEN_H
#define MT_KERNELS_LAPACK_TRIDIAG_EIGEN_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/dtype.h"

/* Whether the routines it calls are loaded for dtype d. */
bool mt_tridiag_eigen_available(mt_dtype d);
int64_t mt_tridiag_eigen(mt_dtype d, int64_t n, void *dv, void *e, void *z, int64_t *idx);

#endif
