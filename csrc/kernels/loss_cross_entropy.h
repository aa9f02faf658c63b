/* cross_entropy of logits against class indices, fused with log_softmax:
 * one pass per position for the loss, one for the gradient. */
#ifndef MT_KERNELS_LOSS_CROSS_ENTROPY_H
#define MT_KERNELS_LOSS_CROSS_ENTROPY_H

#include "loss.h"

/* The options every call shares. */
typedef struct {
    mt_reduction reduction;
    int64_t ignore_index;
    double smoothing; /* label smoothing in [0, 1] */
} mt_ce_options;

/* input contiguous [n, c, inner] of float32 or float64, target contiguous
 * int64 [n, inner], weight NULL or contiguous [c] of input's dtype.
 * out: [n * inner] contiguous for MT_REDUCTION_NONE, else 0-d; lse:
 * [n * inner] contiguous, each position's log-sum-exp over its classes.
 * Each position loses (1 - s) w[t] (lse - x[t]) + s / c sum_k w[k] (lse - x[k])
 * (0 where t == ignore_index); the mean divides by the sum of w[t] over the
 * positions kept (NaN when none is). Fails with IndexError for a class out
 * of range, -1 for other dtypes. */
int mt_cross_entropy(mt_tensor *out, mt_tensor *lse, const mt_tensor *input,
                     const mt_tensor *target, const mt_tensor *weight, int64_t n, int64_t c,
                     int64_t inner, const mt_ce_options *o);

/* grad_input (contiguous, input's shape and dtype) of mt_cross_entropy for
 * grad_out (out's shape: contiguous, or 0-d). With lse it is the gradient
 * with respect to input; with lse NULL, the one with respect to
 * log_softmax(input) (the softmax term left out). */
int mt_cross_entropy_backward(mt_tensor *grad_input, const mt_tensor *grad_out,
                              const mt_tensor *input, const mt_tensor *target,
                              const mt_tensor *weight, const mt_tensor *lse, int64_t n, int64_t c,
                              int64_t inner, const mt_ce_options *o);

#endif
