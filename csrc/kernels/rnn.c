/* Recurrent layers over a whole sequence (rnn.h). W_ih^T and W_hh^T are
 * packed once per call (gemm/gemm_small.h); sequences are independent, so each
 * task runs whole sequences for a block of rows and no step waits on another
 * thread. Per step and block: the input projection x W_ih^T and the hidden
 * projection h W_hh^T into a scratch, then one pass over the rows that adds
 * the biases, applies the gate non-linearities and updates c and h, keeping
 * the activations in the workspace. The backward walks the steps the other
 * way: per step and block, one pass for the gate gradients, one product for
 * the gradient of the previous h and one for that of the step's input; the
 * weight gradients are one product each over all steps at the end (the
 * workspace holds every step's h side by side). The arithmetic follows
 * torch's cells operation by operation (gates = (x W_ih^T + b_ih) +
 * (h W_hh^T + b_hh), c' = f c + i g, h' = o tanh(c'), GRU h' = n + z (h - n));
 * the row passes get an AVX2 clone but no FMA contraction, so each operation
 * rounds as the unfused ops would. */
#include "rnn.h"

#include <stdlib.h>
#include <string.h>

#include "../core/allocator.h"
#include "../core/error.h"
#include "../core/portable.h"
#include "gemm/gemm.h"
#include "gemm/gemm_small.h"
#include "parallel.h"
#include "pointwise_unary.h"

/* Sequences per row block: mt_small_gemm takes up to 24 rows a pass over
 * each run of a packed weight, so a block of 24 reads W_ih and W_hh from L2
 * once where 4-row blocks read them six times (1 thread, CPU time, LSTM(64,
 * 128) over 32 steps, forward at batch 16: 4 rows 1.15x torch's time, 8
 * rows 0.95, 24 rows 0.92-0.94). A layer split over threads deals its
 * sequences out evenly in blocks of at most BLOCK. */
#define BLOCK 24
/* Multiply-adds per task from which work is split over our threads: a
 * handoff costs a few microseconds, this much work about ten. */
#define PARALLEL_MIN_WORK (1024.0 * 1024.0)

int mt_rnn_gates(mt_rnn_mode mode) { return mode == MT_RNN_LSTM ? 4 : mode == MT_RNN_GRU ? 3 : 1; }

int mt_rnn_workspace_width(mt_rnn_mode mode)
{
    return mode == MT_RNN_LSTM ? 6 : mode == MT_RNN_GRU ? 5 : 1;
}

/* Where h sits in a workspace row, in units of H. */
static int h_slot(mt_rnn_mode mode) { return mt_rnn_workspace_width(mode) - 1; }

/* In-place activations of a run of values through the tanh and sigmoid
 * ops' own loops (16 lanes where the machine has AVX-512), so a layer's gates
 * round as the ops do. */
static void activate(mt_unary_op op, mt_dtype dtype, void *x, int64_t n, int64_t size)
{
    char *data[2] = {x, x};
    int64_t st[2] = {size, size};
    mt_unary_loop(op, dtype)(data, st, n, NULL);
}
static void sigmoid_float(float *x, int64_t n) { activate(MT_UN_SIGMOID, MT_FLOAT32, x, n, 4); }
static void tanh_float(float *x, int64_t n) { activate(MT_UN_TANH, MT_FLOAT32, x, n, 4); }
static void sigmoid_double(double *x, int64_t n) { activate(MT_UN_SIGMOID, MT_FLOAT64, x, n, 8); }
static void tanh_double(double *x, int64_t n) { activate(MT_UN_TANH, MT_FLOAT64, x, n, 8); }

/* One step: rows r of each operand at base + r * (its row length), except
 * the projections gx and gh, of rows r0.. only (mt_small_gemm's layout: rows
 * ghl apart, gate blocks gw apart). */
typedef struct {
    mt_rnn_mode mode;
    int64_t H, G, S, gw, ghl;
    const char *gx, *bi, *gh, *b; /* the projections, b_ih and b_hh or NULL */
    const char *hp, *cp;          /* the previous h and c, rows hps apart */
    int64_t hps;
    char *ws, *out;
    const char *gout; /* backward: out's gradient at the step, or NULL */
    char *dh, *dc, *dgi, *dgh;
} step;

/* Gate value k = gate * H + j, whose projections sit at kh = gate * gw + j:
 * the input side x W_ih^T + b_ih, and (h W_hh^T + b_hh) + that, torch's order
 * for gates = linear(x, W_ih, b_ih) + linear(h, W_hh, b_hh). */
#define IN(k, kh) (bi ? gx[kh] + bi[k] : gx[kh])
#define PRE(k, kh) (IN(k, kh) + (b ? gh[kh] + b[k] : gh[kh]))

#define FORWARD_ROWS(T)                                                                \
    MT_CLONES_AVX2 static void forward_rows_##T(const step *s, int64_t r0, int64_t r1) \
    {                                                                                  \
        int64_t H = s->H, W = s->gw;                                                   \
        const T *b = (const T *)s->b, *bi = (const T *)s->bi;                          \
        for (int64_t r = r0; r < r1; r++) {                                            \
            const T *gx = (const T *)s->gx + (r - r0) * s->ghl;                        \
            const T *gh = (const T *)s->gh + (r - r0) * s->ghl;                        \
            const T *hp = (const T *)s->hp + r * s->hps;                               \
            T *w = (T *)s->ws + r * s->S, *h = w + h_slot(s->mode) * H;                \
            if (s->mode == MT_RNN_TANH || s->mode == MT_RNN_RELU) {                    \
                for (int64_t j = 0; j < H; j++)                                        \
                    w[j] = PRE(j, j);                                                  \
                if (s->mode == MT_RNN_TANH)                                            \
                    tanh_##T(w, H);                                                    \
                else                                                                   \
                    for (int64_t j = 0; j < H; j++)                                    \
                        w[j] = w[j] < 0 ? 0 : w[j];                                    \
            } else if (s->mode == MT_RNN_LSTM) {                                       \
                const T *cp = (const T *)s->cp + r * s->hps;                           \
                T *c = w + 4 * H;                                                      \
                for (int64_t g = 0; g < 4; g++)                                        \
                    for (int64_t j = 0; j < H; j++)                                    \
                        w[g * H + j] = PRE(g * H + j, g * W + j);                      \
                sigmoid_##T(w, 2 * H);                                                 \
                tanh_##T(w + 2 * H, H);                                                \
                sigmoid_##T(w + 3 * H, H);                                             \
                for (int64_t j = 0; j < H; j++)                                        \
                    h[j] = c[j] = w[H + j] * cp[j] + w[j] * w[2 * H + j];              \
                tanh_##T(h, H);                                                        \
                for (int64_t j = 0; j < H; j++)                                        \
                    h[j] *= w[3 * H + j];                                              \
            } else {                                                                   \
                T *n = w + 2 * H, *hn = w + 3 * H;                                     \
                for (int64_t g = 0; g < 2; g++)                                        \
                    for (int64_t j = 0; j < H; j++)                                    \
                        w[g * H + j] = PRE(g * H + j, g * W + j);                      \
                sigmoid_##T(w, 2 * H);                                                 \
                for (int64_t j = 0; j < H; j++) {                                      \
                    hn[j] = b ? gh[2 * W + j] + b[2 * H + j] : gh[2 * W + j];          \
                    n[j] = IN(2 * H + j, 2 * W + j) + hn[j] * w[j];                    \
                }                                                                      \
                tanh_##T(n, H);                                                        \
                for (int64_t j = 0; j < H; j++)                                        \
                    h[j] = (hp[j] - n[j]) * w[H + j] + n[j];                           \
            }                                                                          \
            memcpy((T *)s->out + r * H, h, sizeof(T) * (size_t)H);                     \
        }                                                                              \
    }
FORWARD_ROWS(float)
FORWARD_ROWS(double)

/* dh (the gradient of this step's h, plus out's) becomes the gate gradients;
 * dc becomes the gradient of the previous c, and for GRU dh that of the
 * previous h through z (the gemm adds the part through W_hh). */
#define BACKWARD_ROWS(T)                                                                \
    MT_CLONES_AVX2 static void backward_rows_##T(const step *s, int64_t r0, int64_t r1) \
    {                                                                                   \
        int64_t H = s->H, G = s->G;                                                     \
        for (int64_t r = r0; r < r1; r++) {                                             \
            const T *w = (const T *)s->ws + r * s->S;                                   \
            const T *hp = (const T *)s->hp + r * s->hps;                                \
            T *dh = (T *)s->dh + r * H, *dgi = (T *)s->dgi + r * G;                     \
            T *dgh = (T *)s->dgh + r * G;                                               \
            if (s->gout) {                                                              \
                const T *go = (const T *)s->gout + r * H;                               \
                for (int64_t j = 0; j < H; j++)                                         \
                    dh[j] += go[j];                                                     \
            }                                                                           \
            if (s->mode == MT_RNN_TANH) {                                               \
                for (int64_t j = 0; j < H; j++)                                         \
                    dgi[j] = dh[j] * (1 - w[j] * w[j]);                                 \
            } else if (s->mode == MT_RNN_RELU) {                                        \
                for (int64_t j = 0; j < H; j++)                                         \
                    dgi[j] = w[j] <= 0 ? 0 : dh[j];                                     \
            } else if (s->mode == MT_RNN_LSTM) {                                        \
                const T *cp = (const T *)s->cp + r * s->hps;                            \
                T *dc = (T *)s->dc + r * H, *tc = dgi + 3 * H;                          \
                memcpy(tc, w + 4 * H, sizeof(T) * (size_t)H);                           \
                tanh_##T(tc, H);                                                        \
                for (int64_t j = 0; j < H; j++) {                                       \
                    T i = w[j], f = w[H + j], g = w[2 * H + j], o = w[3 * H + j];       \
                    T t = tc[j];                                                        \
                    T d = dc[j] + dh[j] * o * (1 - t * t);                              \
                    dgi[3 * H + j] = dh[j] * t * (1 - o) * o;                           \
                    dgi[j] = d * g * (1 - i) * i;                                       \
                    dgi[H + j] = d * cp[j] * (1 - f) * f;                               \
                    dgi[2 * H + j] = d * i * (1 - g * g);                               \
                    dc[j] = d * f;                                                      \
                }                                                                       \
            } else {                                                                    \
                for (int64_t j = 0; j < H; j++) {                                       \
                    T rg = w[j], z = w[H + j], n = w[2 * H + j], hn = w[3 * H + j];     \
                    T d = dh[j];                                                        \
                    T da = d * (1 - z) * (1 - n * n), dz = d * (hp[j] - n);             \
                    dh[j] = d * z;                                                      \
                    dgi[2 * H + j] = da;                                                \
                    dgh[2 * H + j] = da * rg;                                           \
                    dgi[j] = dgh[j] = da * hn * (1 - rg) * rg;                          \
                    dgi[H + j] = dgh[H + j] = dz * (1 - z) * z;                         \
                }                                                                       \
            }                                                                           \
        }                                                                               \
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

/* A scratch buffer from the block cache (a layer call asks for the same
 * sizes every time). */
typedef struct {
    void *block, *data;
    size_t size;
} scratch;

static int scratch_get(scratch *s, int64_t values, size_t isz)
{
    s->block = mt_alloc((size_t)values * isz + 1, 64, false, &s->data, &s->size);
    return s->block ? 0 : mt_error(MT_ERR_MEMORY, "_rnn_layer: out of memory");
}

static void scratch_put(scratch *s)
{
    if (s->block)
        mt_alloc_free(s->block, s->size);
    s->block = NULL;
}

/* One layer call as the tasks see it: each task runs whole sequences for a
 * range of row blocks, with block b's scratch at b * per values. */
typedef struct {
    step proto; /* the fields every step shares */
    bool reverse;
    int64_t T, N, I;
    size_t isz;
    const mt_tensor *hx, *cx;
    const char *x, *gout;
    char *ws, *out, *dgi, *dgh, *dx;
    mt_small_packed wi, wh;
    char *scratch;
    int64_t per, rows; /* scratch values and sequences per row block */
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
    s->ws = L->ws + t * N * s->S * isz;
    s->out = L->out ? L->out + t * N * s->H * isz : NULL;
    s->gout = L->gout ? L->gout + t * N * s->H * isz : NULL;
    s->dgi = L->dgi ? L->dgi + t * N * s->G * isz : NULL;
    s->dgh = L->dgh ? L->dgh + t * N * s->G * isz : NULL;
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
            int64_t r0 = blk * L->rows, r1 = r0 + L->rows < L->N ? r0 + L->rows : L->N;
            char *gx = L->scratch + blk * L->per * isz, *gh = gx + L->rows * s.ghl * isz;
            mt_small_gemm(&L->wi, r1 - r0, L->x + (t * L->N + r0) * L->I * isz, L->I, 1, gx, s.ghl);
            mt_small_gemm(&L->wh, r1 - r0, s.hp + r0 * s.hps * isz, s.hps, 1, gh, s.ghl);
            s.gx = gx;
            s.gh = gh;
            if (isz == sizeof(float))
                forward_rows_float(&s, r0, r1);
            else
                forward_rows_double(&s, r0, r1);
        }
    }
}

/* Rows r0..r1 of a product (rows ldp apart) into dst (rows n apart), or
 * added to it. */
#define FOLD(T)                                                                            \
    static void fold_##T(char *dstv, const char *pv, int64_t rows, int64_t n, int64_t ldp, \
                         bool add)                                                         \
    {                                                                                      \
        for (int64_t r = 0; r < rows; r++) {                                               \
            T *dst = (T *)dstv + r * n;                                                    \
            const T *p = (const T *)pv + r * ldp;                                          \
            if (add)                                                                       \
                for (int64_t j = 0; j < n; j++)                                            \
                    dst[j] += p[j];                                                        \
            else                                                                           \
                memcpy(dst, p, sizeof(T) * (size_t)n);                                     \
        }                                                                                  \
    }
FOLD(float)
FOLD(double)

static void fold(size_t isz, char *dst, const char *p, int64_t rows, int64_t n, int64_t ldp,
                 bool add)
{
    if (isz == sizeof(float))
        fold_float(dst, p, rows, n, ldp, add);
    else
        fold_double(dst, p, rows, n, ldp, add);
}

static void backward_task(void *arg, int64_t b0, int64_t b1)
{
    const layer *L = arg;
    step s = L->proto;
    size_t isz = L->isz;
    int64_t H = s.H, G = s.G, I = L->I;
    for (int64_t k = L->T - 1; k >= 0; k--) {
        int64_t t = L->reverse ? L->T - 1 - k : k;
        previous(&s, L, k, t);
        at_step(&s, L, t);
        for (int64_t blk = b0; blk < b1; blk++) {
            int64_t r0 = blk * L->rows, r1 = r0 + L->rows < L->N ? r0 + L->rows : L->N;
            char *ph = L->scratch + blk * L->per * isz, *px = ph + L->rows * L->wh.gw * isz;
            if (isz == sizeof(float))
                backward_rows_float(&s, r0, r1);
            else
                backward_rows_double(&s, r0, r1);
            /* GRU's rows pass leaves the gradient through z in dh */
            mt_small_gemm(&L->wh, r1 - r0, s.dgh + r0 * G * isz, G, 1, ph, L->wh.gw);
            fold(isz, s.dh + r0 * H * isz, ph, r1 - r0, H, L->wh.gw, s.mode == MT_RNN_GRU);
            mt_small_gemm(&L->wi, r1 - r0, s.dgi + r0 * G * isz, G, 1, px, L->wi.gw);
            fold(isz, L->dx + (t * L->N + r0) * I * isz, px, r1 - r0, I, L->wi.gw, false);
        }
    }
}

/* Whether a block of `rows` sequences is worth a handoff; work is the
 * multiply-adds of one row per step. */
static bool split(const layer *L, double work, int64_t rows)
{
    return work * (double)L->T * (double)rows >= PARALLEL_MIN_WORK;
}

/* Sets L's rows per block and the scratch values one block needs (per row
 * given), and takes the scratch. */
static int blocks_scratch(layer *L, double work, int64_t per_row, scratch *sc)
{
    L->rows = BLOCK;
    int64_t nt = mt_get_num_threads();
    if (nt > 1 && split(L, work, BLOCK < L->N ? BLOCK : L->N)) {
        int64_t share = (L->N + nt - 1) / nt, blocks = (share + BLOCK - 1) / BLOCK;
        L->rows = (share + blocks - 1) / blocks;
    }
    L->per = L->rows * per_row;
    int rc = scratch_get(sc, (L->N + L->rows - 1) / L->rows * L->per, L->isz);
    L->scratch = sc->data;
    return rc;
}

/* Runs task over the row blocks of L, on our threads when each share is
 * worth a handoff. */
static void run_blocks(layer *L, mt_range_fn task, double work)
{
    int64_t blocks = (L->N + L->rows - 1) / L->rows;
    mt_parallel_for(0, blocks, split(L, work, L->rows) ? 1 : blocks, task, L);
}

/* Rows of n values, src rows ss apart, into a dense (rows, n) dst. */
static void copy_rows(char *dst, const char *src, int64_t rows, int64_t n, int64_t ss, size_t isz)
{
    for (int64_t r = 0; r < rows; r++)
        memcpy(dst + r * n * isz, src + r * ss * isz, (size_t)n * isz);
}

int mt_rnn_forward(mt_rnn_mode mode, bool reverse, const mt_tensor *x, const mt_tensor *hx,
                   const mt_tensor *cx, const mt_tensor *w_ih, const mt_tensor *b_ih,
                   const mt_tensor *w_hh, const mt_tensor *b_hh, mt_tensor *out, mt_tensor *hn,
                   mt_tensor *cn, mt_tensor *ws)
{
    mt_dtype d = x->dtype;
    if (check_dtype(d) < 0)
        return -1;
    int64_t T = x->sizes[0], N = x->sizes[1], I = x->sizes[2], H = hx->sizes[1];
    int64_t G = mt_rnn_gates(mode) * H;
    size_t isz = mt_itemsize(d);
    if (T == 0 || N == 0) {
        memcpy(mt_data(hn), mt_data(hx), (size_t)(N * H) * isz);
        if (cn)
            memcpy(mt_data(cn), mt_data(cx), (size_t)(N * H) * isz);
        return 0;
    }
    layer L = {{mode, H, G, mt_rnn_workspace_width(mode) * H}, reverse, T, N, I, isz, hx, cx};
    L.proto.bi = b_ih ? mt_data(b_ih) : NULL;
    L.proto.b = b_hh ? mt_data(b_hh) : NULL;
    L.x = mt_data(x);
    L.ws = mt_data(ws);
    L.out = mt_data(out);
    /* W_ih^T and W_hh^T, gate blocks padded apart alike, packed for every step */
    int gates = mt_rnn_gates(mode);
    if (mt_small_pack(d, mt_data(w_ih), 1, I, I, G, gates, &L.wi) < 0)
        return -1;
    int rc = mt_small_pack(d, mt_data(w_hh), 1, H, H, G, gates, &L.wh);
    scratch sc = {0};
    if (rc == 0) {
        L.proto.gw = L.wh.gw;
        L.proto.ghl = gates * L.wh.gw;
        rc = blocks_scratch(&L, (double)G * (double)(I + H), 2 * L.proto.ghl, &sc);
    }
    if (rc == 0)
        run_blocks(&L, forward_task, (double)G * (double)(I + H));
    scratch_put(&sc);
    mt_small_unpack(&L.wi);
    mt_small_unpack(&L.wh);
    if (rc < 0)
        return -1;
    int64_t S = L.proto.S;
    const char *last = mt_data(ws) + (reverse ? 0 : T - 1) * N * S * isz;
    copy_rows(mt_data(hn), last + h_slot(mode) * H * isz, N, H, S, isz);
    if (cn)
        copy_rows(mt_data(cn), last + 4 * H * isz, N, H, S, isz);
    return 0;
}

/* d_w (G, n) = dg^T B, or += when acc, over `rows` rows of the gate
 * gradients dg (rows G apart) and of B (rows ldb apart): one product through
 * the shared matrix kernel, which packs the transposed dg and splits the work
 * over threads itself. */
static int weight_product(const layer *L, const char *dg, const char *b, int64_t ldb, int64_t rows,
                          mt_tensor *d_w, bool acc)
{
    int64_t G = L->proto.G, n = d_w->sizes[1];
    mt_gemm_shape sh = {0, {0}, G, n, rows};
    mt_gemm_operand a = {(char *)dg, 1, G, {0}}, bo = {(char *)b, ldb, 1, {0}};
    mt_gemm_operand c = {mt_data(d_w), n, 1, {0}};
    mt_gemm_scale one = {1.0, 1, 0.0}, beta = {acc ? 1.0 : 0.0, acc ? 1 : 0, 0.0};
    return mt_gemm(d_w->dtype, &sh, &a, &bo, &c, one, beta);
}

/* d_w_hh = the sum over steps of dgh_t^T h_prev(t): hx for the first step in
 * the run's order, the workspace's h of the step before for the others
 * (rows of the workspace S apart, in step order either way). */
static int hidden_weight_gradient(const layer *L, mt_tensor *d_w)
{
    int64_t T = L->T, N = L->N, G = L->proto.G, H = L->proto.H, S = L->proto.S;
    size_t isz = L->isz;
    const char *hs = L->ws + h_slot(L->proto.mode) * H * isz;
    int64_t first = L->reverse ? (T - 1) * N : 0, rest = L->reverse ? 0 : N;
    if (weight_product(L, L->dgh + first * G * isz, mt_data(L->hx), H, N, d_w, false) < 0)
        return -1;
    if (T == 1)
        return 0;
    return weight_product(L, L->dgh + rest * G * isz, hs + (L->reverse ? N * S * isz : 0), S,
                          (T - 1) * N, d_w, true);
}

/* d_w_ih = the sum over steps of dgi_t^T x_t. */
static int input_weight_gradient(const layer *L, mt_tensor *d_w)
{
    return weight_product(L, L->dgi, L->x, L->I, L->T * L->N, d_w, false);
}

/* d_b = the column sums of the (rows, G) gate gradients. */
#define BIAS_SUM(T)                                                              \
    static void bias_sum_##T(const char *dg, int64_t rows, int64_t G, char *out) \
    {                                                                            \
        T *o = (T *)out;                                                         \
        memset(o, 0, sizeof(T) * (size_t)G);                                     \
        for (int64_t r = 0; r < rows; r++) {                                     \
            const T *row = (const T *)dg + r * G;                                \
            for (int64_t k = 0; k < G; k++)                                      \
                o[k] += row[k];                                                  \
        }                                                                        \
    }
BIAS_SUM(float)
BIAS_SUM(double)

static void bias_sum(mt_dtype d, const char *dg, int64_t rows, int64_t G, mt_tensor *out)
{
    if (d == MT_FLOAT32)
        bias_sum_float(dg, rows, G, mt_data(out));
    else
        bias_sum_double(dg, rows, G, mt_data(out));
}

/* dst = src, or zeros when src is NULL. */
static void start_from(mt_tensor *dst, const mt_tensor *src, size_t isz)
{
    if (src)
        memcpy(mt_data(dst), mt_data(src), (size_t)dst->numel * isz);
    else
        memset(mt_data(dst), 0, (size_t)dst->numel * isz);
}

int mt_rnn_backward(mt_rnn_mode mode, bool reverse, const mt_tensor *g_out, const mt_tensor *g_hn,
                    const mt_tensor *g_cn, const mt_tensor *ws, const mt_tensor *x,
                    const mt_tensor *hx, const mt_tensor *cx, const mt_tensor *w_ih,
                    const mt_tensor *w_hh, mt_tensor *d_x, mt_tensor *d_hx, mt_tensor *d_cx,
                    mt_tensor *d_wih, mt_tensor *d_bih, mt_tensor *d_whh, mt_tensor *d_bhh)
{
    mt_dtype d = ws->dtype;
    if (check_dtype(d) < 0)
        return -1;
    int64_t T = x->sizes[0], N = x->sizes[1], I = x->sizes[2], H = hx->sizes[1];
    int64_t G = mt_rnn_gates(mode) * H;
    size_t isz = mt_itemsize(d);
    start_from(d_hx, g_hn, isz);
    if (d_cx)
        start_from(d_cx, g_cn, isz);
    if (T == 0 || N == 0) {
        mt_tensor *zero[5] = {d_x, d_wih, d_bih, d_whh, d_bhh};
        for (int i = 0; i < 5; i++)
            if (zero[i])
                memset(mt_data(zero[i]), 0, (size_t)zero[i]->numel * isz);
        return 0;
    }
    layer L = {{mode, H, G, mt_rnn_workspace_width(mode) * H}, reverse, T, N, I, isz, hx, cx};
    L.x = mt_data(x);
    L.ws = (char *)mt_data(ws);
    L.gout = g_out ? mt_data(g_out) : NULL;
    L.dx = mt_data(d_x);
    L.proto.dh = mt_data(d_hx);
    L.proto.dc = d_cx ? mt_data(d_cx) : NULL;
    /* the gate gradients of every step; GRU's hidden side differs in n */
    scratch dgi = {0}, dgh = {0}, sc = {0};
    if (scratch_get(&dgi, T * N * G, isz) < 0)
        return -1;
    int rc = mode == MT_RNN_GRU ? scratch_get(&dgh, T * N * G, isz) : 0;
    L.dgi = dgi.data;
    L.dgh = mode == MT_RNN_GRU ? dgh.data : dgi.data;
    if (rc == 0)
        rc = mt_small_pack(d, mt_data(w_hh), H, 1, G, H, 1, &L.wh);
    if (rc == 0)
        rc = mt_small_pack(d, mt_data(w_ih), I, 1, G, I, 1, &L.wi);
    if (rc == 0) {
        L.proto.gw = L.wh.gw;
        rc = blocks_scratch(&L, (double)G * (double)(I + H), L.wh.gw + L.wi.gw, &sc);
    }
    if (rc == 0)
        run_blocks(&L, backward_task, (double)G * (double)(I + H));
    scratch_put(&sc);
    mt_small_unpack(&L.wh);
    mt_small_unpack(&L.wi);
    if (rc == 0)
        rc = hidden_weight_gradient(&L, d_whh);
    if (rc == 0)
        rc = input_weight_gradient(&L, d_wih);
    if (rc == 0 && d_bih) {
        bias_sum(d, L.dgi, T * N, G, d_bih);
        if (mode == MT_RNN_GRU)
            bias_sum(d, L.dgh, T * N, G, d_bhh);
        else
            memcpy(mt_data(d_bhh), mt_data(d_bih), (size_t)G * isz);
    }
    scratch_put(&dgi);
    scratch_put(&dgh);
    return rc;
}
