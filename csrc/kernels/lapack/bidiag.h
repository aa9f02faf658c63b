/* The reduction of a real m x n matrix, m >= n, to upper bidiagonal form
 * as LAPACK's gebrd computes and stores it (so bdsdc and householder.h read it
 * as theirs), with labrd's two products of the trailing matrix per column
 * (two thirds of gebrd's time) in our kernels, split over our threads, and
 * the trailing updates on our gemm. float32 and float64.
 *
 * Contract: a is m x n column-major (lda); on return d (n), e (n - 1), tauq
 * (n) and taup (n) are gebrd's and a holds Q's reflectors below the
 * diagonal and P's right of the superdiagonal. Returns 0, or -1 with the
 * error set (no memory, or a missing LAPACK routine). */
#ifndef MT_KERNELS_LAPACK_BIDIAG_H
#define MT_KERNELS_LAPACK_BIDIAG_H

#include <stdint.h>

#include "../../core/dtype.h"

int mt_bidiag_upper(mt_dtype dt, int64_t m, int64_t n, void *a, int64_t lda, void *d, void *e,
                    void *tauq, void *taup);

#endif
