/* Convolution forward and backward: im2col + gemm over chunks of images.
 * The forward and the input gradient run a batched gemm per image straight
 * between the column buffer and the (N, O, L) tensor, with no reordering
 * pass; the weight gradient puts the chunk's gradient planes side by side so
 * its gemm has a long inner dimension. Each chunk's column buffer is
 * cache-sized and the chunks split over threads, each thread with its own
 * buffer; the weight gradient's threads sum into partial copies added up at
 * the end. float32 and float64 run this way, and int64 too (torch's slow
 * path computes int64 convolutions; the gemm takes int64). */
#include "nn_conv.h"

#include <stdatomic.h>
#include <string.h>

#include "../core/allocator.h"
#include "../core/error.h"
#include "../core/portable.h"
#include "gemm/blas.h"
#include "copy.h"
#include "gemm/gemm.h"
#include "nn_conv_direct.h"
#include "nn_conv_winograd.h"
#include "parallel.h"

/* Bytes of column buffer one chunk of images may use: about half a core's
 * L2, so the gemm reads the columns unfold has just written (or fold reads
 * what the gemm wrote) from cache rather than memory. */
#define COL_BUDGET ((int64_t)512 << 10)

/* Images [n0, n0 + nb) of a 4-d tensor, channels [c0, c0 + nc), next to a
 * K x (nb * L) column matrix whose row r is (channel, i, j) of the window and
 * whose column n * L + l is output position l of image n0 + n; element (r, q)
 * is at col[r * rs + q * cs] (unfold writes rows: cs = 1). */
typedef struct {
    const mt_tensor *x; /* strided (unfold) or contiguous (fold) */
    int64_t n0, nb, c0;
    const mt_window *win;
    char *col;
    int64_t rs, cs;
} cols_ctx;

static inline int64_t win_area(const mt_window *g) { return g->oh * g->ow; }

/* dst[0, n) = src[0, n) for short rows: blocks of 8 by fixed-size copies,
 * the last block overlapping the one before rather than a scalar tail. */
#define COPY_SPAN(T)                                                 \
    static inline __attribute__((always_inline)) void copy_span_##T( \
        T *restrict dst, const T *restrict src, int64_t n)           \
    {                                                                \
        if (n < 8) {                                                 \
            for (int64_t q = 0; q < n; q++)                          \
                dst[q] = src[q];                                     \
            return;                                                  \
        }                                                            \
        for (int64_t q = 0; q + 8 < n; q += 8)                       \
            memcpy(dst + q, src + q, 8 * sizeof(T));                 \
        memcpy(dst + n - 8, src + n - 8, 8 * sizeof(T));             \
    }
COPY_SPAN(float)
COPY_SPAN(double)
COPY_SPAN(int64_t)

/* With stride 1 along contiguous rows the columns inside the plane, [lo, hi)
 * of the output row, depend on the window column only, so they are found
 * once per task and each row is one span copy. */
#define UNFOLD(T)                                                                     \
    MT_CLONES_AVX2 static void unfold_##T(const cols_ctx *c, int64_t t0, int64_t t1)  \
    {                                                                                 \
        const mt_window *g = c->win;                                                  \
        const mt_tensor *x = c->x;                                                    \
        int64_t L = win_area(g), H = x->sizes[2], W = x->sizes[3];                    \
        int64_t sh = x->strides[2], sw = x->strides[3];                               \
        for (int64_t t = t0; t < t1; t++) {                                           \
            int64_t r = t / c->nb, n = t % c->nb;                                     \
            int64_t j = r % g->kw, i = (r / g->kw) % g->kh, ch = r / (g->kw * g->kh); \
            const T *src = (const T *)mt_data(x) + (c->n0 + n) * x->strides[0] +      \
                           (c->c0 + ch) * x->strides[1];                              \
            T *dst = (T *)c->col + r * c->rs + n * L;                                 \
            int64_t x0 = j * g->dw - g->pw;                                           \
            int64_t lo = x0 < 0 ? -x0 : 0, hi = W - x0 < g->ow ? W - x0 : g->ow;      \
            if (hi < lo)                                                              \
                hi = lo = 0;                                                          \
            bool span = g->sw == 1 && sw == 1;                                        \
            for (int64_t oy = 0; oy < g->oh; oy++) {                                  \
                int64_t y = oy * g->sh - g->ph + i * g->dh;                           \
                T *row = dst + oy * g->ow;                                            \
                if (y < 0 || y >= H) {                                                \
                    memset(row, 0, sizeof(T) * g->ow);                                \
                    continue;                                                         \
                }                                                                     \
                const T *srow = src + y * sh;                                         \
                if (span) {                                                           \
                    for (int64_t ox = 0; ox < lo; ox++)                               \
                        row[ox] = 0;                                                  \
                    copy_span_##T(row + lo, srow + x0 + lo, hi - lo);                 \
                    for (int64_t ox = hi; ox < g->ow; ox++)                           \
                        row[ox] = 0;                                                  \
                    continue;                                                         \
                }                                                                     \
                for (int64_t ox = 0; ox < g->ow; ox++) {                              \
                    int64_t xx = x0 + ox * g->sw;                                     \
                    row[ox] = xx >= 0 && xx < W ? srow[xx * sw] : (T)0;               \
                }                                                                     \
            }                                                                         \
        }                                                                             \
    }
UNFOLD(float)
UNFOLD(double)
UNFOLD(int64_t)

/* dst[0, n) += src[0, n): the column buffer and the planes never overlap,
 * which restrict tells the vectorizer, so it checks no aliasing per row. */
#define ADD_SPAN(T)                                                 \
    static inline __attribute__((always_inline)) void add_span_##T( \
        T *restrict dst, const T *restrict src, int64_t n)          \
    {                                                               \
        for (int64_t q = 0; q < n; q++)                             \
            dst[q] += src[q];                                       \
    }
ADD_SPAN(float)
ADD_SPAN(double)
ADD_SPAN(int64_t)

/* The adjoint of unfold: adds the columns back into the (zeroed) planes;
 * one task per (channel, image) plane, so no two tasks write one element. */
#define FOLD(T)                                                                          \
    MT_CLONES_AVX2 static void fold_##T(const cols_ctx *c, int64_t t0, int64_t t1)       \
    {                                                                                    \
        const mt_window *g = c->win;                                                     \
        const mt_tensor *x = c->x;                                                       \
        int64_t L = win_area(g), H = x->sizes[2], W = x->sizes[3], cs = c->cs;           \
        for (int64_t t = t0; t < t1; t++) {                                              \
            int64_t ch = t / c->nb, n = t % c->nb;                                       \
            T *dst = (T *)mt_data(x) + ((c->n0 + n) * x->sizes[1] + c->c0 + ch) * H * W; \
            for (int64_t i = 0; i < g->kh; i++)                                          \
                for (int64_t j = 0; j < g->kw; j++) {                                    \
                    int64_t r = (ch * g->kh + i) * g->kw + j;                            \
                    const T *src = (const T *)c->col + r * c->rs + n * L * cs;           \
                    for (int64_t oy = 0; oy < g->oh; oy++) {                             \
                        int64_t y = oy * g->sh - g->ph + i * g->dh;                      \
                        if (y < 0 || y >= H)                                             \
                            continue;                                                    \
                        T *drow = dst + y * W;                                           \
                        const T *srow = src + oy * g->ow * cs;                           \
                        int64_t x0 = j * g->dw - g->pw;                                  \
                        if (g->sw == 1 && cs == 1) {                                     \
                            int64_t lo = x0 < 0 ? -x0 : 0;                               \
                            int64_t hi = W - x0 < g->ow ? W - x0 : g->ow;                \
                            add_span_##T(drow + x0 + lo, srow + lo, hi - lo);            \
                            continue;                                                    \
                        }                                                                \
                        for (int64_t ox = 0; ox < g->ow; ox++) {                         \
                            int64_t xx = x0 + ox * g->sw;                                \
                            if (xx >= 0 && xx < W)                                       \
                                drow[xx] += srow[ox * cs];                               \
                        }                                                                \
                    }                                                                    \
                }                                                                        \
        }                                                                                \
    }
FOLD(float)
FOLD(double)
FOLD(int64_t)

static void unfold_range(void *arg, int64_t t0, int64_t t1)
{
    const cols_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        unfold_float(c, t0, t1);
    else if (c->x->dtype == MT_FLOAT64)
        unfold_double(c, t0, t1);
    else
        unfold_int64_t(c, t0, t1);
}

static void fold_range(void *arg, int64_t t0, int64_t t1)
{
    const cols_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        fold_float(c, t0, t1);
    else if (c->x->dtype == MT_FLOAT64)
        fold_double(c, t0, t1);
    else
        fold_int64_t(c, t0, t1);
}

static void unfold(const mt_tensor *x, int64_t n0, int64_t nb, int64_t c0, int64_t nc,
                   const mt_window *win, char *col)
{
    cols_ctx c = {x, n0, nb, c0, win, col, nb * win_area(win), 1};
    int64_t K = nc * win->kh * win->kw;
    mt_parallel_for(0, K * nb, 1 + 16384 / (win_area(win) + 1), unfold_range, &c);
}

/* col is laid out as unfold writes it, K x (nb * L) row-major. */
static void fold(mt_tensor *x, int64_t n0, int64_t nb, int64_t c0, int64_t nc, const mt_window *win,
                 char *col)
{
    cols_ctx c = {x, n0, nb, c0, win, col, nb * win_area(win), 1};
    int64_t per_plane = win_area(win) * win->kh * win->kw;
    mt_parallel_for(0, nc * nb, 1 + 16384 / (per_plane + 1), fold_range, &c);
}

/* ------------------------------------------------------------------ api */

static int check_dtype(mt_dtype d, const char *op)
{
    if (d == MT_FLOAT32 || d == MT_FLOAT64 || d == MT_INT64)
        return 0;
    return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", op,
                    mt_dtype_infos[d].scalar_name);
}

/* Images per chunk so that a K x (nb * L) buffer stays within the budget. */
static int64_t chunk_images(int64_t N, int64_t K, int64_t L, size_t isz)
{
    int64_t per = K * L * (int64_t)isz, nb = per ? COL_BUDGET / per : N;
    return nb < 1 ? 1 : (nb > N ? N : nb);
}

/* A scratch buffer from the caching allocator, so the buffers of repeated
 * calls are reused rather than mapped and faulted in again. */
typedef struct {
    void *block;
    size_t size;
    char *data;
} scratch;

static bool take(scratch *b, size_t bytes, bool zeroed)
{
    void *data = NULL;
    b->block = mt_alloc(bytes, 64, zeroed, &data, &b->size);
    b->data = data;
    return b->block != NULL;
}

static void give(scratch *b)
{
    if (b->block)
        mt_alloc_free(b->block, b->size);
}

/* The sizes every pass of a convolution works in: N images, O output
 * channels (Og per group) from Cg input channels per group, K = Cg * window
 * rows of the column buffer, L output positions. */
typedef struct {
    int64_t N, O, Cg, Og, K, L;
    size_t isz;
} conv_sizes;

static conv_sizes sizes_of(int64_t N, const mt_tensor *weight, mt_dtype d, const mt_window *win,
                           int64_t groups)
{
    conv_sizes s = {N, weight->sizes[0], weight->sizes[1], 0, 0, win_area(win), mt_itemsize(d)};
    s.Og = s.O / groups;
    s.K = s.Cg * win->kh * win->kw;
    return s;
}

/* The start of both backward passes: dtype check and sizes, the result
 * zeroed; returns 1 when nothing is left to compute, -1 on error. */
static int backward_start(mt_dtype d, int64_t N, const mt_tensor *weight, const mt_window *win,
                          int64_t groups, mt_tensor *result, conv_sizes *s)
{
    if (check_dtype(d, "slow_conv2d_cpu") < 0)
        return -1;
    *s = sizes_of(N, weight, d, win, groups);
    memset(mt_data(result), 0, (size_t)result->numel * s->isz);
    return N == 0 || s->K == 0 || s->L == 0 || s->Og == 0;
}

/* Images [n0, n0 + nb) of out (contiguous) = the bias (of out's dtype)
 * broadcast over their planes; done per chunk just before its gemm
 * accumulates onto them, while they are hot. A plain fill: the general
 * broadcasting copy would run its same-dtype cast loop per row. */
#define BIAS_FILL(T)                                                                     \
    static void bias_fill_##T(T *dst, const T *b, int64_t bs, int64_t planes, int64_t O, \
                              int64_t L)                                                 \
    {                                                                                    \
        for (int64_t p = 0; p < planes; p++) {                                           \
            T v = b[(p % O) * bs];                                                       \
            for (int64_t l = 0; l < L; l++)                                              \
                dst[p * L + l] = v;                                                      \
        }                                                                                \
    }
BIAS_FILL(float)
BIAS_FILL(double)
BIAS_FILL(int64_t)

static void bias_into(const mt_tensor *out, const mt_tensor *bias, int64_t n0, int64_t nb)
{
    int64_t O = out->sizes[1], L = out->sizes[2] * out->sizes[3];
    char *dst = mt_data(out) + n0 * out->strides[0] * (int64_t)mt_itemsize(out->dtype);
    if (out->dtype == MT_FLOAT32)
        bias_fill_float((float *)dst, (const float *)mt_data(bias), bias->strides[0], nb * O, O, L);
    else if (out->dtype == MT_FLOAT64)
        bias_fill_double((double *)dst, (const double *)mt_data(bias), bias->strides[0], nb * O, O,
                         L);
    else
        bias_fill_int64_t((int64_t *)dst, (const int64_t *)mt_data(bias), bias->strides[0], nb * O,
                          O, L);
}

/* The forward or the input gradient over chunks of images, the chunks split
 * over threads: each thread fills its own cache-sized column buffer and the
 * chunks write disjoint images, so nothing is shared but the weight. */
typedef struct {
    const mt_tensor *src, *w, *bias; /* src: x (forward) or the output's gradient */
    mt_tensor *dst;                  /* out (forward) or grad_input */
    const mt_window *win;
    int64_t groups, chunk;
    conv_sizes s;
    bool input_grad;
    atomic_int failed;
} chunks_job;

/* out for images [n0, n0 + nb): per image, out_n = w_g col_n straight into
 * the output (no reordering pass), accumulated onto the bias put there. */
static int forward_chunk(const chunks_job *j, char *col, int64_t n0, int64_t nb)
{
    const conv_sizes *s = &j->s;
    size_t isz = s->isz;
    mt_gemm_shape shape = {1, {nb}, s->Og, s->L, s->K};
    mt_gemm_scale one = {1.0, 1}, zero = {0.0, 0};
    if (j->bias)
        bias_into(j->dst, j->bias, n0, nb);
    for (int64_t g = 0; g < j->groups; g++) {
        unfold(j->src, n0, nb, g * s->Cg, s->Cg, j->win, col);
        mt_gemm_operand a = {mt_data(j->w) + g * s->Og * s->K * isz, s->K, 1, {0}};
        mt_gemm_operand b = {col, nb * s->L, 1, {s->L}};
        mt_gemm_operand o = {
            mt_data(j->dst) + (n0 * s->O + g * s->Og) * s->L * isz, s->L, 1, {s->O * s->L}};
        if (mt_gemm(j->w->dtype, &shape, &a, &b, &o, one, j->bias ? one : zero) < 0)
            return -1;
    }
    return 0;
}

/* grad_input for images [n0, n0 + nb): per image col_n = w_g^T grad_n, read
 * straight from the gradient, folded back into the zeroed planes. */
static int input_chunk(const chunks_job *j, char *col, int64_t n0, int64_t nb)
{
    const conv_sizes *s = &j->s;
    size_t isz = s->isz;
    mt_gemm_shape shape = {1, {nb}, s->K, s->L, s->Og};
    mt_gemm_scale one = {1.0, 1}, zero = {0.0, 0};
    for (int64_t g = 0; g < j->groups; g++) {
        mt_gemm_operand a = {mt_data(j->w) + g * s->Og * s->K * isz, 1, s->K, {0}};
        mt_gemm_operand b = {
            mt_data(j->src) + (n0 * s->O + g * s->Og) * s->L * isz, s->L, 1, {s->O * s->L}};
        mt_gemm_operand o = {col, nb * s->L, 1, {s->L}};
        if (mt_gemm(j->w->dtype, &shape, &a, &b, &o, one, zero) < 0)
            return -1;
        fold(j->dst, n0, nb, g * s->Cg, s->Cg, j->win, col);
    }
    return 0;
}

static void chunks_range(void *arg, int64_t c0, int64_t c1)
{
    chunks_job *j = arg;
    int64_t N = j->s.N;
    scratch b;
    if (!take(&b, (size_t)(j->s.K * j->chunk * j->s.L) * j->s.isz, false)) {
        atomic_store(&j->failed, 1);
        return;
    }
    char *col = b.data;
    for (int64_t c = c0; c < c1 && !atomic_load(&j->failed); c++) {
        int64_t n0 = c * j->chunk, nb = N - n0 < j->chunk ? N - n0 : j->chunk;
        if ((j->input_grad ? input_chunk(j, col, n0, nb) : forward_chunk(j, col, n0, nb)) < 0)
            atomic_store(&j->failed, 1);
    }
    give(&b);
}

/* Runs every chunk; one bracket sets the library's thread count once for
 * all their products. */
static int run_chunks(chunks_job *j)
{
    j->chunk = chunk_images(j->s.N, j->s.K, j->s.L, j->s.isz);
    atomic_init(&j->failed, 0);
    mt_blas_begin();
    mt_parallel_for(0, (j->s.N + j->chunk - 1) / j->chunk, 1, chunks_range, j);
    mt_blas_end();
    /* a failure on another thread left no message here */
    if (atomic_load(&j->failed))
        return mt_error(MT_ERR_MEMORY, "convolution: out of memory for a %lld x %lld buffer",
                        (long long)j->s.K, (long long)(j->chunk * j->s.L));
    return 0;
}

int mt_conv2d_forward(const mt_tensor *x, const mt_tensor *w, const mt_tensor *bias,
                      const mt_window *win, int64_t groups, mt_tensor *out)
{
    if (check_dtype(x->dtype, "slow_conv2d_cpu") < 0)
        return -1;
    conv_sizes s = sizes_of(x->sizes[0], w, x->dtype, win, groups);
    if (mt_conv2d_winograd_fits(x->dtype, s.Cg, s.O, win, groups))
        return mt_conv2d_winograd_forward(x, w, bias, win, out);
    if (s.N == 0 || s.O == 0 || s.L == 0)
        return 0;
    if (s.K == 0) {
        if (bias)
            bias_into(out, bias, 0, s.N);
        else
            mt_fill(out, 0.0, 0, 0);
        return 0;
    }
    if (mt_conv2d_direct_fits(x->dtype, s.Cg, s.O, win, groups))
        return mt_conv2d_direct_forward(x, w, bias, win, out);
    chunks_job j = {x, w, bias, out, win, groups, 0, s, false};
    return run_chunks(&j);
}

int mt_conv2d_backward_input(const mt_tensor *grad, const mt_tensor *w, const mt_window *win,
                             int64_t groups, mt_tensor *grad_input)
{
    conv_sizes s;
    int start = backward_start(grad->dtype, grad_input->sizes[0], w, win, groups, grad_input, &s);
    if (start != 0)
        return start < 0 ? -1 : 0;
    if (mt_conv2d_winograd_input_fits(grad->dtype, s.Cg, s.O, win, groups))
        return mt_conv2d_winograd_backward_input(grad, w, win, grad_input);
    chunks_job j = {grad, w, NULL, grad_input, win, groups, 0, s, true};
    return run_chunks(&j);
}

/* The weight gradient over chunks of images, split into one run of chunks
 * per thread: run 0 accumulates into grad_weight, run t > 0 into its own
 * zeroed copy, added in at the end. */
typedef struct {
    const mt_tensor *grad, *x;
    mt_tensor *gw;
    char *parts; /* runs 1.. of (O, K) partial sums */
    const mt_window *win;
    int64_t groups, chunk, nchunks, runs;
    conv_sizes s;
    atomic_int failed;
} weight_job;

/* acc_g += mat col^T per group for images [n0, n0 + nb), with the chunk's
 * gradient planes side by side in mat (Og x nb*L): one gemm with a long
 * inner dimension beats one per image; a one-image chunk reads its planes
 * in place. */
static int weight_chunk(const weight_job *j, char *acc, char *col, char *mat, int64_t n0,
                        int64_t nb)
{
    const conv_sizes *s = &j->s;
    size_t isz = s->isz;
    int64_t Og = s->Og, K = s->K, L = s->L;
    mt_gemm_shape shape = {0, {0}, Og, K, nb * L};
    mt_gemm_scale one = {1.0, 1};
    for (int64_t g = 0; g < j->groups; g++) {
        const char *planes = mt_data(j->grad) + (n0 * s->O + g * Og) * L * isz;
        if (nb > 1)
            for (int64_t o = 0; o < Og; o++)
                for (int64_t n = 0; n < nb; n++)
                    memcpy(mat + (o * nb + n) * L * isz, planes + (n * s->O + o) * L * isz,
                           (size_t)L * isz);
        unfold(j->x, n0, nb, g * s->Cg, s->Cg, j->win, col);
        mt_gemm_operand a = {nb > 1 ? mat : (char *)planes, nb * L, 1, {0}};
        mt_gemm_operand b = {col, 1, nb * L, {0}};
        mt_gemm_operand o = {acc + g * Og * K * isz, K, 1, {0}};
        if (mt_gemm(j->gw->dtype, &shape, &a, &b, &o, one, one) < 0)
            return -1;
    }
    return 0;
}

static void weight_runs(void *arg, int64_t r0, int64_t r1)
{
    weight_job *j = arg;
    const conv_sizes *s = &j->s;
    scratch cb = {0}, mb = {0};
    bool ok = take(&cb, (size_t)(s->K * j->chunk * s->L) * s->isz, false) &&
              take(&mb, (size_t)(s->Og * j->chunk * s->L) * s->isz, false);
    char *col = cb.data, *mat = mb.data;
    for (int64_t r = r0; r < r1 && ok && !atomic_load(&j->failed); r++) {
        char *acc = r == 0 ? mt_data(j->gw) : j->parts + (r - 1) * s->O * s->K * s->isz;
        for (int64_t c = r * j->nchunks / j->runs; c < (r + 1) * j->nchunks / j->runs; c++) {
            int64_t n0 = c * j->chunk, nb = s->N - n0 < j->chunk ? s->N - n0 : j->chunk;
            if (weight_chunk(j, acc, col, mat, n0, nb) < 0) {
                atomic_store(&j->failed, 1);
                break;
            }
        }
    }
    if (!ok)
        atomic_store(&j->failed, 1);
    give(&cb);
    give(&mb);
}

#define ADD_PARTS(T)                                                                  \
    static void add_parts_##T(char *dst, const char *parts, int64_t n, int64_t count) \
    {                                                                                 \
        for (int64_t p = 0; p < count; p++)                                           \
            for (int64_t i = 0; i < n; i++)                                           \
                ((T *)dst)[i] += ((const T *)parts)[p * n + i];                       \
    }
ADD_PARTS(float)
ADD_PARTS(double)
ADD_PARTS(int64_t)

int mt_conv2d_backward_weight(const mt_tensor *grad, const mt_tensor *x, const mt_window *win,
                              int64_t groups, mt_tensor *grad_weight)
{
    conv_sizes s;
    int start = backward_start(grad->dtype, x->sizes[0], grad_weight, win, groups, grad_weight, &s);
    if (start != 0)
        return start < 0 ? -1 : 0;
    if (mt_conv2d_winograd_fits(grad->dtype, s.Cg, s.O, win, groups))
        return mt_conv2d_winograd_backward_weight(grad, x, win, grad_weight);
    if (mt_conv2d_direct_fits(grad->dtype, s.Cg, s.O, win, groups))
        return mt_conv2d_direct_backward_weight(grad, x, win, grad_weight);
    weight_job j = {grad, x, grad_weight, NULL, win, groups};
    j.s = s;
    j.chunk = chunk_images(s.N, s.K, s.L, s.isz);
    j.nchunks = (s.N + j.chunk - 1) / j.chunk;
    j.runs = mt_get_num_threads() < j.nchunks ? mt_get_num_threads() : j.nchunks;
    scratch pb = {0};
    if (j.runs > 1) {
        if (!take(&pb, (size_t)((j.runs - 1) * s.O * s.K) * s.isz, true))
            return mt_error(MT_ERR_MEMORY, "convolution: out of memory");
        j.parts = pb.data;
    }
    atomic_init(&j.failed, 0);
    mt_blas_begin();
    mt_parallel_for(0, j.runs, 1, weight_runs, &j);
    mt_blas_end();
    if (!atomic_load(&j.failed) && j.runs > 1) {
        if (grad->dtype == MT_FLOAT32)
            add_parts_float(mt_data(grad_weight), j.parts, s.O * s.K, j.runs - 1);
        else if (grad->dtype == MT_FLOAT64)
            add_parts_double(mt_data(grad_weight), j.parts, s.O * s.K, j.runs - 1);
        else
            add_parts_int64_t(mt_data(grad_weight), j.parts, s.O * s.K, j.runs - 1);
    }
    give(&pb);
    if (atomic_load(&j.failed))
        return mt_error(MT_ERR_MEMORY, "convolution: out of memory for a %lld x %lld buffer",
                        (long long)s.K, (long long)(j.chunk * s.L));
    return 0;
}
