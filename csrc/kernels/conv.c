/* Convolution (im2col + gemm) and pooling forward kernels. */
#include "conv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "copy.h"
#include "matmul.h"
#include "parallel.h"

/* ------------------------------------------------------------- im2col */

/* One image's channels [c0, c0 + nc) of x unfolded into col, a contiguous
 * (nc * kh * kw) x (oh * ow) matrix; positions in the padding read 0. */
typedef struct {
    const char *x; /* image n, channel c0 */
    int64_t sc, sh, sw, H, W;
    const mt_window *win;
    char *col;
    mt_dtype dtype;
} im2col_ctx;

#define IM2COL(T)                                                                        \
    static void im2col_##T(const im2col_ctx *c, int64_t r0, int64_t r1)                  \
    {                                                                                    \
        const mt_window *g = c->win;                                                     \
        int64_t L = g->oh * g->ow;                                                       \
        for (int64_t r = r0; r < r1; r++) {                                              \
            int64_t j = r % g->kw, i = (r / g->kw) % g->kh, ch = r / (g->kw * g->kh);    \
            const T *src = (const T *)c->x + ch * c->sc;                                 \
            T *dst = (T *)c->col + r * L;                                                \
            for (int64_t oy = 0; oy < g->oh; oy++) {                                     \
                int64_t y = oy * g->sh - g->ph + i * g->dh;                              \
                T *row = dst + oy * g->ow;                                               \
                if (y < 0 || y >= c->H) {                                                \
                    memset(row, 0, sizeof(T) * g->ow);                                   \
                    continue;                                                            \
                }                                                                        \
                const T *srow = src + y * c->sh;                                         \
                for (int64_t ox = 0; ox < g->ow; ox++) {                                 \
                    int64_t xx = ox * g->sw - g->pw + j * g->dw;                         \
                    row[ox] = xx >= 0 && xx < c->W ? srow[xx * c->sw] : (T)0;            \
                }                                                                        \
            }                                                                            \
        }                                                                                \
    }
IM2COL(float)
IM2COL(double)

static void im2col_range(void *arg, int64_t r0, int64_t r1)
{
    const im2col_ctx *c = arg;
    if (c->dtype == MT_FLOAT32)
        im2col_float(c, r0, r1);
    else
        im2col_double(c, r0, r1);
}

static int check_float(mt_dtype d, const char *op)
{
    if (d == MT_FLOAT32 || d == MT_FLOAT64)
        return 0;
    return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", op,
                    mt_dtype_infos[d].scalar_name);
}

int mt_conv2d_forward(const mt_tensor *x, const mt_tensor *w, const mt_tensor *bias,
                      const mt_window *win, int64_t groups, mt_tensor *out)
{
    if (check_float(x->dtype, "slow_conv2d_cpu") < 0)
        return -1;
    int64_t N = x->sizes[0], O = w->sizes[0], Cg = w->sizes[1];
    int64_t Og = O / groups, K = Cg * win->kh * win->kw, L = win->oh * win->ow;
    size_t isz = mt_itemsize(x->dtype);
    if (bias) {
        mt_tensor bv = *bias;
        bv.ndim = 4;
        bv.sizes[0] = N, bv.sizes[1] = O, bv.sizes[2] = win->oh, bv.sizes[3] = win->ow;
        bv.strides[0] = 0, bv.strides[1] = bias->strides[0], bv.strides[2] = bv.strides[3] = 0;
        bv.numel = out->numel;
        mt_copy(out, &bv);
    }
    if (N == 0 || O == 0 || L == 0)
        return 0;
    if (K == 0) {
        if (!bias)
            mt_fill(out, 0.0, 0, 0);
        return 0;
    }
    char *col = malloc((size_t)K * (size_t)L * isz);
    if (!col)
        return mt_error(MT_ERR_MEMORY, "conv2d: out of memory for a %lld x %lld buffer",
                        (long long)K, (long long)L);
    mt_gemm_shape shape = {0, {0}, Og, L, K};
    mt_gemm_scale one = {1.0, 1}, beta = {bias ? 1.0 : 0.0, bias ? 1 : 0};
    for (int64_t n = 0; n < N; n++) {
        for (int64_t g = 0; g < groups; g++) {
            im2col_ctx c = {mt_data(x) + (n * x->strides[0] + g * Cg * x->strides[1]) * isz,
                            x->strides[1], x->strides[2], x->strides[3], x->sizes[2],
                            x->sizes[3], win, col, x->dtype};
            mt_parallel_for(0, K, 1 + 16384 / (L ? L : 1), im2col_range, &c);
            mt_gemm_operand a = {mt_data(w) + g * Og * K * isz, K, 1, {0}};
            mt_gemm_operand b = {col, L, 1, {0}};
            mt_gemm_operand o = {mt_data(out) + (n * O + g * Og) * L * isz, L, 1, {0}};
            if (mt_gemm(x->dtype, &shape, &a, &b, &o, one, beta) < 0) {
                free(col);
                return -1;
            }
        }
    }
    free(col);
    return 0;
}

/* ------------------------------------------------------------- pooling */

typedef struct {
    const mt_tensor *x;
    const mt_window *win;
    char *out;
    int64_t *indices;
    bool count_include_pad;
    int64_t divisor_override;
} pool_ctx;

/* Plane p of x (N*C planes, in (n, c) order) starts here. */
static inline int64_t plane_offset(const mt_tensor *x, int64_t p)
{
    int64_t C = x->sizes[1];
    return (p / C) * x->strides[0] + (p % C) * x->strides[1];
}

#define MAX_POOL(T)                                                                      \
    static void max_pool_##T(const pool_ctx *c, int64_t p0, int64_t p1)                 \
    {                                                                                    \
        const mt_window *g = c->win;                                                     \
        const mt_tensor *x = c->x;                                                       \
        int64_t H = x->sizes[2], W = x->sizes[3], sh = x->strides[2], sw = x->strides[3];\
        for (int64_t p = p0; p < p1; p++) {                                              \
            const T *src = (const T *)mt_data(x) + plane_offset(x, p);                   \
            T *dst = (T *)c->out + p * g->oh * g->ow;                                    \
            int64_t *idx = c->indices ? c->indices + p * g->oh * g->ow : NULL;           \
            for (int64_t oy = 0; oy < g->oh; oy++)                                       \
                for (int64_t ox = 0; ox < g->ow; ox++) {                                 \
                    int64_t y0 = oy * g->sh - g->ph, x0 = ox * g->sw - g->pw;            \
                    T best = -INFINITY;                                                  \
                    int64_t at = -1;                                                     \
                    for (int64_t i = 0; i < g->kh; i++) {                                \
                        int64_t y = y0 + i * g->dh;                                      \
                        if (y < 0 || y >= H)                                             \
                            continue;                                                    \
                        for (int64_t j = 0; j < g->kw; j++) {                            \
                            int64_t xx = x0 + j * g->dw;                                 \
                            if (xx < 0 || xx >= W)                                       \
                                continue;                                                \
                            T v = src[y * sh + xx * sw];                                 \
                            if (at < 0 || v > best || isnan(v)) {                        \
                                best = v;                                                \
                                at = y * W + xx;                                         \
                            }                                                            \
                        }                                                                \
                    }                                                                    \
                    dst[oy * g->ow + ox] = best;                                         \
                    if (idx)                                                             \
                        idx[oy * g->ow + ox] = at;                                       \
                }                                                                        \
        }                                                                                \
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

static int64_t plane_grain(const mt_window *g)
{
    int64_t work = g->oh * g->ow * g->kh * g->kw;
    return 1 + 32768 / (work ? work : 1);
}

int mt_max_pool2d_forward(const mt_tensor *x, const mt_window *win, mt_tensor *out,
                          mt_tensor *indices)
{
    if (check_float(x->dtype, "max_pool2d") < 0)
        return -1;
    pool_ctx c = {x, win, mt_data(out), indices ? (int64_t *)mt_data(indices) : NULL, 0, 0};
    mt_parallel_for(0, x->sizes[0] * x->sizes[1], plane_grain(win), max_pool_range, &c);
    return 0;
}

#define AVG_POOL(T)                                                                      \
    static void avg_pool_##T(const pool_ctx *c, int64_t p0, int64_t p1)                  \
    {                                                                                    \
        const mt_window *g = c->win;                                                     \
        const mt_tensor *x = c->x;                                                       \
        int64_t H = x->sizes[2], W = x->sizes[3], sh = x->strides[2], sw = x->strides[3];\
        for (int64_t p = p0; p < p1; p++) {                                              \
            const T *src = (const T *)mt_data(x) + plane_offset(x, p);                   \
            T *dst = (T *)c->out + p * g->oh * g->ow;                                    \
            for (int64_t oy = 0; oy < g->oh; oy++)                                       \
                for (int64_t ox = 0; ox < g->ow; ox++) {                                 \
                    int64_t y0 = oy * g->sh - g->ph, x0 = ox * g->sw - g->pw;            \
                    int64_t y1 = y0 + g->kh, x1 = x0 + g->kw;                            \
                    if (y1 > H + g->ph)                                                  \
                        y1 = H + g->ph;                                                  \
                    if (x1 > W + g->pw)                                                  \
                        x1 = W + g->pw;                                                  \
                    int64_t padded = (y1 - y0) * (x1 - x0);                              \
                    if (y0 < 0)                                                          \
                        y0 = 0;                                                          \
                    if (x0 < 0)                                                          \
                        x0 = 0;                                                          \
                    if (y1 > H)                                                          \
                        y1 = H;                                                          \
                    if (x1 > W)                                                          \
                        x1 = W;                                                          \
                    double sum = 0;                                                      \
                    for (int64_t y = y0; y < y1; y++)                                    \
                        for (int64_t xx = x0; xx < x1; xx++)                             \
                            sum += src[y * sh + xx * sw];                                \
                    int64_t div = c->divisor_override > 0 ? c->divisor_override          \
                                  : c->count_include_pad ? padded                        \
                                                         : (y1 - y0) * (x1 - x0);        \
                    dst[oy * g->ow + ox] = (T)(sum / (double)div);                       \
                }                                                                        \
        }                                                                                \
    }
AVG_POOL(float)
AVG_POOL(double)

static void avg_pool_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        avg_pool_float(c, p0, p1);
    else
        avg_pool_double(c, p0, p1);
}

int mt_avg_pool2d_forward(const mt_tensor *x, const mt_window *win, bool count_include_pad,
                          int64_t divisor_override, mt_tensor *out)
{
    if (check_float(x->dtype, "avg_pool2d") < 0)
        return -1;
    pool_ctx c = {x, win, mt_data(out), NULL, count_include_pad, divisor_override};
    mt_parallel_for(0, x->sizes[0] * x->sizes[1], plane_grain(win), avg_pool_range, &c);
    return 0;
}

#define ADAPTIVE_AVG(T)                                                                  \
    static void adaptive_avg_##T(const pool_ctx *c, int64_t p0, int64_t p1)              \
    {                                                                                    \
        const mt_tensor *x = c->x;                                                       \
        int64_t H = x->sizes[2], W = x->sizes[3], sh = x->strides[2], sw = x->strides[3];\
        int64_t oh = c->win->oh, ow = c->win->ow;                                        \
        for (int64_t p = p0; p < p1; p++) {                                              \
            const T *src = (const T *)mt_data(x) + plane_offset(x, p);                   \
            T *dst = (T *)c->out + p * oh * ow;                                          \
            for (int64_t oy = 0; oy < oh; oy++) {                                        \
                int64_t y0 = oy * H / oh, y1 = ((oy + 1) * H + oh - 1) / oh;             \
                for (int64_t ox = 0; ox < ow; ox++) {                                    \
                    int64_t x0 = ox * W / ow, x1 = ((ox + 1) * W + ow - 1) / ow;         \
                    double sum = 0;                                                      \
                    for (int64_t y = y0; y < y1; y++)                                    \
                        for (int64_t xx = x0; xx < x1; xx++)                             \
                            sum += src[y * sh + xx * sw];                                \
                    dst[oy * ow + ox] = (T)(sum / (double)((y1 - y0) * (x1 - x0)));      \
                }                                                                        \
            }                                                                            \
        }                                                                                \
    }
ADAPTIVE_AVG(float)
ADAPTIVE_AVG(double)

static void adaptive_avg_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        adaptive_avg_float(c, p0, p1);
    else
        adaptive_avg_double(c, p0, p1);
}

int mt_adaptive_avg_pool2d_forward(const mt_tensor *x, mt_tensor *out)
{
    if (check_float(x->dtype, "adaptive_avg_pool2d") < 0)
        return -1;
    int64_t H = x->sizes[2], W = x->sizes[3];
    mt_window win = {H, W, 1, 1, 0, 0, 1, 1, out->sizes[2], out->sizes[3]};
    pool_ctx c = {x, &win, mt_data(out), NULL, 0, 0};
    mt_parallel_for(0, x->sizes[0] * x->sizes[1], plane_grain(&win), adaptive_avg_range, &c);
    return 0;
}
