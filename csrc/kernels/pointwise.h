/* Elementwise binary and ternary kernels over operands of one compute dtype.
 * The output is of that dtype too, except for predicates, which write bool. */
#ifndef MT_KERNELS_POINTWISE_H
#define MT_KERNELS_POINTWISE_H

#include "iter.h"

typedef enum {
    MT_BIN_ADD, /* x + alpha * y; sub is add with -alpha */
    MT_BIN_MUL,
    MT_BIN_DIV,
    MT_BIN_DIV_TRUNC,
    MT_BIN_DIV_FLOOR,
    MT_BIN_REMAINDER,
    MT_BIN_FMOD,
    MT_BIN_POW,
    MT_BIN_MAXIMUM,
    MT_BIN_MINIMUM,
    MT_BIN_FMAX,
    MT_BIN_FMIN,
    MT_BIN_ATAN2,
    MT_BIN_HYPOT,
    MT_BIN_COPYSIGN,
    MT_BIN_XLOGY,      /* x * log(y), 0 where x is 0 unless y is NaN */
    MT_BIN_LOGADDEXP,  /* log(exp(x) + exp(y)) */
    MT_BIN_LOGADDEXP2, /* log2(2**x + 2**y) */
    MT_BIN_BITAND,
    MT_BIN_BITOR,
    MT_BIN_BITXOR,
    MT_BIN_LSHIFT,
    MT_BIN_RSHIFT,
    /* predicates: bool output */
    MT_BIN_EQ,
    MT_BIN_NE,
    MT_BIN_LT,
    MT_BIN_LE,
    MT_BIN_GT,
    MT_BIN_GE,
    MT_BIN_LOGICAL_AND,
    MT_BIN_LOGICAL_OR,
    MT_BIN_LOGICAL_XOR,
    MT_BIN_ISCLOSE,
    /* ternary: three inputs */
    MT_TER_WHERE,   /* cond ? x : y (cond converted to the compute dtype) */
    MT_TER_CLAMP,   /* clamp(x, lo, hi); absent bounds flagged in ctx */
    MT_TER_LERP,    /* start + weight * (end - start) */
    MT_TER_ADDCMUL, /* x + alpha * y * z */
    MT_TER_ADDCDIV, /* x + alpha * y / z */
    MT_NUM_BINARY
} mt_binary_op;

typedef struct {
    double alpha_f; /* alpha of add, value of addcmul/addcdiv, rtol of isclose */
    int64_t alpha_i;
    double atol;
    bool equal_nan;
    bool has_lo, has_hi;
    int zero_div; /* set by integer division by zero */
} mt_binary_ctx;

/* The inner loop for op on dtype, or NULL when the dtype is not supported. */
mt_loop_fn mt_binary_loop(mt_binary_op op, mt_dtype dtype);
static inline bool mt_binary_is_predicate(mt_binary_op op)
{
    return op >= MT_BIN_EQ && op <= MT_BIN_ISCLOSE;
}

#endif
