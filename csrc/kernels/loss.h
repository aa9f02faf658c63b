/* The negative log-likelihood loss: picks one class score per position. */
#ifndef MT_KERNELS_LOSS_H
#define MT_KERNELS_LOSS_H

#include "../core/tensor.h"

typedef enum { MT_REDUCTION_NONE, MT_REDUCTION_MEAN, MT_REDUCTION_SUM } mt_reduction;

/* input [C] (one sample, target 0-d), [N, C] (target [N]) or [N, C, H, W]
 * (target [N, H, W]) of a float dtype; target int64; weight NULL or [C] of
 * input's dtype. out: target's shape for MT_REDUCTION_NONE, else 0-d;
 * -weight[t] * input[.., t, ..] per position, 0 where t == ignore_index; the
 * mean divides by the weights' sum. Fails with IndexError for a class out of
 * range. */
int mt_nll_loss(mt_tensor *out, const mt_tensor *input, const mt_tensor *target,
                const mt_tensor *weight, mt_reduction reduction, int64_t ignore_index);

/* The gradient of mt_nll_loss for grad_out (out's shape) into grad_input
 * (input's shape, zero-filled by the caller). */
int mt_nll_loss_backward(mt_tensor *grad_input, const mt_tensor *grad_out, const mt_tensor *target,
                         const mt_tensor *weight, mt_reduction reduction, int64_t ignore_index);

#endif
