/* The shared driver of elementwise ops: type promotion, broadcasting, output
 * allocation (or out=/in-place checks), and the kernel run. */
#ifndef MT_PYTHON_POINTWISE_H
#define MT_PYTHON_POINTWISE_H

#include "parser.h"
#include "../kernels/iter.h"

/* A tensor operand or a Python number, as the parser produced it. */
typedef struct {
    mt_tensor t;    /* the tensor, or a 0-dim tensor holding the number */
    mt_storage st;  /* backing for a number */
    union {
        double f;
        int64_t i;
        uint8_t b;
    } num;
    mt_operand_kind kind;
} mt_operand;

/* Fills op from a parsed Tensor-or-number value. */
void mt_operand_from(mt_operand *op, const mt_value *v);

typedef struct {
    mt_loop_fn (*loop_for)(int op, mt_dtype compute); /* NULL loop: dtype refused */
    int op;
    void *ctx;
    const char *name; /* for messages */
    bool out_bool;    /* the kernel writes bool whatever the compute dtype */
} mt_kernel_ref;

/* Runs an elementwise op over nin operands.
 * out: an out= tensor or NULL; inplace: write into operand 0.
 * compute: the dtype kernels run in (already decided by the caller).
 * result: dtype of a fresh output; out= and in-place targets must be able to
 * hold it. Returns a new reference. */
PyObject *mt_pointwise(const mt_kernel_ref *k, int nin, mt_operand *in, mt_dtype compute,
                       mt_dtype result, PyObject *out, PyObject *inplace_self);

/* Decides result dtype from operands, as torch.result_type. */
mt_dtype mt_operands_result_type(int n, const mt_operand *ops);

#endif
