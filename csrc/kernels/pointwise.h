/* Elementwise binary and ternary kernels over operands of one compute dtype.
 * The output is of that dtype too, except for predicates, which write bool. */
#ifndef MT_KERNELS_POINTWISE_H
#define MT_KERNELS_POINTWISE_H

#include "iter.h"
#include "kernel_rows.h"

/* One per row of pointwise.def, in its order. */
typedef enum {
#define MT_BINARY_KERNEL(ID, ...) MT_##ID,
#include "pointwise.def"
#undef MT_BINARY_KERNEL
    MT_NUM_BINARY
} mt_binary_op;

typedef struct {
    double alpha_f; /* alpha of add, value of addcmul/addcdiv, rtol of isclose */
    int64_t alpha_i;
    double alpha_im; /* a complex alpha's imaginary part (alpha_f its real part) */
    double atol;
    bool equal_nan;
    bool has_lo, has_hi;
    int zero_div; /* set by integer division by zero */
} mt_binary_ctx;

/* The inner loop for op on dtype, or NULL when the dtype is not supported. */
mt_loop_fn mt_binary_loop(mt_binary_op op, mt_dtype dtype);
/* Whether the kernel writes bool (its row's out column is PRED). */
static inline bool mt_binary_is_predicate(mt_binary_op op)
{
    switch (op) {
#define MT_BINARY_KERNEL(ID, NAME, OUT, ...) \
    case MT_##ID:                            \
        return MT_KROW_OUT_IS_PRED_##OUT;
#include "pointwise.def"
#undef MT_BINARY_KERNEL
    default:
        return false;
    }
}

#endif
