/* The rows of tensor.def whose answers are Python objects: size (a
 * minitorch.Size), stride (a tuple), item, tolist, numpy and __int__ (a
 * Python int of any size). The rows answering plain numbers are in
 * csrc/ops/tensor.c. */
#include "../dispatch/parser.h"
#include "numpy_bridge.h"

#include "../../core/shape.h"
#include "../../ops/tensor.h"
#include "../../autograd/grad_mode.h"
#include "../../autograd/meta.h"

PyObject *mtpy_scalar_at(const mt_tensor *t, const char *p)
{
    mt_scalar s = mt_scalar_at(t, p);
    switch (s.kind) {
    case MT_SCALAR_BOOL:
        return PyBool_FromLong((long)s.i);
    case MT_SCALAR_INT:
        return t->dtype == MT_UINT64 ? PyLong_FromUnsignedLongLong((uint64_t)s.i)
                                     : PyLong_FromLongLong(s.i);
    case MT_SCALAR_COMPLEX:
        return PyComplex_FromDoubles(s.f, s.im);
    default:
        return PyFloat_FromDouble(s.f);
    }
}

static int wrap(int64_t dim, int ndim, int *out)
{
    return mt_wrap_dim(dim, ndim, out) < 0 ? mtpy_raise_int() : 0;
}

PyObject *impl_size(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    if (mt_is_none(a, 1))
        return mtpy_size(t->ndim, t->sizes);
    int d;
    if (wrap(a->v[1].i, t->ndim, &d) < 0)
        return NULL;
    return PyLong_FromLongLong(t->ndim ? t->sizes[d] : 1);
}

PyObject *impl_stride(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    if (mt_is_none(a, 1)) {
        PyObject *tup = PyTuple_New(t->ndim);
        for (int d = 0; tup && d < t->ndim; d++)
            PyTuple_SET_ITEM(tup, d, PyLong_FromLongLong(t->strides[d]));
        return tup;
    }
    int d;
    if (wrap(a->v[1].i, t->ndim, &d) < 0)
        return NULL;
    return PyLong_FromLongLong(t->ndim ? t->strides[d] : 1);
}

PyObject *impl_item(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    if (t->numel != 1)
        return PyErr_Format(PyExc_RuntimeError,
                            "a Tensor with %lld elements cannot be converted to Scalar",
                            (long long)t->numel);
    return mtpy_scalar_at(t, mt_data(t));
}

static PyObject *tolist_rec(const mt_tensor *t, int d, const char *p)
{
    if (d == t->ndim)
        return mtpy_scalar_at(t, p);
    PyObject *list = PyList_New(t->sizes[d]);
    int64_t step = t->strides[d] * mt_itemsize(t->dtype);
    for (int64_t i = 0; list && i < t->sizes[d]; i++) {
        PyObject *v = tolist_rec(t, d + 1, p + i * step);
        if (!v) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

PyObject *impl_tolist(mt_args *a) { return tolist_rec(a->v[0].t, 0, mt_data(a->v[0].t)); }

/* As torch's, the refusal only applies while grad mode is on: under no_grad
 * the array cannot feed a recorded graph. */
PyObject *impl_numpy(mt_args *a)
{
    if (!a->v[1].b && mt_grad_enabled && mt_requires_grad(a->v[0].t))
        return PyErr_Format(PyExc_RuntimeError,
                            "Can't call numpy() on Tensor that requires grad. Use "
                            "tensor.detach().numpy() instead.");
    if (!a->v[1].b && mt_is_conj(a->v[0].t))
        return PyErr_Format(PyExc_RuntimeError,
                            "Can't call numpy() on Tensor that has conjugate bit set. Use "
                            "tensor.resolve_conj().numpy() instead.");
    if (mt_is_conj(a->v[0].t)) {
        /* force=True: a copy with the bit resolved, as torch's */
        PyObject *resolved = PyObject_CallMethod(a->v[0].obj, "resolve_conj", NULL);
        PyObject *arr = resolved ? mtpy_to_numpy(resolved) : NULL;
        Py_XDECREF(resolved);
        return arr;
    }
    return mtpy_to_numpy(a->v[0].obj);
}

/* A float element becomes a Python int of whatever size it needs, NaN and
 * infinity raising as int() does; a bool element stays a bool. */
PyObject *impl_int(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    if (t->numel != 1)
        return PyErr_Format(PyExc_TypeError,
                            "only one element tensors can be converted to Python scalars");
    /* torch converts through int64 */
    if (t->dtype == MT_UINT64 && *(const uint64_t *)mt_data(t) > (uint64_t)INT64_MAX)
        return PyErr_Format(PyExc_RuntimeError,
                            "value cannot be converted to type int64_t without overflow");
    PyObject *v = mtpy_scalar_at(t, mt_data(t));
    if (!v || PyLong_Check(v))
        return v;
    Py_SETREF(v, PyNumber_Long(v));
    return v;
}
