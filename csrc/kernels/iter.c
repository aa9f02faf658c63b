#include "iter.h"
#include "parallel.h"
#include "../core/hot.h"

#include <string.h>

/* Broadcast stride of operand t for dim d of the target shape (elements). */
static int64_t bstride(const mt_tensor *t, int ndim, int d)
{
    int td = d - (ndim - t->ndim);
    if (td < 0 || t->sizes[td] == 1)
        return 0;
    return t->strides[td];
}

/* True when dim a should be iterated inside dim b (a is "faster"). */
static bool dim_inner(int nops, const mt_tensor *const *ops, int ndim, int a, int b)
{
    for (int k = 0; k < nops; k++) {
        int64_t sa = bstride(ops[k], ndim, a), sb = bstride(ops[k], ndim, b);
        if (sa == 0 || sb == 0)
            continue;
        if (sa != sb) {
            int64_t aa = sa < 0 ? -sa : sa, ab = sb < 0 ? -sb : sb;
            return aa < ab;
        }
    }
    return a > b; /* default: C order, last dim innermost */
}

MT_HOT static void order_dims(int nops, const mt_tensor *const *ops, int ndim, int *perm)
{
    /* perm[0] is innermost. Stable insertion sort keeps C order for ties. */
    for (int i = 0; i < ndim; i++)
        perm[i] = ndim - 1 - i;
    for (int i = 1; i < ndim; i++) {
        int v = perm[i], j = i - 1;
        while (j >= 0 && dim_inner(nops, ops, ndim, v, perm[j])) {
            perm[j + 1] = perm[j];
            j--;
        }
        perm[j + 1] = v;
    }
}

MT_HOT void mt_iter_init(mt_iter *it, int nops, const mt_tensor *const *ops, int ndim,
                         const int64_t *shape)
{
    int perm[MT_MAX_DIMS];
    it->nops = nops;
    it->numel = 1;
    for (int d = 0; d < ndim; d++)
        it->numel *= shape[d];
    for (int k = 0; k < nops; k++)
        it->base[k] = mt_data(ops[k]);
    order_dims(nops, ops, ndim, perm);
    int n = 0;
    for (int i = 0; i < ndim; i++) {
        int d = perm[i];
        if (shape[d] == 1)
            continue;
        int64_t st[MT_ITER_MAX_OPS];
        for (int k = 0; k < nops; k++)
            st[k] = bstride(ops[k], ndim, d) * mt_itemsize(ops[k]->dtype);
        /* Merge into the previous dim when every operand steps through both as one run. */
        if (n > 0) {
            bool merge = true;
            for (int k = 0; k < nops && merge; k++)
                merge = st[k] == it->strides[n - 1][k] * it->shape[n - 1];
            if (merge) {
                it->shape[n - 1] *= shape[d];
                continue;
            }
        }
        it->shape[n] = shape[d];
        memcpy(it->strides[n], st, sizeof(int64_t) * nops);
        n++;
    }
    if (n == 0) {
        it->shape[0] = 1;
        memset(it->strides[0], 0, sizeof it->strides[0]);
        n = 1;
    }
    it->ndim = n;
}

MT_HOT void mt_iter_run_range(const mt_iter *it, mt_loop_fn fn, void *ctx, int64_t begin,
                              int64_t end)
{
    int nops = it->nops, ndim = it->ndim;
    int64_t idx[MT_MAX_DIMS];
    char *ptr[MT_ITER_MAX_OPS];
    if (begin >= end)
        return;
    /* Decompose the start position into per-dim counters (without the
     * divisions for a walk from the start: they cost a tiny op more than
     * its element does). */
    int64_t rem = begin;
    for (int d = 0; d < ndim; d++) {
        idx[d] = rem ? rem % it->shape[d] : 0;
        rem = rem ? rem / it->shape[d] : 0;
    }
    for (int k = 0; k < nops; k++) {
        ptr[k] = it->base[k];
        for (int d = 0; d < ndim; d++)
            ptr[k] += idx[d] * it->strides[d][k];
    }
    int64_t inner_stride[MT_ITER_MAX_OPS];
    memcpy(inner_stride, it->strides[0], sizeof(int64_t) * nops);
    int64_t pos = begin;
    while (pos < end) {
        int64_t n = it->shape[0] - idx[0];
        if (n > end - pos)
            n = end - pos;
        fn(ptr, inner_stride, n, ctx);
        pos += n;
        if (pos >= end)
            break;
        /* Step to the next inner run: carry through the outer counters. */
        for (int k = 0; k < nops; k++)
            ptr[k] -= idx[0] * it->strides[0][k];
        idx[0] = 0;
        for (int d = 1; d < ndim; d++) {
            idx[d]++;
            for (int k = 0; k < nops; k++)
                ptr[k] += it->strides[d][k];
            if (idx[d] < it->shape[d])
                break;
            for (int k = 0; k < nops; k++)
                ptr[k] -= idx[d] * it->strides[d][k];
            idx[d] = 0;
        }
    }
}

typedef struct {
    const mt_iter *it;
    mt_loop_fn fn;
    void *ctx;
} run_job;

MT_HOT static void run_chunk(void *arg, int64_t begin, int64_t end)
{
    run_job *job = arg;
    mt_iter_run_range(job->it, job->fn, job->ctx, begin, end);
}

MT_HOT void mt_iter_run(const mt_iter *it, mt_loop_fn fn, void *ctx, int64_t grain)
{
    /* one run of one chunk (every small contiguous op): the inner loop alone */
    if (it->ndim == 1 && it->numel < 2 * grain) {
        char *ptr[MT_ITER_MAX_OPS];
        memcpy(ptr, it->base, sizeof(char *) * (size_t)it->nops);
        if (it->numel > 0)
            fn(ptr, it->strides[0], it->numel, ctx);
        return;
    }
    run_job job = {it, fn, ctx};
    mt_parallel_for(0, it->numel, grain, run_chunk, &job);
}

MT_HOT void mt_output_strides_like(int nin, const mt_tensor *const *inputs, int ndim,
                                   const int64_t *shape, int64_t *out_strides)
{
    int perm[MT_MAX_DIMS];
    order_dims(nin, inputs, ndim, perm);
    int64_t s = 1;
    for (int i = 0; i < ndim; i++) {
        out_strides[perm[i]] = s;
        s *= shape[perm[i]] > 1 ? shape[perm[i]] : 1;
    }
}
