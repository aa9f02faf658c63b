/* 2-d max, average and adaptive average pooling, forward and backward (float
 * and double; max and average forward take int64 too, as torch's do). Every
 * loop runs one (n, c) plane per task; a backward task writes only its own
 * plane of the (zeroed, contiguous) input gradient. */
#include "nn_conv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "parallel.h"

typedef struct {
    const mt_tensor *x;    /* forward input, or the input for max-pool's backward */
    const mt_tensor *grad; /* backward: the output gradient (any strides) */
    const mt_window *win;
    char *out; /* contiguous: forward output, or the input gradient */
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
static inline void taps(int64_t start, int64_t d, int64_t k, int64_t n, int64_t *lo, int64_t *hi)
{
    if (start >= 0 && start + (k - 1) * d < n) { /* inside: no division */
        *lo = 0;
        *hi = k;
        return;
    }
    *lo = start < 0 ? (-start + d - 1) / d : 0;
    /* a window starting past the end has no taps (division truncates toward 0) */
    *hi = start + (k - 1) * d < n ? k : start >= n ? 0 : (n - 1 - start) / d + 1;
    if (*hi < *lo)
        *hi = *lo;
}

/* Output row oy's maxima into best[0, ow) and their positions h * W + w into
 * at (-1 where a window holds no element). For every output the taps are
 * visited in (i, j) order, so the first maximum wins, and the last NaN, as in
 * torch; the loop over outputs is innermost so it runs without branches. */
#define ARGMAX_ROW(T, LOWEST)                                                              \
    static void argmax_row_##T(const T *src, int64_t H, int64_t W, int64_t sh, int64_t sw, \
                               const mt_window *g, int64_t oy, T *best, int64_t *at)       \
    {                                                                                      \
        int64_t y0 = oy * g->sh - g->ph, i0, i1;                                           \
        taps(y0, g->dh, g->kh, H, &i0, &i1);                                               \
        for (int64_t ox = 0; ox < g->ow; ox++) {                                           \
            best[ox] = LOWEST;                                                             \
            at[ox] = -1;                                                                   \
        }                                                                                  \
        /* only the taps j some output's window puts inside the row: a huge    \
         * kernel_size with as much padding costs no more than the row */           \
        int64_t reach = g->pw - (g->ow - 1) * g->sw;                                       \
        int64_t j0 = reach > 0 ? (reach + g->dw - 1) / g->dw : 0;                          \
        int64_t j1 = (W - 1 + g->pw) / g->dw + 1;                                          \
        if (j1 > g->kw)                                                                    \
            j1 = g->kw;                                                                    \
        for (int64_t i = i0; i < i1; i++) {                                                \
            int64_t y = y0 + i * g->dh;                                                    \
            const T *row = src + y * sh;                                                   \
            for (int64_t j = j0; j < j1; j++) {                                            \
                /* the outputs whose tap j lands inside the row */                         \
                int64_t off = j * g->dw - g->pw, lo, hi;                                   \
                taps(off, g->sw, g->ow, W, &lo, &hi);                                      \
                for (int64_t ox = lo; ox < hi; ox++) {                                     \
                    int64_t xx = off + ox * g->sw;                                         \
                    T v = row[xx * sw];                                                    \
                    bool take = (at[ox] < 0) | (v > best[ox]) | (v != v);                  \
                    best[ox] = take ? v : best[ox];                                        \
                    at[ox] = take ? y * W + xx : at[ox];                                   \
                }                                                                          \
            }                                                                              \
        }                                                                                  \
    }

#define MAX_POOL(T, LOWEST)                                                               \
    ARGMAX_ROW(T, LOWEST)                                                                 \
    static void max_pool_##T(const pool_ctx *c, int64_t p0, int64_t p1)                   \
    {                                                                                     \
        const mt_window *g = c->win;                                                      \
        const mt_tensor *x = c->x;                                                        \
        int64_t H = x->sizes[2], W = x->sizes[3], sh = x->strides[2], sw = x->strides[3]; \
        int64_t *at = malloc(sizeof(int64_t) * (size_t)(g->ow + 1));                      \
        for (int64_t p = p0; p < p1 && at; p++) {                                         \
            const T *src = (const T *)mt_data(x) + plane_offset(x, p);                    \
            T *dst = (T *)c->out + p * g->oh * g->ow;                                     \
            int64_t *idx = c->indices ? c->indices + p * g->oh * g->ow : NULL;            \
            for (int64_t oy = 0; oy < g->oh; oy++) {                                      \
                int64_t *row_at = idx ? idx + oy * g->ow : at;                            \
                argmax_row_##T(src, H, W, sh, sw, g, oy, dst + oy * g->ow, row_at);       \
            }                                                                             \
        }                                                                                 \
        free(at);                                                                         \
    }                                                                                     \
    static void max_pool_backward_##T(const pool_ctx *c, int64_t p0, int64_t p1)          \
    {                                                                                     \
        const mt_window *g = c->win;                                                      \
        const mt_tensor *x = c->x;                                                        \
        int64_t H = x->sizes[2], W = x->sizes[3], sh = x->strides[2], sw = x->strides[3]; \
        const T *gd = (const T *)mt_data(c->grad);                                        \
        int64_t *at = malloc(sizeof(int64_t) * (size_t)(g->ow + 1));                      \
        T *best = malloc(sizeof(T) * (size_t)(g->ow + 1));                                \
        for (int64_t p = p0; p < p1 && at && best; p++) {                                 \
            const T *src = (const T *)mt_data(x) + plane_offset(x, p);                    \
            T *dst = (T *)c->out + p * H * W;                                             \
            for (int64_t oy = 0; oy < g->oh; oy++) {                                      \
                argmax_row_##T(src, H, W, sh, sw, g, oy, best, at);                       \
                for (int64_t ox = 0; ox < g->ow; ox++)                                    \
                    if (at[ox] >= 0)                                                      \
                        dst[at[ox]] += gd[grad_at(c->grad, p, oy, ox)];                   \
            }                                                                             \
        }                                                                                 \
        free(at);                                                                         \
        free(best);                                                                       \
    }
MAX_POOL(float, -INFINITY)
MAX_POOL(double, -INFINITY)
MAX_POOL(int64_t, INT64_MIN)

/* ------------------------------------------- kernel 2, stride 2, no padding */

/* The common 2x2 / stride 2 window without padding or dilation, whose windows
 * tile the plane: whole rows at a time, no tap bookkeeping, four windows
 * at a time, the last four of a row overlapping the ones before rather than
 * a scalar tail (a branch per window on the data). The backward writes every
 * element of its plane (winner or zero), so it needs no memset. */
static bool is_pair_tile(const mt_window *g, const mt_tensor *x)
{
    return g->kh == 2 && g->kw == 2 && g->sh == 2 && g->sw == 2 && g->ph == 0 && g->pw == 0 &&
           g->dh == 1 && g->dw == 1 && 2 * g->oh <= x->sizes[2] && 2 * g->ow <= x->sizes[3] &&
           x->strides[3] == 1;
}

/* Which of the taps a, b, c, d (in window order) is the maximum: the first
 * maximum, or the last NaN, as the general loop does. */
#define WINNER(T)                                             \
    static inline int winner_##T(T a, T b, T c, T d, T *best) \
    {                                                         \
        int k = 0;                                            \
        T m = a;                                              \
        if (b > m || b != b)                                  \
            m = b, k = 1;                                     \
        if (c > m || c != c)                                  \
            m = c, k = 2;                                     \
        if (d > m || d != d)                                  \
            m = d, k = 3;                                     \
        *best = m;                                            \
        return k;                                             \
    }

/* Four windows at a time in (portable) vector registers: the winner is
 * data-dependent, so scalar code mispredicts about a branch per window. */
typedef float v4_float __attribute__((vector_size(16)));
typedef int32_t v4i_float __attribute__((vector_size(16)));
typedef double v4_double __attribute__((vector_size(32)));
typedef int64_t v4i_double __attribute__((vector_size(32)));

/* The windows of outputs [ox, ox + 4) (r0, r1 point at their first column):
 * their maxima, and per tap a mask of the windows it wins, as winner_T. */
#define PAIR_QUAD(T)                                                                         \
    static inline void pair_quad_##T(const T *r0, const T *r1, v4_##T *best, v4i_##T won[4]) \
    {                                                                                        \
        typedef v4_##T V;                                                                    \
        typedef v4i_##T I;                                                                   \
        V lo, hi, a, b, c, d, m;                                                             \
        memcpy(&lo, r0, sizeof lo);                                                          \
        memcpy(&hi, r0 + 4, sizeof hi);                                                      \
        a = __builtin_shufflevector(lo, hi, 0, 2, 4, 6);                                     \
        b = __builtin_shufflevector(lo, hi, 1, 3, 5, 7);                                     \
        memcpy(&lo, r1, sizeof lo);                                                          \
        memcpy(&hi, r1 + 4, sizeof hi);                                                      \
        c = __builtin_shufflevector(lo, hi, 0, 2, 4, 6);                                     \
        d = __builtin_shufflevector(lo, hi, 1, 3, 5, 7);                                     \
        I t1 = (b > a) | (b != b);                                                           \
        m = (V)(((I)b & t1) | ((I)a & ~t1));                                                 \
        I t2 = (c > m) | (c != c);                                                           \
        m = (V)(((I)c & t2) | ((I)m & ~t2));                                                 \
        I t3 = (d > m) | (d != d);                                                           \
        *best = (V)(((I)d & t3) | ((I)m & ~t3));                                             \
        won[0] = ~(t1 | t2 | t3);                                                            \
        won[1] = t1 & ~(t2 | t3);                                                            \
        won[2] = t2 & ~t3;                                                                   \
        won[3] = t3;                                                                         \
    }

/* Writes output gradients v to the winners of their windows and zero to the
 * rest of rows d0, d1 (from the windows' first column). */
#define PAIR_SCATTER(T)                                                                      \
    static inline void pair_scatter_##T(const v4_##T *g, const v4i_##T won[4], T *d0, T *d1) \
    {                                                                                        \
        typedef v4_##T V;                                                                    \
        typedef v4i_##T I;                                                                   \
        I v = (I) * g;                                                                       \
        V o0 = (V)(v & won[0]), o1 = (V)(v & won[1]);                                        \
        V o2 = (V)(v & won[2]), o3 = (V)(v & won[3]);                                        \
        V s = __builtin_shufflevector(o0, o1, 0, 4, 1, 5);                                   \
        memcpy(d0, &s, sizeof s);                                                            \
        s = __builtin_shufflevector(o0, o1, 2, 6, 3, 7);                                     \
        memcpy(d0 + 4, &s, sizeof s);                                                        \
        s = __builtin_shufflevector(o2, o3, 0, 4, 1, 5);                                     \
        memcpy(d1, &s, sizeof s);                                                            \
        s = __builtin_shufflevector(o2, o3, 2, 6, 3, 7);                                     \
        memcpy(d1 + 4, &s, sizeof s);                                                        \
    }

#define PAIR_POOL(T)                                                                            \
    WINNER(T)                                                                                   \
    PAIR_QUAD(T)                                                                                \
    PAIR_SCATTER(T)                                                                             \
    static void max_pair_##T(const pool_ctx *c, int64_t p0, int64_t p1)                         \
    {                                                                                           \
        const mt_window *g = c->win;                                                            \
        const mt_tensor *x = c->x;                                                              \
        int64_t W = x->sizes[3], sh = x->strides[2], oh = g->oh, ow = g->ow;                    \
        v4i_##T won[4];                                                                         \
        for (int64_t p = p0; p < p1; p++) {                                                     \
            const T *src = (const T *)mt_data(x) + plane_offset(x, p);                          \
            T *dst = (T *)c->out + p * oh * ow;                                                 \
            int64_t *idx = c->indices ? c->indices + p * oh * ow : NULL;                        \
            for (int64_t oy = 0; oy < oh; oy++) {                                               \
                const T *r0 = src + 2 * oy * sh, *r1 = r0 + sh;                                 \
                T *d = dst + oy * ow;                                                           \
                int64_t ox = 0;                                                                 \
                for (; !idx && ox < ow && ow >= 4; ox += 4) {                                   \
                    v4_##T m;                                                                   \
                    ox = ox + 4 <= ow ? ox : ow - 4; /* the last quad overlaps */               \
                    pair_quad_##T(r0 + 2 * ox, r1 + 2 * ox, &m, won);                           \
                    memcpy(d + ox, &m, sizeof m);                                               \
                }                                                                               \
                for (; ox < ow; ox++) {                                                         \
                    int k = winner_##T(r0[2 * ox], r0[2 * ox + 1], r1[2 * ox], r1[2 * ox + 1],  \
                                       d + ox);                                                 \
                    if (idx)                                                                    \
                        idx[oy * ow + ox] = (2 * oy + (k >> 1)) * W + 2 * ox + (k & 1);         \
                }                                                                               \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    static void max_pair_backward_##T(const pool_ctx *c, int64_t p0, int64_t p1)                \
    {                                                                                           \
        const mt_window *g = c->win;                                                            \
        const mt_tensor *x = c->x, *gr = c->grad;                                               \
        int64_t H = x->sizes[2], W = x->sizes[3], sh = x->strides[2], oh = g->oh;               \
        int64_t ow = g->ow, gs = gr->strides[2], gw = gr->strides[3];                           \
        v4i_##T won[4];                                                                         \
        for (int64_t p = p0; p < p1; p++) {                                                     \
            const T *src = (const T *)mt_data(x) + plane_offset(x, p);                          \
            const T *gp = (const T *)mt_data(gr) + plane_offset(gr, p);                         \
            T *dst = (T *)c->out + p * H * W;                                                   \
            for (int64_t oy = 0; oy < oh; oy++) {                                               \
                const T *r0 = src + 2 * oy * sh, *r1 = r0 + sh, *gv = gp + oy * gs;             \
                T *d0 = dst + 2 * oy * W, *d1 = d0 + W, m;                                      \
                int64_t ox = 0;                                                                 \
                for (; ox < ow && ow >= 4; ox += 4) {                                           \
                    v4_##T best, v;                                                             \
                    ox = ox + 4 <= ow ? ox : ow - 4; /* rewrites the same values */             \
                    pair_quad_##T(r0 + 2 * ox, r1 + 2 * ox, &best, won);                        \
                    if (gw == 1)                                                                \
                        memcpy(&v, gv + ox, sizeof v);                                          \
                    else                                                                        \
                        v = (v4_##T){gv[ox * gw], gv[(ox + 1) * gw], gv[(ox + 2) * gw],         \
                                     gv[(ox + 3) * gw]};                                        \
                    pair_scatter_##T(&v, won, d0 + 2 * ox, d1 + 2 * ox);                        \
                }                                                                               \
                for (; ox < ow; ox++) {                                                         \
                    int k =                                                                     \
                        winner_##T(r0[2 * ox], r0[2 * ox + 1], r1[2 * ox], r1[2 * ox + 1], &m); \
                    T v = gv[ox * gw];                                                          \
                    d0[2 * ox] = k == 0 ? v : (T)0;                                             \
                    d0[2 * ox + 1] = k == 1 ? v : (T)0;                                         \
                    d1[2 * ox] = k == 2 ? v : (T)0;                                             \
                    d1[2 * ox + 1] = k == 3 ? v : (T)0;                                         \
                }                                                                               \
                for (int64_t xx = 2 * ow; xx < W; xx++)                                         \
                    d0[xx] = d1[xx] = 0;                                                        \
            }                                                                                   \
            memset(dst + 2 * oh * W, 0, sizeof(T) * (size_t)((H - 2 * oh) * W));                \
        }                                                                                       \
    }
PAIR_POOL(float)
PAIR_POOL(double)

static void max_pool_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        max_pool_float(c, p0, p1);
    else if (c->x->dtype == MT_INT64)
        max_pool_int64_t(c, p0, p1);
    else
        max_pool_double(c, p0, p1);
}

static void max_pair_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        max_pair_float(c, p0, p1);
    else
        max_pair_double(c, p0, p1);
}

static void max_pair_backward_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        max_pair_backward_float(c, p0, p1);
    else
        max_pair_backward_double(c, p0, p1);
}

static void max_pool_backward_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        max_pool_backward_float(c, p0, p1);
    else if (c->x->dtype == MT_INT64)
        max_pool_backward_int64_t(c, p0, p1);
    else
        max_pool_backward_double(c, p0, p1);
}

int mt_max_pool2d_forward(const mt_tensor *x, const mt_window *win, mt_tensor *out,
                          mt_tensor *indices)
{
    /* int64 forward as torch's; the vector pair path is for floats */
    if (x->dtype != MT_INT64 && check_float(x->dtype, "max_pool2d") < 0)
        return -1;
    pool_ctx c = {x, NULL, win, mt_data(out), indices ? (int64_t *)mt_data(indices) : NULL, 0, 0};
    bool pair = x->dtype != MT_INT64 && is_pair_tile(win, x);
    mt_parallel_for(0, x->sizes[0] * x->sizes[1], plane_grain(win),
                    pair ? max_pair_range : max_pool_range, &c);
    return 0;
}

int mt_max_pool2d_backward(const mt_tensor *grad, const mt_tensor *x, const mt_window *win,
                           mt_tensor *grad_input)
{
    if (check_float(x->dtype, "max_pool2d_with_indices_backward") < 0)
        return -1;
    pool_ctx c = {x, grad, win, mt_data(grad_input), NULL, 0, 0};
    if (is_pair_tile(win, x)) {
        mt_parallel_for(0, x->sizes[0] * x->sizes[1], plane_grain(win), max_pair_backward_range,
                        &c);
        return 0;
    }
    memset(mt_data(grad_input), 0, (size_t)grad_input->numel * mt_itemsize(x->dtype));
    mt_parallel_for(0, x->sizes[0] * x->sizes[1], plane_grain(win), max_pool_backward_range, &c);
    return 0;
}

/* ---------------------------------------------------------------- average */

/* The part of output (oy, ox)'s window inside the plane, and its divisor. */
static inline int64_t avg_window(const pool_ctx *c, int64_t H, int64_t W, int64_t oy, int64_t ox,
                                 int64_t *y0, int64_t *y1, int64_t *x0, int64_t *x1)
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
    if (c->divisor_override != 0) /* 0: none given (the op refuses a zero override) */
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
#define AVG_BOUNDS(ADAPTIVE)                                   \
    int64_t y0, y1, x0, x1, div;                               \
    if (ADAPTIVE) {                                            \
        adaptive_range(oy, H, g->oh, &y0, &y1);                \
        adaptive_range(ox, W, g->ow, &x0, &x1);                \
        div = (y1 - y0) * (x1 - x0);                           \
    } else {                                                   \
        div = avg_window(c, H, W, oy, ox, &y0, &y1, &x0, &x1); \
    }

#define AVG_POOL(T)                                                                             \
    static void avg_pool_##T(const pool_ctx *c, int64_t p0, int64_t p1, bool adaptive)          \
    {                                                                                           \
        const mt_window *g = c->win;                                                            \
        const mt_tensor *x = c->x;                                                              \
        int64_t H = x->sizes[2], W = x->sizes[3], sh = x->strides[2], sw = x->strides[3];       \
        for (int64_t p = p0; p < p1; p++) {                                                     \
            const T *src = (const T *)mt_data(x) + plane_offset(x, p);                          \
            T *dst = (T *)c->out + p * g->oh * g->ow;                                           \
            for (int64_t oy = 0; oy < g->oh; oy++)                                              \
                for (int64_t ox = 0; ox < g->ow; ox++) {                                        \
                    AVG_BOUNDS(adaptive)                                                        \
                    double sum = 0;                                                             \
                    for (int64_t y = y0; y < y1; y++)                                           \
                        for (int64_t xx = x0; xx < x1; xx++)                                    \
                            sum += src[y * sh + xx * sw];                                       \
                    dst[oy * g->ow + ox] = (T)(sum / (double)div);                              \
                }                                                                               \
        }                                                                                       \
    }                                                                                           \
    static void avg_pool_backward_##T(const pool_ctx *c, int64_t p0, int64_t p1, bool adaptive) \
    {                                                                                           \
        const mt_window *g = c->win;                                                            \
        int64_t H = c->x->sizes[2], W = c->x->sizes[3];                                         \
        const T *gd = (const T *)mt_data(c->grad);                                              \
        for (int64_t p = p0; p < p1; p++) {                                                     \
            T *dst = (T *)c->out + p * H * W;                                                   \
            for (int64_t oy = 0; oy < g->oh; oy++)                                              \
                for (int64_t ox = 0; ox < g->ow; ox++) {                                        \
                    AVG_BOUNDS(adaptive)                                                        \
                    T v = (T)(gd[grad_at(c->grad, p, oy, ox)] / (double)div);                   \
                    for (int64_t y = y0; y < y1; y++)                                           \
                        for (int64_t xx = x0; xx < x1; xx++)                                    \
                            dst[y * W + xx] += v;                                               \
                }                                                                               \
        }                                                                                       \
    }
AVG_POOL(float)
AVG_POOL(double)
AVG_POOL(int64_t)

static void avg_pool_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        avg_pool_float(c, p0, p1, false);
    else if (c->x->dtype == MT_INT64)
        avg_pool_int64_t(c, p0, p1, false);
    else
        avg_pool_double(c, p0, p1, false);
}

static void adaptive_avg_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        avg_pool_float(c, p0, p1, true);
    else if (c->x->dtype == MT_INT64)
        avg_pool_int64_t(c, p0, p1, true);
    else
        avg_pool_double(c, p0, p1, true);
}

static void avg_pool_backward_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        avg_pool_backward_float(c, p0, p1, false);
    else if (c->x->dtype == MT_INT64)
        avg_pool_backward_int64_t(c, p0, p1, false);
    else
        avg_pool_backward_double(c, p0, p1, false);
}

static void adaptive_avg_backward_range(void *arg, int64_t p0, int64_t p1)
{
    const pool_ctx *c = arg;
    if (c->x->dtype == MT_FLOAT32)
        avg_pool_backward_float(c, p0, p1, true);
    else if (c->x->dtype == MT_INT64)
        avg_pool_backward_int64_t(c, p0, p1, true);
    else
        avg_pool_backward_double(c, p0, p1, true);
}

int mt_avg_pool2d_forward(const mt_tensor *x, const mt_window *win, bool count_include_pad,
                          int64_t divisor_override, mt_tensor *out)
{
    if (x->dtype != MT_INT64 && check_float(x->dtype, "avg_pool2d") < 0)
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
    pool_ctx c = {grad_input,      grad, win, mt_data(grad_input), NULL, count_include_pad,
                  divisor_override};
    mt_parallel_for(0, grad_input->sizes[0] * grad_input->sizes[1], plane_grain(win),
                    avg_pool_backward_range, &c);
    return 0;
}

/* The window covering each output element is at most ceil(H / oh) rows. */
static mt_window adaptive_window(const mt_tensor *in, const mt_tensor *out)
{
    int64_t H = in->sizes[2], W = in->sizes[3], oh = out->sizes[2], ow = out->sizes[3];
    mt_window win = {
        oh ? (H + oh - 1) / oh + 1 : 0, ow ? (W + ow - 1) / ow + 1 : 0, 1, 1, 0, 0, 1, 1, oh, ow};
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
