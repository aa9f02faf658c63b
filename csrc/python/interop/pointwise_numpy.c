/* The binary operators of the op table with a NumPy operand (the rows of
 * interop/numpy_operands.def): they read a Python object, so they stay in
 * the binding. Each converts the array and runs the operator's tensor row of
 * the same name (csrc/ops/pointwise.c) on it, whose run records the node
 * autograd needs, with the converted tensor saved where the formula reads
 * it. */
#include "../dispatch/function.h"

#include "../../autograd/record.h"
#include "numpy_bridge.h"
#include "foreign_tensors.h"

/* torch treats the array as the tensor it converts to. A tensor of another
 * library is refused by name (its own reflected operator would only hand
 * the call back to us); any other operand type gives NotImplemented, so
 * Python tries the reflected operator and finally raises its own TypeError,
 * as with torch. */
PyObject *impl_numpy_operand(mt_args *a)
{
    PyObject *arr = a->v[1].obj;
    if (arr && mtpy_is_foreign_tensor(arr)) {
        mtpy_raise_foreign(a->sig->name, "argument 'other'", arr);
        return NULL;
    }
    if (!arr || !mtpy_is_ndarray(arr))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *t = mtpy_from_numpy(arr);
    if (!t)
        return NULL;
    /* this row's own run reads its arguments again after the call */
    mt_value given = a->v[1];
    const mt_op *row = a->op;
    a->v[1].t = MTPy_T(t);
    a->v[1].is_scalar = false;
    mt_result r;
    PyObject *ret = mt_op_run(&mt_ops[row->base], a, &r) < 0
                        ? mtpy_raise()
                        : mtpy_result_object(&r, &mt_ops[row->base]);
    a->op = row;
    a->sig = row->sig;
    a->v[1] = given;
    Py_DECREF(t);
    return ret;
}
