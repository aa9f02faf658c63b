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
#include "gemm_small.h"
#include "parallel.h"
#include "vmath.h"

/* Sequences per row block: a product's rows at once (mt_small_gemm's tile). */
#define BLOCK 4
/* Multiply-adds per row block over the sequence from which the blocks are
 * split over our threads: a handoff costs a few microseconds, this much work
 * about ten. */
#define PARALLEL_MIN_WORK (1024.0 * 1024.0)

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

/* One step: rows r of each operand at base + r * (its row length), except gh,
 * the hidden projection of rows r0.. only (mt_small_gemm's layout: rows ghl
 * apart, gate blocks gw apart). */
typedef struct {
    mt_rnn_mode mode;
    int64_t H, G, S, gw, ghl;
    const char *gi, *gh, *b; /* input and hidden projections, b_hh or NULL */
    const char *hp, *cp;     /* the previous h and c, rows hps apart */
    int64_t hps;
    char *ws, *out;
    const char *gout; /* backward: out's gradient at the step, or NULL */
    char *dh, *dc, *dgi, *dgh;
} step;

/* gi + (gh + b), torch's order for gates = linear(h, W_hh, b_hh) + gi, for
 * gate value k = gate * H + j, whose hidden projection is at gate * gw + j. */
#define PRE(k, kh) (gi[k] + (b ? gh[kh] + b[k] : gh[kh]))

#define FORWARD_ROWS(T)                                                                  \
    MT_CLONES_AVX2 static void forward_rows_##T(const step *s, int64_t r0, int64_t r1)   \
    {                                                                                    \
        int64_t H = s->H, G = s->G, W = s->gw;                                           \
        const T *b = (const T *)s->b;                                                    \
        for (int64_t r = r0; r < r1; r++) {                                              \
            const T *gi = (const T *)s->gi + r * G;                                      \
            const T *gh = (const T *)s->gh + (r - r0) * s->ghl;                          \
            const T *hp = (const T *)s->hp + r * s->hps;                                 \
            T *w = (T *)s->ws + r * s->S, *h = w + h_slot(s->mode) * H;                  \
            if (s->mode == MT_RNN_TANH || s->mode == MT_RNN_RELU) {                      \
                for (int64_t j = 0; j < H; j++)                                          \
                    w[j] = PRE(j, j);                                                    \
                if (s->mode == MT_RNN_TANH)                                              \
                    tanh_##T(w, H);                                                      \
                else                                                                     \
                    for (int64_t j = 0; j < H; j++)                                      \
                        w[j] = w[j] < 0 ? 0 : w[j];                                      \
            } else if (s->mode == MT_RNN_LSTM) {                                         \
                const T *cp = (const T *)s->cp + r * s->hps;                             \
                T *c = w + 4 * H;                                                        \
                for (int64_t g = 0; g < 4; g++)                                          \
                    for (int64_t j = 0; j < H; j++)                                      \
                        w[g * H + j] = PRE(g * H + j, g * W + j);                        \
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
                for (int64_t g = 0; g < 2; g++)                                          \
                    for (int64_t j = 0; j < H; j++)                                      \
                        w[g * H + j] = PRE(g * H + j, g * W + j);                        \
                sigmoid_##T(w, 2 * H);                                                   \
                for (int64_t j = 0; j < H; j++) {                                        \
                    hn[j] = b ? gh[2 * W + j] + b[2 * H + j] : gh[2 * W + j];            \
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
    MT_CLONES_AVX2 static void backward_rows_##T(const step *s, int64_t r0, int64_t r1)  \
    {                                                                                    \
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

/* One layer call as the tasks see it: each task runs whole sequences for a
 * range of row blocks (sequences never mix, so no step waits on another
 * thread), with block b's product in rows b * BLOCK.. of scratch. */
typedef struct {
    step proto; /* the fields every step shares */
    bool reverse;
    int64_t T, N;
    size_t isz;
    const mt_tensor *hx, *cx;
    const char *gi, *gout, *dgh;
    char *ws, *out, *dgi;
    mt_small_packed w;
    char *scratch;
} layer;

/* The previous step's h and c for forward-order step k at step t: hx and cx
 * first, then the workspace of the step before in the run's order. */
static void previous(step *s, const layer *L, int64_t k, int64_t t)
{
    if (k == 0) {
        s->hp = mt_data(L->hx);
        s->cp = L->cx ? mt_data(L->cx) : NULL;
        s->hps = s->H;
        return;
    }
    const char *prev = L->ws + (L->reverse ? t + 1 : t - 1) * L->N * s->S * L->isz;
    s->hp = prev + h_slot(s->mode) * s->H * L->isz;
    s->cp = prev + 4 * s->H * L->isz;
    s->hps = s->S;
}

/* The step's operands at step t (reverse applied by the caller). */
static void at_step(step *s, const layer *L, int64_t t)
{
    int64_t N = L->N;
    size_t isz = L->isz;
    s->gi = L->gi + t * N * s->G * isz;
    s->ws = L->ws + t * N * s->S * isz;
    s->out = L->out + t * N * s->H * isz;
    s->gout = L->gout ? L->gout + t * N * s->H * isz : NULL;
    s->dgi = L->dgi + t * N * s->G * isz;
    s->dgh = (char *)L->dgh + t * N * s->G * isz;
}

static void forward_task(void *arg, int64_t b0, int64_t b1)
{
    const layer *L = arg;
    step s = L->proto;
    size_t isz = L->isz;
    for (int64_t k = 0; k < L->T; k++) {
        int64_t t = L->reverse ? L->T - 1 - k : k;
        previous(&s, L, k, t);
        at_step(&s, L, t);
        for (int64_t blk = b0; blk < b1; blk++) {
            int64_t r0 = blk * BLOCK, r1 = r0 + BLOCK < L->N ? r0 + BLOCK : L->N;
            char *gh = L->scratch + r0 * s.ghl * isz;
            mt_small_gemm(&L->w, r1 - r0, s.hp + r0 * s.hps * isz, s.hps, 1, gh, s.ghl);
            s.gh = gh;
            if (isz == sizeof(float))
                forward_rows_float(&s, r0, r1);
            else
                forward_rows_double(&s, r0, r1);
        }
    }
}

/* dh = p (rows of gw values), or dh += p for GRU, whose rows pass has left
 * the gradient through z in dh. */
#define FOLD(T)                                                                          \
    static void fold_##T(const step *s, const char *pv, int64_t r0, int64_t r1)          \
    {                                                                                    \
        for (int64_t r = r0; r < r1; r++) {                                              \
            T *dh = (T *)s->dh + r * s->H;                                               \
            const T *p = (const T *)pv + (r - r0) * s->gw;                               \
            if (s->mode == MT_RNN_GRU)                                                   \
                for (int64_t j = 0; j < s->H; j++)                                       \
                    dh[j] += p[j];                                                       \
            else                                                                         \
                memcpy(dh, p, sizeof(T) * (size_t)s->H);                                 \
        }                                                                                \
    }
FOLD(float)
FOLD(double)

static void backward_task(void *arg, int64_t b0, int64_t b1)
{
    const layer *L = arg;
    step s = L->proto;
    size_t isz = L->isz;
    for (int64_t k = L->T - 1; k >= 0; k--) {
        int64_t t = L->reverse ? L->T - 1 - k : k;
        previous(&s, L, k, t);
        at_step(&s, L, t);
        for (int64_t blk = b0; blk < b1; blk++) {
            int64_t r0 = blk * BLOCK, r1 = r0 + BLOCK < L->N ? r0 + BLOCK : L->N;
            char *p = L->scratch + r0 * s.gw * isz;
            if (isz == sizeof(float))
                backward_rows_float(&s, r0, r1);
            else
                backward_rows_double(&s, r0, r1);
            mt_small_gemm(&L->w, r1 - r0, s.dgh + r0 * s.G * isz, s.G, 1, p, s.gw);
            if (isz == sizeof(float))
                fold_float(&s, p, r0, r1);
            else
                fold_double(&s, p, r0, r1);
        }
    }
}

/* Runs task over the row blocks of L, on our threads when each share is
 * worth a handoff. */
static void run_blocks(layer *L, mt_range_fn task)
{
    int64_t blocks = (L->N + BLOCK - 1) / BLOCK;
    double work = (double)L->T * BLOCK * (double)L->proto.G * (double)L->proto.H;
    int64_t grain = work >= PARALLEL_MIN_WORK ? 1 : blocks;
    mt_parallel_for(0, blocks, grain, task, L);
}

/* Rows of n values, src rows ss apart, into a dense (rows, n) dst. */
static void copy_rows(char *dst, const char *src, int64_t rows, int64_t n, int64_t ss,
                      size_t isz)
{
    for (int64_t r = 0; r < rows; r++)
        memcpy(dst + r * n * isz, src + r * ss * isz, (size_t)n * isz);
}

/* Scratch of rows (N rounded up to BLOCK) x width values. */
static char *new_scratch(int64_t N, int64_t width, size_t isz, const char *op)
{
    int64_t rows = (N + BLOCK - 1) / BLOCK * BLOCK;
    char *p = malloc((size_t)(rows * width) * isz + 1);
    if (!p)
        mt_error(MT_ERR_MEMORY, "%s: out of memory", op);
    return p;
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
    if (T == 0 || N == 0) {
        memcpy(mt_data(hn), mt_data(hx), (size_t)(N * H) * isz);
        if (cn)
            memcpy(mt_data(cn), mt_data(cx), (size_t)(N * H) * isz);
        return 0;
    }
    layer L = {{mode, H, G, mt_rnn_workspace_width(mode) * H}, reverse, T, N, isz, hx, cx};
    L.proto.b = b_hh ? mt_data(b_hh) : NULL;
    L.gi = mt_data(gi);
    L.ws = mt_data(ws);
    L.out = mt_data(out);
    /* W_hh^T, gate blocks padded apart, packed once for every step */
    if (mt_small_pack(d, mt_data(w_hh), 1, H, H, G, mt_rnn_gates(mode), &L.w) < 0)
        return -1;
    L.proto.gw = L.w.gw;
    L.proto.ghl = L.w.groups * L.w.gw;
    L.scratch = new_scratch(N, L.proto.ghl, isz, "_rnn_layer");
    if (!L.scratch) {
        mt_small_unpack(&L.w);
        return -1;
    }
    run_blocks(&L, forward_task);
    free(L.scratch);
    mt_small_unpack(&L.w);
    int64_t S = L.proto.S;
    const char *last = mt_data(ws) + (reverse ? 0 : T - 1) * N * S * isz;
    copy_rows(mt_data(hn), last + h_slot(mode) * H * isz, N, H, S, isz);
    if (cn)
        copy_rows(mt_data(cn), last + 4 * H * isz, N, H, S, isz);
    return 0;
}

/* Rows of d_w's product: B (every step's previous h) packed, A the gate
 * gradients read transposed. */
typedef struct {
    mt_small_packed hp;
    const char *dgh;
    int64_t G;
    char *out;
    int64_t ldo;
    size_t isz;
} weight_job;

static void weight_rows(void *arg, int64_t b0, int64_t b1)
{
    const weight_job *j = arg;
    int64_t r0 = b0 * BLOCK, r1 = b1 * BLOCK < j->G ? b1 * BLOCK : j->G;
    mt_small_gemm(&j->hp, r1 - r0, j->dgh + r0 * j->isz, 1, j->G, j->out + r0 * j->ldo * j->isz,
                  j->ldo);
}

/* d_w = the sum over steps of dgh_t^T h_prev(t), one product over all steps
 * with the previous h of step t at rows t * N.. of B: hx for the first step
 * in the run's order, the workspace's h of the step before for the others. */
static int weight_gradient(const layer *L, mt_tensor *d_w)
{
    int64_t T = L->T, N = L->N, G = L->proto.G, H = L->proto.H, S = L->proto.S;
    size_t isz = L->isz;
    weight_job j = {{0}, L->dgh, G, mt_data(d_w), H, isz};
    if (mt_small_alloc(d_w->dtype, T * N, H, 1, &j.hp) < 0)
        return -1;
    const char *hs = L->ws + h_slot(L->proto.mode) * H * isz;
    int64_t first = L->reverse ? (T - 1) * N : 0, rest = L->reverse ? 0 : N;
    mt_small_pack_rows(&j.hp, first, N, mt_data(L->hx), H, 1);
    mt_small_pack_rows(&j.hp, rest, (T - 1) * N, hs + (L->reverse ? N * S * isz : 0), S, 1);
    /* rows of gw values land in d_w itself unless H needs padding */
    char *padded = NULL;
    if (j.hp.gw != H) {
        padded = malloc((size_t)(G * j.hp.gw) * isz + 1);
        if (!padded) {
            mt_small_unpack(&j.hp);
            return mt_error(MT_ERR_MEMORY, "_rnn_layer_backward: out of memory");
        }
        j.out = padded;
        j.ldo = j.hp.gw;
    }
    double work = BLOCK * (double)(T * N) * (double)H;
    int64_t blocks = (G + BLOCK - 1) / BLOCK;
    mt_parallel_for(0, blocks, work >= PARALLEL_MIN_WORK ? 1 : (int64_t)(PARALLEL_MIN_WORK / work) + 1,
                    weight_rows, &j);
    if (padded) {
        copy_rows(mt_data(d_w), padded, G, H, j.hp.gw, isz);
        free(padded);
    }
    mt_small_unpack(&j.hp);
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
    layer L = {{mode, H, G, mt_rnn_workspace_width(mode) * H}, reverse, T, N, isz, hx, cx};
    L.ws = (char *)mt_data(ws);
    L.gout = g_out ? mt_data(g_out) : NULL;
    L.dgi = mt_data(d_gi);
    L.proto.dh = mt_data(d_hx);
    L.proto.dc = d_cx ? mt_data(d_cx) : NULL;
    /* GRU's hidden-side gradients differ from the input side's in n */
    char *dgh = mode == MT_RNN_GRU ? malloc((size_t)(T * N * G) * isz) : mt_data(d_gi);
    if (!dgh)
        return mt_error(MT_ERR_MEMORY, "_rnn_layer_backward: out of memory");
    L.dgh = dgh;
    int rc = mt_small_pack(d, mt_data(w_hh), H, 1, G, H, 1, &L.w);
    if (rc == 0) {
        L.proto.gw = L.w.gw;
        L.scratch = new_scratch(N, L.w.gw, isz, "_rnn_layer_backward");
        rc = L.scratch ? 0 : -1;
    }
    if (rc == 0)
        run_blocks(&L, backward_task);
    free(L.scratch);
    mt_small_unpack(&L.w);
    if (rc == 0)
        rc = weight_gradient(&L, d_w);
    if (rc == 0 && d_b) {
        if (d == MT_FLOAT32)
            bias_sum_float(dgh, T * N, G, mt_data(d_b));
        else
            bias_sum_double(dgh, T * N, G, mt_data(d_b));
    }
    if (mode == MT_RNN_GRU)
        free(dgh);
    return rc;
}
