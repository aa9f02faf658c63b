/* The AVX-512 complex product behind mt_gemm_complex (gemm_complex.c). */
#ifndef MT_KERNELS_GEMM_COMPLEX_AVX512_H
#define MT_KERNELS_GEMM_COMPLEX_AVX512_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/dtype.h"

/* C = op(A) op(B) for complex64 or complex128 (d): A m x k, element (i, p)
 * at a + i ars + p acs (elements), conjugated when conja, B k x n likewise,
 * C rows ldc apart with unit column stride, written without being read.
 * False, having written nothing, where the kernel does not run (no AVX-512,
 * MINITORCH_NO_AVX512 set, k = 0, out of memory): the caller uses the BLAS. */
bool mt_cgemm_avx512(mt_dtype d, int64_t m, int64_t n, int64_t k, const void *a, int64_t ars,
                     int64_t acs, bool conja, const void *b, int64_t brs, int64_t bcs, bool conjb,
                     void *c, int64_t ldc);

#endif
