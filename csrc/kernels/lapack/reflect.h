/* Products of Householder reflectors applied to a matrix, as LAPACK's
 * ormqr/ormtr/ormbr apply them, by blocks of reflectors on our gemm (and so
 * on our threads): the back-transforms of the eigensolver (syevd.c) and the
 * SVD (gesdd.c), where OpenBLAS's ormtr/ormbr, on one thread and with
 * blocks of 32, took 2.5x a gemm's time. float32 and float64.
 *
 * Contract: Q = H(0) H(1) ... H(k-1), H(i) = I - tau[i] v_i v_i^T, v_i zero
 * above element i, one at i, and element r > i at v[r * vrs + i * vcs]
 * (vrs = 1, vcs = ld: the columns of geqrf/sytrd('L')/gebrd's Q; vrs = ld,
 * vcs = 1: the rows of gebrd's P). C is m x n column-major with leading
 * dimension ldc; C <- op(Q) C (left; Q is m x m) or C op(Q) (right; Q is
 * n x n), op(Q) = Q^T when trans. Returns 0, or -1 with the error set (no
 * scratch memory). */
#ifndef MT_KERNELS_LAPACK_REFLECT_H
#define MT_KERNELS_LAPACK_REFLECT_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/dtype.h"

int mt_reflect_apply(mt_dtype d, bool left, bool trans, int64_t m, int64_t n, int64_t k,
                     const void *v, int64_t vrs, int64_t vcs, const void *tau, void *c,
                     int64_t ldc);

#endif
