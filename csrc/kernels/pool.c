/* 2-d max, average and adaptive average pooling, forward and backward. Every
 * loop runs one (n, c) plane per task; a backward task writes only its own
 * plane of the (zeroed, contiguous) input gradient. */
#include "conv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "parallel.h"

typedef struct {
    const mt_tensor *x;    /* forward input, or the input for max-pool's backward */
    const mt_tensor *grad; /* backward: the output gradient (any strides) */
    const mt_window *win;
    char *out;             /* contiguous: forward output, or the input gradient */
    int64_t *indices;
    bool count_include_pad;
    int64_t divisor_override;
} pool_ctx;

/* Plane p of t (N*C planes, in (n, c) order) starts here. */
static inline int64_t plane_offset(const mt_tensor *t, int64_t p)
{
    int64_t C = t->sizes[1];
    return (p / C) * t->strides[0] + (p % C) * t->strides[1];
}

static inline int64_t grad_at(const mt_tensor *g, int64_t p, int64_t oy, int64_t ox)
{
    return plane_offset(g, p) + oy * g->strides[2] + ox * g->strides[3];
}

static int check_float(mt_dtype d, const char *op)
{
    if (d == MT_FLOAT32 || d == MT_FLOAT64)
        return 0;
    return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", op,
                    mt_dtype_infos[d].scalar_name);
}

static int64_t plane_grain(const mt_window *g)
{
    int64_t work = g->oh * g->ow * g->kh * g->kw;
    return 1 + 32768 / (work ? work : 1);
}

/* -------------------------------------------------------------------- max */

/* The taps [*lo, *hi) of a window starting at start (stride d) inside [0, n). */
static inline void taps(int64_t start, int64_t d, int64_t k, int64_t n, int64_t *lo,
                        int64_t *hi)
{
    if (start >= 0 && start + (k - 1) * d < n) { /* inside: no division */
        *lo = 0;
        *hi = k;
        return;
    }
    *lo = start < 0 ? (-start + d - 1) / d : 0;
    *hi = start + (k - 1) * d < n ? k : (n - 1 - start) / d + 1;
    if (*hi < *lo)
        *hi = *lo;
}

/* Output row oy's maxima into best[0, ow) and their positions h * W + w into
 * at (-1 where a window holds no element). For every output the taps are
 * visited in (i, j) order, so the first maximum wins, and the last NaN, as in
 * torch; the loop over outputs is innermost so it runs without branches. */
#define ARGMAX_ROW(T)                                                                    \
    static void argmax_row_##T(const T *src, int64_t H, int64_t W, int64_t sh,           \
                               int64_t sw, const mt_window *g, int64_t oy, T *best,      \
                               int64_t *at)                                              \
    {                                                                                    \
        int64_t y0 = oy * g->sh - g->ph, i0, i1;                                         \
        taps(y0, g->dh, g->kh, H, &i0, &i1);                                             \
        for (int64_t ox = 0; ox < g->ow; ox++) {                                         \
            best[ox] = -INFINITY;                                                        \
            at[ox] = -1;                                                                 \
        }                                                                                \
        for (int64_t i = i0; i < i1; i++) {                                              \
            int64_t y = y0 + i * g->dh;                                                  \
            const T *row = src + y * sh;                                                 \
            for (int64_t j = 0; j < g->kw; j++) {                                        \
                /* the outputs whose tap j lands inside the row */                       \
                int64_t off = j * g->dw - g->pw, lo, hi;                                 \
                taps(off, g->sw, g->ow, W, &lo, &hi);                                    \
                for (int64_t ox = lo; ox < hi; ox++) {                                   \
                    int64_t xx = off + ox * g->sw;                                       \
                    T v = row[xx * sw];                                                  \
                    bool take = (at[ox] < 0) | (v > best[ox]) | (v != v);                \
                    best[ox] = take ? v : best[ox];                                      \
                    at[ox] = take ? y * W + xx : at[ox];                                 \
                }                                                                        \
            }                                                                            \
        }                                                                                \
    }

#define MAX_POOL(T)                                                                      \
    ARGMAX_ROW(T)                                                                        \
    static void max_pool_##T(const pool_ctx *c, int64_t p0, int64_t p1)                  \
    {                                                                                    \
        const mt_window *g = c->win;                                                     \
        const mt_tensor *x = c->x;                                                       \
        int64_t H = x->sizes[2], W = x->sizes[3], sh = x->strides[2], sw = x->strides[3];\
        int64_t *at = malloc(sizeof(int64_t) * (size_t)(g->ow + 1));                     \
        for (int64_t p = p0; p < p1 && at; p++) {                                        \
            const T *src = (const T *)mt_data(x) + plane_offset(x, p);                   \
            T *dst = (T *)c->out + p * g->oh * g->ow;                                    \
            int64_t *idx = c->indices ? c->indices + p * g->oh * g->ow : NULL;           \
            for (int64_t oy = 0; oy < g->oh; oy++) {                                     \
                int64_t *row_at = idx ? idx + oy * g->ow : at;                           \
                argmax_row_##T(src, H, W, sh, sw, g, oy, dst + oy * g->ow, row_at);      \
            }                                                                            \
        }                                                                                \
        free(at);                                                                        \
    }                                                                                    \
    static void max_pool_backward_##T(const pool_ctx *c, int64_t p0, int64_t p1)         \
    {                                                                                    \
        const mt_window *g = c->win;                                                     \
        const mt_tensor *x = c->x;                                                       \
        int64_t H = x->sizes[2], W = x->sizes[3], sh = x->strides[2], sw = x->strides[3];\
        const T *gd = (const T *)mt_data(c->grad);                                       \
        int64_t *at = malloc(sizeof(int64_t) * (size_t)(g->ow + 1));                     \
        T *best = malloc(sizeof(T) * (size_t)(g->ow + 1));                               \
        for (int64_t p = p0; p < p1 && at && best; p++) {                                \
            const T *src = (const T *)mt_data(x) + plane_offset(x, p);                   \
            T *dst = (T *)c->out + p * H * W;                                            \
            for (int64_t oy = 0; oy < g->oh; oy++) {                                     \
                argmax_row_##T(src, H, W, sh, sw, g, oy, best, at);                      \
                for (int64_t ox = 0; ox < g->ow; ox++)                                   \
                    if (at[ox] >= 0)                                                     \
                        dst[at[ox]] += gd[grad_at(c->grad, p, oy, ox)];                  \
            }                                                                            \
        }                                                                                \
        free(at);                                                                        \
        free(best);                                                                      \
    }
MAX_POOL(float)
MAX_POOL(double)

static void max_pool_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        max_pool_float(c, p0, p1);
    else
        max_pool_double(c, p0, p1);
}

static void max_pool_backward_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        max_pool_backward_float(c, p0, p1);
    else
        max_pool_backward_double(c, p0, p1);
}

int mt_max_pool2d_forward(const mt_tensor *x, const mt_window *win, mt_tensor *out,
                          mt_tensor *indices)
{
    if (check_float(x->dtype, "max_pool2d") < 0)
        return -1;
    pool_ctx c = {x, NULL, win, mt_data(out), indices ? (int64_t *)mt_data(indices) : NULL,
                  0, 0};
    mt_parallel_for(0, x->sizes[0] * x->sizes[1], plane_grain(win), max_pool_range, &c);
    return 0;
}

int mt_max_pool2d_backward(const mt_tensor *grad, const mt_tensor *x, const mt_window *win,
                           mt_tensor *grad_input)
{
    if (check_float(x->dtype, "max_pool2d_with_indices_backward") < 0)
        return -1;
    memset(mt_data(grad_input), 0, (size_t)grad_input->numel * mt_itemsize(x->dtype));
    pool_ctx c = {x, grad, win, mt_data(grad_input), NULL, 0, 0};
    mt_parallel_for(0, x->sizes[0] * x->sizes[1], plane_grain(win), max_pool_backward_range,
                    &c);
    return 0;
}

/* ---------------------------------------------------------------- average */

/* The part of output (oy, ox)'s window inside the plane, and its divisor. */
static inline int64_t avg_window(const pool_ctx *c, int64_t H, int64_t W, int64_t oy,
                                 int64_t ox, int64_t *y0, int64_t *y1, int64_t *x0,
                                 int64_t *x1)
{
    const mt_window *g = c->win;
    int64_t a = oy * g->sh - g->ph, b = ox * g->sw - g->pw;
    int64_t e = a + g->kh, f = b + g->kw;
    if (e > H + g->ph)
        e = H + g->ph;
    if (f > W + g->pw)
        f = W + g->pw;
    int64_t padded = (e - a) * (f - b);
    *y0 = a < 0 ? 0 : a;
    *x0 = b < 0 ? 0 : b;
    *y1 = e > H ? H : e;
    *x1 = f > W ? W : f;
    if (c->divisor_override > 0)
        return c->divisor_override;
    return c->count_include_pad ? padded : (*y1 - *y0) * (*x1 - *x0);
}

/* adaptive pooling: rows [floor(i * H / oh), ceil((i + 1) * H / oh)) */
static inline void adaptive_range(int64_t i, int64_t in, int64_t out, int64_t *lo, int64_t *hi)
{
    *lo = i * in / out;
    *hi = ((i + 1) * in + out - 1) / out;
}

/* Both averages in one loop: ADAPTIVE picks the window. */
#define AVG_BOUNDS(ADAPTIVE)                                                             \
    int64_t y0, y1, x0, x1, div;                                                         \
    if (ADAPTIVE) {                                                                      \
        adaptive_range(oy, H, g->oh, &y0, &y1);                                          \
        adaptive_range(ox, W, g->ow, &x0, &x1);                                          \
        div = (y1 - y0) * (x1 - x0);                                                     \
    } else {                                                                             \
        div = avg_window(c, H, W, oy, ox, &y0, &y1, &x0, &x1);                           \
    }

#define AVG_POOL(T)                                                                      \
    static void avg_pool_##T(const pool_ctx *c, int64_t p0, int64_t p1, bool adaptive)   \
    {                                                                                    \
        const mt_window *g = c->win;                                                     \
        const mt_tensor *x = c->x;                                                       \
        int64_t H = x->sizes[2], W = x->sizes[3], sh = x->strides[2], sw = x->strides[3];\
        for (int64_t p = p0; p < p1; p++) {                                              \
            const T *src = (const T *)mt_data(x) + plane_offset(x, p);                   \
            T *dst = (T *)c->out + p * g->oh * g->ow;                                    \
            for (int64_t oy = 0; oy < g->oh; oy++)                                       \
                for (int64_t ox = 0; ox < g->ow; ox++) {                                 \
                    AVG_BOUNDS(adaptive)                                                 \
                    double sum = 0;                                                      \
                    for (int64_t y = y0; y < y1; y++)                                    \
                        for (int64_t xx = x0; xx < x1; xx++)                             \
                            sum += src[y * sh + xx * sw];                                \
                    dst[oy * g->ow + ox] = (T)(sum / (double)div);                       \
                }                                                                        \
        }                                                                                \
    }                                                                                    \
    static void avg_pool_backward_##T(const pool_ctx *c, int64_t p0, int64_t p1,         \
                                      bool adaptive)                                     \
    {                                                                                    \
        const mt_window *g = c->win;                                                     \
        int64_t H = c->x->sizes[2], W = c->x->sizes[3];                                  \
        const T *gd = (const T *)mt_data(c->grad);                                       \
        for (int64_t p = p0; p < p1; p++) {                                              \
            T *dst = (T *)c->out + p * H * W;                                            \
            for (int64_t oy = 0; oy < g->oh; oy++)                                       \
                for (int64_t ox = 0; ox < g->ow; ox++) {                                 \
                    AVG_BOUNDS(adaptive)                                                 \
                    T v = (T)(gd[grad_at(c->grad, p, oy, ox)] / (double)div);            \
                    for (int64_t y = y0; y < y1; y++)                                    \
                        for (int64_t xx = x0; xx < x1; xx++)                             \
                            dst[y * W + xx] += v;                                        \
                }                                                                        \
        }                                                                                \
    }
AVG_POOL(float)
AVG_POOL(double)

static void avg_pool_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        avg_pool_float(c, p0, p1, false);
    else
        avg_pool_double(c, p0, p1, false);
}

static void adaptive_avg_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        avg_pool_float(c, p0, p1, true);
    else
        avg_pool_double(c, p0, p1, true);
}

static void avg_pool_backward_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        avg_pool_backward_float(c, p0, p1, false);
    else
        avg_pool_backward_double(c, p0, p1, false);
}

static void adaptive_avg_backward_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        avg_pool_backward_float(c, p0, p1, true);
    else
        avg_pool_backward_double(c, p0, p1, true);
}

int mt_avg_pool2d_forward(const mt_tensor *x, const mt_window *win, bool count_include_pad,
                          int64_t divisor_override, mt_tensor *out)
{
    if (check_float(x->dtype, "avg_pool2d") < 0)
        return -1;
    pool_ctx c = {x, NULL, win, mt_data(out), NULL, count_include_pad, divisor_override};
    mt_parallel_for(0, x->sizes[0] * x->sizes[1], plane_grain(win), avg_pool_range, &c);
    return 0;
}

int mt_avg_pool2d_backward(const mt_tensor *grad, const mt_window *win, bool count_include_pad,
                           int64_t divisor_override, mt_tensor *grad_input)
{
    if (check_float(grad->dtype, "avg_pool2d_backward_cpu") < 0)
        return -1;
    memset(mt_data(grad_input), 0, (size_t)grad_input->numel * mt_itemsize(grad->dtype));
    pool_ctx c = {grad_input, grad, win, mt_data(grad_input), NULL, count_include_pad,
                  divisor_override};
    mt_parallel_for(0, grad_input->sizes[0] * grad_input->sizes[1], plane_grain(win),
                    avg_pool_backward_range, &c);
    return 0;
}

/* The window covering each output element is at most ceil(H / oh) rows. */
static mt_window adaptive_window(const mt_tensor *in, const mt_tensor *out)
{
    int64_t H = in->sizes[2], W = in->sizes[3], oh = out->sizes[2], ow = out->sizes[3];
    mt_window win = {oh ? (H + oh - 1) / oh + 1 : 0, ow ? (W + ow - 1) / ow + 1 : 0,
                     1, 1, 0, 0, 1, 1, oh, ow};
    return win;
}

int mt_adaptive_avg_pool2d_forward(const mt_tensor *x, mt_tensor *out)
{
    if (check_float(x->dtype, "adaptive_avg_pool2d") < 0)
        return -1;
    mt_window win = adaptive_window(x, out);
    pool_ctx c = {x, NULL, &win, mt_data(out), NULL, 0, 0};
    mt_parallel_for(0, x->sizes[0] * x->sizes[1], plane_grain(&win), adaptive_avg_range, &c);
    return 0;
}

int mt_adaptive_avg_pool2d_backward(const mt_tensor *grad, mt_tensor *grad_input)
{
    if (check_float(grad->dtype, "adaptive_avg_pool2d_backward_cpu") < 0)
        return -1;
    memset(mt_data(grad_input), 0, (size_t)grad_input->numel * mt_itemsize(grad->dtype));
    mt_window win = adaptive_window(grad_input, grad);
    pool_ctx c = {grad_input, grad, &win, mt_data(grad_input), NULL, 0, 0};
    mt_parallel_for(0, grad_input->sizes[0] * grad_input->sizes[1], plane_grain(&win),
                    adaptive_avg_backward_range, &c);
    return 0;
}
