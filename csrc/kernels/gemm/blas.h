/* An optional BLAS found at run time (an ILP64 OpenBLAS: NumPy's bundled one,
 * or the scipy-openblas64 package's): loaded through core/dynlib.h so
 * minitorch gains no link-time or install-time dependency. */
#ifndef MT_KERNELS_GEMM_BLAS_H
#define MT_KERNELS_GEMM_BLAS_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/dtype.h"

/* Loads the library at path; returns false (and keeps the fallback) when the
 * file or its gemm symbols are missing. Its LAPACK routines, when it
 * has them, go to kernels/lapack (mt_lapack_resolve). Safe to call more than
 * once. */
bool mt_blas_load(const char *path);
/* The host's way of finding the library and passing it to mt_blas_load (the
 * Python binding asks NumPy where its copy is), or NULL. Finding it may run
 * host code, so it is not done inside the kernels but by the ops, through
 * mt_blas_prepare, before a product that could use it and with the host's
 * lock held. */
extern void (*mt_blas_locate)(void);
static inline void mt_blas_prepare(void)
{
    if (mt_blas_locate)
        mt_blas_locate();
}
bool mt_blas_available(void);
/* The single-precision gemm symbol the loaded library answered to, or NULL. */
const char *mt_blas_symbol(void);
/* Whether each mt_blas_gemm between mt_blas_begin and mt_blas_end runs on
 * its calling thread alone (the library's thread count can be set); otherwise
 * large calls use the library's threads. */
bool mt_blas_single_threaded(void);
/* Brackets a product whose mt_blas_gemm calls may run on our threads: one
 * thread per call inside (our pool splits the work, and the library's own
 * threads would spin for 100 ms after each call against ours), the library's
 * own count restored exactly after. Called around the product, not around
 * each mt_blas_gemm; pairs may overlap across threads. The
 * count is process-wide, so a host call on another thread during a product
 * runs on one thread too. */
void mt_blas_begin(void);
void mt_blas_end(void);
/* Row-major C = alpha * op(A) @ op(B) + beta * C for MT_FLOAT32/MT_FLOAT64. */
void mt_blas_gemm(mt_dtype d, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                  double alpha, const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
                  void *c, int64_t ldc);
/* Whether the library has cgemm and zgemm (kernels/gemm/gemm_complex.c). */
bool mt_blas_complex_available(void);
/* Row-major C = alpha * op(A) @ op(B) + beta * C for MT_COMPLEX64/MT_COMPLEX128,
 * op 'N' (as stored), 'T' (transposed) or 'C' (conjugate transposed); alpha
 * and beta as {real, imaginary}. */
void mt_blas_cgemm(mt_dtype d, char op_a, char op_b, int64_t m, int64_t n, int64_t k,
                   const double alpha[2], const void *a, int64_t lda, const void *b, int64_t ldb,
                   const double beta[2], void *c, int64_t ldc);

#endif
