/* Fused backward kernels of the activations: grad_input = grad_output * f'(v)
 * in one pass, v the forward's input (gelu, silu) or output (tanh, sigmoid). */
#ifndef MT_KERNELS_ACTIVATION_H
#define MT_KERNELS_ACTIVATION_H

#include "iter.h"

typedef enum {
    MT_ACTB_GELU,
    MT_ACTB_GELU_TANH,
    MT_ACTB_SILU,
    MT_ACTB_TANH,
    MT_ACTB_SIGMOID,
    MT_NUM_ACTB
} mt_activation_backward_op;

/* The inner loop (data[0] = grad_input, data[1] = grad_output, data[2] = v),
 * all of one floating dtype, or NULL for other dtypes. */
mt_loop_fn mt_activation_backward_loop(mt_activation_backward_op op, mt_dtype dtype);

#endif
