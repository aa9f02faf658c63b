/* Convolution (nn_conv.c) and pooling (nn_pool.c) over (N, C, H, W) inputs, forward
 * and backward. Convolution is im2col + mt_gemm, its input gradient the
 * transposed gemm + col2im; pooling runs one plane per task. float32/float64. */
#ifndef MT_KERNELS_NN_CONV_H
#define MT_KERNELS_NN_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/tensor.h"

/* A sliding window over H and W: kernel, stride, padding before the first
 * row/column (the far side pads implicitly up to the output size), dilation,
 * and the output size. */
typedef struct {
    int64_t kh, kw, sh, sw, ph, pw, dh, dw, oh, ow;
} mt_window;

/* out (N, O, oh, ow), contiguous = conv(x (N, C, H, W), w (O, C/groups, kh, kw),
 * contiguous) + bias (O) when bias is not NULL. */
int mt_conv2d_forward(const mt_tensor *x, const mt_tensor *w, const mt_tensor *bias,
                      const mt_window *win, int64_t groups, mt_tensor *out);

/* grad_input (N, C, H, W), contiguous = the adjoint of the convolution by w
 * (O, C/groups, kh, kw), contiguous, applied to grad (N, O, oh, ow), contiguous. */
int mt_conv2d_backward_input(const mt_tensor *grad, const mt_tensor *w, const mt_window *win,
                             int64_t groups, mt_tensor *grad_input);

/* grad_weight (O, C/groups, kh, kw), contiguous = the gradient of the
 * convolution of x (N, C, H, W), strided, for grad (N, O, oh, ow), contiguous. */
int mt_conv2d_backward_weight(const mt_tensor *grad, const mt_tensor *x, const mt_window *win,
                              int64_t groups, mt_tensor *grad_weight);

/* out (N, C, oh, ow), contiguous; indices (same shape, int64, h * W + w of
 * the maximum) when not NULL. The last NaN wins, as in torch. */
int mt_max_pool2d_forward(const mt_tensor *x, const mt_window *win, mt_tensor *out,
                          mt_tensor *indices);

/* divisor_override <= 0 means: the window size, counting padding when
 * count_include_pad, else the valid elements. */
int mt_avg_pool2d_forward(const mt_tensor *x, const mt_window *win, bool count_include_pad,
                          int64_t divisor_override, mt_tensor *out);

/* Window of output row i: [floor(i * H / oh), ceil((i + 1) * H / oh)). */
int mt_adaptive_avg_pool2d_forward(const mt_tensor *x, mt_tensor *out);

/* Backward: grad (N, C, oh, ow) with any strides into grad_input (N, C, H, W),
 * contiguous, which the kernels overwrite. max-pool finds the maxima again in x
 * (the forward input) rather than keeping their indices. */
int mt_max_pool2d_backward(const mt_tensor *grad, const mt_tensor *x, const mt_window *win,
                           mt_tensor *grad_input);
int mt_avg_pool2d_backward(const mt_tensor *grad, const mt_window *win, bool count_include_pad,
                           int64_t divisor_override, mt_tensor *grad_input);
int mt_adaptive_avg_pool2d_backward(const mt_tensor *grad, mt_tensor *grad_input);

#endif
