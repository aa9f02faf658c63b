/* 3x3, stride 1, undilated, ungrouped float32 convolution by Winograd's
 * F(2x2, 3x3): a 4x4 input tile (B^T d B) and a transformed filter (G g G^T)
 * multiply elementwise into a 2x2 output tile (A^T m A), so the products
 * become 16 independent (O x C) @ (C x tiles) gemms with 2.25 times fewer
 * multiply-adds than im2col. The backward passes are the exact adjoints of
 * the same three linear maps: the input gradient is B (U^T (A dy A^T)) B^T
 * added back into the overlapping tiles, the weight gradient
 * G^T (sum over tiles of (A dy A^T) (B^T d B)^T) G. Tiles run in chunks so
 * the transformed operands stay in cache, with their buffers from the block
 * cache; the transforms split over threads by channel, the 16 gemms by
 * mt_gemm's batch. */
#include "nn_conv_winograd.h"

#include <stdlib.h>
#include <string.h>

#include "../core/allocator.h"
#include "../core/error.h"
#include "../core/portable.h"
#include "linalg.h"
#include "parallel.h"
#include "vmath.h"

/* Bytes of transformed tiles (input and output side together) per chunk. */
#define CHUNK_BYTES ((int64_t)2 << 20)

bool mt_conv2d_winograd_fits(mt_dtype d, int64_t C, int64_t O, const mt_window *win,
                             int64_t groups)
{
    /* below a few channels the transforms cost more than the gemms save */
    return d == MT_FLOAT32 && groups == 1 && win->kh == 3 && win->kw == 3 && win->sh == 1 &&
           win->sw == 1 && win->dh == 1 && win->dw == 1 && C >= 8 && O >= 8 &&
           win->oh >= 2 && win->ow >= 2;
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
#define TRANSFORM_2D(NAME, FN, R, S)                                                     \
    static inline void NAME(const float *in, float *out)                                 \
    {                                                                                    \
        float mid[S * R], col[R], res[S];                                                \
        for (int j = 0; j < R; j++) {                                                    \
            for (int i = 0; i < R; i++)                                                  \
                col[i] = in[i * R + j];                                                  \
            FN(col, res);                                                                \
            for (int i = 0; i < S; i++)                                                  \
                mid[i * R + j] = res[i];                                                 \
        }                                                                                \
        for (int i = 0; i < S; i++)                                                      \
            FN(mid + i * R, out + i * S);                                                \
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

static plan plan_of(int64_t N, int64_t C, int64_t O, int64_t H, int64_t W, const mt_window *win)
{
    plan p = {win, N, C, O, H, W, (win->oh + 1) / 2, (win->ow + 1) / 2};
    p.tiles = p.th * p.tw;
    int64_t per_tile = 16 * (C + O) * (int64_t)sizeof(float);
    p.chunk = CHUNK_BYTES / per_tile / p.tw * p.tw;
    if (p.chunk < p.tw)
        p.chunk = p.tw;
    if (p.chunk > N * p.tiles)
        p.chunk = N * p.tiles;
    return p;
}

/* A 64-byte aligned buffer from the caching allocator; *block and *size are
 * what give() hands back. */
static float *take(size_t bytes, void **block, size_t *size)
{
    void *data = NULL;
    *block = mt_alloc(bytes, 64, false, &data, size);
    if (!*block)
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
    int64_t p0, np;
    /* the image side: x or the output gradient read, out or dx written */
    const mt_tensor *img;
    float *tr; /* [16][channels][np] */
    const float *bias;
    int failed; /* a task found no scratch memory */
} pass;

/* ------------------------------------------------- vector tile passes
 * Eight horizontally adjacent tiles per vector: a tile row's input rows are
 * split into even and odd columns, so the four columns of tile tx are the
 * even and odd values at tx and tx + 1, all contiguous loads. */

typedef mt_v8f v8;

/* Fixed-size copies for whole vectors, so they compile to plain loads and
 * stores; only a row's last, partial vector takes the variable one. The
 * vector goes by pointer: clang refuses a by-value vector between these and
 * the AVX clones that call them (vmath.h's in-place forms, for the same reason). */
static inline void load_n(v8 *v, const float *p, int64_t n)
{
    *v = (v8){0};
    if (n >= 8)
        memcpy(v, p, sizeof *v);
    else
        memcpy(v, p, sizeof(float) * (size_t)n);
}

static inline void store_n(float *p, const v8 *v, int64_t n)
{
    if (n >= 8)
        memcpy(p, v, sizeof *v);
    else
        memcpy(p, v, sizeof(float) * (size_t)n);
}

/* Row y of a plane (rows rs, columns cs apart) as even and odd columns from
 * column x0: ev[k] = row[x0 + 2k], od[k] = row[x0 + 2k + 1], zero outside
 * [0, W) and outside [0, H) for y; k < len. */
static void split_row(const float *plane, int64_t rs, int64_t cs, int64_t H, int64_t W,
                      int64_t y, int64_t x0, int64_t len, float *ev, float *od)
{
    if (y < 0 || y >= H) {
        memset(ev, 0, sizeof(float) * (size_t)len);
        memset(od, 0, sizeof(float) * (size_t)len);
        return;
    }
    const float *row = plane + y * rs;
    /* [lo, hi): the pairs with both columns inside the row, copied unchecked */
    int64_t lo = x0 < 0 ? (1 - x0) / 2 : 0, hi = (W - x0) / 2;
    if (hi > len)
        hi = len;
    if (hi < 0)
        hi = 0;
    if (lo > hi)
        lo = hi;
    for (int64_t k = 0; k < lo; k++) {
        int64_t x = x0 + 2 * k;
        ev[k] = x >= 0 && x < W ? row[x * cs] : 0.0f;
        od[k] = x + 1 >= 0 && x + 1 < W ? row[(x + 1) * cs] : 0.0f;
    }
    if (cs == 1) {
        const float *r = row + x0;
        for (int64_t k = lo; k < hi; k++) {
            ev[k] = r[2 * k];
            od[k] = r[2 * k + 1];
        }
    } else {
        for (int64_t k = lo; k < hi; k++) {
            ev[k] = row[(x0 + 2 * k) * cs];
            od[k] = row[(x0 + 2 * k + 1) * cs];
        }
    }
    for (int64_t k = hi; k < len; k++) {
        int64_t x = x0 + 2 * k;
        ev[k] = x >= 0 && x < W ? row[x * cs] : 0.0f;
        od[k] = x + 1 >= 0 && x + 1 < W ? row[(x + 1) * cs] : 0.0f;
    }
}

/* Room for the split rows of a task: len values per row, rows rows, two
 * halves; NULL marks the pass failed. */
static float *scratch(pass *s, int64_t rows, int64_t len)
{
    float *b = malloc(sizeof(float) * (size_t)(2 * rows * len) + 1);
    if (!b)
        s->failed = 1;
    return b;
}

/* Width of the split rows: tw + 1 columns, plus a vector of slack. */
static int64_t split_len(const plan *pl) { return pl->tw + 1 + 8; }

/* V = B^T d B per tile from x (any strides). */
MT_CLONES_AVX2_FMA static void input_transform(void *arg, int64_t c0, int64_t c1)
{
    pass *s = arg;
    const plan *pl = s->pl;
    const mt_tensor *x = s->img;
    int64_t len = split_len(pl), tw = pl->tw, stride16 = pl->C * s->np;
    float *rows = scratch(s, 4, len);
    if (!rows)
        return;
    for (int64_t c = c0; c < c1; c++)
        for (int64_t p = s->p0; p < s->p0 + s->np; p += tw) {
            int64_t n = p / pl->tiles, ty = p % pl->tiles / tw;
            const float *plane = (const float *)mt_data(x) + n * x->strides[0] +
                                 c * x->strides[1];
            for (int i = 0; i < 4; i++)
                split_row(plane, x->strides[2], x->strides[3], pl->H, pl->W,
                          2 * ty - pl->win->ph + i, -pl->win->pw, len, rows + 2 * i * len,
                          rows + (2 * i + 1) * len);
            float *dst = s->tr + c * s->np + (p - s->p0);
            for (int64_t tx = 0; tx < tw; tx += 8) {
                v8 t[4][4];
                for (int i = 0; i < 4; i++) {
                    const float *ev = rows + 2 * i * len + tx, *od = ev + len;
                    v8 e0, o0, e1, o1;
                    load_n(&e0, ev, 8);
                    load_n(&o0, od, 8);
                    load_n(&e1, ev + 1, 8);
                    load_n(&o1, od + 1, 8);
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
    free(rows);
}

/* dx += B dv B^T per tile. The tiles overlap by two rows and columns, so a
 * task adds each image's tiles into split rows first and then into dx; one
 * task per channel, so no two tasks add to one element. */
MT_CLONES_AVX2_FMA static void input_transform_adjoint(void *arg, int64_t c0, int64_t c1)
{
    pass *s = arg;
    const plan *pl = s->pl;
    int64_t len = split_len(pl), tw = pl->tw, stride16 = pl->C * s->np;
    int64_t H = pl->H, W = pl->W, nrows = 2 * (s->np / tw) + 2;
    float *acc = scratch(s, nrows, len);
    if (!acc)
        return;
    for (int64_t c = c0; c < c1; c++)
        for (int64_t p = s->p0; p < s->p0 + s->np;) {
            /* the chunk's tile rows of one image: [r0, r1) */
            int64_t n = p / pl->tiles, end = (n + 1) * pl->tiles;
            if (end > s->p0 + s->np)
                end = s->p0 + s->np;
            int64_t r0 = p % pl->tiles / tw, r1 = r0 + (end - p) / tw;
            int64_t used = 2 * (r1 - r0) + 2;
            memset(acc, 0, sizeof(float) * (size_t)(2 * used * len));
            for (int64_t ty = r0; ty < r1; ty++) {
                const float *src = s->tr + c * s->np + (p - s->p0) + (ty - r0) * tw;
                for (int64_t tx = 0; tx < tw; tx += 8) {
                    v8 v[16], t[4][4];
                    for (int k = 0; k < 16; k++)
                        load_n(&v[k], src + k * stride16 + tx, tw - tx);
                    for (int j = 0; j < 4; j++) {
                        t[0][j] = v[j];
                        t[1][j] = v[4 + j] - v[8 + j] + v[12 + j];
                        t[2][j] = v[4 + j] + v[8 + j] - v[j];
                        t[3][j] = -v[12 + j];
                    }
                    for (int i = 0; i < 4; i++) {
                        float *ev = acc + 2 * (2 * (ty - r0) + i) * len + tx, *od = ev + len;
                        v8 d0 = t[i][0], d1 = t[i][1] - t[i][2] + t[i][3];
                        v8 d2 = t[i][1] + t[i][2] - t[i][0], d3 = -t[i][3];
                        float *dst4[4] = {ev, od, ev + 1, od + 1};
                        v8 add4[4] = {d0, d1, d2, d3};
                        for (int q = 0; q < 4; q++) {
                            v8 s;
                            load_n(&s, dst4[q], 8);
                            s += add4[q];
                            store_n(dst4[q], &s, 8);
                        }
                    }
                }
            }
            float *plane = (float *)mt_data(s->img) + (n * pl->C + c) * H * W;
            for (int64_t a = 0; a < used; a++) {
                int64_t y = 2 * r0 - pl->win->ph + a;
                if (y < 0 || y >= H)
                    continue;
                const float *ev = acc + 2 * a * len, *od = ev + len;
                for (int64_t k = 0; k <= tw; k++) {
                    int64_t xx = 2 * k - pl->win->pw;
                    if (xx >= 0 && xx < W)
                        plane[y * W + xx] += ev[k];
                    if (xx + 1 >= 0 && xx + 1 < W)
                        plane[y * W + xx + 1] += od[k];
                }
            }
            p = end;
        }
    free(acc);
}

/* The output tiles A^T m A of m ([16][O][np]) into out (N, O, oh, ow),
 * contiguous, plus the bias. */
MT_CLONES_AVX2_FMA static void output_transform(void *arg, int64_t o0, int64_t o1)
{
    pass *s = arg;
    const plan *pl = s->pl;
    const mt_window *g = pl->win;
    int64_t tw = pl->tw, stride16 = pl->O * s->np, L = g->oh * g->ow;
    for (int64_t o = o0; o < o1; o++)
        for (int64_t p = s->p0; p < s->p0 + s->np; p += tw) {
            int64_t n = p / pl->tiles, ty = p % pl->tiles / tw;
            const float *src = s->tr + o * s->np + (p - s->p0);
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
                    float a0[8], a1[8], row[16];
                    memcpy(a0, &y0, sizeof a0);
                    memcpy(a1, &y1, sizeof a1);
                    for (int k = 0; k < 8; k++) {
                        row[2 * k] = a0[k];
                        row[2 * k + 1] = a1[k];
                    }
                    int64_t left = g->ow - 2 * tx;
                    memcpy(plane + oy * g->ow + 2 * tx, row,
                           sizeof(float) * (size_t)(left < 16 ? left : 16));
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
    int64_t len = split_len(pl), tw = pl->tw, stride16 = pl->O * s->np, L = g->oh * g->ow;
    float *rows = scratch(s, 2, len);
    if (!rows)
        return;
    for (int64_t o = o0; o < o1; o++)
        for (int64_t p = s->p0; p < s->p0 + s->np; p += tw) {
            int64_t n = p / pl->tiles, ty = p % pl->tiles / tw;
            const float *plane = (const float *)mt_data(s->img) + (n * pl->O + o) * L;
            for (int i = 0; i < 2; i++)
                split_row(plane, g->ow, 1, g->oh, g->ow, 2 * ty + i, 0, len,
                          rows + 2 * i * len, rows + (2 * i + 1) * len);
            float *dst = s->tr + o * s->np + (p - s->p0);
            for (int64_t tx = 0; tx < tw; tx += 8) {
                v8 y[2][2], c[4][2];
                for (int i = 0; i < 2; i++) {
                    load_n(&y[i][0], rows + 2 * i * len + tx, 8);
                    load_n(&y[i][1], rows + (2 * i + 1) * len + tx, 8);
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
    free(rows);
}

/* U = G g G^T for every (o, c): [16][O][C]. */
static void filter_transform(const float *w, int64_t O, int64_t C, float *u)
{
    for (int64_t oc = 0; oc < O * C; oc++) {
        float t[16];
        filter_tile(w + oc * 9, t);
        for (int k = 0; k < 16; k++)
            u[k * O * C + oc] = t[k];
    }
}

/* One pass over channels [0, channels); -1 when a task found no memory. */
static int run(int64_t channels, mt_range_fn fn, pass *s)
{
    mt_parallel_for(0, channels, 1 + 4096 / (16 * s->np + 1), fn, s);
    if (s->failed)
        return mt_error(MT_ERR_MEMORY, "convolution: out of memory");
    return 0;
}

/* 16 products c[k] = a[k] b[k] (+ c[k] when accumulate), each operand given
 * by its first matrix's strides and the stride between the 16. */
static int gemm16(int64_t m, int64_t n, int64_t k, const float *a, int64_t ars, int64_t acs,
                  int64_t abs, const float *b, int64_t brs, int64_t bcs, int64_t bbs, float *c,
                  bool accumulate)
{
    mt_gemm_shape shape = {1, {16}, m, n, k};
    mt_gemm_operand A = {(char *)a, ars, acs, {abs}}, B = {(char *)b, brs, bcs, {bbs}};
    mt_gemm_operand Cm = {(char *)c, n, 1, {m * n}};
    return mt_gemm(MT_FLOAT32, &shape, &A, &B, &Cm, (mt_gemm_scale){1.0, 1},
                   (mt_gemm_scale){accumulate ? 1.0 : 0.0, accumulate});
}

/* The buffers of a pass: the filter transform u (16 O C) and the chunk's
 * two sides (16 C chunk and 16 O chunk). */
typedef struct {
    float *u, *in, *out;
    void *bu, *bin, *bout;
    size_t su, sin, sout;
} buffers;

static int buffers_take(const plan *pl, buffers *b)
{
    memset(b, 0, sizeof *b);
    b->u = take((size_t)(16 * pl->O * pl->C) * sizeof(float), &b->bu, &b->su);
    b->in = b->u ? take((size_t)(16 * pl->C * pl->chunk) * sizeof(float), &b->bin, &b->sin) : NULL;
    b->out = b->in ? take((size_t)(16 * pl->O * pl->chunk) * sizeof(float), &b->bout, &b->sout) : NULL;
    return b->out ? 0 : -1;
}

static void buffers_give(buffers *b)
{
    give(b->bu, b->su);
    give(b->bin, b->sin);
    give(b->bout, b->sout);
}

int mt_conv2d_winograd_forward(const mt_tensor *x, const mt_tensor *w, const mt_tensor *bias,
                               const mt_window *win, mt_tensor *out)
{
    plan pl = plan_of(x->sizes[0], x->sizes[1], w->sizes[0], x->sizes[2], x->sizes[3], win);
    if (pl.N == 0)
        return 0;
    buffers b;
    if (buffers_take(&pl, &b) < 0) {
        buffers_give(&b);
        return -1;
    }
    filter_transform((const float *)mt_data(w), pl.O, pl.C, b.u);
    /* the bias may be strided: a contiguous copy of O values */
    float *bv = NULL;
    if (bias && !(bv = malloc(sizeof(float) * (size_t)pl.O + 1))) {
        buffers_give(&b);
        return mt_error(MT_ERR_MEMORY, "convolution: out of memory");
    }
    for (int64_t o = 0; bias && o < pl.O; o++)
        bv[o] = ((const float *)mt_data(bias))[o * bias->strides[0]];
    int rc = 0;
    for (int64_t p0 = 0; p0 < pl.N * pl.tiles && rc == 0; p0 += pl.chunk) {
        int64_t np = pl.N * pl.tiles - p0 < pl.chunk ? pl.N * pl.tiles - p0 : pl.chunk;
        pass in = {&pl, p0, np, x, b.in, NULL}, o = {&pl, p0, np, out, b.out, bv};
        rc = run(pl.C, input_transform, &in);
        if (rc == 0)
            rc = gemm16(pl.O, np, pl.C, b.u, pl.C, 1, pl.O * pl.C, b.in, np, 1, pl.C * np,
                        b.out, false);
        if (rc == 0)
            rc = run(pl.O, output_transform, &o);
    }
    free(bv);
    buffers_give(&b);
    return rc;
}

int mt_conv2d_winograd_backward_input(const mt_tensor *grad, const mt_tensor *w,
                                      const mt_window *win, mt_tensor *grad_input)
{
    const mt_tensor *gi = grad_input;
    plan pl = plan_of(gi->sizes[0], gi->sizes[1], w->sizes[0], gi->sizes[2], gi->sizes[3], win);
    if (pl.N == 0)
        return 0;
    buffers b;
    if (buffers_take(&pl, &b) < 0) {
        buffers_give(&b);
        return -1;
    }
    filter_transform((const float *)mt_data(w), pl.O, pl.C, b.u);
    int rc = 0;
    for (int64_t p0 = 0; p0 < pl.N * pl.tiles && rc == 0; p0 += pl.chunk) {
        int64_t np = pl.N * pl.tiles - p0 < pl.chunk ? pl.N * pl.tiles - p0 : pl.chunk;
        pass o = {&pl, p0, np, grad, b.out, NULL}, in = {&pl, p0, np, grad_input, b.in, NULL};
        rc = run(pl.O, output_transform_adjoint, &o);
        /* dv[k] = u[k]^T dm[k]: (C x O) (O x np) */
        if (rc == 0)
            rc = gemm16(pl.C, np, pl.O, b.u, 1, pl.C, pl.O * pl.C, b.out, np, 1, pl.O * np,
                        b.in, false);
        if (rc == 0)
            rc = run(pl.C, input_transform_adjoint, &in);
    }
    buffers_give(&b);
    return rc;
}

int mt_conv2d_winograd_backward_weight(const mt_tensor *grad, const mt_tensor *x,
                                       const mt_window *win, mt_tensor *grad_weight)
{
    plan pl = plan_of(x->sizes[0], x->sizes[1], grad_weight->sizes[0], x->sizes[2],
                      x->sizes[3], win);
    buffers b;
    if (buffers_take(&pl, &b) < 0) {
        buffers_give(&b);
        return -1;
    }
    int rc = 0;
    memset(b.u, 0, sizeof(float) * (size_t)(16 * pl.O * pl.C));
    for (int64_t p0 = 0; p0 < pl.N * pl.tiles && rc == 0; p0 += pl.chunk) {
        int64_t np = pl.N * pl.tiles - p0 < pl.chunk ? pl.N * pl.tiles - p0 : pl.chunk;
        pass o = {&pl, p0, np, grad, b.out, NULL}, in = {&pl, p0, np, x, b.in, NULL};
        rc = run(pl.O, output_transform_adjoint, &o);
        if (rc == 0)
            rc = run(pl.C, input_transform, &in);
        /* du[k] += dm[k] v[k]^T: (O x np) (np x C) */
        if (rc == 0)
            rc = gemm16(pl.O, pl.C, np, b.out, np, 1, pl.O * np, b.in, 1, np, pl.C * np, b.u, true);
    }
    if (rc == 0) {
        float *gw = (float *)mt_data(grad_weight);
        int64_t OC = pl.O * pl.C;
        for (int64_t oc = 0; oc < OC; oc++) {
            float t[16];
            for (int k = 0; k < 16; k++)
                t[k] = b.u[k * OC + oc];
            filter_tile_adjoint(t, gw + oc * 9);
        }
    }
    buffers_give(&b);
    return rc;
}
