/* The binary operators of the op table with a NumPy operand (the rows of
 * interop/numpy_operands.def): they read a Python object, so they stay in
 * the binding. Each converts the array and runs the plain-C impl of the
 * operator's tensor row of the same name (csrc/ops/pointwise.c), in that
 * row's form. */
#include "../dispatch/function.h"
#include "numpy_bridge.h"

/* torch treats the array as the tensor it converts to. Any other operand type
 * gives NotImplemented, so Python tries the reflected operator and finally
 * raises its own TypeError, as with torch. */
PyObject *impl_numpy_operand(mt_args *a)
{
    PyObject *arr = a->v[1].obj;
    if (!arr || !mtpy_is_ndarray(arr))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *t = mtpy_from_numpy(arr);
    if (!t)
        return NULL;
    /* the recorder reads the row's own argument, the array, after the call */
    mt_value given = a->v[1];
    const mt_op *row = a->op;
    const mt_op *twin = &mt_ops[row->base];
    a->v[1].t = MTPy_T(t);
    a->v[1].is_scalar = false;
    a->op = twin;
    mt_result r = {0};
    PyObject *ret = twin->impl(a, &r) < 0 ? NULL : mtpy_result_object(&r);
    a->op = row;
    a->v[1] = given;
    Py_DECREF(t);
    return ret;
}
