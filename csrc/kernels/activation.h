/* Fused backward kernels of the activations: grad_input = grad_output * f'(v)
 * in one pass, v the forward's input (gelu, silu) or output (tanh, sigmoid). */
#ifndef MT_KERNELS_ACTIVATION_H
#define MT_KERNELS_ACTIVATION_H

#include "iter.h"

/* One per row of activation.def, in its order. */
typedef enum {
#define MT_ACTIVATION_BACKWARD_KERNEL(ID, ...) MT_ACTB_##ID,
#include "activation.def"
#undef MT_ACTIVATION_BACKWARD_KERNEL
    MT_NUM_ACTB
} mt_activation_backward_op;

/* The inner loop (data[0] = grad_input, data[1] = grad_output, data[2] = v),
 * all of one floating dtype, or NULL for other dtypes. */
mt_loop_fn mt_activation_backward_loop(mt_activation_backward_op op, mt_dtype dtype);

#endif
