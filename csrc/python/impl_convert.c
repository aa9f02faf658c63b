/* dtype conversions, copy_ and result_type. */
#include "parser.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../ops/elementwise.h"

#include <string.h>

/* A copy of t converted to dtype, laid out like t when t is dense. */
static PyObject *converted(mt_tensor *t, mt_dtype dtype)
{
    PyObject *out;
    if (mt_tensor_is_non_overlapping_and_dense(t))
        out = mtpy_new_strided(dtype, t->ndim, t->sizes, t->strides);
    else
        out = mtpy_new_contiguous(dtype, t->ndim, t->sizes, false);
    if (out)
        mt_copy(MTPy_T(out), t);
    return out;
}

/* torch's to(): self when nothing changes and no copy is asked for. */
static PyObject *to_dtype(mt_args *a, mt_dtype dtype, bool copy)
{
    mt_tensor *t = a->v[0].t;
    if (!copy && t->dtype == dtype)
        return Py_NewRef(a->v[0].obj);
    return converted(t, dtype);
}

PyObject *impl_to_dtype(mt_args *a) { return to_dtype(a, a->v[1].dtype, a->v[3].b); }
PyObject *impl_to_other(mt_args *a) { return to_dtype(a, a->v[1].t->dtype, a->v[3].b); }

PyObject *impl_to_device(mt_args *a)
{
    return to_dtype(a, mt_is_none(a, 2) ? a->v[0].t->dtype : a->v[2].dtype, a->v[4].b);
}

/* The legacy tensor type names, indexed by dtype. */
static const char *const type_names[MT_NUM_DTYPES] = {
    "BoolTensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor",
    "LongTensor", "HalfTensor", "BFloat16Tensor", "FloatTensor", "DoubleTensor",
};

PyObject *impl_type(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    PyObject *o = a->v[1].obj;
    mt_dtype d;
    if (!o)
        return PyUnicode_FromFormat("minitorch.%s", type_names[t->dtype]);
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s)
            return NULL;
        const char *name = strncmp(s, "minitorch.", 10) == 0 ? s + 10
                           : strncmp(s, "torch.", 6) == 0    ? s + 6
                                                             : NULL;
        int k = MT_NUM_DTYPES;
        for (k = 0; name && k < MT_NUM_DTYPES; k++)
            if (strcmp(name, type_names[k]) == 0)
                break;
        if (!name || k == MT_NUM_DTYPES)
            return PyErr_Format(PyExc_ValueError, "invalid type: '%s'", s);
        d = (mt_dtype)k;
    } else if (PyType_Check(o) && PyType_IsSubtype((PyTypeObject *)o, &MTTensorBase_Type)) {
        d = t->dtype;
    } else if (mtpy_dtype_from(o, &d) < 0) {
        return NULL;
    }
    return to_dtype(a, d, false);
}

/* float(), double(), ...: the dtype is named by the method. */
PyObject *impl_cast_named(mt_args *a)
{
    static const struct {
        const char *name;
        mt_dtype dtype;
    } names[] = {
        {"float", MT_FLOAT32}, {"double", MT_FLOAT64}, {"half", MT_FLOAT16},
        {"bfloat16", MT_BFLOAT16}, {"long", MT_INT64}, {"int", MT_INT32},
        {"short", MT_INT16}, {"char", MT_INT8}, {"byte", MT_UINT8}, {"bool", MT_BOOL},
    };
    const char *name = mt_signature_name(a->sig);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(name, names[k].name) == 0)
            return to_dtype(a, names[k].dtype, false);
    return PyErr_Format(PyExc_SystemError, "no dtype for %s()", name);
}

static bool overlaps(const mt_tensor *x, const mt_tensor *y)
{
    return x->storage == y->storage;
}

PyObject *impl_copy_(mt_args *a)
{
    mt_tensor *dst = a->v[0].t, *src = a->v[1].t;
    int n = dst->ndim;
    int64_t shape[MT_MAX_DIMS];
    memcpy(shape, dst->sizes, sizeof(int64_t) * n);
    if (mt_broadcast_into(&n, shape, src->ndim, src->sizes) < 0)
        return mtpy_raise();
    if (n != dst->ndim || memcmp(shape, dst->sizes, sizeof(int64_t) * n) != 0) {
        char want[256], got[256];
        mt_format_shape(want, sizeof want, dst->ndim, dst->sizes);
        mt_format_shape(got, sizeof got, n, shape);
        return PyErr_Format(PyExc_RuntimeError,
                            "output with shape %s doesn't match the broadcast shape %s", want, got);
    }
    PyObject *tmp = NULL;
    if (overlaps(dst, src) && dst != src) {
        /* read everything before writing when the memory is shared */
        tmp = converted(src, src->dtype);
        if (!tmp)
            return NULL;
        src = MTPy_T(tmp);
    }
    mt_copy(dst, src);
    Py_XDECREF(tmp);
    dst->storage->version++;
    return Py_NewRef(a->v[0].obj);
}

PyObject *impl_result_type(mt_args *a)
{
    mt_operand in[2];
    mt_operand_from(&in[0], &a->v[0]);
    mt_operand_from(&in[1], &a->v[1]);
    return Py_NewRef(mtpy_dtype_obj(mt_operands_result_type(2, in)));
}
