/* Helpers shared by the nn impls (nn.c, nn_backward.c): tensor geometry that
 * views 1-d and unbatched inputs as (N, C, H, W) for the kernels of
 * kernels/nn_conv.h, and the result of such a kernel. */
#ifndef MT_OPS_NN_GEOMETRY_H
#define MT_OPS_NN_GEOMETRY_H

#include "args.h"

/* t's geometry with a size-1 dim (stride 0) inserted at position at. */
static inline mt_tensor insert_dim(const mt_tensor *t, int at)
{
    mt_tensor v = *t;
    v.ndim = t->ndim + 1;
    for (int d = t->ndim; d > at; d--) {
        v.sizes[d] = t->sizes[d - 1];
        v.strides[d] = t->strides[d - 1];
    }
    v.sizes[at] = 1;
    v.strides[at] = 0;
    return v;
}

/* A contiguous tensor's geometry seen with other sizes of the same numel. */
static inline mt_tensor contiguous_as(const mt_tensor *t, int ndim, const int64_t *sizes)
{
    mt_tensor v = *t;
    v.ndim = ndim;
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        v.sizes[d] = sizes[d];
        v.strides[d] = s;
        s *= sizes[d];
    }
    return v;
}

/* out as the row's result once its kernel returned rc; consumes out. */
static inline int kernel_result(mt_result *r, mt_tensor *out, int rc)
{
    if (rc < 0) {
        mt_release(out);
        return -1;
    }
    return mt_result_tensor(r, out);
}

#endif
