/* The reduction of a real symmetric matrix to tridiagonal form, as LAPACK's
 * sytrd('L') computes it (and storing it alike, so stedc, sterf and
 * householder.h read it as theirs), with its memory-bound half, the product of
 * the trailing matrix with each new reflector, in our own kernel (one pass
 * over the lower triangle, split over our threads) and the trailing
 * updates on our gemm. float32 and float64.
 *
 * Contract: a is n x n column-major (lda), its lower triangle read; on
 * return d (n), e (n - 1) and tau (n - 1) are sytrd's, and a's lower
 * triangle below the subdiagonal holds the reflectors; its strict upper
 * triangle is overwritten. Returns 0, or -1 with the error set (no
 * memory, or a missing LAPACK routine). */
#ifndef MT_KERNELS_LAPACK_TRIDIAG_H
#define MT_KERNELS_LAPACK_TRIDIAG_H

#include <stdint.h>

#include "../../core/dtype.h"

int mt_tridiag_lower(mt_dtype dt, int64_t n, void *a, int64_t lda, void *d, void *e, void *tau);

#endif
