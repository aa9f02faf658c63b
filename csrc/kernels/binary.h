/* Elementwise binary kernels: out = f(a, b), all three of one dtype. */
#ifndef MT_KERNELS_BINARY_H
#define MT_KERNELS_BINARY_H

#include "iter.h"

typedef enum {
    MT_BIN_ADD,
    MT_BIN_MUL,
    MT_NUM_BINARY
} mt_binary_op;

/* Extra operands of a binary kernel: alpha of add/sub. */
typedef struct {
    double alpha_f;
    int64_t alpha_i;
} mt_binary_ctx;

/* The inner loop for op on dtype, or NULL when the dtype is not supported. */
mt_loop_fn mt_binary_loop(mt_binary_op op, mt_dtype dtype);

#endif
