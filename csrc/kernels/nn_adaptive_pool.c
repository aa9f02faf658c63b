/* Adaptive max pooling: output cell o of a dim of input size n and output
 * size m covers [floor(o*n/m), ceil((o+1)*n/m)). The maximum is taken as
 * torch takes it: the first largest value, or the last NaN when there is
 * one, so indices (and gradients) match torch's. */
#include "nn_adaptive_pool.h"

#include <math.h>

#include "parallel.h"

typedef struct {
    const mt_tensor *x;
    mt_tensor *out, *indices;
    int64_t in[3], osize[3];
} amax_ctx;

static inline int64_t cell_start(int64_t o, int64_t n, int64_t m) { return (o * n) / m; }
static inline int64_t cell_end(int64_t o, int64_t n, int64_t m)
{
    return ((o + 1) * n + m - 1) / m;
}

#define AMAX_RANGE(T)                                                                 \
    static void amax_range_##T(void *arg, int64_t p0, int64_t p1)                     \
    {                                                                                 \
        const amax_ctx *c = arg;                                                      \
        int64_t D = c->in[0], H = c->in[1], W = c->in[2];                             \
        int64_t OD = c->osize[0], OH = c->osize[1], OW = c->osize[2];                 \
        int64_t area = D * H * W, oarea = OD * OH * OW;                               \
        for (int64_t p = p0; p < p1; p++) {                                           \
            const T *x = (const T *)mt_data(c->x) + p * area;                         \
            T *o = (T *)mt_data(c->out) + p * oarea;                                  \
            int64_t *ix = (int64_t *)mt_data(c->indices) + p * oarea;                 \
            for (int64_t od = 0; od < OD; od++) {                                     \
                int64_t d0 = cell_start(od, D, OD), d1 = cell_end(od, D, OD);         \
                for (int64_t oh = 0; oh < OH; oh++) {                                 \
                    int64_t h0 = cell_start(oh, H, OH), h1 = cell_end(oh, H, OH);     \
                    for (int64_t ow = 0; ow < OW; ow++) {                             \
                        int64_t w0 = cell_start(ow, W, OW), w1 = cell_end(ow, W, OW); \
                        T best = -INFINITY;                                           \
                        int64_t at = (d0 * H + h0) * W + w0;                          \
                        for (int64_t d = d0; d < d1; d++)                             \
                            for (int64_t h = h0; h < h1; h++)                         \
                                for (int64_t w = w0; w < w1; w++) {                   \
                                    int64_t k = (d * H + h) * W + w;                  \
                                    T v = x[k];                                       \
                                    if (v > best || isnan(v)) {                       \
                                        best = v;                                     \
                                        at = k;                                       \
                                    }                                                 \
                                }                                                     \
                        int64_t q = (od * OH + oh) * OW + ow;                         \
                        o[q] = best;                                                  \
                        ix[q] = at;                                                   \
                    }                                                                 \
                }                                                                     \
            }                                                                         \
        }                                                                             \
    }
AMAX_RANGE(float)
AMAX_RANGE(double)

void mt_adaptive_max_pool_forward(const mt_tensor *x, int64_t planes, const int64_t in[3],
                                  const int64_t osize[3], mt_tensor *out, mt_tensor *indices)
{
    amax_ctx c = {x, out, indices, {in[0], in[1], in[2]}, {osize[0], osize[1], osize[2]}};
    int64_t per_plane = in[0] * in[1] * in[2] + osize[0] * osize[1] * osize[2];
    int64_t grain = per_plane > 0 ? 1 + 32768 / per_plane : planes;
    mt_parallel_for(0, planes, grain, x->dtype == MT_FLOAT64 ? amax_range_double : amax_range_float,
                    &c);
}
