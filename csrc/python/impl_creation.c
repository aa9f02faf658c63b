/* Creation functions. */
#include "factory.h"
#include "from_data.h"
#include "numpy_bridge.h"

#include "../kernels/copy.h"

PyObject *impl_tensor(mt_args *a)
{
    return mtpy_with_requires_grad(
        mtpy_from_data(a->v[0].obj ? a->v[0].obj : Py_None,
                       mt_is_none(a, 1) ? NULL : &a->v[1].dtype, false),
        a->v[3].b);
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
static PyObject *factory(mt_args *a, bool zeroed, bool fill, double value)
{
    mt_dtype d = mtpy_dtype_arg(a, 1, mtpy_default_dtype());
    PyObject *t = mtpy_new_contiguous(d, a->v[0].nints, a->v[0].ints, zeroed);
    if (t && fill)
        mt_fill(MTPy_T(t), value, (int64_t)value, 0);
    return mtpy_with_requires_grad(t, a->v[4].b);
}

PyObject *impl_empty(mt_args *a) { return factory(a, false, false, 0); }
PyObject *impl_zeros(mt_args *a)
{
    for (int i = 0; i < a->v[0].nints; i++)
        if (a->v[0].ints[i] < 0)
            return PyErr_Format(PyExc_RuntimeError, "zeros: Dimension size must be non-negative.");
    return factory(a, true, false, 0);
}
PyObject *impl_ones(mt_args *a) { return factory(a, false, true, 1); }
