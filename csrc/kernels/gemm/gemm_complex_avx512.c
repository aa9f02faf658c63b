/* mt_cgemm_avx512 (gemm_complex_avx512.h): C = op(A) op(B) for complex64 and
 * complex128 on AVX-512, in place of OpenBLAS's cgemm/zgemm, which took
 * 1.1-1.3x torch's (MKL's) time on products of 64 to 256 (our kernel measured
 * level with MKL at 256, ahead of it at 64, on a loaded 2-core Xeon). B is
 * packed, whatever its strides and conjugation, into strips of NR columns
 * (two vectors of a row of the strip); A into strips of MR rows, each k step
 * holding the MR elements of a column side by side, unless it is row-major
 * and not conjugated, when the kernel broadcasts from its rows in place. A
 * block of MR x NR results keeps two accumulators per vector: the B row times
 * the broadcast real part of A's element, and times its imaginary part; the
 * product's parts come out of the pair at the end (re = sum ar br - sum ai
 * bi, im = sum ar bi + sum ai br: one fmaddsub on the second with its lanes
 * swapped). k runs in blocks of KC, so a B strip (KC x NR, 32 KB) stays in
 * L1 while the A strips of MC rows stream from L2; a block adds to C once
 * per KC steps and prefetches its C rows as it starts: with 128 steps and
 * no prefetch, re-reading C cost a 512 x 512 complex128 product 1.25-1.3x
 * torch's time on a loaded machine (1.05 with both). */
#include "gemm_complex_avx512.h"

#include "../../core/portable.h"

#ifdef MT_HAVE_AVX512
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "../typed.h"

#define MR 6
#define KC 256
#define MC 96

/* The packers per type, element (i, j) of x at x + i rs + j cs, the lanes of
 * a strip past the matrix zero. Both read x along its rows (B's row p goes
 * to row p of every strip at once): packing B strip by strip read it down
 * its columns and took an eighth of a 256 x 256 product's time. */
#define PACKERS(SFX, CT, CONJ, NR)                                                             \
    MT_TARGET_AVX512 static void pack_rows_##SFX(CT *dst, const CT *x, int64_t rs, int64_t cs, \
                                                 int64_t rows, int64_t kc, bool cj)            \
    {                                                                                          \
        /* dst[p MR + i] = x(i, p) */                                                          \
        for (int64_t i = rows; i < MR; i++)                                                    \
            for (int64_t p = 0; p < kc; p++)                                                   \
                dst[p * MR + i] = 0;                                                           \
        for (int64_t i = 0; i < rows; i++) {                                                   \
            const CT *row = x + i * rs;                                                        \
            if (cs == 1 && !cj)                                                                \
                for (int64_t p = 0; p < kc; p++)                                               \
                    dst[p * MR + i] = row[p];                                                  \
            else                                                                               \
                for (int64_t p = 0; p < kc; p++)                                               \
                    dst[p * MR + i] = cj ? CONJ(row[p * cs]) : row[p * cs];                    \
        }                                                                                      \
    }                                                                                          \
    MT_TARGET_AVX512 static void pack_row_##SFX(CT *dst, const CT *row, int64_t cs, int64_t n, \
                                                int64_t kc, bool cj)                           \
    {                                                                                          \
        /* row p of every strip: dst[s NR kc + j] = x(p, s NR + j) */                          \
        int64_t j0 = 0;                                                                        \
        if (cs == 1 && !cj)                                                                    \
            for (; j0 + NR <= n; j0 += NR)                                                     \
                memcpy(dst + j0 * kc, row + j0, NR * sizeof(CT));                              \
        for (; j0 < n; j0 += NR) {                                                             \
            CT *out = dst + j0 * kc;                                                           \
            int64_t j = 0;                                                                     \
            for (; j < NR && j0 + j < n; j++)                                                  \
                out[j] = cj ? CONJ(row[(j0 + j) * cs]) : row[(j0 + j) * cs];                   \
            for (; j < NR; j++)                                                                \
                out[j] = 0;                                                                    \
        }                                                                                      \
    }
PACKERS(z, mt_c128, conj, 8)
PACKERS(c, mt_c64, conjf, 16)

/* The MR x NR block of kc steps, written to (first) or added to t, rows ldt
 * reals apart. VT vectors of W reals, set1/fma/... the intrinsics for them,
 * SWAP the lane swap of each (re, im) pair. */
#define KERNEL(SFX, RT, VT, W, LOADU, STOREU, SET1, FMADD, FMADDSUB, SWAP, ADD)                  \
    MT_TARGET_AVX512 static void kernel_##SFX(int64_t kc, const RT *ap, const RT *bp, RT *t,     \
                                              int64_t ldt, bool first, int64_t ais, int64_t aps) \
    {                                                                                            \
        VT cr[MR][2], ci[MR][2];                                                                 \
        _Pragma("GCC unroll 6") for (int i = 0; i < MR; i++)                                     \
        {                                                                                        \
            __builtin_prefetch(t + i * ldt, 1, 3);                                               \
            __builtin_prefetch(t + i * ldt + W, 1, 3);                                           \
        }                                                                                        \
        _Pragma("GCC unroll 6") for (int i = 0; i < MR; i++)                                     \
        {                                                                                        \
            cr[i][0] = cr[i][1] = ci[i][0] = ci[i][1] = SET1(0);                                 \
        }                                                                                        \
        _Pragma("GCC unroll 4") for (int64_t p = 0; p < kc; p++)                                 \
        {                                                                                        \
            VT b0 = LOADU(bp + p * 2 * W), b1 = LOADU(bp + p * 2 * W + W);                       \
            const RT *a = ap + p * 2 * aps;                                                      \
            _Pragma("GCC unroll 6") for (int i = 0; i < MR; i++)                                 \
            {                                                                                    \
                VT ar = SET1(a[2 * i * ais]), ai = SET1(a[2 * i * ais + 1]);                     \
                cr[i][0] = FMADD(ar, b0, cr[i][0]);                                              \
                cr[i][1] = FMADD(ar, b1, cr[i][1]);                                              \
                ci[i][0] = FMADD(ai, b0, ci[i][0]);                                              \
                ci[i][1] = FMADD(ai, b1, ci[i][1]);                                              \
            }                                                                                    \
        }                                                                                        \
        VT one = SET1(1);                                                                        \
        _Pragma("GCC unroll 6") for (int i = 0; i < MR; i++)                                     \
        {                                                                                        \
            _Pragma("GCC unroll 2") for (int v = 0; v < 2; v++)                                  \
            {                                                                                    \
                VT r = FMADDSUB(cr[i][v], one, SWAP(ci[i][v]));                                  \
                RT *o = t + i * ldt + v * W;                                                     \
                STOREU(o, first ? r : ADD(LOADU(o), r));                                         \
            }                                                                                    \
        }                                                                                        \
    }
#define SWAP_PD(x) _mm512_permute_pd(x, 0x55)
#define SWAP_PS(x) _mm512_permute_ps(x, 0xB1)
KERNEL(z, double, __m512d, 8, _mm512_loadu_pd, _mm512_storeu_pd, _mm512_set1_pd, _mm512_fmadd_pd,
       _mm512_fmaddsub_pd, SWAP_PD, _mm512_add_pd)
KERNEL(c, float, __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps, _mm512_fmadd_ps,
       _mm512_fmaddsub_ps, SWAP_PS, _mm512_add_ps)

/* The blocked product for one type: NR complex columns per strip (two
 * vectors). A block at the matrix's edge is computed whole into a scratch
 * block and its part inside C copied out. */
#define DRIVER(SFX, CT, RT, NR)                                                                  \
    MT_TARGET_AVX512 static bool product_##SFX(                                                  \
        int64_t m, int64_t n, int64_t k, const CT *a, int64_t ars, int64_t acs, bool conja,      \
        const CT *b, int64_t brs, int64_t bcs, bool conjb, CT *c, int64_t ldc)                   \
    {                                                                                            \
        int64_t strips = (n + NR - 1) / NR, kc0 = k < KC ? k : KC;                               \
        size_t bsize = (size_t)(strips * NR * kc0) * sizeof(CT);                                 \
        size_t asize = (size_t)(((MC + MR - 1) / MR) * MR * kc0) * sizeof(CT);                   \
        CT *bpack = aligned_alloc(64, (bsize + 63) / 64 * 64);                                   \
        CT *apack = aligned_alloc(64, (asize + 63) / 64 * 64);                                   \
        if (!bpack || !apack) {                                                                  \
            free(bpack);                                                                         \
            free(apack);                                                                         \
            return false;                                                                        \
        }                                                                                        \
        CT edge[MR * NR];                                                                        \
        bool direct = acs == 1 && !conja;                                                        \
        for (int64_t pc = 0; pc < k; pc += KC) {                                                 \
            int64_t kc = k - pc < KC ? k - pc : KC;                                              \
            bool first = pc == 0;                                                                \
            for (int64_t p = 0; p < kc; p++)                                                     \
                pack_row_##SFX(bpack + p * NR, b + (pc + p) * brs, bcs, n, kc, conjb);           \
            for (int64_t ic = 0; ic < m; ic += MC) {                                             \
                int64_t mc = m - ic < MC ? m - ic : MC;                                          \
                for (int64_t r = 0; r < mc; r += MR) {                                           \
                    int64_t rows = mc - r < MR ? mc - r : MR;                                    \
                    if (!direct || rows < MR)                                                    \
                        pack_rows_##SFX(apack + r * kc, a + (ic + r) * ars + pc * acs, ars, acs, \
                                        rows, kc, conja);                                        \
                }                                                                                \
                for (int64_t s = 0; s < strips; s++) {                                           \
                    int64_t j0 = s * NR, cols = n - j0 < NR ? n - j0 : NR;                       \
                    const RT *bp = (const RT *)(bpack + s * NR * kc);                            \
                    for (int64_t r = 0; r < mc; r += MR) {                                       \
                        int64_t rows = mc - r < MR ? mc - r : MR;                                \
                        const RT *ap = (const RT *)(apack + r * kc);                             \
                        int64_t ais = 1, aps = MR;                                               \
                        if (direct && rows == MR) {                                              \
                            ap = (const RT *)(a + (ic + r) * ars + pc);                          \
                            ais = ars;                                                           \
                            aps = 1;                                                             \
                        }                                                                        \
                        CT *out = c + (ic + r) * ldc + j0;                                       \
                        if (rows == MR && cols == NR) {                                          \
                            kernel_##SFX(kc, ap, bp, (RT *)out, 2 * ldc, first, ais, aps);       \
                            continue;                                                            \
                        }                                                                        \
                        kernel_##SFX(kc, ap, bp, (RT *)edge, 2 * NR, true, ais, aps);            \
                        for (int64_t i = 0; i < rows; i++)                                       \
                            for (int64_t j = 0; j < cols; j++)                                   \
                                out[i * ldc + j] = first ? edge[i * NR + j]                      \
                                                         : out[i * ldc + j] + edge[i * NR + j];  \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
        free(bpack);                                                                             \
        free(apack);                                                                             \
        return true;                                                                             \
    }
DRIVER(z, mt_c128, double, 8)
DRIVER(c, mt_c64, float, 16)

bool mt_cgemm_avx512(mt_dtype d, int64_t m, int64_t n, int64_t k, const void *a, int64_t ars,
                     int64_t acs, bool conja, const void *b, int64_t brs, int64_t bcs, bool conjb,
                     void *c, int64_t ldc)
{
    /* a product with fewer rows or columns than 4 is mostly padding here (a
     * row times 256 x 256 took 2-3x OpenBLAS's time) */
    if (!mt_use_avx512() || k == 0 || m < 4 || n < 4)
        return false;
    if (d == MT_COMPLEX128)
        return product_z(m, n, k, a, ars, acs, conja, b, brs, bcs, conjb, c, ldc);
    return product_c(m, n, k, a, ars, acs, conja, b, brs, bcs, conjb, c, ldc);
}

#else

bool mt_cgemm_avx512(mt_dtype d, int64_t m, int64_t n, int64_t k, const void *a, int64_t ars,
                     int64_t acs, bool conja, const void *b, int64_t brs, int64_t bcs, bool conjb,
                     void *c, int64_t ldc)
{
    (void)d, (void)m, (void)n, (void)k, (void)a, (void)ars, (void)acs, (void)conja;
    (void)b, (void)brs, (void)bcs, (void)conjb, (void)c, (void)ldc;
    return false;
}

#endif
