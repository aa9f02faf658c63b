/* Elementwise unary kernels: out = f(x), x of the compute dtype; the output
 * is of that dtype too, except for predicates, which write bool. */
#ifndef MT_KERNELS_POINTWISE_UNARY_H
#define MT_KERNELS_POINTWISE_UNARY_H

#include "iter.h"
#include "kernel_rows.h"

/* One per row of pointwise_unary.def, in its order. */
typedef enum {
#define MT_UNARY_KERNEL(ID, ...) MT_UN_##ID,
#include "pointwise_unary.def"
#undef MT_UNARY_KERNEL
    MT_NUM_UNARY
} mt_unary_op;

typedef struct {
    double a, b, c; /* softplus: beta, threshold; nan_to_num: nan, posinf, neginf;
                     * leaky_relu: negative_slope */
    int64_t decimals;
} mt_unary_ctx;

/* The inner loop (data[0] = out, data[1] = x), or NULL when unsupported. */
mt_loop_fn mt_unary_loop(mt_unary_op op, mt_dtype dtype);
/* Whether the kernel writes bool (its row's out column is PRED). */
static inline bool mt_unary_is_predicate(mt_unary_op op)
{
    switch (op) {
#define MT_UNARY_KERNEL(ID, NAME, OUT, ...) \
    case MT_UN_##ID:                        \
        return MT_KROW_OUT_IS_PRED_##OUT;
#include "pointwise_unary.def"
#undef MT_UNARY_KERNEL
    default:
        return false;
    }
}

/* Whether the kernel writes a complex compute dtype's part type (PART). */
static inline bool mt_unary_is_part(mt_unary_op op)
{
    switch (op) {
#define MT_UNARY_KERNEL(ID, NAME, OUT, ...) \
    case MT_UN_##ID:                        \
        return MT_KROW_IS_PART_##OUT;
#include "pointwise_unary.def"
#undef MT_UNARY_KERNEL
    default:
        return false;
    }
}

#endif
