/* Zero-copy exchange with NumPy arrays, and what NumPy scalars are. */
#define MT_NUMPY_IMPORT
#include "numpy_api.h"
#include "numpy_bridge.h"

int mtpy_numpy_init(void)
{
    import_array1(-1);
    return 0;
}

static int to_npy(mt_dtype d)
{
    switch (d) {
    case MT_BOOL:
        return NPY_BOOL;
    case MT_UINT8:
        return NPY_UINT8;
    case MT_INT8:
        return NPY_INT8;
    case MT_INT16:
        return NPY_INT16;
    case MT_INT32:
        return NPY_INT32;
    case MT_INT64:
        return NPY_INT64;
    case MT_FLOAT16:
        return NPY_FLOAT16;
    case MT_FLOAT32:
        return NPY_FLOAT32;
    case MT_FLOAT64:
        return NPY_FLOAT64;
    case MT_COMPLEX64:
        return NPY_COMPLEX64;
    case MT_COMPLEX128:
        return NPY_COMPLEX128;
    case MT_UINT16:
        return NPY_UINT16;
    case MT_UINT32:
        return NPY_UINT32;
    case MT_UINT64:
        return NPY_UINT64;
    default: /* bfloat16 and complex32 have no NumPy counterpart */
        return -1;
    }
}

static int from_npy(int t)
{
    switch (t) {
    case NPY_BOOL:
        return MT_BOOL;
    case NPY_UINT8:
        return MT_UINT8;
    case NPY_INT8:
        return MT_INT8;
    case NPY_INT16:
        return MT_INT16;
    case NPY_INT32:
        return MT_INT32;
    case NPY_INT64:
        return MT_INT64;
    case NPY_FLOAT16:
        return MT_FLOAT16;
    case NPY_FLOAT32:
        return MT_FLOAT32;
    case NPY_FLOAT64:
        return MT_FLOAT64;
    case NPY_COMPLEX64:
        return MT_COMPLEX64;
    case NPY_COMPLEX128:
        return MT_COMPLEX128;
    case NPY_UINT16:
        return MT_UINT16;
    case NPY_UINT32:
        return MT_UINT32;
    case NPY_UINT64:
        return MT_UINT64;
    default:
        if ((t == NPY_ULONGLONG && sizeof(long long) == 8) || (t == NPY_ULONG && sizeof(long) == 8))
            return MT_UINT64;
        if (t == NPY_UINT && sizeof(int) == 4)
            return MT_UINT32;
        if (t == NPY_LONGLONG && sizeof(long long) == 8)
            return MT_INT64;
        if (t == NPY_LONG && sizeof(long) == 8)
            return MT_INT64;
        if (t == NPY_INT && sizeof(int) == 4)
            return MT_INT32;
        return -1;
    }
}

bool mtpy_is_ndarray(PyObject *o) { return PyArray_Check(o); }

int mtpy_numpy_dtype_of(PyObject *o)
{
    if (PyArray_Check(o))
        return from_npy(PyArray_TYPE((PyArrayObject *)o));
    if (PyArray_IsScalar(o, Generic)) {
        PyArray_Descr *d = PyArray_DescrFromScalar(o);
        if (!d)
            return -1;
        int r = from_npy(d->type_num);
        Py_DECREF(d);
        return r;
    }
    return -1;
}

mtpy_np_scalar_kind mtpy_numpy_scalar_kind(PyObject *o)
{
    if (!PyArray_IsScalar(o, Generic))
        return MTPY_NP_NONE;
    if (PyArray_IsScalar(o, Integer))
        return MTPY_NP_INTEGER;
    if (PyArray_IsScalar(o, Floating))
        return MTPY_NP_FLOATING;
    if (PyArray_IsScalar(o, Bool))
        return MTPY_NP_BOOL;
    if (PyArray_IsScalar(o, ComplexFloating))
        return MTPY_NP_COMPLEX;
    return MTPY_NP_NONE;
}

PyObject *mtpy_to_numpy(PyObject *tensor)
{
    mt_tensor *t = MTPy_T(tensor);
    int npy = to_npy(t->dtype);
    if (npy < 0)
        return PyErr_Format(PyExc_TypeError, "Got unsupported ScalarType %s",
                            mt_dtype_infos[t->dtype].scalar_name);
    npy_intp dims[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) {
        dims[d] = t->sizes[d];
        strides[d] = t->strides[d] * mt_itemsize(t->dtype);
    }
    PyObject *arr = PyArray_New(&PyArray_Type, t->ndim, dims, npy, strides, mt_data(t), 0,
                                NPY_ARRAY_WRITEABLE, NULL);
    if (!arr)
        return NULL;
    if (PyArray_SetBaseObject((PyArrayObject *)arr, Py_NewRef(tensor)) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

static void release_array(void *ctx, void *data)
{
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF((PyObject *)ctx);
    PyGILState_Release(g);
}

PyObject *mtpy_from_numpy(PyObject *obj)
{
    if (!PyArray_Check(obj))
        return PyErr_Format(PyExc_TypeError, "expected np.ndarray (got %s)", Py_TYPE(obj)->tp_name);
    PyArrayObject *arr = (PyArrayObject *)obj;
    int dt = from_npy(PyArray_TYPE(arr));
    if (dt < 0)
        return PyErr_Format(
            PyExc_TypeError,
            "can't convert np.ndarray of type %s. The only supported types are: "
            "float64, float32, float16, int64, int32, int16, int8, uint8, and bool.",
            PyArray_DESCR(arr)->typeobj->tp_name);
    int ndim = PyArray_NDIM(arr);
    if (ndim > MT_MAX_DIMS)
        return PyErr_Format(PyExc_RuntimeError, "minitorch supports at most %d dimensions",
                            MT_MAX_DIMS);
    if (!PyArray_ISNOTSWAPPED(arr))
        return PyErr_Format(
            PyExc_ValueError,
            "given numpy array has byte order different from the native byte order. "
            "Conversion between byte orders is currently not supported.");
    int isz = mt_itemsize((mt_dtype)dt);
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
        sizes[d] = PyArray_DIM(arr, d);
        npy_intp st = PyArray_STRIDE(arr, d);
        if (st % isz != 0)
            return PyErr_Format(PyExc_ValueError,
                                "given numpy array strides not a multiple of the element byte "
                                "size. Copy the numpy array to reallocate the memory.");
        if (st < 0)
            return PyErr_Format(PyExc_ValueError,
                                "At least one stride in the given numpy array is negative, and "
                                "tensors with negative strides are not currently supported. (You "
                                "can probably work around this by making a copy of your array "
                                " with array.copy().) ");
        strides[d] = st / isz;
    }
    mt_storage *st = mt_storage_wrap(PyArray_DATA(arr), (size_t)PyArray_NBYTES(arr), release_array,
                                     Py_NewRef(obj));
    if (!st) {
        Py_DECREF(obj);
        return mtpy_raise();
    }
    MTTensorObject *o = (MTTensorObject *)mtpy_tensor_class->tp_alloc(mtpy_tensor_class, 0);
    if (!o) {
        mt_storage_decref(st);
        return NULL;
    }
    mt_tensor tmp = {.storage = st, .dtype = (mt_dtype)dt};
    if (mt_tensor_init_view(&o->t, &tmp, ndim, sizes, strides, 0) < 0) {
        mt_storage_decref(st);
        Py_DECREF(o);
        return mtpy_raise();
    }
    mt_storage_decref(st); /* the view holds its own reference */
    return (PyObject *)o;
}
