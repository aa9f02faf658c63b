/* The kernels the panel factorizations (tridiag.c, bidiag.c) share: their
 * matrix-vector products, compiled once in matvec.c (AVX2 clones where
 * the platform has them), and the product of their trailing updates on
 * our gemm. Matrices are column-major (ld) unless said otherwise; _f4
 * takes float32, _f8 float64. */
#ifndef MT_KERNELS_LAPACK_MATVEC_H
#define MT_KERNELS_LAPACK_MATVEC_H

#include <stdint.h>

#include "../../core/dtype.h"

#define MATVEC_DECLARE(sfx, T)                                                                        \
    /* a . b over n elements */                                                                       \
    T mt_matvec_dot_##sfx(int64_t n, const T *a, const T *b);                                         \
    /* t[l] = M(:, l)^T v for l < k, M n x k */                                                       \
    void mt_matvec_dots_##sfx(int64_t n, int64_t k, const T *m, int64_t ldm, const T *v, T *t);       \
    /* y -= M s, M n x k */                                                                           \
    void mt_matvec_sub_gemv_##sfx(int64_t n, int64_t k, const T *m, int64_t ldm, const T *s,          \
                                  T *y);                                                              \
    /* y += S(:, c0:c1) x for the lower triangle of the symmetric n x n S:                          \
     * column c adds x[c] times itself below the diagonal into y and its                            \
     * dot with x into y[c] */ \
    void mt_matvec_symv_cols_##sfx(int64_t n, const T *s, int64_t lda, const T *x, T *y,              \
                                   int64_t c0, int64_t c1);

MATVEC_DECLARE(f4, float)
MATVEC_DECLARE(f8, double)

/* Row-major C (m x n, rows ldc apart) += A B, A (lda) and B (ldb)
 * row-major, on our gemm; -1 with the error set when it found no memory. */
int mt_matvec_add_product(mt_dtype d, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                          const void *b, int64_t ldb, void *c, int64_t ldc);

#endif
