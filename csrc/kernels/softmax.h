/* softmax and log_softmax of contiguous float32/float64 tensors viewed as
 * [outer, n, inner] (n the softmax dim), and their backward. */
#ifndef MT_KERNELS_SOFTMAX_H
#define MT_KERNELS_SOFTMAX_H

#include "../core/tensor.h"

/* out = softmax (or log_softmax) of in along the middle dim: the lanes run
 * along each row when inner is 1, across the contiguous inner dim otherwise.
 * in and out are contiguous, of one dtype (float32 or float64); returns -1
 * for others. */
int mt_softmax_forward(mt_tensor *out, const mt_tensor *in, int64_t outer, int64_t n, int64_t inner,
                       bool logsm);

/* grad_input from grad_output g and the forward's output y (all contiguous,
 * one dtype, float32 or float64; -1 for others): y (g - sum(g y)) for
 * softmax, g - exp(y) sum(g) for log_softmax, sums along the middle dim. */
int mt_softmax_backward(mt_tensor *grad_input, const mt_tensor *g, const mt_tensor *y,
                        int64_t outer, int64_t n, int64_t inner, bool logsm);

#endif
