/* Tensors from Python data: nested sequences, numbers, NumPy arrays and
 * scalars, tensors, and tensors of other libraries. */
#include "from_data.h"
#include "numpy_bridge.h"
#include "foreign_tensors.h"

#include "../../kernels/copy.h"
#include "../../core/shape.h"

#include <string.h>

static int ndarray_ndim(PyObject *o)
{
    PyObject *n = PyObject_GetAttrString(o, "ndim");
    if (!n)
        return -1;
    int v = (int)PyLong_AsLong(n);
    Py_DECREF(n);
    return v;
}

static bool is_sequence(PyObject *o)
{
    if (PyList_Check(o) || PyTuple_Check(o))
        return true;
    if (MTPy_Check(o))
        return MTPy_T(o)->ndim > 0;
    if (mtpy_is_ndarray(o))
        return ndarray_ndim(o) > 0;
    return false;
}

/* torch checks the nesting while it stores, so a bad nesting only raises
 * when there is something to store; the dtype comes from every leaf, an
 * empty sequence counting as the default dtype. */
typedef enum {
    NEST_OK,
    NEST_LENGTH,
    NEST_NOT_SEQUENCE,
    NEST_MISPLACED,
    NEST_NOT_SCALAR
} nest_error;

typedef struct {
    int ndim;
    int64_t sizes[MT_MAX_DIMS];
    int has_dtype; /* inferred dtype so far */
    mt_dtype dtype;
    bool leaf_seen;   /* a scalar fixed the number of dims */
    nest_error error; /* the first bad nesting, raised by raise_nesting() */
    int64_t expected, got;
    int error_dim;
    const char *misplaced; /* type of a sequence found where a scalar belongs */
} shape_info;

static void join_dtype(shape_info *s, mt_dtype d)
{
    s->dtype = s->has_dtype ? mt_promote_types(s->dtype, d) : d;
    s->has_dtype = 1;
}

/* A NumPy scalar keeps its own dtype (np.float64 is a float too, but
 * tensor([np.float64(2)]) is float64, as in torch). */
static int scalar_dtype(PyObject *o, mt_dtype *d)
{
    int nd;
    if (PyBool_Check(o))
        *d = MT_BOOL;
    else if (PyLong_CheckExact(o))
        *d = MT_INT64;
    else if (PyFloat_CheckExact(o))
        *d = mtpy_default_dtype();
    else if (MTPy_Check(o))
        *d = MTPy_T(o)->dtype;
    else if ((nd = mtpy_numpy_dtype_of(o)) >= 0)
        *d = (mt_dtype)nd;
    else if (PyLong_Check(o))
        *d = MT_INT64;
    else if (PyFloat_Check(o))
        *d = mtpy_default_dtype();
    else if (PyComplex_Check(o))
        *d = mt_complex_of(mtpy_default_dtype());
    else {
        if (PyUnicode_Check(o) || PyBytes_Check(o))
            PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", Py_TYPE(o)->tp_name);
        else
            PyErr_Format(PyExc_RuntimeError, "Could not infer dtype of %s", Py_TYPE(o)->tp_name);
        return -1;
    }
    return 0;
}

static int raise_nesting(const shape_info *s)
{
    switch (s->error) {
    case NEST_LENGTH:
        PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got %lld)",
                     (long long)s->expected, s->error_dim, (long long)s->got);
        break;
    case NEST_NOT_SEQUENCE:
        PyErr_SetString(PyExc_TypeError, "not a sequence");
        break;
    case NEST_NOT_SCALAR:
        if (strcmp(s->misplaced, "numpy.ndarray") == 0)
            PyErr_SetString(PyExc_TypeError,
                            "only 0-dimensional arrays can be converted to Python scalars");
        else
            PyErr_SetString(PyExc_ValueError,
                            "only one element tensors can be converted to Python scalars");
        break;
    case NEST_MISPLACED:
        if (s->has_dtype && mt_is_floating(s->dtype))
            PyErr_Format(PyExc_TypeError, "must be real number, not %s", s->misplaced);
        else
            PyErr_Format(PyExc_TypeError, "'%s' object cannot be interpreted as an integer",
                         s->misplaced);
        break;
    default:
        return 0;
    }
    return -1;
}

static void nesting_error(shape_info *s, nest_error e, int64_t expected, int dim, int64_t got)
{
    if (s->error != NEST_OK)
        return;
    s->error = e;
    s->expected = expected;
    s->error_dim = dim;
    s->got = got;
}

/* Joins the dtypes of everything in a badly nested subtree. */
static int infer_dtype_only(PyObject *o, shape_info *s)
{
    if (!PyList_Check(o) && !PyTuple_Check(o)) {
        mt_dtype d;
        if (scalar_dtype(o, &d) < 0)
            return -1;
        join_dtype(s, d);
        return 0;
    }
    if (PySequence_Fast_GET_SIZE(o) == 0)
        join_dtype(s, mtpy_default_dtype());
    /* the list is read live, item by item, as Python code run on one item
     * (a NumPy scalar's dtype) may change it */
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); i++) {
        if (Py_EnterRecursiveCall(" while building a tensor"))
            return -1;
        PyObject *item = Py_NewRef(PySequence_Fast_GET_ITEM(o, i));
        int r = infer_dtype_only(item, s);
        Py_DECREF(item);
        Py_LeaveRecursiveCall();
        if (r < 0)
            return -1;
    }
    return 0;
}

/* First pass: shape from the first elements, dtype from every leaf, and the
 * first bad nesting (every sequence at a depth must have the same length). */
static int infer(PyObject *o, int depth, shape_info *s)
{
    if (!is_sequence(o)) {
        /* torch measures the shape along first elements, where a str counts as
         * a sequence that never ends */
        if (PyUnicode_Check(o) && PyUnicode_GET_LENGTH(o) && !s->leaf_seen && depth > 0) {
            PyErr_Format(PyExc_ValueError, "too many dimensions '%s'", Py_TYPE(o)->tp_name);
            return -1;
        }
        if (depth < s->ndim)
            nesting_error(s, NEST_NOT_SEQUENCE, 0, 0, 0);
        mt_dtype d;
        if (scalar_dtype(o, &d) < 0)
            return -1;
        join_dtype(s, d);
        s->leaf_seen = true;
        return 0;
    }
    if (MTPy_Check(o) || mtpy_is_ndarray(o)) {
        /* a tensor or array inside a list contributes its shape and dtype,
         * read from its memory (a subclass's shape property may say
         * anything) */
        PyObject *t = MTPy_Check(o) ? Py_NewRef(o) : mtpy_from_numpy(o);
        if (!t)
            return -1;
        const mt_tensor *src = MTPy_T(t);
        int n = src->ndim;
        if (depth + n > MT_MAX_DIMS) {
            Py_DECREF(t);
            PyErr_Format(PyExc_ValueError, "too many dimensions");
            return -1;
        }
        int64_t beyond = 1; /* elements per leaf position, when it reaches past the leaves */
        for (int k = 0; k < n; k++) {
            int64_t v = src->sizes[k];
            if (depth + k < s->ndim) {
                if (s->sizes[depth + k] != v)
                    nesting_error(s, NEST_LENGTH, s->sizes[depth + k], (int)(depth + k), v);
            } else if (!s->leaf_seen) {
                s->sizes[s->ndim++] = v;
            } else {
                beyond *= v;
            }
        }
        join_dtype(s, src->dtype);
        Py_DECREF(t);
        /* fill() copies the whole operand: it must cover exactly its place */
        if (depth + n < s->ndim)
            nesting_error(s, NEST_NOT_SEQUENCE, 0, 0, 0);
        else if (beyond != 1 && s->error == NEST_OK) {
            s->error = NEST_NOT_SCALAR;
            s->misplaced = Py_TYPE(o)->tp_name;
        }
        s->leaf_seen = true;
        return 0;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if (depth >= s->ndim && s->leaf_seen) {
        if (s->error == NEST_OK) {
            s->error = NEST_MISPLACED;
            s->misplaced = Py_TYPE(o)->tp_name;
        }
        return infer_dtype_only(o, s);
    }
    if (depth == s->ndim) {
        if (s->ndim == MT_MAX_DIMS) {
            PyErr_Format(PyExc_ValueError, "too many dimensions");
            return -1;
        }
        s->sizes[s->ndim++] = n;
    } else if (s->sizes[depth] != n) {
        nesting_error(s, NEST_LENGTH, s->sizes[depth], depth, n);
        return infer_dtype_only(o, s);
    }
    if (n == 0) {
        join_dtype(s, mtpy_default_dtype());
        s->leaf_seen = true;
    }
    for (Py_ssize_t i = 0; i < n && i < PySequence_Fast_GET_SIZE(o); i++) {
        if (Py_EnterRecursiveCall(" while building a tensor"))
            return -1;
        PyObject *item = Py_NewRef(PySequence_Fast_GET_ITEM(o, i));
        int r = infer(item, depth + 1, s);
        Py_DECREF(item);
        Py_LeaveRecursiveCall();
        if (r < 0)
            return -1;
    }
    return 0;
}

/* torch's checked conversion into integer dtypes: floats (and NaN) must lie in
 * the type's range; ints must too, except that negative ints wrap into the
 * unsigned dtypes (down to -max; any int64 into uint64). */
static bool int_overflows(mt_dtype d, bool is_int, int64_t i, double f)
{
    static const double lo[MT_NUM_DTYPES] = {[MT_INT8] = -128,
                                             [MT_INT16] = -32768,
                                             [MT_INT32] = -2147483648.0,
                                             [MT_INT64] = -9223372036854775808.0};
    static const double hi[MT_NUM_DTYPES] = {[MT_UINT8] = 255,
                                             [MT_INT8] = 127,
                                             [MT_INT16] = 32767,
                                             [MT_INT32] = 2147483647.0,
                                             [MT_INT64] = 9223372036854775807.0,
                                             [MT_UINT16] = 65535.0,
                                             [MT_UINT32] = 4294967295.0,
                                             [MT_UINT64] = 18446744073709551615.0};
    if (d == MT_BOOL || !mt_is_integral(d, false))
        return false;
    if (!is_int)
        return !(f >= lo[d] && (d == MT_INT64 ? f < hi[d] : f <= hi[d]));
    if (d == MT_INT64 || d == MT_UINT64)
        return false;
    if (!mt_dtype_infos[d].is_signed)
        return i > (int64_t)hi[d] || i < -(int64_t)hi[d];
    return i < (int64_t)lo[d] || i > (int64_t)hi[d];
}

/* Stores one Python scalar at p as dtype d. */
static int store_scalar(PyObject *o, mt_dtype d, char *p)
{
    double f = 0;
    int64_t i = 0;
    bool is_int;
    if (PyBool_Check(o)) {
        i = o == Py_True;
        is_int = true;
    } else if (PyLong_Check(o)) {
        int overflow;
        i = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow > 0 && d == MT_UINT64) {
            /* the bits of an int above int64's range, read back unsigned */
            unsigned long long u = PyLong_AsUnsignedLongLong(o);
            if (u == (unsigned long long)-1 && PyErr_Occurred())
                return -1;
            i = (int64_t)u;
            overflow = 0;
        } else if (overflow && mt_is_floating(d)) {
            f = PyLong_AsDouble(o);
            if (f == -1.0 && PyErr_Occurred())
                return -1;
        } else if (overflow) {
            PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
            return -1;
        }
        is_int = !overflow;
    } else if (PyFloat_Check(o)) {
        f = PyFloat_AS_DOUBLE(o);
        is_int = false;
    } else if (PyComplex_Check(o)) {
        Py_complex c = PyComplex_AsCComplex(o);
        if (c.real == -1.0 && PyErr_Occurred())
            return -1;
        mt_storage st = {.refcount = 1, .data = p};
        mt_tensor dst = {.storage = &st, .numel = 1, .dtype = d};
        mt_fill_complex(&dst, c.real, c.imag);
        return 0;
    } else {
        /* NumPy scalars and 0-dim tensors */
        PyObject *item = PyObject_CallMethod(o, "item", NULL);
        if (!item)
            return -1;
        int r = store_scalar(item, d, p);
        Py_DECREF(item);
        return r;
    }
    if (int_overflows(d, is_int, i, f)) {
        PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow",
                     mt_dtype_infos[d].name);
        return -1;
    }
    mt_storage st = {.refcount = 1, .data = p};
    mt_tensor dst = {.storage = &st, .numel = 1, .dtype = d};
    mt_fill(&dst, f, i, is_int);
    return 0;
}

static int length_error(int dim, int64_t expected, int64_t got)
{
    PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got %lld)",
                 (long long)expected, dim, (long long)got);
    return -1;
}

/* Second pass: writes leaves in C order. Python code it runs (an item()
 * of a leaf) may have changed what the first pass measured, so every
 * sequence and operand is measured again against the shape before
 * anything is written for it: the output is exactly filled or not at all. */
static int fill(PyObject *o, int depth, const shape_info *s, mt_tensor *out, char **cursor)
{
    int isz = mt_itemsize(out->dtype);
    if (depth == s->ndim) {
        if (store_scalar(o, out->dtype, *cursor) < 0)
            return -1;
        *cursor += isz;
        return 0;
    }
    if (!is_sequence(o)) {
        PyErr_SetString(PyExc_TypeError, "not a sequence");
        return -1;
    }
    if (MTPy_Check(o) || mtpy_is_ndarray(o)) {
        PyObject *t = MTPy_Check(o) ? Py_NewRef(o) : mtpy_from_numpy(o);
        if (!t)
            return -1;
        mt_tensor *src = MTPy_T(t);
        int64_t place = 1;
        for (int k = depth; k < s->ndim; k++) {
            if (k - depth >= src->ndim || src->sizes[k - depth] != s->sizes[k]) {
                int64_t got = k - depth < src->ndim ? src->sizes[k - depth] : 1;
                Py_DECREF(t);
                return length_error(k, s->sizes[k], got);
            }
            place *= s->sizes[k];
        }
        /* dims past the leaves may only be of size 1 */
        if (src->numel != place) {
            Py_DECREF(t);
            PyErr_SetString(PyExc_ValueError,
                            "only one element tensors can be converted to Python scalars");
            return -1;
        }
        mt_storage st = {.refcount = 1, .data = *cursor};
        mt_tensor dst = {
            .storage = &st, .numel = src->numel, .ndim = src->ndim, .dtype = out->dtype};
        memcpy(dst.sizes, src->sizes, sizeof(int64_t) * src->ndim);
        mt_contiguous_strides(dst.ndim, dst.sizes, dst.strides);
        mt_copy(&dst, src);
        *cursor += src->numel * isz;
        Py_DECREF(t);
        return 0;
    }
    int64_t n = s->sizes[depth];
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PySequence_Fast_GET_SIZE(o) != n)
            return length_error(depth, n, PySequence_Fast_GET_SIZE(o));
        PyObject *item = Py_NewRef(PySequence_Fast_GET_ITEM(o, i));
        int r = fill(item, depth + 1, s, out, cursor);
        Py_DECREF(item);
        if (r < 0)
            return -1;
    }
    return 0;
}

PyObject *mtpy_from_data(PyObject *data, const mt_dtype *dtype, bool share)
{
    if (MTPy_Check(data)) {
        mt_tensor *src = MTPy_T(data);
        if (share && (!dtype || *dtype == src->dtype))
            return Py_NewRef(data);
        mt_dtype d = dtype ? *dtype : src->dtype;
        PyObject *out = mtpy_new_contiguous(d, src->ndim, src->sizes, false);
        if (out)
            mt_copy(MTPy_T(out), src);
        return out;
    }
    bool nested = PyList_Check(data) || PyTuple_Check(data);
    if (!nested && (mtpy_is_ndarray(data) || mtpy_is_foreign_tensor(data))) {
        PyObject *shared = mtpy_is_ndarray(data) ? mtpy_from_numpy(data) : mtpy_from_foreign(data);
        if (!shared || (share && (!dtype || *dtype == MTPy_T(shared)->dtype)))
            return shared;
        PyObject *out = mtpy_from_data(shared, dtype, false);
        Py_DECREF(shared);
        return out;
    }
    shape_info s = {0};
    if (!nested && !is_sequence(data)) {
        mt_dtype d;
        if (PySequence_Check(data) && !PyUnicode_Check(data) && !PyBytes_Check(data)) {
            PyObject *lst = PySequence_List(data);
            if (!lst)
                return NULL;
            PyObject *r = mtpy_from_data(lst, dtype, false);
            Py_DECREF(lst);
            return r;
        }
        if (scalar_dtype(data, &d) < 0)
            return NULL;
    }
    if (infer(data, 0, &s) < 0)
        return NULL;
    mt_dtype d = dtype ? *dtype : (s.has_dtype ? s.dtype : mtpy_default_dtype());
    PyObject *out = mtpy_new_contiguous(d, s.ndim, s.sizes, false);
    if (!out)
        return NULL;
    if (MTPy_T(out)->numel && raise_nesting(&s) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    char *cursor = mt_data(MTPy_T(out));
    if (MTPy_T(out)->numel && fill(data, 0, &s, MTPy_T(out), &cursor) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}
