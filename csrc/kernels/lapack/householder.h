/* minitorch's own blocked Householder QR for float32 and float64 matrices:
 * geqrf, orgqr and the product of C with Q (ormqr), as LAPACK defines them
 * (lapack.h's contract: column-major, ld, 64-bit integers, info, or
 * MT_LAPACK_FAILED with the error set when scratch memory ran out). Blocks
 * of reflectors are factored by LAPACK's unblocked routines (geqr2, larft,
 * org2r; the same reflectors, so R's diagonal has LAPACK's signs) and
 * applied as I - V T V^T by our gemm, their columns shared out over our
 * threads, while one thread factors the next block: OpenBLAS's geqrf runs
 * on one thread (lapack.c), so a single large matrix had no parallelism.
 * Results agree with LAPACK's to rounding, and are the same bits on any
 * number of threads. mt_lapack_geqrf/orgqr/ormqr hand over the matrices
 * mt_householder_blocked takes; smaller ones and complex ones stay
 * LAPACK's. */
#ifndef MT_KERNELS_LAPACK_HOUSEHOLDER_H
#define MT_KERNELS_LAPACK_HOUSEHOLDER_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/dtype.h"

/* Whether the blocked routines take k reflectors of dtype d (float32 or
 * float64 from a size where blocking pays; below it LAPACK's own geqrf is
 * unblocked too). */
bool mt_householder_blocked(mt_dtype d, int64_t k);
/* A = Q R in place: R on and above the diagonal, the reflectors below, tau
 * their scalar factors (min(m, n) of them). Returns 0. */
int64_t mt_householder_geqrf(mt_dtype d, int64_t m, int64_t n, void *a, int64_t lda, void *tau);
/* The first n columns of Q = H_0 ... H_{k-1} (m >= n >= k) over a, from the
 * reflectors geqrf left in its first k columns. Returns 0. */
int64_t mt_householder_orgqr(mt_dtype d, int64_t m, int64_t n, int64_t k, void *a, int64_t lda,
                             const void *tau);
/* C (m x n, element (i, j) at c[i * rs + j * cs]) <- Q C, or Q^T C when
 * trans, Q = H_0 ... H_{k-1} the m x m product of k reflectors, H_i = I -
 * tau_i v_i v_i^T with v_i zero above element i, one at i, and element
 * r > i at v[r * vrs + i * vcs]: by columns (vrs 1, vcs ld) as geqrf, sytrd
 * and gebrd's Q leave them, by rows (vrs ld, vcs 1) as gebrd's P. A product
 * from the right, C Q, is (Q^T C^T)^T: C^T's strides swapped, trans
 * flipped. The one place reflectors are applied: ormqr and the eigensolver's
 * and SVD's back-transforms (spectral.c). Returns 0, or MT_LAPACK_FAILED
 * with the error set (no scratch memory). */
int64_t mt_householder_apply(mt_dtype d, bool trans, int64_t m, int64_t n, int64_t k, const void *v,
                             int64_t vrs, int64_t vcs, const void *tau, void *c, int64_t rs,
                             int64_t cs);

#endif
