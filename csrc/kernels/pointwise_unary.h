/* Elementwise unary kernels: out = f(x), x of the compute dtype; the output
 * is of that dtype too, except for predicates, which write bool. */
#ifndef MT_KERNELS_POINTWISE_UNARY_H
#define MT_KERNELS_POINTWISE_UNARY_H

#include "iter.h"

typedef enum {
    /* floats only */
    MT_UN_EXP, MT_UN_EXP2, MT_UN_EXPM1, MT_UN_LOG, MT_UN_LOG2, MT_UN_LOG10, MT_UN_LOG1P,
    MT_UN_SQRT, MT_UN_RSQRT, MT_UN_SIN, MT_UN_COS, MT_UN_TAN, MT_UN_ASIN, MT_UN_ACOS,
    MT_UN_ATAN, MT_UN_ASINH, MT_UN_ACOSH, MT_UN_ATANH, MT_UN_SINH, MT_UN_COSH, MT_UN_TANH, MT_UN_SIGMOID, MT_UN_GELU,
    MT_UN_GELU_TANH, MT_UN_SILU, MT_UN_SOFTPLUS, MT_UN_LEAKY_RELU, MT_UN_ERF, MT_UN_ERFC, MT_UN_RECIPROCAL,
    MT_UN_FRAC, MT_UN_ROUND_DECIMALS,
    /* integers and floats; rounding and nan_to_num are the identity on integers */
    MT_UN_NEG, MT_UN_ABS, MT_UN_RELU, MT_UN_SQUARE, MT_UN_FLOOR, MT_UN_CEIL, MT_UN_ROUND,
    MT_UN_TRUNC, MT_UN_NAN_TO_NUM,
    /* every dtype */
    MT_UN_SIGN,
    /* bool and integers */
    MT_UN_BITWISE_NOT,
    /* predicates: bool output, every dtype */
    MT_UN_ISNAN, MT_UN_ISINF, MT_UN_ISFINITE, MT_UN_LOGICAL_NOT, MT_UN_SIGNBIT,
    MT_NUM_UNARY
} mt_unary_op;

typedef struct {
    double a, b, c; /* softplus: beta, threshold; nan_to_num: nan, posinf, neginf;
                     * leaky_relu: negative_slope */
    int64_t decimals;
} mt_unary_ctx;

/* The inner loop (data[0] = out, data[1] = x), or NULL when unsupported. */
mt_loop_fn mt_unary_loop(mt_unary_op op, mt_dtype dtype);
static inline bool mt_unary_is_predicate(mt_unary_op op) { return op >= MT_UN_ISNAN; }

#endif
