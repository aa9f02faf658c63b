/* Creation functions. */
#include "parser.h"
#include "from_data.h"
#include "numpy_bridge.h"

#include "../kernels/copy.h"

PyObject *impl_tensor(mt_args *a)
{
    PyObject *t = mtpy_from_data(a->v[0].obj ? a->v[0].obj : Py_None,
                                 mt_is_none(a, 1) ? NULL : &a->v[1].dtype, false);
    if (t && a->v[3].b) {
        if (!mt_is_floating(MTPy_T(t)->dtype)) {
            Py_DECREF(t);
            return PyErr_Format(PyExc_RuntimeError,
                                "Only Tensors of floating point and complex dtype can require gradients");
        }
        MTPy_T(t)->flags |= MT_FLAG_REQUIRES_GRAD;
    }
    return t;
}

PyObject *impl_as_tensor(mt_args *a)
{
    return mtpy_from_data(a->v[0].obj ? a->v[0].obj : Py_None,
                          mt_is_none(a, 1) ? NULL : &a->v[1].dtype, true);
}

PyObject *impl_from_numpy(mt_args *a)
{
    return mtpy_from_numpy(a->v[0].obj ? a->v[0].obj : Py_None);
}

/* size, dtype at 1, requires_grad at 4 for every factory of this shape */
static PyObject *factory(mt_args *a, int rg_idx, bool zeroed, bool fill, double value)
{
    mt_dtype d = mt_is_none(a, 1) ? mtpy_default_dtype() : a->v[1].dtype;
    if (a->v[0].nints > MT_MAX_DIMS)
        return PyErr_Format(PyExc_RuntimeError, "minitorch supports at most %d dimensions", MT_MAX_DIMS);
    PyObject *t = mtpy_new_contiguous(d, a->v[0].nints, a->v[0].ints, zeroed);
    if (!t)
        return NULL;
    if (fill)
        mt_fill(MTPy_T(t), value, (int64_t)value, 0);
    if (a->v[rg_idx].b) {
        if (!mt_is_floating(d)) {
            Py_DECREF(t);
            return PyErr_Format(PyExc_RuntimeError,
                                "Only Tensors of floating point and complex dtype can require gradients");
        }
        MTPy_T(t)->flags |= MT_FLAG_REQUIRES_GRAD;
    }
    return t;
}

PyObject *impl_empty(mt_args *a) { return factory(a, 4, false, false, 0); }
PyObject *impl_zeros(mt_args *a) { return factory(a, 4, true, false, 0); }
PyObject *impl_ones(mt_args *a) { return factory(a, 4, false, true, 1); }
