/* Adaptive max pooling (nn_adaptive_pool.c) over the last one to three
 * dims of a contiguous float32/float64 input, one plane per task. */
#ifndef MT_KERNELS_NN_ADAPTIVE_POOL_H
#define MT_KERNELS_NN_ADAPTIVE_POOL_H

#include "../core/tensor.h"

/* x: contiguous (planes, in[0], in[1], in[2]); out: contiguous (planes,
 * osize[0], osize[1], osize[2]) of x's dtype; indices: contiguous int64 of
 * out's shape, each the flat position of the maximum within its plane. */
void mt_adaptive_max_pool_forward(const mt_tensor *x, int64_t planes, const int64_t in[3],
                                  const int64_t osize[3], mt_tensor *out, mt_tensor *indices);

#endif
