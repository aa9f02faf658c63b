/* The binary operators of the op table with a NumPy operand (the `_np` rows
 * of csrc/ops/pointwise.def): they read a Python object, so they stay in the
 * binding. Each converts the array and runs the plain-C impl of the
 * operator's tensor row (csrc/ops/pointwise.c). */
#include "../dispatch/function.h"
#include "numpy_bridge.h"

/* torch treats the array as the tensor it converts to. Any other operand type
 * gives NotImplemented, so Python tries the reflected operator and finally
 * raises its own TypeError, as with torch. */
static PyObject *with_ndarray(mt_args *a, mt_impl_fn impl)
{
    PyObject *arr = a->v[1].obj;
    if (!arr || !mtpy_is_ndarray(arr))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *t = mtpy_from_numpy(arr);
    if (!t)
        return NULL;
    /* the recorder reads the row's own argument, the array, after the call */
    mt_value given = a->v[1];
    a->v[1].t = MTPy_T(t);
    a->v[1].is_scalar = false;
    mt_result r = {0};
    PyObject *ret = impl(a, &r) < 0 ? NULL : mtpy_result_object(&r);
    a->v[1] = given;
    Py_DECREF(t);
    return ret;
}

#define NP(IMPL)                        \
    int IMPL(mt_args *a, mt_result *r); \
    PyObject *IMPL##_np(mt_args *a) { return with_ndarray(a, IMPL); }
NP(impl_add_dunder) NP(impl_iadd) NP(impl_sub_dunder) NP(impl_rsub_dunder) NP(impl_isub)
NP(impl_mul_dunder) NP(impl_mul_) NP(impl_truediv_dunder) NP(impl_rtruediv_dunder)
NP(impl_true_divide_) NP(impl_floordiv_dunder) NP(impl_rfloordiv_dunder) NP(impl_floor_divide_)
NP(impl_mod_dunder) NP(impl_rmod_dunder) NP(impl_remainder_) NP(impl_pow_dunder)
NP(impl_rpow_dunder) NP(impl_pow_) NP(impl_and_dunder) NP(impl_bitwise_and_) NP(impl_or_dunder)
NP(impl_bitwise_or_) NP(impl_xor_dunder) NP(impl_bitwise_xor_) NP(impl_lshift_dunder)
NP(impl_rlshift_dunder) NP(impl_lshift_) NP(impl_rshift_dunder) NP(impl_rrshift_dunder)
NP(impl_rshift_) NP(impl_eq_dunder) NP(impl_ne_dunder) NP(impl_lt_dunder) NP(impl_le_dunder)
NP(impl_gt_dunder) NP(impl_ge_dunder)
