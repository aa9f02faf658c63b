/* Normalization kernels (norm.h): one pass for the statistics of a row or
 * channel (two sweeps over data that stays in cache), one for the output; a
 * backward that gets the input, weight and bias gradients from one sweep for
 * the sums and one for grad_input. Rows (layer, RMS, group norm) are split
 * over the thread pool; the weight and bias gradients, sums over rows, are
 * kept per part and added in a fixed order, so results do not depend on
 * timing. Batch norm splits over channels. An output too large to stay in
 * cache goes out with streaming stores (simd/stream.h). */
#include "norm.h"
#include "parallel.h"
#include "simd/stream.h"
#include "typed.h"

#include "../core/error.h"
#include "../core/portable.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 4096
/* The loops' helpers take the vector target of the clone they are inlined in. */
#define MT_INLINE inline __attribute__((always_inline))

typedef struct {
    const void *x, *g, *w, *b;
    void *out, *stats, *gx, *part_w, *part_b;
    int64_t rows, groups, cg, inner, nparams, nparts;
    double eps, momentum;
    bool rms, stream; /* stream: the output goes out with streaming stores */
    mt_tensor *running_mean, *running_var;
} norm_job;

/* running = (1 - momentum) * running + momentum * batch, per channel. */
static void running_update(const norm_job *j, int64_t ch, double mean, double unbiased_var)
{
    mt_tensor *stat[2] = {j->running_mean, j->running_var};
    double batch[2] = {mean, unbiased_var};
    for (int k = 0; k < 2; k++) {
        mt_tensor *t = stat[k];
        if (!t)
            continue;
        int64_t at = ch * (t->ndim == 1 ? t->strides[0] : 1);
        mt_float_set(t, at, (1 - j->momentum) * mt_float_at(t, at) + j->momentum * batch[k]);
    }
}

#define T float
#define SFX f4
#include "norm_loops.h"
#undef T
#undef SFX
#define T double
#define SFX f8
#include "norm_loops.h"
#undef T
#undef SFX

/* Weight and bias default to ones and zeros, so one loop serves every case. */
static void *affine_or_default(const mt_tensor *t, int64_t n, bool is64, double fill, void **owned)
{
    *owned = NULL;
    if (t)
        return mt_data(t);
    void *p = malloc((size_t)(n > 0 ? n : 1) * (is64 ? sizeof(double) : sizeof(float)));
    for (int64_t i = 0; p && i < n; i++) {
        if (is64)
            ((double *)p)[i] = fill;
        else
            ((float *)p)[i] = (float)fill;
    }
    *owned = p;
    return p;
}

static int64_t grain_rows(int64_t d) { return d >= 16384 ? 1 : 16384 / (d > 0 ? d : 1); }

int mt_norm_rows(const mt_tensor *x, const mt_tensor *weight, const mt_tensor *bias, mt_tensor *out,
                 mt_tensor *stats, int64_t rows, int64_t groups, int64_t cg, int64_t inner,
                 double eps, bool rms)
{
    bool is64 = x->dtype == MT_FLOAT64;
    int64_t d = cg * inner;
    void *own_w, *own_b;
    norm_job j = {.x = mt_data(x),
                  .out = mt_data(out),
                  .stats = mt_data(stats),
                  .rows = rows,
                  .groups = groups,
                  .cg = cg,
                  .inner = inner,
                  .eps = eps,
                  .rms = rms,
                  .stream = mt_stream_worth(rows * d * mt_itemsize(x->dtype))};
    j.w = affine_or_default(weight, groups * cg, is64, 1, &own_w);
    j.b = affine_or_default(bias, groups * cg, is64, 0, &own_b);
    if (!j.w || !j.b) {
        free(own_w);
        free(own_b);
        return mt_error(MT_ERR_MEMORY, "out of memory");
    }
    if (rows > 0 && d > 0)
        mt_parallel_for(0, rows, grain_rows(d), is64 ? rows_fwd_f8 : rows_fwd_f4, &j);
    else if (rows > 0)
        memset(mt_data(stats), 0, (size_t)(2 * rows) * mt_itemsize(x->dtype));
    free(own_w);
    free(own_b);
    return 0;
}

/* Adds the parts' rows of scratch into dst (NULL: not wanted). */
static void sum_parts(mt_tensor *dst, const void *scratch, int64_t nparts, int64_t n, bool is64)
{
    if (!dst)
        return;
    for (int64_t i = 0; i < n; i++) {
        double s = 0;
        for (int64_t p = 0; p < nparts; p++)
            s += is64 ? ((const double *)scratch)[p * n + i] : ((const float *)scratch)[p * n + i];
        if (is64)
            ((double *)mt_data(dst))[i] = s;
        else
            ((float *)mt_data(dst))[i] = (float)s;
    }
}

int mt_norm_rows_backward(const mt_tensor *g, const mt_tensor *x, const mt_tensor *weight,
                          const mt_tensor *stats, mt_tensor *gx, mt_tensor *gw, mt_tensor *gb,
                          int64_t rows, int64_t groups, int64_t cg, int64_t inner, bool rms)
{
    bool is64 = x->dtype == MT_FLOAT64;
    size_t item = is64 ? sizeof(double) : sizeof(float);
    int64_t d = cg * inner;
    int64_t nparams = groups * cg;
    int64_t nparts = mt_get_num_threads();
    if (nparts > rows)
        nparts = rows;
    if (nparts < 1 || rows * d < 32768)
        nparts = 1;
    void *own_w;
    norm_job j = {.x = mt_data(x),
                  .g = mt_data(g),
                  .gx = mt_data(gx),
                  .stats = mt_data(stats),
                  .rows = rows,
                  .groups = groups,
                  .cg = cg,
                  .inner = inner,
                  .nparams = nparams,
                  .nparts = nparts,
                  .rms = rms};
    j.w = affine_or_default(weight, nparams, is64, 1, &own_w);
    size_t bytes = (size_t)(nparts * (nparams > 0 ? nparams : 1)) * item;
    j.part_w = calloc(1, bytes);
    j.part_b = calloc(1, bytes);
    if (!j.w || !j.part_w || !j.part_b) {
        free(own_w);
        free(j.part_w);
        free(j.part_b);
        return mt_error(MT_ERR_MEMORY, "out of memory");
    }
    if (rows > 0 && d > 0)
        mt_parallel_for(0, nparts, 1, is64 ? rows_bwd_f8 : rows_bwd_f4, &j);
    sum_parts(gw, j.part_w, nparts, nparams, is64);
    sum_parts(gb, j.part_b, nparts, nparams, is64);
    free(own_w);
    free(j.part_w);
    free(j.part_b);
    return 0;
}

int mt_batch_norm(const mt_tensor *x, const mt_tensor *weight, const mt_tensor *bias,
                  mt_tensor *out, mt_tensor *stats, mt_tensor *running_mean, mt_tensor *running_var,
                  int64_t n, int64_t c, int64_t inner, double momentum, double eps)
{
    bool is64 = x->dtype == MT_FLOAT64;
    void *own_w, *own_b;
    norm_job j = {.x = mt_data(x),
                  .out = mt_data(out),
                  .stats = mt_data(stats),
                  .rows = n,
                  .groups = c,
                  .inner = inner,
                  .eps = eps,
                  .momentum = momentum,
                  .running_mean = running_mean,
                  .running_var = running_var,
                  .stream = mt_stream_worth(n * c * inner * mt_itemsize(x->dtype))};
    j.w = affine_or_default(weight, c, is64, 1, &own_w);
    j.b = affine_or_default(bias, c, is64, 0, &own_b);
    if (!j.w || !j.b) {
        free(own_w);
        free(own_b);
        return mt_error(MT_ERR_MEMORY, "out of memory");
    }
    int64_t grain = n * inner >= 16384 ? 1 : 16384 / (n * inner > 0 ? n * inner : 1);
    mt_parallel_for(0, c, grain, is64 ? batch_fwd_f8 : batch_fwd_f4, &j);
    free(own_w);
    free(own_b);
    return 0;
}

int mt_batch_norm_backward(const mt_tensor *g, const mt_tensor *x, const mt_tensor *weight,
                           const mt_tensor *stats, mt_tensor *gx, mt_tensor *gw, mt_tensor *gb,
                           int64_t n, int64_t c, int64_t inner)
{
    bool is64 = x->dtype == MT_FLOAT64;
    size_t item = is64 ? sizeof(double) : sizeof(float);
    void *own_w;
    norm_job j = {.x = mt_data(x),
                  .g = mt_data(g),
                  .gx = mt_data(gx),
                  .stats = mt_data(stats),
                  .rows = n,
                  .groups = c,
                  .inner = inner};
    j.w = affine_or_default(weight, c, is64, 1, &own_w);
    j.part_w = malloc((size_t)(c > 0 ? c : 1) * item);
    j.part_b = malloc((size_t)(c > 0 ? c : 1) * item);
    if (!j.w || !j.part_w || !j.part_b) {
        free(own_w);
        free(j.part_w);
        free(j.part_b);
        return mt_error(MT_ERR_MEMORY, "out of memory");
    }
    int64_t grain = n * inner >= 16384 ? 1 : 16384 / (n * inner > 0 ? n * inner : 1);
    mt_parallel_for(0, c, grain, is64 ? batch_bwd_f8 : batch_bwd_f4, &j);
    sum_parts(gw, j.part_w, 1, c, is64);
    sum_parts(gb, j.part_b, 1, c, is64);
    free(own_w);
    free(j.part_w);
    free(j.part_b);
    return 0;
}
