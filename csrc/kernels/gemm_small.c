/* Few-row products against a packed matrix (gemm_small.h). B is packed once
 * into strips of 16 columns, k rows each, and strips are stored in runs of
 * four, row p of a run holding the p-th row of each of its strips side by
 * side, so a product walks one contiguous, 64-byte aligned stream per run.
 * A tile is up to 4 rows of A by one run: in AVX-512 the 4 x 4 accumulators
 * (16 floats each) stay in registers over all of k; in AVX2 + FMA one strip
 * at a time (4 x 2 registers of 8); the portable tile is plain C with an
 * AVX2 + FMA clone and is also the float64 kernel. The level is chosen once
 * from the CPU; MINITORCH_SMALL_GEMM=avx2 or =generic caps it, so the
 * fallbacks can be tested on a machine that has AVX-512. Every level sums
 * over k in order, one (fused on AVX2/AVX-512) multiply-add per term. */
#include "gemm_small.h"

#include <stdlib.h>
#include <string.h>

#include "../core/allocator.h"
#include "../core/error.h"
#include "../core/portable.h"

#ifdef MT_HAVE_X86_DISPATCH
#include <immintrin.h>
#endif

#define S MT_SMALL_STRIP
/* Strips per run and rows of A per tile. */
#define RUN 4
#define MR 4

enum { LEVEL_GENERIC, LEVEL_AVX2, LEVEL_AVX512 };

/* One tile: rows a[0..MR) of A, values acs apart (rows past mr repeat the
 * last one and are not stored), by nv strips of b whose rows are ldb values
 * apart, into c. */
typedef void (*tile_fn)(const void *const *a, int64_t acs, int64_t k, const void *b,
                        int64_t ldb, int nv, void *c, int64_t ldc, int mr);

#define GENERIC_TILE(T)                                                                  \
    MT_CLONES_AVX2_FMA static void tile_generic_##T(const void *const *av, int64_t acs,  \
                                                    int64_t k, const void *bv,           \
                                                    int64_t ldb, int nv, void *cv,       \
                                                    int64_t ldc, int mr)                 \
    {                                                                                    \
        const T *const *a = (const T *const *)av;                                        \
        for (int v = 0; v < nv; v++) {                                                   \
            T acc[MR][S] = {{0}};                                                        \
            const T *b = (const T *)bv + v * S;                                          \
            for (int64_t p = 0; p < k; p++, b += ldb)                                    \
                for (int r = 0; r < MR; r++) {                                           \
                    T x = a[r][p * acs];                                                 \
                    for (int l = 0; l < S; l++)                                          \
                        acc[r][l] += x * b[l];                                           \
                }                                                                        \
            for (int r = 0; r < mr; r++)                                                 \
                memcpy((T *)cv + r * ldc + v * S, acc[r], sizeof acc[r]);                \
        }                                                                                \
    }
GENERIC_TILE(float)
GENERIC_TILE(double)

#ifdef MT_HAVE_X86_DISPATCH
MT_TARGET_AVX2_FMA static void tile_avx2(const void *const *av, int64_t acs, int64_t k,
                                         const void *bv, int64_t ldb, int nv, void *cv,
                                         int64_t ldc, int mr)
{
    const float *const *a = (const float *const *)av;
    for (int v = 0; v < nv; v++) {
        __m256 acc[MR][2];
        for (int r = 0; r < MR; r++)
            acc[r][0] = acc[r][1] = _mm256_setzero_ps();
        const float *b = (const float *)bv + v * S;
        for (int64_t p = 0; p < k; p++, b += ldb) {
            __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
            for (int r = 0; r < MR; r++) {
                __m256 x = _mm256_broadcast_ss(a[r] + p * acs);
                acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
            }
        }
        for (int r = 0; r < mr; r++) {
            float *c = (float *)cv + r * ldc + v * S;
            _mm256_storeu_ps(c, acc[r][0]);
            _mm256_storeu_ps(c + 8, acc[r][1]);
        }
    }
}

#endif

#ifdef MT_HAVE_AVX512
/* NV strips of 16 floats by MR rows, all accumulators in registers. */
#define TILE512(NV)                                                                      \
    MT_TARGET_AVX512 static void tile512_##NV(const float *const *a, int64_t acs,        \
                                              int64_t k, const float *b, int64_t ldb,    \
                                              float *c, int64_t ldc, int mr)             \
    {                                                                                    \
        __m512 acc[MR][NV];                                                              \
        for (int r = 0; r < MR; r++)                                                     \
            for (int v = 0; v < NV; v++)                                                 \
                acc[r][v] = _mm512_setzero_ps();                                         \
        for (int64_t p = 0; p < k; p++, b += ldb) {                                      \
            __m512 bl[NV];                                                               \
            for (int v = 0; v < NV; v++)                                                 \
                bl[v] = _mm512_load_ps(b + v * S);                                       \
            for (int r = 0; r < MR; r++) {                                               \
                __m512 x = _mm512_set1_ps(a[r][p * acs]);                                \
                for (int v = 0; v < NV; v++)                                             \
                    acc[r][v] = _mm512_fmadd_ps(x, bl[v], acc[r][v]);                    \
            }                                                                            \
        }                                                                                \
        for (int r = 0; r < mr; r++)                                                     \
            for (int v = 0; v < NV; v++)                                                 \
                _mm512_storeu_ps(c + r * ldc + v * S, acc[r][v]);                        \
    }
TILE512(4)
TILE512(1)

static void tile_avx512(const void *const *av, int64_t acs, int64_t k, const void *bv,
                        int64_t ldb, int nv, void *cv, int64_t ldc, int mr)
{
    const float *const *a = (const float *const *)av;
    const float *b = bv;
    float *c = cv;
    if (nv == RUN) {
        tile512_4(a, acs, k, b, ldb, c, ldc, mr);
        return;
    }
    for (int v = 0; v < nv; v++)
        tile512_1(a, acs, k, b + v * S, ldb, c + v * S, ldc, mr);
}
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

static tile_fn float_tile(void)
{
    static int level = -1; /* racing first calls all store the same value */
    if (level < 0)
        level = best_level();
#ifdef MT_HAVE_AVX512
    if (level == LEVEL_AVX512)
        return tile_avx512;
#endif
#ifdef MT_HAVE_X86_DISPATCH
    if (level == LEVEL_AVX2)
        return tile_avx2;
#endif
    return tile_generic_float;
}

/* Element offset of run u: every run but the last is full. */
static int64_t run_offset(int64_t u, int64_t k) { return u * k * RUN * S; }

/* Strip s of rows k0.. from B: its columns past the group's width are zero.
 * Row by row when B's rows are contiguous, column by column when its columns
 * are (a transposed weight), so the reads run along memory either way. */
#define PACK(T)                                                                          \
    static void pack_##T(mt_small_packed *p, int64_t k0, int64_t rows, const T *b,       \
                         int64_t brs, int64_t bcs)                                       \
    {                                                                                    \
        int64_t w = p->n / p->groups, per = p->gw / S;                                   \
        for (int64_t s = 0; s < p->strips; s++) {                                        \
            int64_t g = s / per, q = s % per, u = s / RUN;                               \
            int64_t ld = (p->strips - u * RUN < RUN ? p->strips - u * RUN : RUN) * S;    \
            int64_t valid = w - q * S < S ? w - q * S : S;                               \
            T *dst = (T *)p->data + run_offset(u, p->k) + k0 * ld + (s % RUN) * S;       \
            const T *src = b + (g * w + q * S) * bcs;                                    \
            if (bcs == 1) {                                                              \
                for (int64_t r = 0; r < rows; r++) {                                     \
                    memcpy(dst + r * ld, src + r * brs, sizeof(T) * (size_t)valid);      \
                    memset(dst + r * ld + valid, 0, sizeof(T) * (size_t)(S - valid));    \
                }                                                                        \
                continue;                                                                \
            }                                                                            \
            for (int64_t l = 0; l < S; l++)                                              \
                for (int64_t r = 0; r < rows; r++)                                       \
                    dst[r * ld + l] = l < valid ? src[l * bcs + r * brs] : 0;            \
        }                                                                                \
    }
PACK(float)
PACK(double)

int mt_small_alloc(mt_dtype d, int64_t k, int64_t n, int64_t groups, mt_small_packed *out)
{
    int64_t gw = (n / groups + S - 1) / S * S;
    *out = (mt_small_packed){d, k, n, groups, gw, groups * gw / S};
    size_t isz = d == MT_FLOAT32 ? sizeof(float) : sizeof(double);
    int64_t runs = (out->strips + RUN - 1) / RUN;
    out->block = mt_alloc((size_t)(run_offset(runs, k) + 1) * isz, 64, false, &out->data,
                          &out->size);
    if (!out->block)
        return mt_error(MT_ERR_MEMORY, "out of memory packing a %lld x %lld matrix",
                        (long long)k, (long long)n);
    return 0;
}

void mt_small_pack_rows(mt_small_packed *p, int64_t k0, int64_t rows, const void *b,
                        int64_t brs, int64_t bcs)
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

void mt_small_gemm(const mt_small_packed *p, int64_t m, const void *a, int64_t ars,
                   int64_t acs, void *c, int64_t ldc)
{
    size_t isz = p->dtype == MT_FLOAT32 ? sizeof(float) : sizeof(double);
    tile_fn tile = p->dtype == MT_FLOAT32 ? float_tile() : tile_generic_double;
    for (int64_t i0 = 0; i0 < m; i0 += MR) {
        int mr = m - i0 < MR ? (int)(m - i0) : MR;
        const void *rows[MR];
        for (int r = 0; r < MR; r++)
            rows[r] = (const char *)a + (i0 + (r < mr ? r : mr - 1)) * ars * (int64_t)isz;
        for (int64_t u = 0; u * RUN < p->strips; u++) {
            int nv = p->strips - u * RUN < RUN ? (int)(p->strips - u * RUN) : RUN;
            tile(rows, acs, p->k, (const char *)p->data + run_offset(u, p->k) * (int64_t)isz,
                 nv * S, nv, (char *)c + (i0 * ldc + u * RUN * S) * (int64_t)isz, ldc, mr);
        }
    }
}
