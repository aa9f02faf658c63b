/* Elementwise ops of the op table. */
#include "pointwise.h"

#include "../kernels/binary.h"

static mt_loop_fn binary_loop_for(int op, mt_dtype d)
{
    return mt_binary_loop((mt_binary_op)op, d);
}

/* input (op) other [* alpha], optionally in place or into out=. */
static PyObject *binary(mt_args *a, mt_binary_op op, const char *name, int alpha_idx,
                        int out_idx, bool inplace)
{
    mt_operand in[2];
    mt_operand_from(&in[0], &a->v[0]);
    mt_operand_from(&in[1], &a->v[1]);
    mt_dtype result = mt_operands_result_type(2, in);
    mt_binary_ctx ctx = {1.0, 1};
    if (alpha_idx >= 0) {
        const mt_scalar *al = &a->v[alpha_idx].s;
        if (al->kind == MT_SCALAR_FLOAT && !mt_is_floating(result))
            return PyErr_Format(PyExc_RuntimeError,
                                "For integral input tensors, argument alpha must not be a "
                                "floating point number.");
        if (result == MT_BOOL && al->kind != MT_SCALAR_BOOL)
            return PyErr_Format(PyExc_RuntimeError,
                                "Boolean alpha only supported for Boolean results.");
        ctx.alpha_f = al->f;
        ctx.alpha_i = al->i;
    }
    mt_kernel_ref k = {binary_loop_for, op, &ctx, name};
    PyObject *out = out_idx >= 0 && !mt_is_none(a, out_idx) ? a->v[out_idx].obj : NULL;
    PyObject *self = inplace ? a->v[0].obj : NULL;
    return mt_pointwise(&k, 2, in, result, result, out, self);
}

PyObject *impl_add(mt_args *a) { return binary(a, MT_BIN_ADD, "add", 2, 3, false); }
PyObject *impl_add_(mt_args *a) { return binary(a, MT_BIN_ADD, "add", 2, -1, true); }
PyObject *impl_add_dunder(mt_args *a) { return binary(a, MT_BIN_ADD, "add", -1, -1, false); }
PyObject *impl_iadd(mt_args *a) { return binary(a, MT_BIN_ADD, "add", -1, -1, true); }
PyObject *impl_mul(mt_args *a) { return binary(a, MT_BIN_MUL, "mul", -1, 2, false); }
PyObject *impl_mul_(mt_args *a) { return binary(a, MT_BIN_MUL, "mul", -1, -1, true); }
PyObject *impl_mul_dunder(mt_args *a) { return binary(a, MT_BIN_MUL, "mul", -1, -1, false); }
