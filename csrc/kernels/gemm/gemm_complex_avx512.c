/* mt_cgemm_avx512 (gemm_complex_avx512.h): C = op(A) op(B) for complex64 and
 * complex128 on AVX-512, in place of OpenBLAS's cgemm/zgemm, which took
 * 1.1-1.3x torch's (MKL's) time on products of 64 to 256 (our kernel measured
 * level with MKL at 256, ahead of it at 64, on a loaded 2-core Xeon). B is
 * packed, whatever its strides and conjugation, into strips of NR columns
 * (NV vectors of a row of the strip); A into strips of MR rows, each k step
 * holding the MR elements of a column side by side, unless it is row-major
 * and not conjugated, when the kernel broadcasts from its rows in place. A
 * block of MR x NR results keeps two accumulators per vector: the B row times
 * the broadcast real part of A's element, and times its imaginary part; the
 * product's parts come out of the pair at the end (re = sum ar br - sum ai
 * bi, im = sum ar bi + sum ai br: one fmaddsub on the second with its lanes
 * swapped). Blocks are 6 rows x 2 vectors, or 4 x 3 from WIDE_MIN_N
 * columns: the same 24 accumulators on 11 loads a step instead of 14 (256 to
 * 512 columns: 1.04-1.06x torch's time -> 0.94-1.03), which small products
 * lose again to the wider strips' padding (64: 1.05x against 0.85x). k runs
 * in blocks of KC, so a B strip (KC x NR, 16 or 24 KB) stays in L1 while the
 * A strips of MC rows stream from L2; a block prefetches its C rows as it
 * starts: without, re-reading C cost a 512 x 512 complex128 product
 * 1.25-1.3x torch's time on a loaded machine. */
#include "gemm_complex_avx512.h"

#include "../../core/portable.h"

#ifdef MT_HAVE_AVX512
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "../typed.h"

#define KC 128
#define MC 96
#define WIDE_MIN_N 256

/* The packers per type, element (i, j) of x at x + i rs + j cs, the lanes of
 * a strip past the matrix zero. Both read x along its rows (B's row p goes
 * to row p of every strip at once): packing B strip by strip read it down
 * its columns and took an eighth of a 256 x 256 product's time. */
#define PACKERS(SFX, CT, CONJ, MR, NR)                                                         \
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
PACKERS(z6, mt_c128, conj, 6, 8)
PACKERS(c6, mt_c64, conjf, 6, 16)
PACKERS(z4, mt_c128, conj, 4, 12)
PACKERS(c4, mt_c64, conjf, 4, 24)

/* The MR x NR block (NV vectors wide) of kc steps, written to (first) or
 * added to t, rows ldt reals apart. VT vectors of W reals, set1/fma/... the
 * intrinsics for them, SWAP the lane swap of each (re, im) pair. */
#define KERNEL(SFX, MR, NV, RT, VT, W, LOADU, STOREU, SET1, FMADD, FMADDSUB, SWAP, ADD)          \
    MT_TARGET_AVX512 static void kernel_##SFX(int64_t kc, const RT *ap, const RT *bp, RT *t,     \
                                              int64_t ldt, bool first, int64_t ais, int64_t aps) \
    {                                                                                            \
        VT cr[MR][NV], ci[MR][NV];                                                               \
        _Pragma("GCC unroll 8") for (int i = 0; i < MR; i++)                                     \
        {                                                                                        \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                 \
            {                                                                                    \
                __builtin_prefetch(t + i * ldt + v * W, 1, 3);                                   \
                cr[i][v] = ci[i][v] = SET1(0);                                                   \
            }                                                                                    \
        }                                                                                        \
        _Pragma("GCC unroll 4") for (int64_t p = 0; p < kc; p++)                                 \
        {                                                                                        \
            VT bv[NV];                                                                           \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) bv[v] =                         \
                LOADU(bp + (p * NV + v) * W);                                                    \
            const RT *a = ap + p * 2 * aps;                                                      \
            _Pragma("GCC unroll 8") for (int i = 0; i < MR; i++)                                 \
            {                                                                                    \
                VT ar = SET1(a[2 * i * ais]), ai = SET1(a[2 * i * ais + 1]);                     \
                _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                             \
                {                                                                                \
                    cr[i][v] = FMADD(ar, bv[v], cr[i][v]);                                       \
                    ci[i][v] = FMADD(ai, bv[v], ci[i][v]);                                       \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
        VT one = SET1(1);                                                                        \
        _Pragma("GCC unroll 8") for (int i = 0; i < MR; i++)                                     \
        {                                                                                        \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                 \
            {                                                                                    \
                VT r = FMADDSUB(cr[i][v], one, SWAP(ci[i][v]));                                  \
                RT *o = t + i * ldt + v * W;                                                     \
                STOREU(o, first ? r : ADD(LOADU(o), r));                                         \
            }                                                                                    \
        }                                                                                        \
    }
#define SWAP_PD(x) _mm512_permute_pd(x, 0x55)
#define SWAP_PS(x) _mm512_permute_ps(x, 0xB1)
KERNEL(z6, 6, 2, double, __m512d, 8, _mm512_loadu_pd, _mm512_storeu_pd, _mm512_set1_pd,
       _mm512_fmadd_pd, _mm512_fmaddsub_pd, SWAP_PD, _mm512_add_pd)
KERNEL(c6, 6, 2, float, __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps,
       _mm512_fmadd_ps, _mm512_fmaddsub_ps, SWAP_PS, _mm512_add_ps)
KERNEL(z4, 4, 3, double, __m512d, 8, _mm512_loadu_pd, _mm512_storeu_pd, _mm512_set1_pd,
       _mm512_fmadd_pd, _mm512_fmaddsub_pd, SWAP_PD, _mm512_add_pd)
KERNEL(c4, 4, 3, float, __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps,
       _mm512_fmadd_ps, _mm512_fmaddsub_ps, SWAP_PS, _mm512_add_ps)

/* The blocked product for one type and block shape: MR rows, NR complex
 * columns per strip. A block at the matrix's edge is computed whole into a scratch
 * block and its part inside C copied out. */
#define DRIVER(SFX, CT, RT, MR, NR)                                                              \
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
DRIVER(z6, mt_c128, double, 6, 8)
DRIVER(c6, mt_c64, float, 6, 16)
DRIVER(z4, mt_c128, double, 4, 12)
DRIVER(c4, mt_c64, float, 4, 24)

bool mt_cgemm_avx512(mt_dtype d, int64_t m, int64_t n, int64_t k, const void *a, int64_t ars,
                     int64_t acs, bool conja, const void *b, int64_t brs, int64_t bcs, bool conjb,
                     void *c, int64_t ldc)
{
    /* a product with fewer rows or columns than 4 is mostly padding here (a
     * row times 256 x 256 took 2-3x OpenBLAS's time) */
    if (!mt_use_avx512() || k == 0 || m < 4 || n < 4)
        return false;
    if (n >= WIDE_MIN_N)
        return d == MT_COMPLEX128
                   ? product_z4(m, n, k, a, ars, acs, conja, b, brs, bcs, conjb, c, ldc)
                   : product_c4(m, n, k, a, ars, acs, conja, b, brs, bcs, conjb, c, ldc);
    return d == MT_COMPLEX128 ? product_z6(m, n, k, a, ars, acs, conja, b, brs, bcs, conjb, c, ldc)
                              : product_c6(m, n, k, a, ars, acs, conja, b, brs, bcs, conjb, c, ldc);
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
