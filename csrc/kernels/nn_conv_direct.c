/* Direct convolution for windows of few elements (C * kh * kw <= KMAX) into
 * few output channels (O <= OMAX): float32, ungrouped, stride 1, undilated.
 * There im2col would copy each input element kh * kw times for a product
 * whose rows are only the few output channels; here each image is copied
 * once into a zero-padded buffer (padding done, rows a whole number of
 * vectors wide plus the window) and the products run on it directly, with
 * the accumulators in registers:
 *  - forward: a block of up to MR output channels by NV vectors along an
 *    output row, one load of the input per window element and channel block;
 *  - weight gradient: a block of up to WR output channels by WK window
 *    elements, summing along output rows in vector lanes, added across
 *    lanes once per thread (the input gradient stays im2col's: a first
 *    layer's input needs none).
 * Images split over threads; each thread takes its buffers from the caching
 * allocator, and the weight gradient's threads sum into their own partials,
 * added up at the end. Compiled for AVX2 + FMA and the portable baseline,
 * chosen at run time. */
#include "nn_conv_direct.h"

#include <stdatomic.h>
#include <string.h>

#include "../core/allocator.h"
#include "../core/error.h"
#include "../core/portable.h"
#include "parallel.h"

#define KMAX 32
#define OMAX 32
#define VW 8 /* lanes of a vector */
#define MR 6 /* forward: output channels of a register block */
#define NV 2 /* forward: vectors along the row of a register block */
#define WR 3 /* weight gradient: output channels of a block */
#define WK 3 /* weight gradient: window elements of a block */

typedef float v8 __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));

/* fp-contract: GCC in ISO C mode would not fuse the multiply-adds */
#if defined(__clang__)
#define CONTRACT
#else
#define CONTRACT __attribute__((optimize("fp-contract=fast")))
#endif

bool mt_conv2d_direct_fits(mt_dtype d, int64_t Cg, int64_t O, const mt_window *win, int64_t groups)
{
    return d == MT_FLOAT32 && groups == 1 && win->sh == 1 && win->sw == 1 && win->dh == 1 &&
           win->dw == 1 && Cg * win->kh * win->kw <= KMAX && O <= OMAX;
}

/* The geometry of one image's padded copy: C planes of hp rows of wp
 * floats; row y, column q holds input (y - ph, q - pw) or 0. nvec vectors
 * cover an output row; off[k] is where window element k = (c, i, j) starts. */
typedef struct {
    int64_t C, hp, wp, nvec, K;
    int64_t off[KMAX];
} padded;

static padded padded_of(const mt_tensor *x, const mt_window *g)
{
    padded p;
    p.C = x->sizes[1];
    p.nvec = (g->ow + VW - 1) / VW;
    p.hp = g->oh + g->kh - 1;
    p.wp = p.nvec * VW + g->kw - 1;
    p.K = p.C * g->kh * g->kw;
    for (int64_t k = 0; k < p.K; k++) {
        int64_t j = k % g->kw, i = (k / g->kw) % g->kh, c = k / (g->kw * g->kh);
        p.off[k] = (c * p.hp + i) * p.wp + j;
    }
    return p;
}

static void pad_image(const mt_tensor *x, int64_t n, const mt_window *g, const padded *p, float *xp)
{
    int64_t H = x->sizes[2], W = x->sizes[3], sw = x->strides[3];
    int64_t lo = g->pw, hi = W + g->pw < p->wp ? W + g->pw : p->wp;
    for (int64_t c = 0; c < p->C; c++)
        for (int64_t y = 0; y < p->hp; y++) {
            float *row = xp + (c * p->hp + y) * p->wp;
            int64_t iy = y - g->ph;
            memset(row, 0, sizeof(float) * (size_t)p->wp);
            if (iy < 0 || iy >= H)
                continue;
            const float *src = (const float *)mt_data(x) + n * x->strides[0] + c * x->strides[1] +
                               iy * x->strides[2];
            for (int64_t q = lo; q < hi; q++)
                row[q] = src[(q - g->pw) * sw];
        }
}

/* An unaligned vector load, as a macro: a function returning a vector would
 * differ in ABI between the two builds, and a memcpy may be split into two
 * halves stored and reloaded whole, which stalls store forwarding. */
typedef float v8u __attribute__((vector_size(32), aligned(4), may_alias));
#define LOAD8(dst, src) ((dst) = *(const v8u *)(src))

/* ---------------------------------------------------------------- forward
 * out rows [o0, o0 + rows) at output row oy, vectors [v0, v0 + nv): wt is
 * the weight turned to (K, O) so a window element's channels sit together. */
#define FORWARD_BLOCK(NAME, ATTR)                                                            \
    ATTR static inline __attribute__((always_inline)) void NAME##_block(                     \
        int rows, int nv, const padded *p, const float *xrow, const float *wt, int64_t O,    \
        const float *bias, float *out, int64_t plane, int64_t ow, int64_t ox0)               \
    {                                                                                        \
        v8 s[MR][NV];                                                                        \
        for (int r = 0; r < MR; r++)                                                         \
            for (int v = 0; v < NV; v++)                                                     \
                s[r][v] = (v8){0} + (bias && r < rows ? bias[r] : 0.0f);                     \
        for (int64_t k = 0; k < p->K; k++) {                                                 \
            v8 xv[NV];                                                                       \
            for (int v = 0; v < nv; v++)                                                     \
                LOAD8(xv[v], xrow + p->off[k] + v * VW);                                     \
            const float *wk = wt + k * O;                                                    \
            for (int r = 0; r < MR; r++)                                                     \
                if (r < rows)                                                                \
                    for (int v = 0; v < nv; v++)                                             \
                        s[r][v] += xv[v] * wk[r];                                            \
        }                                                                                    \
        for (int r = 0; r < rows; r++)                                                       \
            for (int v = 0; v < nv; v++) {                                                   \
                int64_t x0 = ox0 + v * VW, n = ow - x0 < VW ? ow - x0 : VW;                  \
                memcpy(out + r * plane + x0, &s[r][v], sizeof(float) * (size_t)n);           \
            }                                                                                \
    }                                                                                        \
    ATTR static void NAME(const padded *p, const float *xp, const float *wt, int64_t O,      \
                          const float *bias, float *out, int64_t oh, int64_t ow)             \
    {                                                                                        \
        int64_t plane = oh * ow;                                                             \
        for (int64_t oy = 0; oy < oh; oy++)                                                  \
            for (int64_t v0 = 0; v0 < p->nvec; v0 += NV) {                                   \
                const float *xrow = xp + oy * p->wp + v0 * VW;                               \
                int nv = p->nvec - v0 < NV ? (int)(p->nvec - v0) : NV;                       \
                for (int64_t o0 = 0; o0 < O; o0 += MR) {                                     \
                    const float *b = bias ? bias + o0 : NULL;                                \
                    float *dst = out + o0 * plane + oy * ow;                                 \
                    int rows = O - o0 < MR ? (int)(O - o0) : MR;                             \
                    switch (rows * 4 + nv) {                                                 \
                    case 1 * 4 + 1:                                                          \
                        NAME##_block(1, 1, p, xrow, wt + o0, O, b, dst, plane, ow, v0 * VW); \
                        break;                                                               \
                    case 2 * 4 + 1:                                                          \
                        NAME##_block(2, 1, p, xrow, wt + o0, O, b, dst, plane, ow, v0 * VW); \
                        break;                                                               \
                    case 3 * 4 + 1:                                                          \
                        NAME##_block(3, 1, p, xrow, wt + o0, O, b, dst, plane, ow, v0 * VW); \
                        break;                                                               \
                    case 4 * 4 + 1:                                                          \
                        NAME##_block(4, 1, p, xrow, wt + o0, O, b, dst, plane, ow, v0 * VW); \
                        break;                                                               \
                    case 5 * 4 + 1:                                                          \
                        NAME##_block(5, 1, p, xrow, wt + o0, O, b, dst, plane, ow, v0 * VW); \
                        break;                                                               \
                    case 6 * 4 + 1:                                                          \
                        NAME##_block(6, 1, p, xrow, wt + o0, O, b, dst, plane, ow, v0 * VW); \
                        break;                                                               \
                    case 1 * 4 + 2:                                                          \
                        NAME##_block(1, 2, p, xrow, wt + o0, O, b, dst, plane, ow, v0 * VW); \
                        break;                                                               \
                    case 2 * 4 + 2:                                                          \
                        NAME##_block(2, 2, p, xrow, wt + o0, O, b, dst, plane, ow, v0 * VW); \
                        break;                                                               \
                    case 3 * 4 + 2:                                                          \
                        NAME##_block(3, 2, p, xrow, wt + o0, O, b, dst, plane, ow, v0 * VW); \
                        break;                                                               \
                    case 4 * 4 + 2:                                                          \
                        NAME##_block(4, 2, p, xrow, wt + o0, O, b, dst, plane, ow, v0 * VW); \
                        break;                                                               \
                    case 5 * 4 + 2:                                                          \
                        NAME##_block(5, 2, p, xrow, wt + o0, O, b, dst, plane, ow, v0 * VW); \
                        break;                                                               \
                    default:                                                                 \
                        NAME##_block(6, 2, p, xrow, wt + o0, O, b, dst, plane, ow, v0 * VW); \
                        break;                                                               \
                    }                                                                        \
                }                                                                            \
            }                                                                                \
    }

/* ------------------------------------------------------- weight gradient
 * acc[(o, k)] (one vector of lane sums each, rows O) += the products of
 * gradient rows [o0, o0 + rows) by window elements [k0, k0 + nk) over one
 * image: gp is its gradient with rows padded to nvec vectors by zeros; the
 * lanes past the row's end are masked off the input too, as 0 * inf is not 0. */
#define WEIGHT_BLOCK(NAME, ATTR)                                                         \
    ATTR static inline __attribute__((always_inline)) void NAME##_block(                 \
        int rows, int nk, const padded *p, const float *xp, const float *gp, int64_t oh, \
        int64_t k0, v8 *acc, const v8i *tail)                                            \
    {                                                                                    \
        int64_t gplane = oh * p->nvec * VW;                                              \
        v8 s[WR][WK];                                                                    \
        for (int r = 0; r < WR; r++)                                                     \
            for (int q = 0; q < WK; q++)                                                 \
                s[r][q] = r < rows && q < nk ? acc[r * p->K + k0 + q] : (v8){0};         \
        for (int64_t oy = 0; oy < oh; oy++)                                              \
            for (int64_t v = 0; v < p->nvec; v++) {                                      \
                const float *xr = xp + oy * p->wp + v * VW;                              \
                const float *gr = gp + (oy * p->nvec + v) * VW;                          \
                v8i keep = v == p->nvec - 1 ? *tail : (v8i){0} - 1;                      \
                v8 xv[WK], gv[WR];                                                       \
                for (int q = 0; q < nk; q++) {                                           \
                    LOAD8(xv[q], xr + p->off[k0 + q]);                                   \
                    xv[q] = (v8)((v8i)xv[q] & keep);                                     \
                }                                                                        \
                for (int r = 0; r < rows; r++)                                           \
                    LOAD8(gv[r], gr + r * gplane);                                       \
                for (int r = 0; r < rows; r++)                                           \
                    for (int q = 0; q < nk; q++)                                         \
                        s[r][q] += gv[r] * xv[q];                                        \
            }                                                                            \
        for (int r = 0; r < rows; r++)                                                   \
            for (int q = 0; q < nk; q++)                                                 \
                acc[r * p->K + k0 + q] = s[r][q];                                        \
    }                                                                                    \
    ATTR static void NAME(const padded *p, const float *xp, const float *gp, int64_t O,  \
                          int64_t oh, int64_t ow, v8 *acc)                               \
    {                                                                                    \
        v8i tail;                                                                        \
        for (int l = 0; l < VW; l++)                                                     \
            tail[l] = (p->nvec - 1) * VW + l < ow ? -1 : 0;                              \
        for (int64_t o0 = 0; o0 < O; o0 += WR) {                                         \
            int rows = O - o0 < WR ? (int)(O - o0) : WR;                                 \
            const float *g = gp + o0 * oh * p->nvec * VW;                                \
            v8 *a = acc + o0 * p->K;                                                     \
            for (int64_t k0 = 0; k0 < p->K; k0 += WK) {                                  \
                int nk = p->K - k0 < WK ? (int)(p->K - k0) : WK;                         \
                switch (rows * 4 + nk) {                                                 \
                case 1 * 4 + 1:                                                          \
                    NAME##_block(1, 1, p, xp, g, oh, k0, a, &tail);                      \
                    break;                                                               \
                case 1 * 4 + 2:                                                          \
                    NAME##_block(1, 2, p, xp, g, oh, k0, a, &tail);                      \
                    break;                                                               \
                case 1 * 4 + 3:                                                          \
                    NAME##_block(1, 3, p, xp, g, oh, k0, a, &tail);                      \
                    break;                                                               \
                case 2 * 4 + 1:                                                          \
                    NAME##_block(2, 1, p, xp, g, oh, k0, a, &tail);                      \
                    break;                                                               \
                case 2 * 4 + 2:                                                          \
                    NAME##_block(2, 2, p, xp, g, oh, k0, a, &tail);                      \
                    break;                                                               \
                case 2 * 4 + 3:                                                          \
                    NAME##_block(2, 3, p, xp, g, oh, k0, a, &tail);                      \
                    break;                                                               \
                case 3 * 4 + 1:                                                          \
                    NAME##_block(3, 1, p, xp, g, oh, k0, a, &tail);                      \
                    break;                                                               \
                case 3 * 4 + 2:                                                          \
                    NAME##_block(3, 2, p, xp, g, oh, k0, a, &tail);                      \
                    break;                                                               \
                default:                                                                 \
                    NAME##_block(3, 3, p, xp, g, oh, k0, a, &tail);                      \
                    break;                                                               \
                }                                                                        \
            }                                                                            \
        }                                                                                \
    }

typedef void (*forward_fn)(const padded *p, const float *xp, const float *wt, int64_t O,
                           const float *bias, float *out, int64_t oh, int64_t ow);
typedef void (*weight_fn)(const padded *p, const float *xp, const float *gp, int64_t O, int64_t oh,
                          int64_t ow, v8 *acc);

FORWARD_BLOCK(forward_base, CONTRACT)
WEIGHT_BLOCK(weight_base, CONTRACT)
#ifdef MT_HAVE_X86_DISPATCH
FORWARD_BLOCK(forward_avx2, MT_TARGET_AVX2_FMA CONTRACT)
WEIGHT_BLOCK(weight_avx2, MT_TARGET_AVX2_FMA CONTRACT)
#endif

static forward_fn forward_for_cpu(void)
{
#ifdef MT_HAVE_X86_DISPATCH
    if (mt_cpu_has_avx2_fma())
        return forward_avx2;
#endif
    return forward_base;
}

static weight_fn weight_for_cpu(void)
{
#ifdef MT_HAVE_X86_DISPATCH
    if (mt_cpu_has_avx2_fma())
        return weight_avx2;
#endif
    return weight_base;
}

/* ------------------------------------------------------------------ jobs */

typedef struct {
    const mt_tensor *x, *grad;
    const float *wt, *bias;
    float *out; /* forward output, or the weight gradient's partials */
    const mt_window *win;
    padded p;
    int64_t O, runs;
    atomic_int failed;
} direct_job;

static float *take(void **block, size_t *size, size_t floats)
{
    void *data = NULL;
    *block = mt_alloc(floats * sizeof(float), 64, false, &data, size);
    return *block ? data : NULL;
}

static void forward_range(void *arg, int64_t n0, int64_t n1)
{
    direct_job *j = arg;
    const padded *p = &j->p;
    void *block;
    size_t size;
    float *xp = take(&block, &size, (size_t)(p->C * p->hp * p->wp));
    if (!xp) {
        atomic_store(&j->failed, 1);
        return;
    }
    forward_fn run = forward_for_cpu();
    int64_t oh = j->win->oh, ow = j->win->ow;
    for (int64_t n = n0; n < n1; n++) {
        pad_image(j->x, n, j->win, p, xp);
        run(p, xp, j->wt, j->O, j->bias, j->out + n * j->O * oh * ow, oh, ow);
    }
    mt_alloc_free(block, size);
}

int mt_conv2d_direct_forward(const mt_tensor *x, const mt_tensor *w, const mt_tensor *bias,
                             const mt_window *win, mt_tensor *out)
{
    direct_job j = {x, NULL, NULL, NULL, (float *)mt_data(out), win};
    j.p = padded_of(x, win);
    j.O = w->sizes[0];
    float wt[KMAX * OMAX], bv[OMAX];
    const float *wd = (const float *)mt_data(w);
    for (int64_t o = 0; o < j.O; o++)
        for (int64_t k = 0; k < j.p.K; k++)
            wt[k * j.O + o] = wd[o * j.p.K + k];
    j.wt = wt;
    if (bias) {
        for (int64_t o = 0; o < j.O; o++)
            bv[o] = ((const float *)mt_data(bias))[o * bias->strides[0]];
        j.bias = bv;
    }
    atomic_init(&j.failed, 0);
    int64_t per_image = j.O * win->oh * win->ow * j.p.K;
    mt_parallel_for(0, x->sizes[0], 1 + 65536 / (per_image + 1), forward_range, &j);
    if (atomic_load(&j.failed))
        return mt_error(MT_ERR_MEMORY, "convolution: out of memory");
    return 0;
}

/* Run r sums images [r N / runs, (r + 1) N / runs) into partial r (O x K). */
static void weight_range(void *arg, int64_t r0, int64_t r1)
{
    direct_job *j = arg;
    const padded *p = &j->p;
    int64_t N = j->x->sizes[0], O = j->O, oh = j->win->oh, ow = j->win->ow;
    /* the padded image rounded up to whole vectors, so acc stays aligned */
    int64_t rowv = p->nvec * VW, xfl = (p->C * p->hp * p->wp + VW - 1) / VW * VW;
    int64_t gfl = O * oh * rowv;
    void *block;
    size_t size;
    float *buf = take(&block, &size, (size_t)(xfl + gfl + O * p->K * VW));
    if (!buf) {
        atomic_store(&j->failed, 1);
        return;
    }
    float *xp = buf, *gp = buf + xfl;
    v8 *sums = (v8 *)(buf + xfl + gfl);
    weight_fn run = weight_for_cpu();
    for (int64_t r = r0; r < r1; r++) {
        for (int64_t q = 0; q < O * p->K; q++)
            sums[q] = (v8){0};
        for (int64_t n = r * N / j->runs; n < (r + 1) * N / j->runs; n++) {
            pad_image(j->x, n, j->win, p, xp);
            const float *g = (const float *)mt_data(j->grad) + n * O * oh * ow;
            for (int64_t o = 0; o < O; o++)
                for (int64_t oy = 0; oy < oh; oy++) {
                    float *dst = gp + (o * oh + oy) * rowv;
                    memcpy(dst, g + (o * oh + oy) * ow, sizeof(float) * (size_t)ow);
                    memset(dst + ow, 0, sizeof(float) * (size_t)(rowv - ow));
                }
            run(p, xp, gp, O, oh, ow, sums);
        }
        float *part = j->out + r * O * p->K;
        for (int64_t q = 0; q < O * p->K; q++) {
            float t = 0;
            for (int l = 0; l < VW; l++)
                t += sums[q][l];
            part[q] = t;
        }
    }
    mt_alloc_free(block, size);
}

int mt_conv2d_direct_backward_weight(const mt_tensor *grad, const mt_tensor *x,
                                     const mt_window *win, mt_tensor *grad_weight)
{
    direct_job j = {x, grad, NULL, NULL, NULL, win};
    j.p = padded_of(x, win);
    j.O = grad_weight->sizes[0];
    int64_t N = x->sizes[0], OK = j.O * j.p.K;
    j.runs = mt_get_num_threads() < N ? mt_get_num_threads() : N;
    void *block;
    size_t size;
    j.out = take(&block, &size, (size_t)(j.runs * OK));
    if (!j.out)
        return mt_error(MT_ERR_MEMORY, "convolution: out of memory");
    atomic_init(&j.failed, 0);
    mt_parallel_for(0, j.runs, 1, weight_range, &j);
    float *gw = (float *)mt_data(grad_weight);
    for (int64_t q = 0; q < OK; q++) {
        float t = 0;
        for (int64_t r = 0; r < j.runs; r++)
            t += j.out[r * OK + q];
        gw[q] = t;
    }
    mt_alloc_free(block, size);
    if (atomic_load(&j.failed))
        return mt_error(MT_ERR_MEMORY, "convolution: out of memory");
    return 0;
}
