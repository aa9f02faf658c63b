/* Complex tensors seen as real ones, for impls that compute on the parts:
 * a complex element is its real part followed by its imaginary part. */
#ifndef MT_OPS_COMPLEX_H
#define MT_OPS_COMPLEX_H

#include "../core/tensor.h"

/* Complex t as a tensor of its part dtype with a last dim of 2 holding each
 * element's (real, imaginary) pair, on the stack (no reference held); t has
 * fewer than MT_MAX_DIMS dims. */
static inline mt_tensor mt_complex_pairs(const mt_tensor *t)
{
    mt_tensor p = *t;
    p.dtype = mt_complex_part(t->dtype);
    for (int d = 0; d < t->ndim; d++)
        p.strides[d] = 2 * t->strides[d];
    p.sizes[t->ndim] = 2;
    p.strides[t->ndim] = 1;
    p.ndim = t->ndim + 1;
    p.numel = 2 * t->numel;
    p.offset = 2 * t->offset;
    return p;
}

/* Part k (0 real, 1 imaginary) of complex t in place, as a tensor of the
 * part dtype and t's shape, on the stack (no reference held). */
static inline mt_tensor mt_complex_part_of(const mt_tensor *t, int k)
{
    mt_tensor p = *t;
    p.dtype = mt_complex_part(t->dtype);
    for (int d = 0; d < t->ndim; d++)
        p.strides[d] = 2 * t->strides[d];
    p.offset = 2 * t->offset + k;
    return p;
}

#endif
