/* The Winograd F(2x2, 3x3) path of the 2-d convolution (nn_conv_winograd.c),
 * taken by nn_conv.c where mt_conv2d_winograd_fits (for the input gradient
 * mt_conv2d_winograd_input_fits) says it applies. Same contracts as the
 * mt_conv2d_* functions of nn_conv.h for groups == 1; all three overwrite
 * their result. */
#ifndef MT_KERNELS_NN_CONV_WINOGRAD_H
#define MT_KERNELS_NN_CONV_WINOGRAD_H

#include <stdbool.h>

#include "nn_conv.h"

/* float32, a 3x3 window of stride 1 and dilation 1 (any padding), one
 * group, and enough channels (C in, O out) for the transforms to pay. */
bool mt_conv2d_winograd_fits(mt_dtype d, int64_t C, int64_t O, const mt_window *win,
                             int64_t groups);
/* The same, and padding of at most 2 (the input gradient is a convolution
 * padded by 2 - p). */
bool mt_conv2d_winograd_input_fits(mt_dtype d, int64_t C, int64_t O, const mt_window *win,
                                   int64_t groups);
int mt_conv2d_winograd_forward(const mt_tensor *x, const mt_tensor *w, const mt_tensor *bias,
                               const mt_window *win, mt_tensor *out);
int mt_conv2d_winograd_backward_input(const mt_tensor *grad, const mt_tensor *w,
                                      const mt_window *win, mt_tensor *grad_input);
int mt_conv2d_winograd_backward_weight(const mt_tensor *grad, const mt_tensor *x,
                                       const mt_window *win, mt_tensor *grad_weight);

#endif
