/* outer and ger, the one matrix product that runs the elementwise driver:
 * a broadcast multiply in torch, promotion and bool included. It stays in
 * the binding while that driver (pointwise.h) does. */
#include "pointwise.h"

#include "../kernels/binary.h"
#include "../ops/out_param.h"

PyObject *impl_outer(mt_args *a)
{
    const mt_tensor *x = a->v[0].t, *y = a->v[1].t;
    if (x->ndim != 1)
        return PyErr_Format(PyExc_RuntimeError, "outer: Expected 1-D argument self, but got %d-D",
                            x->ndim);
    if (y->ndim != 1)
        return PyErr_Format(PyExc_RuntimeError, "outer: Expected 1-D argument vec2, but got %d-D",
                            y->ndim);
    mt_operand in[2] = {{.t = *x, .kind = MT_OPERAND_DIM}, {.t = *y, .kind = MT_OPERAND_DIM}};
    in[0].t.ndim = 2;
    in[0].t.sizes[1] = 1;
    in[0].t.strides[1] = 0;
    mt_dtype result = mt_operands_result_type(2, in);
    int64_t shape[2] = {x->sizes[0], y->sizes[0]};
    PyObject *out = mt_is_none(a, 2) ? NULL : a->v[2].obj;
    if (out && mt_resize_out(MTPy_T(out), 2, shape, NULL) < 0)
        return NULL;
    mt_binary_ctx ctx = {1.0, 1};
    mt_kernel_ref k = {(mt_loop_fn(*)(int, mt_dtype))mt_binary_loop, MT_BIN_MUL, &ctx, "mul"};
    return mt_pointwise(&k, 2, in, result, result, out, NULL);
}
