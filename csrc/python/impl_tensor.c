/* Tensor metadata and conversions to Python values. */
#include "parser.h"
#include "numpy_bridge.h"

#include "../core/half.h"
#include "../core/shape.h"

PyObject *mtpy_scalar_at(const mt_tensor *t, const char *p)
{
    switch (t->dtype) {
    case MT_BOOL: return PyBool_FromLong(*(const uint8_t *)p != 0);
    case MT_UINT8: return PyLong_FromLong(*(const uint8_t *)p);
    case MT_INT8: return PyLong_FromLong(*(const int8_t *)p);
    case MT_INT16: return PyLong_FromLong(*(const int16_t *)p);
    case MT_INT32: return PyLong_FromLong(*(const int32_t *)p);
    case MT_INT64: return PyLong_FromLongLong(*(const int64_t *)p);
    case MT_FLOAT16: return PyFloat_FromDouble((double)*(const mt_f16 *)p);
    case MT_BFLOAT16: return PyFloat_FromDouble(mt_bf16_to_float(*(const mt_bf16 *)p));
    case MT_FLOAT32: return PyFloat_FromDouble(*(const float *)p);
    case MT_FLOAT64: return PyFloat_FromDouble(*(const double *)p);
    default: break;
    }
    return PyErr_Format(PyExc_RuntimeError, "unknown dtype");
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

PyObject *impl_dim(mt_args *a) { return PyLong_FromLong(a->v[0].t->ndim); }
PyObject *impl_numel(mt_args *a) { return PyLong_FromLongLong(a->v[0].t->numel); }
PyObject *impl_element_size(mt_args *a) { return PyLong_FromLong(mt_itemsize(a->v[0].t->dtype)); }
PyObject *impl_storage_offset(mt_args *a) { return PyLong_FromLongLong(a->v[0].t->offset); }
PyObject *impl_data_ptr(mt_args *a) { return PyLong_FromVoidPtr(mt_data(a->v[0].t)); }
PyObject *impl_is_contiguous(mt_args *a) { return PyBool_FromLong(mt_tensor_is_contiguous(a->v[0].t)); }
PyObject *impl_is_floating_point(mt_args *a) { return PyBool_FromLong(mt_is_floating(a->v[0].t->dtype)); }

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

PyObject *impl_tolist(mt_args *a)
{
    return tolist_rec(a->v[0].t, 0, mt_data(a->v[0].t));
}

PyObject *impl_numpy(mt_args *a)
{
    if (a->v[0].t->flags & MT_FLAG_REQUIRES_GRAD)
        return PyErr_Format(PyExc_RuntimeError,
                            "Can't call numpy() on Tensor that requires grad. Use "
                            "tensor.detach().numpy() instead.");
    return mtpy_to_numpy(a->v[0].obj);
}

PyObject *impl_len(mt_args *a)
{
    if (a->v[0].t->ndim == 0)
        return PyErr_Format(PyExc_TypeError, "len() of a 0-d tensor");
    return PyLong_FromLongLong(a->v[0].t->sizes[0]);
}

PyObject *impl_bool(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    if (t->numel == 0)
        return PyErr_Format(PyExc_RuntimeError, "Boolean value of Tensor with no values is ambiguous");
    if (t->numel > 1)
        return PyErr_Format(PyExc_RuntimeError,
                            "Boolean value of Tensor with more than one value is ambiguous");
    PyObject *v = mtpy_scalar_at(t, mt_data(t));
    if (!v)
        return NULL;
    int truth = PyObject_IsTrue(v);
    Py_DECREF(v);
    return truth < 0 ? NULL : PyBool_FromLong(truth);
}

static PyObject *single(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    if (t->numel != 1)
        return PyErr_Format(PyExc_TypeError, "only one element tensors can be converted to Python scalars");
    return mtpy_scalar_at(t, mt_data(t));
}

PyObject *impl_int(mt_args *a)
{
    PyObject *v = single(a);
    if (!v || PyLong_Check(v))
        return v;
    Py_SETREF(v, PyNumber_Long(v));
    return v;
}

PyObject *impl_float(mt_args *a)
{
    PyObject *v = single(a);
    if (!v || PyFloat_Check(v))
        return v;
    Py_SETREF(v, PyNumber_Float(v));
    return v;
}

PyObject *impl_index(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    if (t->numel != 1 || !mt_is_integral(t->dtype, true))
        return PyErr_Format(PyExc_TypeError,
                            "only integer tensors of a single element can be converted to an index");
    PyObject *v = mtpy_scalar_at(t, mt_data(t));
    if (v && PyBool_Check(v))
        Py_SETREF(v, PyNumber_Long(v));
    return v;
}
