/* Eigenvalues and eigenvectors of small real symmetric matrices by our own
 * Householder tridiagonalization and implicit QL, where LAPACK's syevd
 * (divide and conquer, with its workspace queries) costs more than the work.
 * Plain C, no tensors.
 *
 * Contract: a is an n x n float32 or float64 matrix, column-major with
 * leading dimension lda, read from its lower (or upper) triangle only; on
 * return w holds the n eigenvalues ascending and, when vectors, a's columns
 * the orthonormal eigenvectors, computed in a's type as LAPACK's are. Returns 0,
 * k > 0 when QL did not converge for the k-th eigenvalue (LAPACK's info),
 * MT_LAPACK_FAILED when out of memory (no error set: the caller sets it), or
 * MT_EIGH_SMALL_DECLINED, a untouched, for a matrix it leaves to LAPACK's
 * syevd: one larger than the size rule's bound (eigh_small.c), where syevd
 * is faster, or one holding an infinity or NaN, whose propagation is
 * LAPACK's to decide. */
#ifndef MT_KERNELS_EIGH_SMALL_H
#define MT_KERNELS_EIGH_SMALL_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/dtype.h"

#define MT_EIGH_SMALL_DECLINED (-1)

int64_t mt_eigh_small(mt_dtype d, bool vectors, bool upper, int64_t n, void *a, int64_t lda,
                      void *w);

#endif
