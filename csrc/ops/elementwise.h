/* The shared driver of elementwise ops: type promotion, broadcasting, output
 * allocation (or out=/in-place checks) and the kernel run. Plain C, like all
 * of csrc/ops: it takes and returns mt_tensor and reports through mt_error;
 * the pointwise family and any op that is a broadcast elementwise kernel
 * (outer) run through it. */
#ifndef MT_OPS_ELEMENTWISE_H
#define MT_OPS_ELEMENTWISE_H

#include "runtime/args.h"

#include "../kernels/iter.h"

/* A tensor operand or a number given for a Tensor parameter. */
typedef struct {
    mt_tensor t;   /* the tensor, or a 0-dim tensor holding the number */
    mt_storage st; /* backing for a number */
    union {
        double f;
        int64_t i;
        uint8_t b;
        double c[2]; /* a complex number: real, imaginary */
    } num;
    mt_operand_kind kind;
} mt_operand;

/* Fills op from a Tensor-or-number argument. */
void mt_operand_from(mt_operand *op, const mt_value *v);

typedef struct {
    mt_loop_fn (*loop_for)(int op, mt_dtype compute); /* NULL loop: dtype refused */
    int op;
    void *ctx;
    const char *name; /* for messages */
    bool out_bool;    /* the kernel writes bool whatever the compute dtype */
    bool out_part;    /* the kernel writes a complex compute dtype's part type */
} mt_kernel_ref;

/* Runs an elementwise op over nin operands.
 * out: an out= tensor or NULL; inplace_self: operand 0's tensor when the op
 * writes into it, else NULL.
 * compute: the dtype kernels run in (already decided by the caller).
 * result: dtype of a fresh output; out= and in-place targets must be able to
 * hold it. Returns a new reference, or NULL with an mt_error set. */
mt_tensor *mt_pointwise(const mt_kernel_ref *k, int nin, mt_operand *in, mt_dtype compute,
                        mt_dtype result, mt_tensor *out, mt_tensor *inplace_self);

/* Decides result dtype from operands, as torch.result_type. */
mt_dtype mt_operands_result_type(int n, const mt_operand *ops);
/* The same into *out, or -1 with torch's error where it refuses to promote
 * (uint16/32/64 with other integers). */
int mt_operands_result_type_checked(int n, const mt_operand *ops, mt_dtype *out);

#endif
