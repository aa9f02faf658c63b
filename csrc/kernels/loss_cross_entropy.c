/* cross_entropy against class indices, fused with log_softmax
 * (loss_cross_entropy.h). The input is seen as [n, c, inner]: a position is one
 * (sample, inner index) and its c class scores lie inner elements apart.
 * The forward takes each position's max, log-sum-exp, picked score and (for
 * label smoothing) weighted score sum in two passes over its scores and
 * keeps only the log-sum-exp; the backward rebuilds softmax from it and
 * writes the gradient in one pass. When inner is 1 the scores are
 * contiguous and the vector lanes run along them (softmax_row.h's steps,
 * float32 in 16 lanes with AVX-512). Threads split positions;
 * the reductions add the per-position losses in order afterwards, so the
 * result does not depend on the thread count. */
#include "loss_cross_entropy.h"
#include "../core/error.h"
#include "../core/portable.h"
#include "parallel.h"
#include "softmax_row.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GRAIN 32768 /* scores per thread chunk */

typedef struct {
    const char *x, *w, *g, *lse_in;
    const int64_t *t;
    char *lse, *o;
    double *loss;
    int64_t c, inner;
    double smoothing, wsum; /* wsum: sum of all class weights (c without weights) */
    double scale;           /* backward: the reduced upstream value over the normaliser */
    bool per_position;      /* backward: grad_out has one value per position */
    int64_t ignore_index;
} job;

/* Per dtype: T the element, V its vector of W lanes, ATTR the functions'
 * ISA (clones, or the AVX-512 target); EXPF/LOGS the scalar exp and block
 * logs. A contiguous position (inner 1) runs softmax_row.h's vector steps;
 * a strided one a scalar loop. Positions go a block at a time so their
 * log-sum-exps take one vector log. */
#define DEFINE_ROWS(SFX, ATTR, T, V, W, EXPF, LOGS)                                          \
    ATTR static void fwd_##SFX(void *arg, int64_t begin, int64_t end)                        \
    {                                                                                        \
        enum { B = MT_SOFTMAX_ROW_BLOCK };                                                   \
        const job *j = arg;                                                                  \
        const T *wt = (const T *)j->w;                                                       \
        int64_t c = j->c, s = j->inner;                                                      \
        T m[B], sum[B];                                                                      \
        int64_t len[B];                                                                      \
        for (int64_t p0 = begin; p0 < end; p0 += B) {                                        \
            int64_t nb = end - p0 < B ? end - p0 : B;                                        \
            if (s == 1) {                                                                    \
                /* an ignored position as an empty row, its m and sum unused */              \
                for (int64_t b = 0; b < nb; b++)                                             \
                    len[b] = j->t[p0 + b] == j->ignore_index ? 0 : c;                        \
                smr_block_##SFX(NULL, 0, (const T *)j->x + p0 * c, c, len, 1, nb, m, sum);   \
            } else {                                                                         \
                for (int64_t b = 0; b < B; b++) {                                            \
                    int64_t p = p0 + b;                                                      \
                    m[b] = 0;                                                                \
                    sum[b] = 1;                                                              \
                    if (b >= nb || j->t[p] == j->ignore_index)                               \
                        continue;                                                            \
                    const T *x = (const T *)j->x + (p / s * c * s + p % s);                  \
                    T mx = -(T)INFINITY, acc = 0;                                            \
                    for (int64_t k = 0; k < c; k++)                                          \
                        if (x[k * s] > mx || x[k * s] != x[k * s])                           \
                            mx = x[k * s];                                                   \
                    for (int64_t k = 0; k < c; k++)                                          \
                        acc += EXPF(x[k * s] - mx);                                          \
                    m[b] = mx;                                                               \
                    sum[b] = acc;                                                            \
                }                                                                            \
            }                                                                                \
            LOGS(sum);                                                                       \
            for (int64_t b = 0; b < nb; b++) {                                               \
                int64_t p = p0 + b, cls = j->t[p];                                           \
                T *lse = (T *)j->lse + p;                                                    \
                if (cls == j->ignore_index) {                                                \
                    *lse = 0;                                                                \
                    j->loss[p] = 0;                                                          \
                    continue;                                                                \
                }                                                                            \
                const T *x = (const T *)j->x + (p / s * c * s + p % s);                      \
                double l = (double)m[b] + (double)sum[b];                                    \
                double wc = wt ? (double)wt[cls] : 1.0;                                      \
                *lse = (T)l;                                                                 \
                double loss = (1 - j->smoothing) * wc * (l - x[cls * s]);                    \
                if (j->smoothing != 0) {                                                     \
                    double sx = 0;                                                           \
                    for (int64_t k = 0; k < c; k++)                                          \
                        sx += wt ? (double)x[k * s] * wt[k] : (double)x[k * s];              \
                    loss += j->smoothing / (double)c * (j->wsum * l - sx);                   \
                }                                                                            \
                j->loss[p] = loss;                                                           \
            }                                                                                \
        }                                                                                    \
    }                                                                                        \
                                                                                             \
    /* grad = scale (a softmax - b w) - scale (1 - s) w[t] at t, with                     \
     * a = (1 - s) w[t] + s W / c and b = s / c; a contiguous position in    \
     * vectors, the last one overlapping the one before (same values) */  \
    ATTR static void bwd_##SFX(void *arg, int64_t begin, int64_t end)                        \
    {                                                                                        \
        const job *j = arg;                                                                  \
        const T *wt = (const T *)j->w;                                                       \
        int64_t c = j->c, s = j->inner;                                                      \
        for (int64_t p = begin; p < end; p++) {                                              \
            int64_t cls = j->t[p];                                                           \
            T *o = (T *)j->o + (p / s * c * s + p % s);                                      \
            if (cls == j->ignore_index) {                                                    \
                for (int64_t k = 0; k < c; k++)                                              \
                    o[k * s] = 0;                                                            \
                continue;                                                                    \
            }                                                                                \
            const T *x = (const T *)j->x + (p / s * c * s + p % s);                          \
            double g = j->per_position ? (double)((const T *)j->g)[p] * j->scale : j->scale; \
            double wc = wt ? (double)wt[cls] : 1.0;                                          \
            double a = g * ((1 - j->smoothing) * wc + j->smoothing * j->wsum / (double)c);   \
            double b = g * j->smoothing / (double)c;                                         \
            bool soft = j->lse_in != NULL;                                                   \
            T l = soft ? ((const T *)j->lse_in)[p] : 0;                                      \
            if (s == 1) {                                                                    \
                V va = (V){0} + (T)a, vb = (V){0} + (T)b, v, r, wv = (V){0} + 1;             \
                for (int64_t k = 0; k < c; k += W) {                                         \
                    int64_t at = k + W <= c ? k : c >= W ? c - W : 0;                        \
                    if (wt)                                                                  \
                        smr_load_##SFX(&wv, wt + at, c - at, 1);                             \
                    r = -(vb * wv);                                                          \
                    if (soft) {                                                              \
                        smr_load_##SFX(&v, x + at, c - at, 0);                               \
                        v = v - l;                                                           \
                        smr_exp_##SFX(&v);                                                   \
                        r += va * v;                                                         \
                    }                                                                        \
                    smr_store_##SFX(o + at, &r, c - at);                                     \
                }                                                                            \
            } else {                                                                         \
                for (int64_t k = 0; k < c; k++) {                                            \
                    double rv = -b * (wt ? (double)wt[k] : 1.0);                             \
                    if (soft)                                                                \
                        rv += a * EXPF(x[k * s] - l);                                        \
                    o[k * s] = (T)rv;                                                        \
                }                                                                            \
            }                                                                                \
            o[cls * s] = (T)((double)o[cls * s] - g * (1 - j->smoothing) * wc);              \
        }                                                                                    \
    }
DEFINE_ROWS(f4, MT_CLONES_AVX2_FMA, float, mt_v8f, 8, expf, mt_softmax_row_logs_f4)
DEFINE_ROWS(f8, MT_CLONES_AVX2_FMA, double, mt_v4d, 4, exp, mt_softmax_row_logs_f8)
#ifdef MT_HAVE_AVX512
DEFINE_ROWS(x16, MT_TARGET_AVX512, float, __m512, 16, expf, mt_softmax_row_logs_f4)
#endif

/* the kernel of a dtype, float32 in 16 lanes where the machine has AVX-512 */
static mt_range_fn pick(mt_dtype dtype, bool backward)
{
#ifdef MT_HAVE_AVX512
    if (dtype == MT_FLOAT32 && mt_use_avx512())
        return backward ? bwd_x16 : fwd_x16;
#endif
    if (dtype == MT_FLOAT32)
        return backward ? bwd_f4 : fwd_f4;
    return backward ? bwd_f8 : fwd_f8;
}

/* Checks the classes and sums the kept weights (the mean's normaliser). */
static int scan_targets(const job *j, int64_t positions, mt_dtype dt, double *kept)
{
    double sum = 0;
    for (int64_t p = 0; p < positions; p++) {
        int64_t cls = j->t[p];
        if (cls == j->ignore_index)
            continue;
        if (cls < 0 || cls >= j->c)
            return mt_error(MT_ERR_INDEX, "Target %lld is out of bounds.", (long long)cls);
        sum += !j->w              ? 1.0
               : dt == MT_FLOAT32 ? ((const float *)j->w)[cls]
                                  : ((const double *)j->w)[cls];
    }
    *kept = sum;
    return 0;
}

static int prepare(job *j, const mt_tensor *input, const mt_tensor *target, const mt_tensor *weight,
                   int64_t c, int64_t inner, const mt_ce_options *o)
{
    if (input->dtype != MT_FLOAT32 && input->dtype != MT_FLOAT64)
        return mt_error(MT_ERR_RUNTIME, "cross_entropy: the fused kernel takes float32 or "
                                        "float64 input");
    memset(j, 0, sizeof *j);
    j->x = mt_data(input);
    j->t = (const int64_t *)mt_data(target);
    j->w = weight ? mt_data(weight) : NULL;
    j->c = c;
    j->inner = inner;
    j->smoothing = o->smoothing;
    j->ignore_index = o->ignore_index;
    j->wsum = (double)c;
    if (weight) {
        j->wsum = 0;
        for (int64_t k = 0; k < c; k++)
            j->wsum +=
                input->dtype == MT_FLOAT32 ? ((const float *)j->w)[k] : ((const double *)j->w)[k];
    }
    return 0;
}

static int64_t grain_of(int64_t c) { return c > 0 && c < GRAIN ? GRAIN / c : 1; }

static void store_value(mt_tensor *t, int64_t i, double v)
{
    if (t->dtype == MT_FLOAT32)
        ((float *)mt_data(t))[i] = (float)v;
    else
        ((double *)mt_data(t))[i] = v;
}

int mt_cross_entropy(mt_tensor *out, mt_tensor *lse, const mt_tensor *input,
                     const mt_tensor *target, const mt_tensor *weight, int64_t n, int64_t c,
                     int64_t inner, const mt_ce_options *o)
{
    job j;
    if (prepare(&j, input, target, weight, c, inner, o) < 0)
        return -1;
    int64_t positions = n * inner;
    double kept = 0;
    if (scan_targets(&j, positions, input->dtype, &kept) < 0)
        return -1;
    j.lse = mt_data(lse);
    j.loss = malloc(sizeof(double) * (size_t)(positions > 0 ? positions : 1));
    if (!j.loss)
        return mt_error(MT_ERR_MEMORY, "cross_entropy: out of memory");
    mt_parallel_for(0, positions, grain_of(c), pick(input->dtype, false), &j);
    if (o->reduction == MT_REDUCTION_NONE) {
        for (int64_t p = 0; p < positions; p++)
            store_value(out, p, j.loss[p]);
    } else {
        double sum = 0;
        for (int64_t p = 0; p < positions; p++)
            sum += j.loss[p];
        /* 0 / 0 = NaN when every position is ignored, as torch's mean */
        store_value(out, 0, o->reduction == MT_REDUCTION_MEAN ? sum / kept : sum);
    }
    free(j.loss);
    return 0;
}

int mt_cross_entropy_backward(mt_tensor *grad_input, const mt_tensor *grad_out,
                              const mt_tensor *input, const mt_tensor *target,
                              const mt_tensor *weight, const mt_tensor *lse, int64_t n, int64_t c,
                              int64_t inner, const mt_ce_options *o)
{
    job j;
    if (prepare(&j, input, target, weight, c, inner, o) < 0)
        return -1;
    int64_t positions = n * inner;
    double kept = 0;
    if (scan_targets(&j, positions, input->dtype, &kept) < 0)
        return -1;
    j.o = mt_data(grad_input);
    j.lse_in = lse ? mt_data(lse) : NULL;
    j.per_position = o->reduction == MT_REDUCTION_NONE;
    j.g = mt_data(grad_out);
    j.scale = 1;
    if (!j.per_position) {
        j.scale = grad_out->dtype == MT_FLOAT32 ? *(const float *)j.g : *(const double *)j.g;
        if (o->reduction == MT_REDUCTION_MEAN)
            j.scale /= kept;
    }
    mt_parallel_for(0, positions, grain_of(c), pick(input->dtype, true), &j);
    return 0;
}
