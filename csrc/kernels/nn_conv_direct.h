/* Direct 2-d convolution for small windows (nn_conv_direct.c): the forward
 * and the weight gradient of a float32, ungrouped, stride-1, undilated
 * convolution whose window C * kh * kw and output channels are few, with no
 * column buffer. nn_conv.c asks mt_conv2d_direct_fits and falls back to
 * im2col + gemm otherwise. */
#ifndef MT_KERNELS_NN_CONV_DIRECT_H
#define MT_KERNELS_NN_CONV_DIRECT_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/tensor.h"
#include "nn_conv.h"

/* True when the direct kernels take a convolution of Cg input channels per
 * group into O outputs with this window. */
bool mt_conv2d_direct_fits(mt_dtype d, int64_t Cg, int64_t O, const mt_window *win, int64_t groups);

/* As mt_conv2d_forward: x (N, C, H, W) strided, w (O, C, kh, kw)
 * contiguous, bias (O) or NULL, out (N, O, oh, ow) contiguous; N, O, oh, ow
 * and C * kh * kw all nonzero. */
int mt_conv2d_direct_forward(const mt_tensor *x, const mt_tensor *w, const mt_tensor *bias,
                             const mt_window *win, mt_tensor *out);

/* As mt_conv2d_backward_weight: grad (N, O, oh, ow) contiguous, x strided,
 * grad_weight (O, C, kh, kw) contiguous, overwritten. */
int mt_conv2d_direct_backward_weight(const mt_tensor *grad, const mt_tensor *x,
                                     const mt_window *win, mt_tensor *grad_weight);

#endif
