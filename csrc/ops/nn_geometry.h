/* Helpers shared by the nn impls (nn.c, nn_backward.c): tensor geometry that
 * views 1-d and unbatched inputs as (N, C, H, W) for the kernels of
 * kernels/nn_conv.h, and the result of such a kernel. */
#ifndef MT_OPS_NN_GEOMETRY_H
#define MT_OPS_NN_GEOMETRY_H

#include "runtime/args.h"

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

/* torch keeps window sizes, strides, padding and dilation in C ints: larger
 * values are its overflow error (and would make the kernels loop for ever). */
static inline int window_pair_fits(const int64_t *v)
{
    for (int i = 0; i < 2; i++)
        if (v[i] > INT32_MAX || v[i] < INT32_MIN)
            return mt_error(MT_ERR_RUNTIME, "value cannot be converted to type int without "
                                            "overflow");
    return 0;
}

/* A pooling window's output size along one dim (torch's formula), or -1
 * when the arithmetic overflows int64: no input is that large. */
static inline int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                                  bool ceil_mode)
{
    int64_t span, num;
    if (__builtin_mul_overflow(dil, k - 1, &span) || __builtin_mul_overflow(pad, 2, &num) ||
        __builtin_add_overflow(num, in - 1, &num) || __builtin_sub_overflow(num, span, &num) ||
        __builtin_add_overflow(num, ceil_mode ? stride - 1 : 0, &num))
        return -1;
    int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
    if (ceil_mode && (out - 1) * stride >= in + pad)
        out--;
    return out;
}

/* torch's rule that padding is at most half the dilated window. */
static inline bool pool_pad_ok(int64_t pad, int64_t k, int64_t dil)
{
    int64_t span;
    if (__builtin_mul_overflow(dil, k - 1, &span))
        return pad >= 0;
    return pad >= 0 && pad <= span / 2 + (span % 2);
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
