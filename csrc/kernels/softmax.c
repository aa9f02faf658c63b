/* softmax / log_softmax of contiguous float32/float64 along any dim, and the
 * backward of both (softmax.h). Tensors are viewed as [outer, n, inner]:
 * when inner is 1 each row's passes run while it is in cache, the rows a
 * block at a time (softmax_row.h); when inner > 1 the work is cut into
 * [outer, chunk of inner] tiles and each pass walks the n rows of a tile
 * with the vector lanes across its contiguous columns, instead of a strided
 * scalar walk per column. Threads split the rows or tiles. NaN and
 * infinities follow the formulas as torch's kernels do: a NaN, +inf, or an
 * all -inf line gives a NaN line. */
#include "softmax.h"
#include "../core/portable.h"
#include "parallel.h"
#include "softmax_row.h"

#include <math.h>
#include <string.h>

#define CHUNK 16 /* columns per tile: a cache line of float32, so n rows of a tile stay in L2 */
#define GRAIN 32768

typedef struct {
    char *o;
    const char *x, *g;
    int64_t outer, n, inner, tiles;
    bool logsm;
} job;

/* The loops per dtype: T the element, V its vector of W lanes, M its
 * lane mask type (selects written out, as a clone calls no by-value vector
 * helper); a NaN once taken as the maximum stays (v > NaN is false). */
#define DEFINE_TILES(SFX, ATTR, T, V, M, W, VEXP_AT, LOGF, LOGS)                                   \
    ATTR static void fwd_tile_##SFX(T *o, const T *x, int64_t n, int64_t inner, int64_t cols,      \
                                    bool logsm)                                                    \
    {                                                                                              \
        V m[CHUNK / W], s[CHUNK / W], v;                                                           \
        int64_t nv = (cols + W - 1) / W;                                                           \
        for (int64_t c = 0; c < nv; c++) {                                                         \
            m[c] = (V){0} - (T)INFINITY;                                                           \
            s[c] = (V){0};                                                                         \
        }                                                                                          \
        for (int64_t k = 0; k < n; k++) {                                                          \
            const T *row = x + k * inner;                                                          \
            for (int64_t c = 0; c < nv; c++) {                                                     \
                int64_t w = cols - c * W < W ? cols - c * W : W;                                   \
                smr_load_##SFX(&v, row + c * W, w, -(T)INFINITY);                                  \
                M mk = (v > m[c]) | (v != v);                                                      \
                m[c] = (V)((mk & (M)v) | (~mk & (M)m[c]));                                         \
            }                                                                                      \
        }                                                                                          \
        for (int64_t k = 0; k < n; k++) {                                                          \
            const T *row = x + k * inner;                                                          \
            T *orow = o + k * inner;                                                               \
            for (int64_t c = 0; c < nv; c++) {                                                     \
                int64_t w = cols - c * W < W ? cols - c * W : W;                                   \
                smr_load_##SFX(&v, row + c * W, w, -(T)INFINITY);                                  \
                V e = v - m[c];                                                                    \
                VEXP_AT(&e);                                                                       \
                s[c] += e;                                                                         \
                if (!logsm)                                                                        \
                    smr_store_##SFX(orow + c * W, &e, w);                                          \
            }                                                                                      \
        }                                                                                          \
        for (int64_t c = 0; c < nv; c++) {                                                         \
            V r;                                                                                   \
            if (logsm)                                                                             \
                for (int j = 0; j < W; j++)                                                        \
                    r[j] = LOGF(s[c][j]);                                                          \
            else                                                                                   \
                r = (T)1 / s[c];                                                                   \
            s[c] = r;                                                                              \
        }                                                                                          \
        for (int64_t k = 0; k < n; k++) {                                                          \
            const T *row = x + k * inner;                                                          \
            T *orow = o + k * inner;                                                               \
            for (int64_t c = 0; c < nv; c++) {                                                     \
                int64_t w = cols - c * W < W ? cols - c * W : W;                                   \
                V r;                                                                               \
                if (logsm) {                                                                       \
                    smr_load_##SFX(&v, row + c * W, w, 0);                                         \
                    r = (v - m[c]) - s[c];                                                         \
                } else {                                                                           \
                    smr_load_##SFX(&v, orow + c * W, w, 0);                                        \
                    r = v * s[c];                                                                  \
                }                                                                                  \
                smr_store_##SFX(orow + c * W, &r, w);                                              \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* rows of n contiguous lines, a block at a time: maxima and exp sums    \
     * (the exps stored for softmax), the block's logs or reciprocals, then   \
     * the outputs while the block's rows are still in cache */                     \
    ATTR static void fwd_rows_##SFX(T *o, const T *x, int64_t rows, int64_t n, bool logsm)         \
    {                                                                                              \
        enum { B = MT_SOFTMAX_ROW_BLOCK };                                                         \
        T m[B], s[B];                                                                              \
        for (int64_t r0 = 0; r0 < rows; r0 += B) {                                                 \
            int64_t nb = rows - r0 < B ? rows - r0 : B;                                            \
            smr_block_##SFX(logsm ? NULL : o + r0 * n, n, x + r0 * n, n, &n, 0, nb, m, s);         \
            if (logsm)                                                                             \
                LOGS(s);                                                                           \
            else                                                                                   \
                for (int64_t b = 0; b < B; b++)                                                    \
                    s[b] = (T)1 / s[b];                                                            \
            for (int64_t b = 0; b < nb; b++)                                                       \
                smr_finish_##SFX(o + (r0 + b) * n, x + (r0 + b) * n, n, m[b], s[b], logsm);        \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* sums of g y (softmax) or g (log_softmax) over the n rows of a tile, then \
     * the gradient; inner = 1 makes the tile one row of n contiguous lines */                  \
    ATTR static void bwd_tile_##SFX(T *o, const T *g, const T *y, int64_t n, int64_t inner,        \
                                    int64_t cols, bool logsm)                                      \
    {                                                                                              \
        V s[CHUNK / W], vg, vy;                                                                    \
        int64_t nv = (cols + W - 1) / W;                                                           \
        for (int64_t c = 0; c < nv; c++)                                                           \
            s[c] = (V){0};                                                                         \
        for (int64_t k = 0; k < n; k++)                                                            \
            for (int64_t c = 0; c < nv; c++) {                                                     \
                int64_t w = cols - c * W < W ? cols - c * W : W, at = k * inner + c * W;           \
                smr_load_##SFX(&vg, g + at, w, 0);                                                 \
                if (logsm) {                                                                       \
                    s[c] += vg;                                                                    \
                } else {                                                                           \
                    smr_load_##SFX(&vy, y + at, w, 0);                                             \
                    s[c] += vg * vy;                                                               \
                }                                                                                  \
            }                                                                                      \
        for (int64_t k = 0; k < n; k++)                                                            \
            for (int64_t c = 0; c < nv; c++) {                                                     \
                int64_t w = cols - c * W < W ? cols - c * W : W, at = k * inner + c * W;           \
                smr_load_##SFX(&vg, g + at, w, 0);                                                 \
                smr_load_##SFX(&vy, y + at, w, 0);                                                 \
                V r;                                                                               \
                if (logsm) {                                                                       \
                    VEXP_AT(&vy);                                                                  \
                    r = vg - vy * s[c];                                                            \
                } else {                                                                           \
                    r = vy * (vg - s[c]);                                                          \
                }                                                                                  \
                smr_store_##SFX(o + at, &r, w);                                                    \
            }                                                                                      \
    }                                                                                              \
                                                                                                   \
    static void fwd_range_##SFX(void *arg, int64_t b, int64_t e)                                   \
    {                                                                                              \
        const job *j = arg;                                                                        \
        if (j->inner == 1) {                                                                       \
            fwd_rows_##SFX((T *)j->o + b * j->n, (const T *)j->x + b * j->n, e - b, j->n,          \
                           j->logsm);                                                              \
            return;                                                                                \
        }                                                                                          \
        for (int64_t t = b; t < e; t++) {                                                          \
            int64_t i = t / j->tiles, c0 = (t % j->tiles) * CHUNK;                                 \
            int64_t cols = j->inner - c0 < CHUNK ? j->inner - c0 : CHUNK;                          \
            int64_t at = i * j->n * j->inner + c0;                                                 \
            fwd_tile_##SFX((T *)j->o + at, (const T *)j->x + at, j->n, j->inner, cols, j->logsm);  \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    ATTR static void bwd_range_##SFX(void *arg, int64_t b, int64_t e)                              \
    {                                                                                              \
        const job *j = arg;                                                                        \
        for (int64_t t = b; t < e; t++) {                                                          \
            if (j->inner == 1) {                                                                   \
                int64_t at = t * j->n;                                                             \
                smr_bwd_##SFX((T *)j->o + at, (const T *)j->g + at, (const T *)j->x + at, j->n, 1, \
                              j->logsm);                                                           \
                continue;                                                                          \
            }                                                                                      \
            int64_t i = t / j->tiles, c0 = (t % j->tiles) * CHUNK;                                 \
            int64_t cols = j->inner - c0 < CHUNK ? j->inner - c0 : CHUNK;                          \
            int64_t at = i * j->n * j->inner + c0;                                                 \
            bwd_tile_##SFX((T *)j->o + at, (const T *)j->g + at, (const T *)j->x + at, j->n,       \
                           j->inner, cols, j->logsm);                                              \
        }                                                                                          \
    }

DEFINE_TILES(f4, MT_CLONES_AVX2_FMA, float, mt_v8f, mt_v8i, 8, mt_vexp8_at, logf,
             mt_softmax_row_logs_f4)
DEFINE_TILES(f8, MT_CLONES_AVX2_FMA, double, mt_v4d, mt_v4l, 4, mt_vexp4_at, log,
             mt_softmax_row_logs_f8)
#ifdef MT_HAVE_AVX512
DEFINE_TILES(x16, MT_TARGET_AVX512, float, __m512, mt_v16i, 16, mt_vexp16_at, logf,
             mt_softmax_row_logs_f4)
#endif

/* tasks: rows when inner is 1, else [outer, tiles of inner]; float32 in 16
 * lanes where the machine has AVX-512 */
static void run(job *j, mt_dtype dtype, bool backward)
{
    j->tiles = (j->inner + CHUNK - 1) / CHUNK;
    int64_t tasks = j->inner == 1 ? j->outer : j->outer * j->tiles;
    int64_t per = j->n * (j->inner == 1 ? 1 : CHUNK);
    int64_t grain = per >= GRAIN ? 1 : GRAIN / per;
    mt_range_fn fn = dtype == MT_FLOAT32 ? (backward ? bwd_range_f4 : fwd_range_f4)
                                         : (backward ? bwd_range_f8 : fwd_range_f8);
#ifdef MT_HAVE_AVX512
    if (dtype == MT_FLOAT32 && mt_use_avx512())
        fn = backward ? bwd_range_x16 : fwd_range_x16;
#endif
    mt_parallel_for(0, tasks, grain, fn, j);
}

int mt_softmax_forward(mt_tensor *out, const mt_tensor *in, int64_t outer, int64_t n, int64_t inner,
                       bool logsm)
{
    if (in->dtype != MT_FLOAT32 && in->dtype != MT_FLOAT64)
        return -1;
    job j = {.o = mt_data(out),
             .x = mt_data(in),
             .outer = outer,
             .n = n,
             .inner = inner,
             .logsm = logsm};
    run(&j, in->dtype, false);
    return 0;
}

int mt_softmax_backward(mt_tensor *grad_input, const mt_tensor *g, const mt_tensor *y,
                        int64_t outer, int64_t n, int64_t inner, bool logsm)
{
    if (y->dtype != MT_FLOAT32 && y->dtype != MT_FLOAT64)
        return -1;
    job j = {.o = mt_data(grad_input),
             .x = mt_data(y),
             .g = mt_data(g),
             .outer = outer,
             .n = n,
             .inner = inner,
             .logsm = logsm};
    run(&j, y->dtype, true);
    return 0;
}
