/* Register-blocked products (gemm_small.h), the one kernel behind float
 * matmul, the recurrent layers and the Winograd convolution. A block is up
 * to MR rows of A by NV vectors of W columns of B: each step l loads NV
 * vectors of row l of B and broadcasts one element of A per row, so the
 * MR x NV accumulators stay in registers over all of k and are stored (or
 * added to C) once. One macro compiles it per level and element type:
 * AVX-512 (zmm; float 8 rows by 3 vectors: 24 of 32 registers, 11 loads
 * per 24 multiply-adds where 4 by 4 took 8 per 16, which left the kernel
 * waiting on B's rows from L2: on an AVX-512 Xeon, 1 thread, 8 x 500 @
 * 500 x 500 in 28 against 43 us, 16 x 1024 @ 1024 x 1024 476 against 662,
 * 1024 x 784 @ W^T packed 5.1 against 6.3 ms; double 4 by 4, for float64
 * 2-9% ahead of the AVX2 level on matmul's small products on Zen 4, behind
 * only where n < 8 pads to 8),
 * AVX2 + FMA (ymm; float 6 rows by 2 vectors: 12 of 16 registers, double 4
 * rows by 2, which measured ahead of 4 by 3) and the portable baseline
 * (4-float or 4-double vectors, which every SIMD baseline has or splits in
 * two, 4 rows by 3). The level is chosen once from the CPU
 * (core/portable.h), the same for both types; MINITORCH_SMALL_GEMM=avx2 or
 * =generic caps it and MINITORCH_NO_AVX512 drops AVX-512, so the fallbacks
 * can be tested on a machine that has AVX-512. Every level sums over k in
 * order, one (fused where the level has FMA) multiply-add per term, and adds
 * C last when accumulating, so the levels that fuse give the same bits.
 *
 * For the recurrent layers B is packed once into strips of 16 columns, k rows
 * each, stored in runs of four, row p of a run holding the p-th row of each
 * of its strips side by side: a run is a k x 64 matrix with rows 64 apart, a
 * contiguous, 64-byte aligned stream, and a product is one block product per
 * run. */
#include "gemm_small.h"

#include <stdlib.h>
#include <string.h>

#include "../../core/allocator.h"
#include "../../core/error.h"
#include "../../core/portable.h"

#define S MT_SMALL_STRIP
/* Strips per run; rows of A per pass over all runs (a multiple of every
 * level's MR: 4, 6, 8). */
#define RUN 4
#define ROWS_PER_PASS 24
/* Rows of B ahead of the step that each step prefetches: B read in place
 * has rows a whole row of the matrix apart (2 KB at n = 512), a stride the
 * hardware prefetchers left behind, so the kernel waited on every row (1
 * thread: 64 x 784 @ 784 x 512 in 358 against 449 us, 2 x 500 @ 500 x 500
 * 19 against 24; 32 rows ahead measured no better than 16). A block of up
 * to FEW_ROWS rows does not: its step is a load per one to three
 * multiply-adds, and a prefetch per line took a load slot each (1 x 512 @
 * 512 x 512 in 7.4 against 11.3 us, float64 41 against 51; 2 x 512 @ 512 x
 * 512 13.0 against 15.1, 2 x 64 @ 64 x 4096 15.5 against 17.2). */
#define PREFETCH_ROWS 16
/* Rows up to which a product takes the wide blocks (NVF vectors: at most
 * 3 x 8 = 24 accumulators). */
#define FEW_ROWS 3

enum { LEVEL_GENERIC, LEVEL_AVX2, LEVEL_AVX512 };

/* fp-contract: GCC in ISO C mode would not fuse the multiply-adds */
#if defined(__clang__)
#define CONTRACT
#else
#define CONTRACT __attribute__((optimize("fp-contract=fast")))
#endif

/* PIN(x) holds a vector of B in a register for all the rows of a step
 * (MT_GEMM_PIN: 2 rows by 8 vectors loaded B twice a step, 2 x 500 @ 500 x
 * 500 in 17.3 against 14.2 us, 2 x 512 @ 512 x 512 15.1 against 9.7 on one
 * core). The x86 levels pin; the portable one, whose vectors may be two
 * registers, does not. */
#define NO_PIN(x) ((void)0)

typedef float v4f __attribute__((vector_size(16)));
typedef float v8f __attribute__((vector_size(32)));
typedef double v4d __attribute__((vector_size(32)));

/* NAME(m, n, k, a, ars, acs, b, ldb, c, ldc, acc): C = A B (+ C) for element
 * type T, vectors VT of W elements, blocks of MR rows by NV vectors; the
 * columns past the last whole block (n a multiple of W) run in one block as
 * many vectors wide as remain, so a narrow product still keeps MR x (n / W)
 * accumulators going. A product of at most FEW_ROWS rows runs blocks NVF
 * vectors wide instead (NAME_few): 2 rows by 3 vectors left each step
 * waiting on its 6 multiply-adds' latency. NAME has attributes
 * ATTR, its inlined parts INNER (a set of clones cannot be inlined). NAME_block has rows and
 * nv as constants once inlined, so its accumulators are registers; it takes
 * only pointers and scalars, never a vector, across the target boundary. */
#define GEMM_LEVEL(NAME, ATTR, INNER, T, VT, W, MR, NV, NVF, REGS, PIN)                          \
    INNER static inline __attribute__((always_inline)) void NAME##_block(                        \
        int rows, int nv, const T *a, int64_t ars, int64_t acs, int64_t k, const T *b,           \
        int64_t ldb, T *c, int64_t ldc, bool acc)                                                \
    {                                                                                            \
        VT s[MR][NVF];                                                                           \
        for (int i = 0; i < MR; i++)                                                             \
            for (int v = 0; v < NVF; v++)                                                        \
                s[i][v] = (VT){0};                                                               \
        for (int64_t l = 0; l < k; l++, a += acs, b += ldb) {                                    \
            VT bv[NVF];                                                                          \
            for (int v = 0; v < nv; v++) {                                                       \
                memcpy(&bv[v], b + v * W, sizeof(VT));                                           \
                if (rows > 1 && (rows + 1) * nv < REGS)                                          \
                    PIN(bv[v]);                                                                  \
            }                                                                                    \
            const T *ahead = l + PREFETCH_ROWS < k ? b + PREFETCH_ROWS * ldb : b;                \
            for (int o = 0; rows > FEW_ROWS && o < nv * W; o += 64 / (int)sizeof(T))             \
                __builtin_prefetch(ahead + o, 0, 3);                                             \
            /* a vector times a scalar: a broadcast, with no add of zero */                      \
            for (int i = 0; i < rows; i++) {                                                     \
                T x = a[i * ars];                                                                \
                for (int v = 0; v < nv; v++)                                                     \
                    s[i][v] += bv[v] * x;                                                        \
            }                                                                                    \
        }                                                                                        \
        /* through a copy: the address of s itself would keep s in memory */                     \
        for (int i = 0; i < rows; i++)                                                           \
            for (int v = 0; v < nv; v++) {                                                       \
                T *cp = c + i * ldc + v * W;                                                     \
                VT sum = s[i][v];                                                                \
                if (acc) {                                                                       \
                    VT old;                                                                      \
                    memcpy(&old, cp, sizeof(VT));                                                \
                    sum += old;                                                                  \
                }                                                                                \
                memcpy(cp, &sum, sizeof(VT));                                                    \
            }                                                                                    \
    }                                                                                            \
    INNER static inline __attribute__((always_inline)) void NAME##_rows(                         \
        int rows, int nv, const T *a, int64_t ars, int64_t acs, int64_t k, const T *b,           \
        int64_t ldb, T *c, int64_t ldc, bool acc)                                                \
    {                                                                                            \
        switch (rows) {                                                                          \
        case 1:                                                                                  \
            NAME##_block(1, nv, a, ars, acs, k, b, ldb, c, ldc, acc);                            \
            break;                                                                               \
        case 2:                                                                                  \
            NAME##_block(2, nv, a, ars, acs, k, b, ldb, c, ldc, acc);                            \
            break;                                                                               \
        case 3:                                                                                  \
            NAME##_block(3, nv, a, ars, acs, k, b, ldb, c, ldc, acc);                            \
            break;                                                                               \
        case 4:                                                                                  \
            NAME##_block(4 < MR ? 4 : MR, nv, a, ars, acs, k, b, ldb, c, ldc, acc);              \
            break;                                                                               \
        case 5:                                                                                  \
            NAME##_block(5 < MR ? 5 : MR, nv, a, ars, acs, k, b, ldb, c, ldc, acc);              \
            break;                                                                               \
        case 6:                                                                                  \
            NAME##_block(6 < MR ? 6 : MR, nv, a, ars, acs, k, b, ldb, c, ldc, acc);              \
            break;                                                                               \
        case 7:                                                                                  \
            NAME##_block(7 < MR ? 7 : MR, nv, a, ars, acs, k, b, ldb, c, ldc, acc);              \
            break;                                                                               \
        default:                                                                                 \
            NAME##_block(MR, nv, a, ars, acs, k, b, ldb, c, ldc, acc);                           \
            break;                                                                               \
        }                                                                                        \
    }                                                                                            \
    INNER static inline __attribute__((always_inline)) void NAME##_few_rows(                     \
        int rows, int nv, const T *a, int64_t ars, int64_t acs, int64_t k, const T *b,           \
        int64_t ldb, T *c, int64_t ldc, bool acc)                                                \
    {                                                                                            \
        if (rows == 1)                                                                           \
            NAME##_block(1, nv, a, ars, acs, k, b, ldb, c, ldc, acc);                            \
        else if (rows == 2)                                                                      \
            NAME##_block(2, nv, a, ars, acs, k, b, ldb, c, ldc, acc);                            \
        else                                                                                     \
            NAME##_block(FEW_ROWS, nv, a, ars, acs, k, b, ldb, c, ldc, acc);                     \
    }                                                                                            \
    INNER static inline __attribute__((always_inline)) void NAME##_few(                          \
        int rows, int64_t n, const T *a, int64_t ars, int64_t acs, int64_t k, const T *b,        \
        int64_t ldb, T *c, int64_t ldc, bool acc)                                                \
    {                                                                                            \
        /* as wide as leaves a register for each of B's vectors */                               \
        int most = (rows + 1) * NVF >= REGS ? (REGS - 1) / (rows + 1) : NVF;                     \
        for (int64_t j = 0; j < n;) {                                                            \
            int nv = n - j >= most * W ? most : (int)((n - j) / W);                              \
            const T *bj = b + j;                                                                 \
            T *cj = c + j;                                                                       \
            switch (nv) {                                                                        \
            case 1:                                                                              \
                NAME##_few_rows(rows, 1 < NVF ? 1 : NVF, a, ars, acs, k, bj, ldb, cj, ldc, acc); \
                break;                                                                           \
            case 2:                                                                              \
                NAME##_few_rows(rows, 2 < NVF ? 2 : NVF, a, ars, acs, k, bj, ldb, cj, ldc, acc); \
                break;                                                                           \
            case 3:                                                                              \
                NAME##_few_rows(rows, 3 < NVF ? 3 : NVF, a, ars, acs, k, bj, ldb, cj, ldc, acc); \
                break;                                                                           \
            case 4:                                                                              \
                NAME##_few_rows(rows, 4 < NVF ? 4 : NVF, a, ars, acs, k, bj, ldb, cj, ldc, acc); \
                break;                                                                           \
            case 5:                                                                              \
                NAME##_few_rows(rows, 5 < NVF ? 5 : NVF, a, ars, acs, k, bj, ldb, cj, ldc, acc); \
                break;                                                                           \
            case 6:                                                                              \
                NAME##_few_rows(rows, 6 < NVF ? 6 : NVF, a, ars, acs, k, bj, ldb, cj, ldc, acc); \
                break;                                                                           \
            case 7:                                                                              \
                NAME##_few_rows(rows, 7 < NVF ? 7 : NVF, a, ars, acs, k, bj, ldb, cj, ldc, acc); \
                break;                                                                           \
            default:                                                                             \
                NAME##_few_rows(rows, NVF, a, ars, acs, k, bj, ldb, cj, ldc, acc);               \
                break;                                                                           \
            }                                                                                    \
            j += nv * W;                                                                         \
        }                                                                                        \
    }                                                                                            \
    ATTR static void NAME(int64_t m, int64_t n, int64_t k, const T *a, int64_t ars, int64_t acs, \
                          const T *b, int64_t ldb, T *c, int64_t ldc, bool acc)                  \
    {                                                                                            \
        if (NVF > NV && m <= FEW_ROWS) {                                                         \
            NAME##_few((int)m, n, a, ars, acs, k, b, ldb, c, ldc, acc);                          \
            return;                                                                              \
        }                                                                                        \
        for (int64_t j = 0; j < n;) {                                                            \
            int nv = n - j >= NV * W ? NV : (int)((n - j) / W);                                  \
            for (int64_t i = 0; i < m; i += MR) {                                                \
                int rows = m - i < MR ? (int)(m - i) : MR;                                       \
                const T *ai = a + i * ars, *bj = b + j;                                          \
                T *cij = c + i * ldc + j;                                                        \
                switch (nv) {                                                                    \
                case 1:                                                                          \
                    NAME##_rows(rows, 1, ai, ars, acs, k, bj, ldb, cij, ldc, acc);               \
                    break;                                                                       \
                case 2:                                                                          \
                    NAME##_rows(rows, 2 < NV ? 2 : NV, ai, ars, acs, k, bj, ldb, cij, ldc, acc); \
                    break;                                                                       \
                case 3:                                                                          \
                    NAME##_rows(rows, 3 < NV ? 3 : NV, ai, ars, acs, k, bj, ldb, cij, ldc, acc); \
                    break;                                                                       \
                default:                                                                         \
                    NAME##_rows(rows, NV, ai, ars, acs, k, bj, ldb, cij, ldc, acc);              \
                    break;                                                                       \
                }                                                                                \
            }                                                                                    \
            j += nv * W;                                                                         \
        }                                                                                        \
    }

typedef void (*gemm_f32_fn)(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars,
                            int64_t acs, const float *b, int64_t ldb, float *c, int64_t ldc,
                            bool acc);
typedef void (*gemm_f64_fn)(int64_t m, int64_t n, int64_t k, const double *a, int64_t ars,
                            int64_t acs, const double *b, int64_t ldb, double *c, int64_t ldc,
                            bool acc);

GEMM_LEVEL(gemm_generic, CONTRACT, CONTRACT, float, v4f, 4, 4, 3, 3, 16, NO_PIN)
GEMM_LEVEL(gemm_double_generic, CONTRACT, CONTRACT, double, v4d, 4, 4, 3, 3, 16, NO_PIN)
#ifdef MT_HAVE_X86_DISPATCH
GEMM_LEVEL(gemm_avx2, MT_TARGET_AVX2_FMA CONTRACT, MT_TARGET_AVX2_FMA CONTRACT, float, v8f, 8, 6, 2,
           2, 16, MT_GEMM_PIN)
GEMM_LEVEL(gemm_double_avx2, MT_TARGET_AVX2_FMA CONTRACT, MT_TARGET_AVX2_FMA CONTRACT, double, v4d,
           4, 4, 2, 2, 16, MT_GEMM_PIN)
#endif
#ifdef MT_HAVE_AVX512
typedef float v16f __attribute__((vector_size(64)));
typedef double v8d __attribute__((vector_size(64)));
GEMM_LEVEL(gemm_avx512, MT_TARGET_AVX512 CONTRACT, MT_TARGET_AVX512 CONTRACT, float, v16f, 16, 8, 3,
           8, 32, MT_GEMM_PIN)
GEMM_LEVEL(gemm_double_avx512, MT_TARGET_AVX512 CONTRACT, MT_TARGET_AVX512 CONTRACT, double, v8d, 8,
           4, 4, 4, 32, MT_GEMM_PIN)
#endif

static int best_level(void)
{
    int level = LEVEL_GENERIC;
#ifdef MT_HAVE_X86_DISPATCH
    if (mt_cpu_has_avx2_fma())
        level = LEVEL_AVX2;
#endif
#ifdef MT_HAVE_AVX512
    if (mt_use_avx512())
        level = LEVEL_AVX512;
#endif
    const char *cap = getenv("MINITORCH_SMALL_GEMM");
    if (cap && strcmp(cap, "generic") == 0)
        level = LEVEL_GENERIC;
    else if (cap && strcmp(cap, "avx2") == 0 && level > LEVEL_AVX2)
        level = LEVEL_AVX2;
    return level;
}

/* Each level's kernels, indexed by level: a build has every level up to the
 * best its compiler targets, and best_level picks none above. */
typedef struct {
    gemm_f32_fn f32;
    gemm_f64_fn f64;
} gemm_kernels;

static const gemm_kernels *kernels(void)
{
    static const gemm_kernels levels[] = {
        {gemm_generic, gemm_double_generic},
#ifdef MT_HAVE_X86_DISPATCH
        {gemm_avx2, gemm_double_avx2},
#endif
#ifdef MT_HAVE_AVX512
        {gemm_avx512, gemm_double_avx512},
#endif
    };
    static int level = -1; /* racing first calls all store the same value */
    if (level < 0)
        level = best_level();
    return &levels[level];
}

bool mt_gemm_f32_wide(void)
{
#ifdef MT_HAVE_AVX512
    return kernels()->f32 == gemm_avx512;
#else
    return false;
#endif
}

void mt_gemm_f32(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars, int64_t acs,
                 const float *b, int64_t ldb, float *c, int64_t ldc, bool acc)
{
    kernels()->f32(m, n, k, a, ars, acs, b, ldb, c, ldc, acc);
}

void mt_gemm_float(mt_dtype d, int64_t m, int64_t n, int64_t k, const void *a, int64_t ars,
                   int64_t acs, const void *b, int64_t ldb, void *c, int64_t ldc, bool acc)
{
    if (d == MT_FLOAT32)
        kernels()->f32(m, n, k, a, ars, acs, b, ldb, c, ldc, acc);
    else
        kernels()->f64(m, n, k, a, ars, acs, b, ldb, c, ldc, acc);
}

/* Element offset of run u: every run but the last is full. */
static int64_t run_offset(int64_t u, int64_t k) { return u * k * RUN * S; }

/* Strip s of rows k0.. from B: its columns past the group's width are zero.
 * Row by row when B's rows are contiguous, column by column when its columns
 * are (a transposed weight), so the reads run along memory either way. */
#define PACK(T)                                                                                 \
    static void pack_##T(mt_small_packed *p, int64_t k0, int64_t rows, const T *b, int64_t brs, \
                         int64_t bcs)                                                           \
    {                                                                                           \
        int64_t w = p->n / p->groups, per = p->gw / S;                                          \
        for (int64_t s = 0; s < p->strips; s++) {                                               \
            int64_t g = s / per, q = s % per, u = s / RUN;                                      \
            int64_t ld = (p->strips - u * RUN < RUN ? p->strips - u * RUN : RUN) * S;           \
            int64_t valid = w - q * S < S ? w - q * S : S;                                      \
            T *dst = (T *)p->data + run_offset(u, p->k) + k0 * ld + (s % RUN) * S;              \
            const T *src = b + (g * w + q * S) * bcs;                                           \
            if (bcs == 1) {                                                                     \
                for (int64_t r = 0; r < rows; r++) {                                            \
                    memcpy(dst + r * ld, src + r * brs, sizeof(T) * (size_t)valid);             \
                    memset(dst + r * ld + valid, 0, sizeof(T) * (size_t)(S - valid));           \
                }                                                                               \
                continue;                                                                       \
            }                                                                                   \
            for (int64_t l = 0; l < S; l++)                                                     \
                for (int64_t r = 0; r < rows; r++)                                              \
                    dst[r * ld + l] = l < valid ? src[l * bcs + r * brs] : 0;                   \
        }                                                                                       \
    }
PACK(float)
PACK(double)

int mt_small_alloc(mt_dtype d, int64_t k, int64_t n, int64_t groups, mt_small_packed *out)
{
    int64_t gw = (n / groups + S - 1) / S * S;
    *out = (mt_small_packed){d, k, n, groups, gw, groups * gw / S};
    size_t isz = d == MT_FLOAT32 ? sizeof(float) : sizeof(double);
    int64_t runs = (out->strips + RUN - 1) / RUN;
    out->block =
        mt_alloc((size_t)(run_offset(runs, k) + 1) * isz, 64, false, &out->data, &out->size);
    if (!out->block)
        return mt_error(MT_ERR_MEMORY, "out of memory packing a %lld x %lld matrix", (long long)k,
                        (long long)n);
    return 0;
}

void mt_small_pack_rows(mt_small_packed *p, int64_t k0, int64_t rows, const void *b, int64_t brs,
                        int64_t bcs)
{
    if (p->dtype == MT_FLOAT32)
        pack_float(p, k0, rows, b, brs, bcs);
    else
        pack_double(p, k0, rows, b, brs, bcs);
}

int mt_small_pack(mt_dtype d, const void *b, int64_t brs, int64_t bcs, int64_t k, int64_t n,
                  int64_t groups, mt_small_packed *out)
{
    if (mt_small_alloc(d, k, n, groups, out) < 0)
        return -1;
    mt_small_pack_rows(out, 0, k, b, brs, bcs);
    return 0;
}

void mt_small_unpack(mt_small_packed *p)
{
    if (p->block)
        mt_alloc_free(p->block, p->size);
    p->block = p->data = NULL;
}

void mt_small_gemm(const mt_small_packed *p, int64_t m, const void *a, int64_t ars, int64_t acs,
                   void *c, int64_t ldc)
{
    size_t isz = p->dtype == MT_FLOAT32 ? sizeof(float) : sizeof(double);
    /* a few rows of A against every run, so they stay in cache while B streams */
    for (int64_t i0 = 0; i0 < m; i0 += ROWS_PER_PASS) {
        int64_t mr = m - i0 < ROWS_PER_PASS ? m - i0 : ROWS_PER_PASS;
        const char *ai = (const char *)a + i0 * ars * (int64_t)isz;
        char *ci = (char *)c + i0 * ldc * (int64_t)isz;
        for (int64_t u = 0; u * RUN < p->strips; u++) {
            int64_t w = (p->strips - u * RUN < RUN ? p->strips - u * RUN : RUN) * S;
            int64_t off = run_offset(u, p->k), col = u * RUN * S;
            mt_gemm_float(p->dtype, mr, w, p->k, ai, ars, acs,
                          (const char *)p->data + off * (int64_t)isz, w, ci + col * (int64_t)isz,
                          ldc, false);
        }
    }
}
