/* Fused scaled dot-product attention (attention.h): threads split the heads,
 * and each head runs whole on one thread, its products through mt_gemm and
 * its softmax on rows held in cache, so the scores never make a pass of
 * their own over memory. Causal heads go in blocks of query rows, each
 * multiplying only the keys its last row sees (half the work skipped as the
 * blocks get many). k^T (and in the backward v^T) is packed once per head,
 * so no product packs its B. The backward takes the forward's weights
 * (kept by the caller, as the unfused graph keeps the softmax output) rather
 * than recomputing them, and writes the weights' gradient into a scratch
 * block of one head. */
#include "attention.h"
#include "../core/error.h"
#include "../core/shape.h"
#include "../core/portable.h"
#include "gemm/blas.h"
#include "gemm/gemm.h"
#include "parallel.h"
#include "softmax_row.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* query rows of a causal block: a 64-key head in blocks of 16 multiplies 5/8
 * of its scores; the float32 kernel's column strips are 16 wide, so every
 * block's keys fill whole strips */
#define CAUSAL_ROWS 16

/* Rows whose softmax steps run together (as kernels/softmax.c does), so one
 * row's chain of max, exp sum and reciprocal overlaps the next's. */
#define SOFTMAX_BLOCK MT_SOFTMAX_ROW_BLOCK

/* softmax_rows: rows [i0, i1) of the weights w (rows wrs apart), row i's
 * scores x[0, lim) times scale becoming their softmax by softmax_row.h's
 * block step (the scale here rather than in the product, which then writes
 * the scores in place) and x[lim, s) zeros; a row whose maximum is -inf (no
 * key left) becomes zeros. The scaled scores go to tmp (SOFTMAX_BLOCK rows
 * of s): the exp sum's overlapping last vector rereads its source.
 * grad_row: d[0, lim) becomes scale * w (d - sum(w d)) by softmax_row.h's
 * backward row (in place), the rest zeros. */
#define DEFINE_ROWS(SFX, ATTR, T)                                                          \
    ATTR static void softmax_rows_##SFX(T *w, int64_t wrs, T *tmp, int64_t i0, int64_t i1, \
                                        bool causal, int64_t s, T scale)                   \
    {                                                                                      \
        T m[SOFTMAX_BLOCK], sum[SOFTMAX_BLOCK];                                            \
        int64_t lim[SOFTMAX_BLOCK];                                                        \
        for (int64_t r0 = i0; r0 < i1; r0 += SOFTMAX_BLOCK) {                              \
            int64_t nb = i1 - r0 < SOFTMAX_BLOCK ? i1 - r0 : SOFTMAX_BLOCK;                \
            for (int64_t b = 0; b < nb; b++) {                                             \
                const T *x = w + (r0 + b) * wrs;                                           \
                T *t = tmp + b * s;                                                        \
                lim[b] = causal && r0 + b + 1 < s ? r0 + b + 1 : s;                        \
                for (int64_t j = 0; j < lim[b]; j++)                                       \
                    t[j] = x[j] * scale;                                                   \
            }                                                                              \
            smr_block_##SFX(w + r0 * wrs, wrs, tmp, s, lim, 1, nb, m, sum);                \
            for (int64_t b = 0; b < nb; b++) {                                             \
                T *x = w + (r0 + b) * wrs;                                                 \
                int64_t done = m[b] == -(T)INFINITY ? 0 : lim[b];                          \
                if (done)                                                                  \
                    smr_finish_##SFX(x, x, done, m[b], 1 / sum[b], false);                 \
                memset(x + done, 0, (size_t)(s - done) * sizeof(T));                       \
            }                                                                              \
        }                                                                                  \
    }                                                                                      \
    ATTR static void grad_row_##SFX(T *d, const T *w, int64_t lim, int64_t s, T scale)     \
    {                                                                                      \
        smr_bwd_##SFX(d, d, w, lim, scale, false);                                         \
        memset(d + lim, 0, (size_t)(s - lim) * sizeof(T));                                 \
    }
DEFINE_ROWS(f4, MT_CLONES_AVX2_FMA, float)
DEFINE_ROWS(f8, MT_CLONES_AVX2_FMA, double)
#ifdef MT_HAVE_AVX512
DEFINE_ROWS(x16, MT_TARGET_AVX512, float)
#endif

static void softmax_rows(const mt_attn_shape *s, char *w, int64_t wrs, char *tmp, int64_t i0,
                         int64_t i1)
{
    if (s->d == MT_FLOAT64) {
        softmax_rows_f8((double *)w, wrs, (double *)tmp, i0, i1, s->causal, s->s, s->scale);
        return;
    }
#ifdef MT_HAVE_AVX512
    if (mt_use_avx512()) {
        softmax_rows_x16((float *)w, wrs, (float *)tmp, i0, i1, s->causal, s->s, (float)s->scale);
        return;
    }
#endif
    softmax_rows_f4((float *)w, wrs, (float *)tmp, i0, i1, s->causal, s->s, (float)s->scale);
}

static void grad_row(const mt_attn_shape *s, char *d, const char *w, int64_t lim)
{
    if (s->d == MT_FLOAT64) {
        grad_row_f8((double *)d, (const double *)w, lim, s->s, s->scale);
        return;
    }
#ifdef MT_HAVE_AVX512
    if (mt_use_avx512()) {
        grad_row_x16((float *)d, (const float *)w, lim, s->s, (float)s->scale);
        return;
    }
#endif
    grad_row_f4((float *)d, (const float *)w, lim, s->s, (float)s->scale);
}

/* C (row stride crs) = alpha * A @ B, A and B given by row and column strides. */
static int product(mt_dtype d, int64_t m, int64_t n, int64_t k, double alpha, const char *a,
                   int64_t ars, int64_t acs, const char *b, int64_t brs, int64_t bcs, char *c,
                   int64_t crs)
{
    mt_gemm_shape sh = {.nbatch = 0, .m = m, .n = n, .k = k};
    mt_gemm_operand A = {.data = (char *)a, .rs = ars, .cs = acs};
    mt_gemm_operand B = {.data = (char *)b, .rs = brs, .cs = bcs};
    mt_gemm_operand C = {.data = c, .rs = crs, .cs = 1};
    return mt_gemm(d, &sh, &A, &B, &C, (mt_gemm_scale){alpha, 0}, (mt_gemm_scale){0, 0});
}

typedef struct {
    const mt_attn_shape *s;
    const mt_attn_operand *g, *q, *k, *v, *w, *o, *dq, *dk, *dv;
    atomic_int failed;
} job;

/* Pointer of head `it` in operand x. */
static char *head(const job *j, const mt_attn_operand *x, int64_t it)
{
    return x->data + mt_item_offset(j->s->nbatch, j->s->batch, x->bs, it) * mt_itemsize(j->s->d);
}

static int64_t block_rows(const mt_attn_shape *s)
{
    return s->causal ? CAUSAL_ROWS : (s->l > 0 ? s->l : 1);
}

/* Keys the rows [i0, i1) see: all, or up to the last row's. */
static int64_t keys_seen(const mt_attn_shape *s, int64_t i1)
{
    return s->causal && i1 < s->s ? i1 : s->s;
}

static int64_t row_limit(const mt_attn_shape *s, int64_t i) { return keys_seen(s, i + 1); }

/* kt: room for the head's k^T (e x s), packed once so the score products
 * read it with contiguous rows, and then for SOFTMAX_BLOCK rows of s. */
static int forward_head(const job *j, int64_t it, char *kt)
{
    const mt_attn_shape *s = j->s;
    int isz = mt_itemsize(s->d);
    char *q = head(j, j->q, it), *k = head(j, j->k, it), *v = head(j, j->v, it);
    char *w = head(j, j->w, it), *o = head(j, j->o, it);
    int64_t br = block_rows(s);
    mt_gemm_pack(kt, s->s, k, s->e, s->s, j->k->cs, j->k->rs, isz);
    for (int64_t i0 = 0; i0 < s->l; i0 += br) {
        int64_t i1 = i0 + br < s->l ? i0 + br : s->l, jn = keys_seen(s, i1);
        char *wb = w + i0 * j->w->rs * isz;
        if (product(s->d, i1 - i0, jn, s->e, 1.0, q + i0 * j->q->rs * isz, j->q->rs, j->q->cs, kt,
                    s->s, 1, wb, j->w->rs) < 0)
            return -1;
        softmax_rows(s, w, j->w->rs, kt + s->e * s->s * isz, i0, i1);
        if (product(s->d, i1 - i0, s->ev, jn, 1.0, wb, j->w->rs, 1, v, j->v->rs, j->v->cs,
                    o + i0 * j->o->rs * isz, j->o->rs) < 0)
            return -1;
    }
    return 0;
}

/* dw = g v^T then ds = scale * w (dw - rowsum(w dw)) into the scratch head
 * (rows of s), dq = ds k by query blocks; dv = w^T g and dk = ds^T q by key
 * blocks, each from the first query row that sees the block. vt: room for
 * v^T (ev x s), packed once. */
static int backward_head(const job *j, int64_t it, char *ds, char *vt)
{
    const mt_attn_shape *s = j->s;
    int isz = mt_itemsize(s->d);
    char *g = head(j, j->g, it), *q = head(j, j->q, it), *k = head(j, j->k, it);
    char *v = head(j, j->v, it), *w = head(j, j->w, it);
    char *dq = head(j, j->dq, it), *dk = head(j, j->dk, it), *dv = head(j, j->dv, it);
    int64_t br = block_rows(s), wrs = j->w->rs;
    mt_gemm_pack(vt, s->s, v, s->ev, s->s, j->v->cs, j->v->rs, isz);
    for (int64_t i0 = 0; i0 < s->l; i0 += br) {
        int64_t i1 = i0 + br < s->l ? i0 + br : s->l, jn = keys_seen(s, i1);
        char *db = ds + i0 * s->s * isz;
        if (product(s->d, i1 - i0, jn, s->ev, 1.0, g + i0 * j->g->rs * isz, j->g->rs, j->g->cs, vt,
                    s->s, 1, db, s->s) < 0)
            return -1;
        for (int64_t i = i0; i < i1; i++)
            grad_row(s, ds + i * s->s * isz, w + i * wrs * isz, row_limit(s, i));
        if (product(s->d, i1 - i0, s->e, jn, 1.0, db, s->s, 1, k, j->k->rs, j->k->cs,
                    dq + i0 * j->dq->rs * isz, j->dq->rs) < 0)
            return -1;
    }
    int64_t bc = s->causal ? CAUSAL_ROWS : (s->s > 0 ? s->s : 1);
    for (int64_t j0 = 0; j0 < s->s; j0 += bc) {
        int64_t j1 = j0 + bc < s->s ? j0 + bc : s->s;
        int64_t first = s->causal ? (j0 < s->l ? j0 : s->l) : 0, rows = s->l - first;
        if (product(s->d, j1 - j0, s->ev, rows, 1.0, w + (first * wrs + j0) * isz, 1, wrs,
                    g + first * j->g->rs * isz, j->g->rs, j->g->cs, dv + j0 * j->dv->rs * isz,
                    j->dv->rs) < 0 ||
            product(s->d, j1 - j0, s->e, rows, 1.0, ds + (first * s->s + j0) * isz, 1, s->s,
                    q + first * j->q->rs * isz, j->q->rs, j->q->cs, dk + j0 * j->dk->rs * isz,
                    j->dk->rs) < 0)
            return -1;
    }
    return 0;
}

static void forward_range(void *arg, int64_t begin, int64_t end)
{
    job *j = arg;
    char *kt = malloc((size_t)((j->s->e + SOFTMAX_BLOCK) * j->s->s) * mt_itemsize(j->s->d) + 1);
    if (!kt) {
        atomic_store(&j->failed, 1);
        return;
    }
    for (int64_t it = begin; it < end && !atomic_load(&j->failed); it++)
        if (forward_head(j, it, kt) < 0)
            atomic_store(&j->failed, 1);
    free(kt);
}

static void backward_range(void *arg, int64_t begin, int64_t end)
{
    job *j = arg;
    int isz = mt_itemsize(j->s->d);
    char *ds = malloc((size_t)(j->s->l * j->s->s) * isz + 1);
    char *vt = malloc((size_t)(j->s->ev * j->s->s) * isz + 1);
    if (!ds || !vt) {
        free(ds);
        free(vt);
        atomic_store(&j->failed, 1);
        return;
    }
    for (int64_t it = begin; it < end && !atomic_load(&j->failed); it++)
        if (backward_head(j, it, ds, vt) < 0)
            atomic_store(&j->failed, 1);
    free(ds);
    free(vt);
}

static int64_t heads(const mt_attn_shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->nbatch; i++)
        n *= s->batch[i];
    return n;
}

/* Heads split over the threads, each on one (its products then run inline);
 * a single head keeps the threads for its products. */
static int run(job *j, mt_range_fn fn)
{
    int64_t n = heads(j->s);
    if (n == 0)
        return 0;
    atomic_init(&j->failed, 0);
    mt_blas_begin();
    if (n == 1)
        fn(j, 0, 1);
    else
        mt_parallel_for(0, n, 1, fn, j);
    mt_blas_end();
    return atomic_load(&j->failed) ? mt_error(MT_ERR_MEMORY, "out of memory in attention") : 0;
}

int mt_attention_forward(const mt_attn_shape *s, const mt_attn_operand *q, const mt_attn_operand *k,
                         const mt_attn_operand *v, const mt_attn_operand *w,
                         const mt_attn_operand *out)
{
    job j = {.s = s, .q = q, .k = k, .v = v, .w = w, .o = out};
    return run(&j, forward_range);
}

int mt_attention_backward(const mt_attn_shape *s, const mt_attn_operand *g,
                          const mt_attn_operand *q, const mt_attn_operand *k,
                          const mt_attn_operand *v, const mt_attn_operand *w,
                          const mt_attn_operand *dq, const mt_attn_operand *dk,
                          const mt_attn_operand *dv)
{
    job j = {.s = s, .g = g, .q = q, .k = k, .v = v, .w = w, .dq = dq, .dk = dk, .dv = dv};
    return run(&j, backward_range);
}
