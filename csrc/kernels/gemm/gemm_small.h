/* Our register-blocked matrix product kernel (float32 and float64, one level
 * per CPU) and, on top of it, products of a few rows against one matrix that
 * stays fixed over many calls (a recurrent layer's W_hh over the steps of a
 * sequence): that matrix is packed once into 16-column strips and each
 * product streams it through the same kernel, float32 or float64. */
#ifndef MT_KERNELS_GEMM_GEMM_SMALL_H
#define MT_KERNELS_GEMM_GEMM_SMALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../core/dtype.h"
#include "../../core/portable.h"

/* MT_GEMM_PIN(x) holds the vector x in a register from here on, for a value
 * loaded once and used by several multiply-adds: GCC folded such a load into
 * each of them, loading it again for every use (where rows are not aligned,
 * each load split across two cache lines). Only in functions whose vector
 * type is a register of the x86 "v" class (SSE, AVX, AVX-512 targets). */
#ifdef MT_HAVE_X86_DISPATCH
#define MT_GEMM_PIN(x) __asm__("" : "+v"(x))
#endif

/* C = A B, or C += A B when acc, float32, on the calling thread: A (m x k)
 * with element (i, l) at a[i * ars + l * acs], B (k x n) with rows ldb apart,
 * C rows ldc apart (strides in elements); n a multiple of MT_GEMM_COLS. The
 * sum over l runs in order and C is added last. Reads fastest with acs 1
 * and B's rows 64-byte aligned. */
#define MT_GEMM_COLS 16
/* The most rows of A a block of any level takes (AVX-512's float). */
#define MT_GEMM_MAX_ROWS 8
void mt_gemm_f32(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars, int64_t acs,
                 const float *b, int64_t ldb, float *c, int64_t ldc, bool acc);

/* The same for float32 or float64 as d says, on untyped pointers (strides
 * still in elements); float64's n a multiple of MT_GEMM_COLS_F64. */
#define MT_GEMM_COLS_F64 8
void mt_gemm_float(mt_dtype d, int64_t m, int64_t n, int64_t k, const void *a, int64_t ars,
                   int64_t acs, const void *b, int64_t ldb, void *c, int64_t ldc, bool acc);

/* Whether mt_gemm_f32 runs its AVX-512 level (16 accumulators of 16 lanes). */
bool mt_gemm_f32_wide(void);

/* Columns per strip. */
#define MT_SMALL_STRIP 16

/* B (k x n) packed. Its n columns are `groups` blocks of n / groups columns
 * (the gates of a recurrent layer), each padded with zero columns to width gw,
 * a multiple of MT_SMALL_STRIP; a product's row has groups * gw values. */
typedef struct {
    mt_dtype dtype;
    int64_t k, n, groups, gw, strips;
    void *data;
    void *block; /* mt_alloc's block and size, for mt_small_unpack */
    size_t size;
} mt_small_packed;

/* Room for B (float32 or float64; groups divides n), to be filled by
 * mt_small_pack_rows. Returns -1 with the error set when out of memory. */
int mt_small_alloc(mt_dtype d, int64_t k, int64_t n, int64_t groups, mt_small_packed *out);
/* Packs rows k0 .. k0 + rows of B, row k0 + i's column c at b[i * brs + c * bcs]. */
void mt_small_pack_rows(mt_small_packed *p, int64_t k0, int64_t rows, const void *b, int64_t brs,
                        int64_t bcs);
/* mt_small_alloc, then all k rows from b. */
int mt_small_pack(mt_dtype d, const void *b, int64_t brs, int64_t bcs, int64_t k, int64_t n,
                  int64_t groups, mt_small_packed *out);
void mt_small_unpack(mt_small_packed *p);

/* C = A B for m rows: A's element (i, p) at a[i * ars + p * acs], row i of C
 * groups * gw values at c + i * ldc (strides in elements), group g's column j
 * at g * gw + j and the padding columns zero. Overwrites C; runs on the
 * calling thread. Contiguous rows of A (acs 1) read fastest. */
void mt_small_gemm(const mt_small_packed *p, int64_t m, const void *a, int64_t ars, int64_t acs,
                   void *c, int64_t ldc);

#endif
