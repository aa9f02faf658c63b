/* 3x3, stride 1, undilated, ungrouped float32 convolution by Winograd's
 * F(2x2, 3x3): a 4x4 input tile (B^T d B) and a transformed filter (G g G^T)
 * multiply elementwise into a 2x2 output tile (A^T m A), so the products
 * become 16 independent (O x C) @ (C x tiles) gemms with 2.25 times fewer
 * multiply-adds than im2col. The forward runs in chunks of tiles sized so a
 * chunk's transformed input and output stay in L2; each thread takes whole
 * chunks (transform, 16 products by our register-blocked kernel in
 * gemm/gemm_small.h, inverse transform) with no barrier between the stages. The input gradient
 * is the same forward over the output gradient with the filter flipped and
 * its channels swapped (padding 2 - p). The weight gradient is the adjoint
 * of the three linear maps, G^T (sum over tiles of (A dy A^T) (B^T d B)^T) G,
 * in the same chunks with the same kernel, each thread summing its own. */
#include "nn_conv_winograd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../core/allocator.h"
#include "../core/error.h"
#include "../core/portable.h"
#include "gemm/gemm_small.h"
#include "parallel.h"
#include "simd/vmath.h"

/* Bytes of transformed tiles (input and output side together) per chunk,
 * run whole on one thread: with the transformed filter (or, for the weight
 * gradient, the transposed input side and the sums) a chunk stays within a
 * 1 MB L2. */
#define FORWARD_CHUNK_BYTES ((int64_t)512 << 10)
#define WEIGHT_CHUNK_BYTES ((int64_t)384 << 10)
/* A forward chunk's rows (tiles) and the weight gradient's channels are
 * padded to a multiple of this for the product kernel (a multiple of
 * MT_GEMM_COLS). */
#define NR 32

bool mt_conv2d_winograd_fits(mt_dtype d, int64_t C, int64_t O, const mt_window *win, int64_t groups)
{
    /* below a few channels the transforms cost more than the gemms save */
    return d == MT_FLOAT32 && groups == 1 && win->kh == 3 && win->kw == 3 && win->sh == 1 &&
           win->sw == 1 && win->dh == 1 && win->dw == 1 && C >= 8 && O >= 8 && win->oh >= 2 &&
           win->ow >= 2;
}

bool mt_conv2d_winograd_input_fits(mt_dtype d, int64_t C, int64_t O, const mt_window *win,
                                   int64_t groups)
{
    /* the transposed convolution pads by 2 - p, which must not be negative */
    return mt_conv2d_winograd_fits(d, C, O, win, groups) && win->ph <= 2 && win->pw <= 2;
}

/* ------------------------------------------------------- 1-d transforms */

/* The filter side, G g, and its adjoint G^T u: the filter transforms run
 * once per call, so scalar code will do. */
static inline void g3(const float *g, float *u)
{
    u[0] = g[0];
    u[1] = 0.5f * (g[0] + g[1] + g[2]);
    u[2] = 0.5f * (g[0] - g[1] + g[2]);
    u[3] = g[2];
}

static inline void gt3(const float *u, float *g)
{
    g[0] = u[0] + 0.5f * (u[1] + u[2]);
    g[1] = 0.5f * (u[1] - u[2]);
    g[2] = u[3] + 0.5f * (u[1] + u[2]);
}

/* A 2-d transform (columns, then rows) from an r x r block to an s x s one. */
#define TRANSFORM_2D(NAME, FN, R, S)                     \
    static inline void NAME(const float *in, float *out) \
    {                                                    \
        float mid[S * R], col[R], res[S];                \
        for (int j = 0; j < R; j++) {                    \
            for (int i = 0; i < R; i++)                  \
                col[i] = in[i * R + j];                  \
            FN(col, res);                                \
            for (int i = 0; i < S; i++)                  \
                mid[i * R + j] = res[i];                 \
        }                                                \
        for (int i = 0; i < S; i++)                      \
            FN(mid + i * R, out + i * S);                \
    }
TRANSFORM_2D(filter_tile, g3, 3, 4)
TRANSFORM_2D(filter_tile_adjoint, gt3, 4, 3)

/* ---------------------------------------------------------------- plan */

/* Tiles p = n * tiles + ty * tw + tx over the batch, in chunks of whole tile
 * rows; the transformed operands of a chunk are [16][rows][np]. */
typedef struct {
    const mt_window *win;
    int64_t N, C, O, H, W, th, tw, tiles, chunk;
} plan;

static plan plan_of(int64_t N, int64_t C, int64_t O, int64_t H, int64_t W, const mt_window *win,
                    int64_t chunk_bytes)
{
    plan p = {win, N, C, O, H, W, (win->oh + 1) / 2, (win->ow + 1) / 2};
    p.tiles = p.th * p.tw;
    int64_t per_tile = 16 * (C + O) * (int64_t)sizeof(float);
    p.chunk = chunk_bytes / per_tile / p.tw * p.tw;
    if (p.chunk < p.tw)
        p.chunk = p.tw;
    if (p.chunk > N * p.tiles)
        p.chunk = N * p.tiles;
    return p;
}

/* A 64-byte aligned buffer from the caching allocator; *block and *size are
 * what give() hands back. NULL when out of memory: take_quiet leaves the
 * error unset (for a task on another thread), take sets it. */
static float *take_quiet(size_t bytes, bool zeroed, void **block, size_t *size)
{
    void *data = NULL;
    *block = mt_alloc(bytes, 64, zeroed, &data, size);
    return *block ? data : NULL;
}

static float *take(size_t bytes, void **block, size_t *size)
{
    float *data = take_quiet(bytes, false, block, size);
    if (!data)
        mt_error(MT_ERR_MEMORY, "convolution: out of memory for a %llu-byte buffer",
                 (unsigned long long)bytes);
    return data;
}

static void give(void *block, size_t size)
{
    if (block)
        mt_alloc_free(block, size);
}

/* One pass over a chunk [p0, p0 + np) of tiles, one task per channel. */
typedef struct {
    const plan *pl;
    int64_t p0, np, ld; /* ld >= np: the row stride of tr */
    /* the image side: x or the output gradient read, out written */
    const mt_tensor *img;
    float *tr; /* [16][channels][ld] */
    const float *bias;
    int failed; /* a task found no scratch memory */
} pass;

/* ------------------------------------------------- vector tile passes
 * Eight horizontally adjacent tiles per vector: the rows a tile row reads
 * are copied with their padding into a scratch row, and the columns 2 tx
 * and 2 tx + 1 of eight tiles come out of two vector loads by one shuffle
 * each (EVEN, ODD); the results are interleaved back the same way (LOW,
 * HIGH). Macros, not functions: clang refuses a by-value vector between a
 * plain function and the AVX clones that call it. */

typedef mt_v8f v8;

/* Lanes of a and b (b's numbered from 8) in the order given. */
#if defined(__clang__)
#define SHUF(a, b, i0, i1, i2, i3, i4, i5, i6, i7) \
    __builtin_shufflevector(a, b, i0, i1, i2, i3, i4, i5, i6, i7)
#else
#define SHUF(a, b, i0, i1, i2, i3, i4, i5, i6, i7) \
    __builtin_shuffle(a, b, (mt_v8i){i0, i1, i2, i3, i4, i5, i6, i7})
#endif
#define EVEN(a, b) SHUF(a, b, 0, 2, 4, 6, 8, 10, 12, 14)
#define ODD(a, b) SHUF(a, b, 1, 3, 5, 7, 9, 11, 13, 15)
#define LOW(a, b) SHUF(a, b, 0, 8, 1, 9, 2, 10, 3, 11)
#define HIGH(a, b) SHUF(a, b, 4, 12, 5, 13, 6, 14, 7, 15)

/* Whole vectors load and store through an unaligned, aliasing view, so a
 * vector stays in a register; only a row's last, partial vector goes
 * through a buffer. The vector goes by pointer, for clang as above. */
typedef float v8u __attribute__((vector_size(32), aligned(4), may_alias));

static inline void load_n(v8 *v, const float *p, int64_t n)
{
    if (n >= 8) {
        *v = *(const v8u *)p;
        return;
    }
    float part[8] = {0};
    memcpy(part, p, sizeof(float) * (size_t)n);
    *v = *(const v8u *)part;
}

static inline void store_n(float *p, const v8 *v, int64_t n)
{
    if (n >= 8) {
        *(v8u *)p = *v;
        return;
    }
    float part[8];
    *(v8u *)part = *v;
    memcpy(p, part, sizeof(float) * (size_t)n);
}

/* dst[k] = row y of a plane (rows rs, columns cs apart) at column x0 + k,
 * zero outside [0, W) and for y outside [0, H); k < n. */
static inline void pad_row(const float *plane, int64_t rs, int64_t cs, int64_t H, int64_t W,
                           int64_t y, int64_t x0, int64_t n, float *dst)
{
    int64_t lo = x0 < 0 ? -x0 : 0, hi = W - x0;
    if (y < 0 || y >= H)
        lo = hi = n;
    if (lo > n)
        lo = n;
    if (hi > n)
        hi = n;
    if (hi < lo)
        hi = lo;
    for (int64_t k = 0; k < lo; k++)
        dst[k] = 0.0f;
    const float *row = plane + y * rs + x0 * cs;
    if (cs == 1)
        for (int64_t k = lo; k < hi; k++)
            dst[k] = row[k];
    else
        for (int64_t k = lo; k < hi; k++)
            dst[k] = row[k * cs];
    for (int64_t k = hi; k < n; k++)
        dst[k] = 0.0f;
}

/* Rows y0, y0 + 1, ... of a plane padded as pad_row does, len apart in
 * dst: the rows a run of tile rows reads, all copied before any is read, as
 * a vector load of values still in the store buffer from narrower stores
 * stalls. */
static inline void pad_rows(const float *plane, int64_t rs, int64_t cs, int64_t H, int64_t W,
                            int64_t y0, int64_t count, int64_t x0, int64_t len, float *dst)
{
    for (int64_t a = 0; a < count; a++)
        pad_row(plane, rs, cs, H, W, y0 + a, x0, len, dst + a * len);
}

/* The tile rows [*r0, *r1) of image *n from tile p on, to the chunk's end. */
static inline void tile_rows(const pass *s, int64_t p, int64_t *n, int64_t *r0, int64_t *r1)
{
    const plan *pl = s->pl;
    int64_t end = (p / pl->tiles + 1) * pl->tiles;
    if (end > s->p0 + s->np)
        end = s->p0 + s->np;
    *n = p / pl->tiles;
    *r0 = p % pl->tiles / pl->tw;
    *r1 = *r0 + (end - p) / pl->tw;
}

/* Room for a task's padded rows: len values each; NULL marks the pass failed. */
static float *scratch(pass *s, int64_t rows, int64_t len)
{
    float *b = malloc(sizeof(float) * (size_t)(rows * len) + 1);
    if (!b)
        s->failed = 1;
    return b;
}

/* Length of a padded row: the columns of the tiles rounded up to whole
 * vectors, and the two more the last tile's loads reach. */
static int64_t row_len(const plan *pl) { return 2 * ((pl->tw + 7) / 8 * 8) + 16; }

/* V = B^T d B per tile from x (any strides). */
MT_CLONES_AVX2_FMA static void input_transform(void *arg, int64_t c0, int64_t c1)
{
    pass *s = arg;
    const plan *pl = s->pl;
    const mt_tensor *x = s->img;
    int64_t len = row_len(pl), tw = pl->tw, stride16 = pl->C * s->ld;
    float *padded = scratch(s, 2 * (s->np / tw) + 2, len);
    if (!padded)
        return;
    for (int64_t c = c0; c < c1; c++)
        for (int64_t p = s->p0, n, r0, r1; p < s->p0 + s->np; p += (r1 - r0) * tw) {
            tile_rows(s, p, &n, &r0, &r1);
            const float *plane = (const float *)mt_data(x) + n * x->strides[0] + c * x->strides[1];
            pad_rows(plane, x->strides[2], x->strides[3], pl->H, pl->W, 2 * r0 - pl->win->ph,
                     2 * (r1 - r0) + 2, -pl->win->pw, len, padded);
            for (int64_t ty = r0; ty < r1; ty++) {
                const float *rows = padded + 2 * (ty - r0) * len;
                float *dst = s->tr + c * s->ld + (p - s->p0) + (ty - r0) * tw;
                for (int64_t tx = 0; tx < tw; tx += 8) {
                    v8 t[4][4];
                    for (int i = 0; i < 4; i++) {
                        const float *r = rows + i * len + 2 * tx;
                        v8 a, b, a2, b2;
                        load_n(&a, r, 8);
                        load_n(&b, r + 8, 8);
                        load_n(&a2, r + 2, 8);
                        load_n(&b2, r + 10, 8);
                        v8 e0 = EVEN(a, b), o0 = ODD(a, b), e1 = EVEN(a2, b2), o1 = ODD(a2, b2);
                        t[i][0] = e0 - e1;
                        t[i][1] = o0 + e1;
                        t[i][2] = e1 - o0;
                        t[i][3] = o0 - o1;
                    }
                    for (int j = 0; j < 4; j++) {
                        v8 v[4] = {t[0][j] - t[2][j], t[1][j] + t[2][j], t[2][j] - t[1][j],
                                   t[1][j] - t[3][j]};
                        for (int i = 0; i < 4; i++)
                            store_n(dst + (i * 4 + j) * stride16 + tx, &v[i], tw - tx);
                    }
                }
            }
        }
    free(padded);
}

/* The output tiles A^T m A of m ([16][O][np]) into out (N, O, oh, ow),
 * contiguous, plus the bias. */
MT_CLONES_AVX2_FMA static void output_transform(void *arg, int64_t o0, int64_t o1)
{
    pass *s = arg;
    const plan *pl = s->pl;
    const mt_window *g = pl->win;
    int64_t tw = pl->tw, stride16 = pl->O * s->ld, L = g->oh * g->ow;
    for (int64_t o = o0; o < o1; o++)
        for (int64_t p = s->p0; p < s->p0 + s->np; p += tw) {
            int64_t n = p / pl->tiles, ty = p % pl->tiles / tw;
            const float *src = s->tr + o * s->ld + (p - s->p0);
            float *plane = (float *)mt_data(s->img) + (n * pl->O + o) * L;
            float b = s->bias ? s->bias[o] : 0.0f;
            for (int64_t tx = 0; tx < tw; tx += 8) {
                v8 m[16], r[4][2];
                for (int k = 0; k < 16; k++)
                    load_n(&m[k], src + k * stride16 + tx, tw - tx);
                for (int i = 0; i < 4; i++) {
                    r[i][0] = m[4 * i] + m[4 * i + 1] + m[4 * i + 2];
                    r[i][1] = m[4 * i + 1] - m[4 * i + 2] - m[4 * i + 3];
                }
                for (int i = 0; i < 2; i++) {
                    int64_t oy = 2 * ty + i;
                    if (oy >= g->oh)
                        break;
                    v8 y0 = (i ? r[1][0] - r[2][0] - r[3][0] : r[0][0] + r[1][0] + r[2][0]) + b;
                    v8 y1 = (i ? r[1][1] - r[2][1] - r[3][1] : r[0][1] + r[1][1] + r[2][1]) + b;
                    v8 lo = LOW(y0, y1), hi = HIGH(y0, y1);
                    float *dst = plane + oy * g->ow + 2 * tx;
                    int64_t left = g->ow - 2 * tx;
                    store_n(dst, &lo, left);
                    if (left > 8)
                        store_n(dst + 8, &hi, left - 8);
                }
            }
        }
}

/* dm = A dy A^T per tile from the output gradient (N, O, oh, ow),
 * contiguous; outside the output the gradient is zero. */
MT_CLONES_AVX2_FMA static void output_transform_adjoint(void *arg, int64_t o0, int64_t o1)
{
    pass *s = arg;
    const plan *pl = s->pl;
    const mt_window *g = pl->win;
    int64_t len = row_len(pl), tw = pl->tw, stride16 = pl->O * s->ld, L = g->oh * g->ow;
    float *padded = scratch(s, 2 * (s->np / tw), len);
    if (!padded)
        return;
    for (int64_t o = o0; o < o1; o++)
        for (int64_t p = s->p0, n, r0, r1; p < s->p0 + s->np; p += (r1 - r0) * tw) {
            tile_rows(s, p, &n, &r0, &r1);
            const float *plane = (const float *)mt_data(s->img) + (n * pl->O + o) * L;
            pad_rows(plane, g->ow, 1, g->oh, g->ow, 2 * r0, 2 * (r1 - r0), 0, len, padded);
            for (int64_t ty = r0; ty < r1; ty++) {
                const float *rows = padded + 2 * (ty - r0) * len;
                float *dst = s->tr + o * s->ld + (p - s->p0) + (ty - r0) * tw;
                for (int64_t tx = 0; tx < tw; tx += 8) {
                    v8 y[2][2], c[4][2];
                    for (int i = 0; i < 2; i++) {
                        v8 a, b;
                        load_n(&a, rows + i * len + 2 * tx, 8);
                        load_n(&b, rows + i * len + 2 * tx + 8, 8);
                        y[i][0] = EVEN(a, b);
                        y[i][1] = ODD(a, b);
                    }
                    for (int j = 0; j < 2; j++) {
                        c[0][j] = y[0][j];
                        c[1][j] = y[0][j] + y[1][j];
                        c[2][j] = y[0][j] - y[1][j];
                        c[3][j] = -y[1][j];
                    }
                    for (int i = 0; i < 4; i++) {
                        v8 m[4] = {c[i][0], c[i][0] + c[i][1], c[i][0] - c[i][1], -c[i][1]};
                        for (int j = 0; j < 4; j++)
                            store_n(dst + (i * 4 + j) * stride16 + tx, &m[j], tw - tx);
                    }
                }
            }
        }
    free(padded);
}

/* U = G g G^T for every (o, c) as [16][O][C]; with `adjoint`, the filter
 * of the input gradient's convolution, w'[c][o] = w[o][c] turned by 180
 * degrees, as [16][C][O]. Split over threads by o. */
typedef struct {
    const float *w;
    int64_t O, C;
    bool adjoint;
    float *u;
} filter_job;

static void filter_range(void *arg, int64_t o0, int64_t o1)
{
    const filter_job *j = arg;
    int64_t O = j->O, C = j->C;
    for (int64_t o = o0; o < o1; o++)
        for (int64_t c = 0; c < C; c++) {
            const float *g = j->w + (o * C + c) * 9;
            float t[16], turned[9];
            if (j->adjoint)
                for (int i = 0; i < 9; i++)
                    turned[i] = g[8 - i];
            filter_tile(j->adjoint ? turned : g, t);
            int64_t at = j->adjoint ? c * O + o : o * C + c;
            for (int k = 0; k < 16; k++)
                j->u[k * O * C + at] = t[k];
        }
}

static void filter_transform(const float *w, int64_t O, int64_t C, bool adjoint, float *u)
{
    filter_job j = {w, O, C, adjoint, u};
    mt_parallel_for(0, O, 1 + 2048 / (C + 1), filter_range, &j);
}

/* ------------------------------------------------------------- forward */

typedef struct {
    const plan *pl;
    const mt_tensor *x;
    mt_tensor *out;
    const float *u, *bias;
    int64_t ld; /* a chunk's padded row length */
    atomic_int failed;
} forward_job;

/* Chunks [c0, c1), each whole: transform, 16 products, inverse transform. */
static void forward_chunks(void *arg, int64_t c0, int64_t c1)
{
    forward_job *j = arg;
    const plan *pl = j->pl;
    int64_t C = pl->C, O = pl->O, ld = j->ld, total = pl->N * pl->tiles;
    void *bin = NULL, *bout = NULL;
    size_t sin = 0, sout = 0;
    /* zeroed: the padding columns past a chunk's tiles enter the products */
    float *vin = take_quiet((size_t)(16 * C * ld) * sizeof(float), true, &bin, &sin);
    float *vout =
        vin ? take_quiet((size_t)(16 * O * ld) * sizeof(float), false, &bout, &sout) : NULL;
    if (!vout)
        atomic_store(&j->failed, 1);
    for (int64_t c = c0; c < c1 && vout && !atomic_load(&j->failed); c++) {
        int64_t p0 = c * pl->chunk, np = total - p0 < pl->chunk ? total - p0 : pl->chunk;
        pass in = {pl, p0, np, ld, j->x, vin, NULL}, o = {pl, p0, np, ld, j->out, vout, j->bias};
        input_transform(&in, 0, C);
        int64_t n = (np + NR - 1) / NR * NR;
        for (int k = 0; k < 16; k++)
            mt_gemm_f32(O, n, C, j->u + k * O * C, C, 1, vin + k * C * ld, ld, vout + k * O * ld,
                        ld, false);
        output_transform(&o, 0, O);
        if (in.failed)
            atomic_store(&j->failed, 1);
    }
    give(bin, sin);
    give(bout, sout);
}

/* out (N, O, win->oh, win->ow) = the convolution of x (N, C, H, W) by the
 * transformed filter u ([16][O][C]) plus bias (O values or NULL). */
static int forward(const mt_tensor *x, int64_t O, const float *u, const float *bias,
                   const mt_window *win, mt_tensor *out)
{
    plan pl =
        plan_of(x->sizes[0], x->sizes[1], O, x->sizes[2], x->sizes[3], win, FORWARD_CHUNK_BYTES);
    forward_job j = {&pl, x, out, u, bias, (pl.chunk + NR - 1) / NR * NR};
    atomic_init(&j.failed, 0);
    int64_t chunks = (pl.N * pl.tiles + pl.chunk - 1) / pl.chunk;
    mt_parallel_for(0, chunks, 1, forward_chunks, &j);
    return atomic_load(&j.failed) ? mt_error(MT_ERR_MEMORY, "convolution: out of memory") : 0;
}

int mt_conv2d_winograd_forward(const mt_tensor *x, const mt_tensor *w, const mt_tensor *bias,
                               const mt_window *win, mt_tensor *out)
{
    int64_t N = x->sizes[0], C = x->sizes[1], O = w->sizes[0];
    if (N == 0)
        return 0;
    void *bu = NULL;
    size_t su = 0;
    /* the transformed filter, then the bias (maybe strided) as O contiguous values */
    float *u = take_quiet((size_t)(16 * O * C + O) * sizeof(float), false, &bu, &su);
    if (!u)
        return mt_error(MT_ERR_MEMORY, "convolution: out of memory");
    filter_transform((const float *)mt_data(w), O, C, false, u);
    float *bv = bias ? u + 16 * O * C : NULL;
    for (int64_t o = 0; bias && o < O; o++)
        bv[o] = ((const float *)mt_data(bias))[o * bias->strides[0]];
    int rc = forward(x, O, u, bv, win, out);
    give(bu, su);
    return rc;
}

int mt_conv2d_winograd_backward_input(const mt_tensor *grad, const mt_tensor *w,
                                      const mt_window *win, mt_tensor *grad_input)
{
    int64_t N = grad->sizes[0], O = grad->sizes[1], C = grad_input->sizes[1];
    if (N == 0)
        return 0;
    void *bu = NULL;
    size_t su = 0;
    float *u = take_quiet((size_t)(16 * O * C) * sizeof(float), false, &bu, &su);
    if (!u)
        return mt_error(MT_ERR_MEMORY, "convolution: out of memory");
    filter_transform((const float *)mt_data(w), O, C, true, u);
    /* each input pixel sums the outputs whose windows cover it: the
     * convolution of grad padded by 2 - p with the turned filter */
    mt_window t = {
        3, 3, 1, 1, 2 - win->ph, 2 - win->pw, 1, 1, grad_input->sizes[2], grad_input->sizes[3]};
    int rc = forward(grad, C, u, NULL, &t, grad_input);
    give(bu, su);
    return rc;
}

/* ----------------------------------------------------- weight gradient
 * du[k] = sum over tiles of dm[k] v[k]^T, (O x tiles) (tiles x C): the
 * product kernel wants the tiles-by-channels side row-major, so each chunk's
 * v is transposed (in cache) after the input transform. Every thread runs
 * a contiguous run of chunks into its own du; the runs add up at the end. */

/* dst[k][q][r] = src[k][r][q] for the 16 matrices (rows x cols, rows sld
 * apart in src and dld in dst, sk and dk between the 16): 8 x 8 blocks in
 * registers, the edges one by one. */
MT_CLONES_AVX2_FMA static void transpose16(const float *src, int64_t rows, int64_t cols,
                                           int64_t sld, int64_t sk, float *dst, int64_t dld,
                                           int64_t dk)
{
    for (int k = 0; k < 16; k++) {
        const float *sm = src + k * sk;
        float *dm = dst + k * dk;
        int64_t r8 = rows / 8 * 8, c8 = cols / 8 * 8;
        for (int64_t r = 0; r < r8; r += 8)
            for (int64_t c = 0; c < c8; c += 8) {
                v8 x[8], t[8], u[8];
                for (int i = 0; i < 8; i++)
                    load_n(&x[i], sm + (r + i) * sld + c, 8);
                for (int i = 0; i < 8; i += 2) {
                    t[i] = SHUF(x[i], x[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
                    t[i + 1] = SHUF(x[i], x[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
                }
                for (int i = 0; i < 8; i += 4)
                    for (int h = 0; h < 2; h++) {
                        u[i + h] = SHUF(t[i + h], t[i + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
                        u[i + h + 2] = SHUF(t[i + h], t[i + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
                    }
                /* u[0], u[2], u[1], u[3]: columns 0 | 4, 1 | 5, 2 | 6, 3 | 7 of
                 * rows 0-3 in the halves; u[4..7] the same of rows 4-7 */
                static const int order[4] = {0, 2, 1, 3};
                for (int q = 0; q < 4; q++) {
                    v8 lo = SHUF(u[order[q]], u[order[q] + 4], 0, 1, 2, 3, 8, 9, 10, 11);
                    v8 hi = SHUF(u[order[q]], u[order[q] + 4], 4, 5, 6, 7, 12, 13, 14, 15);
                    store_n(dm + (c + q) * dld + r, &lo, 8);
                    store_n(dm + (c + q + 4) * dld + r, &hi, 8);
                }
            }
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = r < r8 ? c8 : 0; c < cols; c++)
                dm[c * dld + r] = sm[r * sld + c];
    }
}

typedef struct {
    const plan *pl;
    const mt_tensor *grad, *x;
    float *du; /* [runs][16][O][Cp] */
    int64_t Cp, runs, nchunks;
    atomic_int failed;
} weight_job;

static void weight_runs(void *arg, int64_t r0, int64_t r1)
{
    weight_job *j = arg;
    const plan *pl = j->pl;
    int64_t C = pl->C, O = pl->O, Cp = j->Cp, ld = pl->chunk, total = pl->N * pl->tiles;
    void *bv = NULL, *bt = NULL, *bm = NULL;
    size_t sv = 0, st = 0, sm = 0;
    float *v = take_quiet((size_t)(16 * C * ld) * sizeof(float), false, &bv, &sv);
    /* zeroed: columns C..Cp stay zero and add nothing */
    float *vt = v ? take_quiet((size_t)(16 * ld * Cp) * sizeof(float), true, &bt, &st) : NULL;
    float *dm = vt ? take_quiet((size_t)(16 * O * ld) * sizeof(float), false, &bm, &sm) : NULL;
    for (int64_t r = r0; r < r1 && dm && !atomic_load(&j->failed); r++) {
        float *du = j->du + r * 16 * O * Cp;
        for (int64_t c = r * j->nchunks / j->runs; c < (r + 1) * j->nchunks / j->runs; c++) {
            int64_t p0 = c * pl->chunk, np = total - p0 < pl->chunk ? total - p0 : pl->chunk;
            pass o = {pl, p0, np, ld, j->grad, dm, NULL}, in = {pl, p0, np, ld, j->x, v, NULL};
            output_transform_adjoint(&o, 0, O);
            input_transform(&in, 0, C);
            if (o.failed || in.failed) {
                atomic_store(&j->failed, 1);
                break;
            }
            transpose16(v, C, np, ld, C * ld, vt, Cp, ld * Cp);
            for (int k = 0; k < 16; k++)
                mt_gemm_f32(O, Cp, np, dm + k * O * ld, ld, 1, vt + k * ld * Cp, Cp,
                            du + k * O * Cp, Cp, true);
        }
    }
    if (!dm)
        atomic_store(&j->failed, 1);
    give(bv, sv);
    give(bt, st);
    give(bm, sm);
}

int mt_conv2d_winograd_backward_weight(const mt_tensor *grad, const mt_tensor *x,
                                       const mt_window *win, mt_tensor *grad_weight)
{
    plan pl = plan_of(x->sizes[0], x->sizes[1], grad_weight->sizes[0], x->sizes[2], x->sizes[3],
                      win, WEIGHT_CHUNK_BYTES);
    int64_t O = pl.O, C = pl.C, Cp = (C + NR - 1) / NR * NR;
    weight_job j = {&pl, grad, x, NULL, Cp};
    j.nchunks = (pl.N * pl.tiles + pl.chunk - 1) / pl.chunk;
    j.runs = mt_get_num_threads() < j.nchunks ? mt_get_num_threads() : j.nchunks;
    if (j.runs < 1)
        j.runs = 1;
    atomic_init(&j.failed, 0);
    void *bu;
    size_t su;
    j.du = take((size_t)(j.runs * 16 * O * Cp) * sizeof(float), &bu, &su);
    if (!j.du)
        return -1;
    memset(j.du, 0, sizeof(float) * (size_t)(j.runs * 16 * O * Cp));
    mt_parallel_for(0, j.runs, 1, weight_runs, &j);
    if (atomic_load(&j.failed)) {
        give(bu, su);
        return mt_error(MT_ERR_MEMORY, "convolution: out of memory");
    }
    float *gw = (float *)mt_data(grad_weight);
    for (int64_t o = 0; o < O; o++)
        for (int64_t c = 0; c < C; c++) {
            float t[16];
            for (int k = 0; k < 16; k++) {
                t[k] = 0.0f;
                for (int64_t r = 0; r < j.runs; r++)
                    t[k] += j.du[((r * 16 + k) * O + o) * Cp + c];
            }
            filter_tile_adjoint(t, gw + (o * C + c) * 9);
        }
    give(bu, su);
    return 0;
}
