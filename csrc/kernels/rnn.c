/* Recurrent layers over a whole sequence (rnn.h). Per step: the hidden
 * projection h W_hh^T as one gemm into a scratch, then one pass over the
 * running rows that adds the input projection and b_hh, applies the gate
 * non-linearities and updates c and h, keeping the activations in the
 * workspace. The backward walks the steps the other way: one pass per step
 * for the gate gradients and one gemm for the gradient of the previous h;
 * W_hh's gradient is one gemm over all steps at the end, since the
 * workspace holds every step's h side by side. The arithmetic follows
 * torch's cells operation by operation (gates = (h W^T + b_hh) + gi,
 * c' = f c + i g, h' = o tanh(c'), GRU h' = n + z (h - n)); the row passes
 * get an AVX2 clone but no FMA contraction, so each operation rounds as
 * the unfused ops would. */
#include "rnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "../core/portable.h"
#include "blas.h"
#include "linalg.h"
#include "parallel.h"
#include "vmath.h"

/* Elements per task of the row passes: below this a step runs inline. */
#define ROW_GRAIN 4096

int mt_rnn_gates(mt_rnn_mode mode)
{
    return mode == MT_RNN_LSTM ? 4 : mode == MT_RNN_GRU ? 3 : 1;
}

int mt_rnn_workspace_width(mt_rnn_mode mode)
{
    return mode == MT_RNN_LSTM ? 6 : mode == MT_RNN_GRU ? 5 : 1;
}

/* Where h sits in a workspace row, in units of H. */
static int h_slot(mt_rnn_mode mode) { return mt_rnn_workspace_width(mode) - 1; }

/* In-place activations of a run of values: float32 eight lanes at a time
 * with vmath.h (as the tanh and sigmoid ops compute them), float64 with libm
 * as the float64 ops do. */
#define ACT_LOOP(NAME, VFN)                                                              \
    MT_CLONES_AVX2_FMA static void NAME(float *x, int64_t n)                             \
    {                                                                                    \
        mt_v8f v;                                                                        \
        int64_t i = 0;                                                                   \
        for (; i + 8 <= n; i += 8) {                                                     \
            memcpy(&v, x + i, sizeof v);                                                 \
            VFN##_at(&v);                                                                \
            memcpy(x + i, &v, sizeof v);                                                 \
        }                                                                                \
        if (i < n) {                                                                     \
            float buf[8] = {0};                                                          \
            memcpy(buf, x + i, sizeof(float) * (size_t)(n - i));                         \
            memcpy(&v, buf, sizeof v);                                                   \
            VFN##_at(&v);                                                                \
            memcpy(buf, &v, sizeof v);                                                   \
            memcpy(x + i, buf, sizeof(float) * (size_t)(n - i));                         \
        }                                                                                \
    }
ACT_LOOP(sigmoid_float, mt_vsigmoid8)
ACT_LOOP(tanh_float, mt_vtanh8)

static void sigmoid_double(double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = 1 / (1 + exp(-x[i]));
}

static void tanh_double(double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = tanh(x[i]);
}

/* One step: rows r of each operand at base + r * (its row length). */
typedef struct {
    mt_rnn_mode mode;
    int64_t H, G, S;
    const char *gi, *gh, *b; /* input and hidden projections (G), b_hh or NULL */
    const char *hp, *cp;     /* the previous h and c, rows hps apart */
    int64_t hps;
    char *ws, *out;
    const char *gout; /* backward: out's gradient at the step, or NULL */
    char *dh, *dc, *dgi, *dgh;
} step;

/* gi + (gh + b), torch's order for gates = linear(h, W_hh, b_hh) + gi. */
#define PRE(k) (gi[k] + (b ? gh[k] + b[k] : gh[k]))

#define FORWARD_ROWS(T)                                                                  \
    MT_CLONES_AVX2 static void forward_rows_##T(void *arg, int64_t r0, int64_t r1)                      \
    {                                                                                    \
        const step *s = arg;                                                             \
        int64_t H = s->H, G = s->G;                                                      \
        const T *b = (const T *)s->b;                                                    \
        for (int64_t r = r0; r < r1; r++) {                                              \
            const T *gi = (const T *)s->gi + r * G, *gh = (const T *)s->gh + r * G;      \
            const T *hp = (const T *)s->hp + r * s->hps;                                 \
            T *w = (T *)s->ws + r * s->S, *h = w + h_slot(s->mode) * H;                  \
            if (s->mode == MT_RNN_TANH || s->mode == MT_RNN_RELU) {                      \
                for (int64_t j = 0; j < H; j++)                                          \
                    w[j] = PRE(j);                                                       \
                if (s->mode == MT_RNN_TANH)                                              \
                    tanh_##T(w, H);                                                      \
                else                                                                     \
                    for (int64_t j = 0; j < H; j++)                                      \
                        w[j] = w[j] < 0 ? 0 : w[j];                                      \
            } else if (s->mode == MT_RNN_LSTM) {                                         \
                const T *cp = (const T *)s->cp + r * s->hps;                             \
                T *c = w + 4 * H;                                                        \
                for (int64_t k = 0; k < 4 * H; k++)                                      \
                    w[k] = PRE(k);                                                       \
                sigmoid_##T(w, 2 * H);                                                   \
                tanh_##T(w + 2 * H, H);                                                  \
                sigmoid_##T(w + 3 * H, H);                                               \
                for (int64_t j = 0; j < H; j++)                                          \
                    h[j] = c[j] = w[H + j] * cp[j] + w[j] * w[2 * H + j];                \
                tanh_##T(h, H);                                                          \
                for (int64_t j = 0; j < H; j++)                                          \
                    h[j] *= w[3 * H + j];                                                \
            } else {                                                                     \
                T *n = w + 2 * H, *hn = w + 3 * H;                                       \
                for (int64_t k = 0; k < 2 * H; k++)                                      \
                    w[k] = PRE(k);                                                       \
                sigmoid_##T(w, 2 * H);                                                   \
                for (int64_t j = 0; j < H; j++) {                                        \
                    hn[j] = b ? gh[2 * H + j] + b[2 * H + j] : gh[2 * H + j];            \
                    n[j] = gi[2 * H + j] + hn[j] * w[j];                                 \
                }                                                                        \
                tanh_##T(n, H);                                                          \
                for (int64_t j = 0; j < H; j++)                                          \
                    h[j] = (hp[j] - n[j]) * w[H + j] + n[j];                             \
            }                                                                            \
            memcpy((T *)s->out + r * H, h, sizeof(T) * (size_t)H);                       \
        }                                                                                \
    }
FORWARD_ROWS(float)
FORWARD_ROWS(double)

/* dh (the gradient of this step's h, plus out's) becomes the gate gradients;
 * dc becomes the gradient of the previous c, and for GRU dh that of the
 * previous h through z (the gemm adds the part through W_hh). */
#define BACKWARD_ROWS(T)                                                                 \
    MT_CLONES_AVX2 static void backward_rows_##T(void *arg, int64_t r0, int64_t r1)                     \
    {                                                                                    \
        const step *s = arg;                                                             \
        int64_t H = s->H, G = s->G;                                                      \
        for (int64_t r = r0; r < r1; r++) {                                              \
            const T *w = (const T *)s->ws + r * s->S;                                    \
            const T *hp = (const T *)s->hp + r * s->hps;                                 \
            T *dh = (T *)s->dh + r * H, *dgi = (T *)s->dgi + r * G;                      \
            T *dgh = (T *)s->dgh + r * G;                                                \
            if (s->gout) {                                                               \
                const T *go = (const T *)s->gout + r * H;                                \
                for (int64_t j = 0; j < H; j++)                                          \
                    dh[j] += go[j];                                                      \
            }                                                                            \
            if (s->mode == MT_RNN_TANH) {                                                \
                for (int64_t j = 0; j < H; j++)                                          \
                    dgi[j] = dh[j] * (1 - w[j] * w[j]);                                  \
            } else if (s->mode == MT_RNN_RELU) {                                         \
                for (int64_t j = 0; j < H; j++)                                          \
                    dgi[j] = w[j] <= 0 ? 0 : dh[j];                                      \
            } else if (s->mode == MT_RNN_LSTM) {                                         \
                const T *cp = (const T *)s->cp + r * s->hps;                             \
                T *dc = (T *)s->dc + r * H, *tc = dgi + 3 * H;                           \
                memcpy(tc, w + 4 * H, sizeof(T) * (size_t)H);                            \
                tanh_##T(tc, H);                                                         \
                for (int64_t j = 0; j < H; j++) {                                        \
                    T i = w[j], f = w[H + j], g = w[2 * H + j], o = w[3 * H + j];        \
                    T t = tc[j];                                                         \
                    T d = dc[j] + dh[j] * o * (1 - t * t);                               \
                    dgi[3 * H + j] = dh[j] * t * (1 - o) * o;                            \
                    dgi[j] = d * g * (1 - i) * i;                                        \
                    dgi[H + j] = d * cp[j] * (1 - f) * f;                                \
                    dgi[2 * H + j] = d * i * (1 - g * g);                                \
                    dc[j] = d * f;                                                       \
                }                                                                        \
            } else {                                                                     \
                for (int64_t j = 0; j < H; j++) {                                        \
                    T rg = w[j], z = w[H + j], n = w[2 * H + j], hn = w[3 * H + j];      \
                    T d = dh[j];                                                         \
                    T da = d * (1 - z) * (1 - n * n), dz = d * (hp[j] - n);              \
                    dh[j] = d * z;                                                       \
                    dgi[2 * H + j] = da;                                                 \
                    dgh[2 * H + j] = da * rg;                                            \
                    dgi[j] = dgh[j] = da * hn * (1 - rg) * rg;                           \
                    dgi[H + j] = dgh[H + j] = dz * (1 - z) * z;                          \
                }                                                                        \
            }                                                                            \
        }                                                                                \
    }
BACKWARD_ROWS(float)
BACKWARD_ROWS(double)

static int check_dtype(mt_dtype d)
{
    if (d == MT_FLOAT32 || d == MT_FLOAT64)
        return 0;
    return mt_error(MT_ERR_RUNTIME, "\"_rnn_layer\" not implemented for '%s'",
                    mt_dtype_infos[d].scalar_name);
}

static int64_t row_grain(int64_t G) { return 1 + ROW_GRAIN / (G + 1); }

/* C (m x n, row-major, ldc) = A B + beta C over strided A and B. */
static int product(mt_dtype d, int64_t m, int64_t n, int64_t k, const char *a, int64_t ars,
                   int64_t acs, const char *b, int64_t brs, int64_t bcs, char *c, int64_t ldc,
                   double beta)
{
    mt_gemm_shape shape = {0, {0}, m, n, k};
    mt_gemm_operand A = {(char *)a, ars, acs, {0}}, B = {(char *)b, brs, bcs, {0}};
    mt_gemm_operand C = {c, ldc, 1, {0}};
    return mt_gemm(d, &shape, &A, &B, &C, (mt_gemm_scale){1.0, 1},
                   (mt_gemm_scale){beta, (int64_t)beta});
}

/* The previous step's h and c for forward-order step k at step t: hx and cx
 * first, then the workspace of the step before in the run's order. */
static void previous(step *s, int64_t k, int64_t t, bool reverse, int64_t N, size_t isz,
                     const mt_tensor *hx, const mt_tensor *cx, const char *ws)
{
    if (k == 0) {
        s->hp = mt_data(hx);
        s->cp = cx ? mt_data(cx) : NULL;
        s->hps = s->H;
        return;
    }
    const char *prev = ws + (reverse ? t + 1 : t - 1) * N * s->S * isz;
    s->hp = prev + h_slot(s->mode) * s->H * isz;
    s->cp = prev + 4 * s->H * isz;
    s->hps = s->S;
}

/* Rows of n values, src rows ss apart, into a dense (rows, n) dst. */
static void copy_rows(char *dst, const char *src, int64_t rows, int64_t n, int64_t ss,
                      size_t isz)
{
    for (int64_t r = 0; r < rows; r++)
        memcpy(dst + r * n * isz, src + r * ss * isz, (size_t)n * isz);
}

int mt_rnn_forward(mt_rnn_mode mode, bool reverse, const mt_tensor *gi, const mt_tensor *hx,
                   const mt_tensor *cx, const mt_tensor *w_hh, const mt_tensor *b_hh,
                   mt_tensor *out, mt_tensor *hn, mt_tensor *cn, mt_tensor *ws)
{
    mt_dtype d = gi->dtype;
    if (check_dtype(d) < 0)
        return -1;
    int64_t T = gi->sizes[0], N = gi->sizes[1], G = gi->sizes[2], H = hx->sizes[1];
    size_t isz = mt_itemsize(d);
    step s = {mode, H, G, mt_rnn_workspace_width(mode) * H};
    s.b = b_hh ? mt_data(b_hh) : NULL;
    if (T == 0 || N == 0) {
        memcpy(mt_data(hn), mt_data(hx), (size_t)(N * H) * isz);
        if (cn)
            memcpy(mt_data(cn), mt_data(cx), (size_t)(N * H) * isz);
        return 0;
    }
    char *gh = malloc((size_t)(N * G) * isz + 1);
    if (!gh)
        return mt_error(MT_ERR_MEMORY, "_rnn_layer: out of memory");
    s.gh = gh;
    mt_range_fn rows = d == MT_FLOAT32 ? forward_rows_float : forward_rows_double;
    int rc = 0;
    /* one bracket for every step's product: the library's thread count is
     * set once per layer, not twice per step */
    mt_blas_begin();
    for (int64_t k = 0; k < T && rc == 0; k++) {
        int64_t t = reverse ? T - 1 - k : k;
        previous(&s, k, t, reverse, N, isz, hx, cx, mt_data(ws));
        rc = product(d, N, G, H, s.hp, s.hps, 1, mt_data(w_hh), 1, H, gh, G, 0.0);
        if (rc < 0)
            break;
        s.gi = mt_data(gi) + t * N * G * isz;
        s.ws = mt_data(ws) + t * N * s.S * isz;
        s.out = mt_data(out) + t * N * H * isz;
        mt_parallel_for(0, N, row_grain(G), rows, &s);
    }
    mt_blas_end();
    free(gh);
    if (rc < 0)
        return -1;
    const char *last = mt_data(ws) + (reverse ? 0 : T - 1) * N * s.S * isz;
    copy_rows(mt_data(hn), last + h_slot(mode) * H * isz, N, H, s.S, isz);
    if (cn)
        copy_rows(mt_data(cn), last + 4 * H * isz, N, H, s.S, isz);
    return 0;
}

/* d_b = the column sums of the (rows, G) gate gradients. */
#define BIAS_SUM(T)                                                                      \
    static void bias_sum_##T(const char *dg, int64_t rows, int64_t G, char *out)         \
    {                                                                                    \
        T *o = (T *)out;                                                                 \
        memset(o, 0, sizeof(T) * (size_t)G);                                             \
        for (int64_t r = 0; r < rows; r++) {                                             \
            const T *row = (const T *)dg + r * G;                                        \
            for (int64_t k = 0; k < G; k++)                                              \
                o[k] += row[k];                                                          \
        }                                                                                \
    }
BIAS_SUM(float)
BIAS_SUM(double)

/* dst = src, or zeros when src is NULL. */
static void start_from(mt_tensor *dst, const mt_tensor *src, size_t isz)
{
    if (src)
        memcpy(mt_data(dst), mt_data(src), (size_t)dst->numel * isz);
    else
        memset(mt_data(dst), 0, (size_t)dst->numel * isz);
}

int mt_rnn_backward(mt_rnn_mode mode, bool reverse, const mt_tensor *g_out,
                    const mt_tensor *g_hn, const mt_tensor *g_cn, const mt_tensor *ws,
                    const mt_tensor *hx, const mt_tensor *cx, const mt_tensor *w_hh,
                    mt_tensor *d_gi, mt_tensor *d_hx, mt_tensor *d_cx, mt_tensor *d_w,
                    mt_tensor *d_b)
{
    mt_dtype d = ws->dtype;
    if (check_dtype(d) < 0)
        return -1;
    int64_t T = d_gi->sizes[0], N = d_gi->sizes[1], G = d_gi->sizes[2], H = hx->sizes[1];
    size_t isz = mt_itemsize(d);
    step s = {mode, H, G, mt_rnn_workspace_width(mode) * H};
    start_from(d_hx, g_hn, isz);
    if (d_cx)
        start_from(d_cx, g_cn, isz);
    if (T == 0 || N == 0) {
        memset(mt_data(d_gi), 0, (size_t)d_gi->numel * isz);
        memset(mt_data(d_w), 0, (size_t)d_w->numel * isz);
        if (d_b)
            memset(mt_data(d_b), 0, (size_t)d_b->numel * isz);
        return 0;
    }
    /* GRU's hidden-side gradients differ from the input side's in n */
    char *dgh = mode == MT_RNN_GRU ? malloc((size_t)(T * N * G) * isz) : mt_data(d_gi);
    if (!dgh)
        return mt_error(MT_ERR_MEMORY, "_rnn_layer_backward: out of memory");
    s.dh = mt_data(d_hx);
    s.dc = d_cx ? mt_data(d_cx) : NULL;
    mt_range_fn rows = d == MT_FLOAT32 ? backward_rows_float : backward_rows_double;
    int rc = 0;
    mt_blas_begin(); /* as in the forward */
    for (int64_t k = T - 1; k >= 0 && rc == 0; k--) {
        int64_t t = reverse ? T - 1 - k : k;
        previous(&s, k, t, reverse, N, isz, hx, cx, mt_data(ws));
        s.ws = mt_data(ws) + t * N * s.S * isz;
        s.gout = g_out ? mt_data(g_out) + t * N * H * isz : NULL;
        s.dgi = mt_data(d_gi) + t * N * G * isz;
        s.dgh = dgh + t * N * G * isz;
        mt_parallel_for(0, N, row_grain(G), rows, &s);
        rc = product(d, N, H, G, s.dgh, G, 1, mt_data(w_hh), H, 1, s.dh, H,
                     mode == MT_RNN_GRU ? 1.0 : 0.0);
    }
    /* d_w = sum over steps of dgh_t^T h_prev(t): the steps after the first
     * in one product, their previous h read in place from the workspace */
    int64_t first = reverse ? T - 1 : 0;
    if (rc == 0 && T > 1) {
        const char *dg = dgh + (reverse ? 0 : 1) * N * G * isz;
        const char *hp = mt_data(ws) + ((reverse ? 1 : 0) * N * s.S + h_slot(mode) * H) * isz;
        rc = product(d, G, H, (T - 1) * N, dg, 1, G, hp, s.S, 1, mt_data(d_w), H, 0.0);
    }
    if (rc == 0)
        rc = product(d, G, H, N, dgh + first * N * G * isz, 1, G, mt_data(hx), H, 1,
                     mt_data(d_w), H, T > 1 ? 1.0 : 0.0);
    if (rc == 0 && d_b) {
        if (d == MT_FLOAT32)
            bias_sum_float(dgh, T * N, G, mt_data(d_b));
        else
            bias_sum_double(dgh, T * N, G, mt_data(d_b));
    }
    mt_blas_end();
    if (mode == MT_RNN_GRU)
        free(dgh);
    return rc;
}
