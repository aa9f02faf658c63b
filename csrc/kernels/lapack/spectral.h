/* syevd and gesdd of large real matrices with their reductions (tridiag.h,
 * bidiag.h) and back-transforms (householder.h) on our kernels, gemm and
 * threads, LAPACK's own steps for the rest (stedc or sterf; bdsdc), in the
 * order syevd and gesdd take them, so the results are theirs up to
 * rounding. mt_lapack_syevd and
 * mt_lapack_gesdd (lapack.h, whose contract these keep) try these first.
 *
 * Each returns LAPACK's info, MT_LAPACK_FAILED with the error set, or
 * MT_SPECTRAL_DECLINED with nothing touched for what it leaves to LAPACK's
 * driver: complex or small matrices, values only (gesdd 'N'), shapes that
 * gesdd would first reduce by QR, and matrices LAPACK would rescale (too
 * large or small a norm) or that hold an infinity or NaN. */
#ifndef MT_KERNELS_LAPACK_SPECTRAL_H
#define MT_KERNELS_LAPACK_SPECTRAL_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/dtype.h"

#define MT_SPECTRAL_DECLINED (INT64_MIN + 1)

int64_t mt_spectral_syevd(mt_dtype d, bool vectors, bool upper, int64_t n, void *a, int64_t lda,
                          void *w);
int64_t mt_spectral_gesdd(mt_dtype d, char jobz, int64_t m, int64_t n, void *a, int64_t lda,
                          void *s, void *u, int64_t ldu, void *vt, int64_t ldvt);

#endif
