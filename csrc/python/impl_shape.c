/* Views and shape manipulation: new geometry over the same storage. */
#include "parser.h"

#include "../core/shape.h"
#include "../kernels/copy.h"

static PyObject *view_of(mt_args *a, int ndim, const int64_t *sizes, const int64_t *strides,
                         int64_t offset)
{
    return mtpy_new_view(a->v[0].obj, ndim, sizes, strides, offset);
}

PyObject *impl_view(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    int n = a->v[1].nints;
    if (n > MT_MAX_DIMS)
        return PyErr_Format(PyExc_RuntimeError, "minitorch supports at most %d dimensions", MT_MAX_DIMS);
    memcpy(sizes, a->v[1].ints, sizeof(int64_t) * n);
    if (mt_infer_size(n, sizes, t->numel) < 0)
        return mtpy_raise();
    if (!mt_view_strides(t->ndim, t->sizes, t->strides, n, sizes, strides))
        return PyErr_Format(PyExc_RuntimeError,
                            "view size is not compatible with input tensor's size and stride (at "
                            "least one dimension spans across two contiguous subspaces). Use "
                            ".reshape(...) instead.");
    return view_of(a, n, sizes, strides, t->offset);
}

PyObject *impl_reshape(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    int n = a->v[1].nints;
    if (n > MT_MAX_DIMS)
        return PyErr_Format(PyExc_RuntimeError, "minitorch supports at most %d dimensions", MT_MAX_DIMS);
    memcpy(sizes, a->v[1].ints, sizeof(int64_t) * n);
    if (mt_infer_size(n, sizes, t->numel) < 0)
        return mtpy_raise();
    if (mt_view_strides(t->ndim, t->sizes, t->strides, n, sizes, strides))
        return view_of(a, n, sizes, strides, t->offset);
    PyObject *out = mtpy_new_contiguous(t->dtype, n, sizes, false);
    if (!out)
        return NULL;
    mt_tensor src = *t;
    /* copy in C order: view the fresh output with the input's shape */
    mt_tensor dst = *MTPy_T(out);
    dst.ndim = t->ndim;
    memcpy(dst.sizes, t->sizes, sizeof(int64_t) * t->ndim);
    mt_contiguous_strides(t->ndim, t->sizes, dst.strides);
    mt_copy(&dst, &src);
    return out;
}

static PyObject *transposed(mt_args *a, int d0, int d1)
{
    mt_tensor *t = a->v[0].t;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof(int64_t) * t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * t->ndim);
    if (t->ndim) {
        int64_t s = sizes[d0];
        sizes[d0] = sizes[d1];
        sizes[d1] = s;
        s = strides[d0];
        strides[d0] = strides[d1];
        strides[d1] = s;
    }
    return view_of(a, t->ndim, sizes, strides, t->offset);
}

PyObject *impl_t(mt_args *a)
{
    int nd = a->v[0].t->ndim;
    if (nd > 2)
        return PyErr_Format(PyExc_RuntimeError,
                            "t() expects a tensor with <= 2 dimensions, but self is %dD", nd);
    return transposed(a, 0, nd == 2 ? 1 : 0);
}

PyObject *impl_transpose(mt_args *a)
{
    int d0, d1, nd = a->v[0].t->ndim;
    if (mt_wrap_dim(a->v[1].i, nd, &d0) < 0 || mt_wrap_dim(a->v[2].i, nd, &d1) < 0)
        return mtpy_raise();
    return transposed(a, d0, d1);
}

PyObject *impl_permute(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    bool seen[MT_MAX_DIMS] = {false};
    if (a->v[1].nints != t->ndim)
        return PyErr_Format(PyExc_RuntimeError,
                            "permute(sparse_coo): number of dimensions in the tensor input does "
                            "not match the length of the desired ordering of dimensions i.e. "
                            "input.dim() = %d is not equal to len(dims) = %d",
                            t->ndim, a->v[1].nints);
    for (int i = 0; i < t->ndim; i++) {
        int d;
        if (mt_wrap_dim(a->v[1].ints[i], t->ndim, &d) < 0)
            return mtpy_raise();
        if (seen[d])
            return PyErr_Format(PyExc_RuntimeError, "permute(): duplicate dims are not allowed.");
        seen[d] = true;
        sizes[i] = t->sizes[d];
        strides[i] = t->strides[d];
    }
    return view_of(a, t->ndim, sizes, strides, t->offset);
}

PyObject *impl_unsqueeze(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int d;
    if (mt_wrap_dim(a->v[1].i, t->ndim + 1, &d) < 0)
        return mtpy_raise();
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    if (t->ndim + 1 > MT_MAX_DIMS)
        return PyErr_Format(PyExc_RuntimeError, "minitorch supports at most %d dimensions", MT_MAX_DIMS);
    for (int i = 0, j = 0; i <= t->ndim; i++) {
        if (i == d) {
            sizes[i] = 1;
            strides[i] = j < t->ndim ? t->strides[j] * t->sizes[j] : 1;
            continue;
        }
        sizes[i] = t->sizes[j];
        strides[i] = t->strides[j];
        j++;
    }
    return view_of(a, t->ndim + 1, sizes, strides, t->offset);
}

PyObject *impl_expand(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int n = a->v[1].nints;
    const int64_t *req = a->v[1].ints;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    if (n < t->ndim) {
        char want[256];
        mt_format_shape(want, sizeof want, n, req);
        return PyErr_Format(PyExc_RuntimeError,
                            "expand(minitorch.FloatTensor{...}, size=%s): the number of sizes "
                            "provided (%d) must be greater or equal to the number of dimensions "
                            "in the tensor (%d)", want, n, t->ndim);
    }
    if (n > MT_MAX_DIMS)
        return PyErr_Format(PyExc_RuntimeError, "minitorch supports at most %d dimensions", MT_MAX_DIMS);
    for (int i = n - 1; i >= 0; i--) {
        int j = i - (n - t->ndim);
        int64_t have = j >= 0 ? t->sizes[j] : 1;
        int64_t want = req[i];
        if (j < 0 && want < 0)
            return PyErr_Format(PyExc_RuntimeError,
                                "The expanded size of the tensor (%lld) isn't allowed in a "
                                "leading, non-existing dimension %d", (long long)want, i);
        if (want == -1)
            want = have;
        if (have == want) {
            sizes[i] = want;
            strides[i] = j >= 0 ? t->strides[j] : 0;
        } else if (have == 1 && want >= 0) {
            sizes[i] = want;
            strides[i] = 0;
        } else {
            return PyErr_Format(PyExc_RuntimeError,
                                "The expanded size of the tensor (%lld) must match the existing "
                                "size (%lld) at non-singleton dimension %d.  Target sizes: %S.  "
                                "Tensor sizes: %S", (long long)want, (long long)have, i,
                                a->v[1].obj ? a->v[1].obj : Py_None,
                                mtpy_size(t->ndim, t->sizes));
        }
    }
    return view_of(a, n, sizes, strides, t->offset);
}

PyObject *impl_clone(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    PyObject *out = mtpy_new_contiguous(t->dtype, t->ndim, t->sizes, false);
    if (out)
        mt_copy(MTPy_T(out), t);
    return out;
}

PyObject *impl_contiguous(mt_args *a)
{
    if (mt_tensor_is_contiguous(a->v[0].t))
        return Py_NewRef(a->v[0].obj);
    return impl_clone(a);
}

PyObject *impl_detach(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    return view_of(a, t->ndim, t->sizes, t->strides, t->offset);
}

/* Geometry being built for a view: starts as a copy of the input's. */
typedef struct {
    int ndim;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    int64_t offset;
} geom;

static void geom_of(geom *g, const mt_tensor *t)
{
    g->ndim = t->ndim;
    memcpy(g->sizes, t->sizes, sizeof(int64_t) * t->ndim);
    memcpy(g->strides, t->strides, sizeof(int64_t) * t->ndim);
    g->offset = t->offset;
}

static void geom_drop(geom *g, int d)
{
    memmove(g->sizes + d, g->sizes + d + 1, sizeof(int64_t) * (g->ndim - d - 1));
    memmove(g->strides + d, g->strides + d + 1, sizeof(int64_t) * (g->ndim - d - 1));
    g->ndim--;
}

static PyObject *geom_view(mt_args *a, const geom *g)
{
    return view_of(a, g->ndim, g->sizes, g->strides, g->offset);
}

static PyObject *too_many_dims(void)
{
    return PyErr_Format(PyExc_RuntimeError, "minitorch supports at most %d dimensions", MT_MAX_DIMS);
}

PyObject *impl_flatten(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int s, e;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &s) < 0 || mt_wrap_dim(a->v[2].i, t->ndim, &e) < 0)
        return mtpy_raise();
    if (s > e)
        return PyErr_Format(PyExc_RuntimeError,
                            "flatten() has invalid args: start_dim cannot come after end_dim");
    if (t->ndim == 0) {
        int64_t one = 1;
        return view_of(a, 1, &one, &one, t->offset);
    }
    if (s == e)
        return Py_NewRef(a->v[0].obj);
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (d > s && d <= e)
            sizes[n - 1] *= t->sizes[d];
        else
            sizes[n++] = t->sizes[d];
    }
    if (mt_view_strides(t->ndim, t->sizes, t->strides, n, sizes, strides))
        return view_of(a, n, sizes, strides, t->offset);
    /* torch's flatten falls back to a copy (reshape semantics) */
    PyObject *out = mtpy_new_contiguous(t->dtype, n, sizes, false);
    if (out) {
        mt_tensor dst = *MTPy_T(out);
        dst.ndim = t->ndim;
        memcpy(dst.sizes, t->sizes, sizeof(int64_t) * t->ndim);
        mt_contiguous_strides(t->ndim, t->sizes, dst.strides);
        mt_copy(&dst, t);
    }
    return out;
}

PyObject *impl_unflatten(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int d, n = a->v[2].nints;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d) < 0)
        return mtpy_raise();
    if (n == 0)
        return PyErr_Format(PyExc_RuntimeError, "unflatten: sizes must be non-empty");
    if (t->ndim - 1 + n > MT_MAX_DIMS)
        return too_many_dims();
    int64_t part[MT_MAX_DIMS];
    memcpy(part, a->v[2].ints, sizeof(int64_t) * n);
    int64_t have = t->ndim ? t->sizes[d] : 1;
    int64_t known = 1;
    int infer = -1;
    for (int i = 0; i < n; i++) {
        if (part[i] == -1) {
            if (infer >= 0)
                return PyErr_Format(PyExc_RuntimeError, "only one dimension can be inferred");
            infer = i;
        } else {
            known *= part[i];
        }
    }
    if (infer >= 0 && known != 0 && have % known == 0)
        part[infer] = have / known;
    else if (infer >= 0 && known == 0 && have == 0)
        part[infer] = 0;
    if ((infer >= 0 && part[infer] == -1) || (infer < 0 && known != have)) {
        char buf[256];
        mt_format_shape(buf, sizeof buf, n, a->v[2].ints);
        return PyErr_Format(PyExc_RuntimeError,
                            "unflatten: Provided sizes %s don't multiply up to the size of dim "
                            "%d (%lld) in the input tensor", buf, d, (long long)have);
    }
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    int m = 0;
    for (int i = 0; i < t->ndim || (t->ndim == 0 && i == 0); i++) {
        if (i == d)
            for (int k = 0; k < n; k++)
                sizes[m++] = part[k];
        else
            sizes[m++] = t->sizes[i];
    }
    if (!mt_view_strides(t->ndim, t->sizes, t->strides, m, sizes, strides))
        return PyErr_Format(PyExc_RuntimeError,
                            "view size is not compatible with input tensor's size and stride (at "
                            "least one dimension spans across two contiguous subspaces). Use "
                            ".reshape(...) instead.");
    return view_of(a, m, sizes, strides, t->offset);
}

/* Drops the size-1 dims whose flags are set (all size-1 dims when mask is NULL). */
static PyObject *squeeze_dims(mt_args *a, const bool *mask)
{
    geom g;
    geom_of(&g, a->v[0].t);
    for (int d = g.ndim - 1; d >= 0; d--)
        if (g.sizes[d] == 1 && (!mask || mask[d]))
            geom_drop(&g, d);
    return geom_view(a, &g);
}

PyObject *impl_squeeze(mt_args *a)
{
    return squeeze_dims(a, NULL);
}

PyObject *impl_squeeze_dim(mt_args *a)
{
    bool mask[MT_MAX_DIMS] = {false};
    int d;
    if (mt_wrap_dim(a->v[1].i, a->v[0].t->ndim, &d) < 0)
        return mtpy_raise();
    mask[d] = true;
    return squeeze_dims(a, mask);
}

PyObject *impl_squeeze_dims(mt_args *a)
{
    bool mask[MT_MAX_DIMS] = {false};
    for (int i = 0; i < a->v[1].nints; i++) {
        int d;
        if (mt_wrap_dim(a->v[1].ints[i], a->v[0].t->ndim, &d) < 0)
            return mtpy_raise();
        if (mask[d])
            return PyErr_Format(PyExc_RuntimeError, "dim %d appears multiple times in the list of dims", d);
        mask[d] = true;
    }
    return squeeze_dims(a, mask);
}

PyObject *impl_adjoint(mt_args *a)
{
    int nd = a->v[0].t->ndim;
    if (nd < 2)
        return PyErr_Format(PyExc_RuntimeError,
                            "tensor.adjoint() is only supported on matrices or batches of "
                            "matrices. Got %d-D tensor.", nd);
    return transposed(a, nd - 2, nd - 1);
}

PyObject *impl_expand_as(mt_args *a)
{
    mt_tensor *o = a->v[1].t;
    int64_t buf[MT_MAX_DIMS];
    memcpy(buf, o->sizes, sizeof(int64_t) * o->ndim);
    PyObject *size = mtpy_size(o->ndim, o->sizes);
    if (!size)
        return NULL;
    a->v[1].obj = size;
    a->v[1].ints = buf;
    a->v[1].nints = o->ndim;
    PyObject *r = impl_expand(a);
    Py_DECREF(size);
    return r;
}

static PyObject *with_shape_of(mt_args *a, PyObject *(*impl)(mt_args *))
{
    mt_tensor *o = a->v[1].t;
    int64_t buf[MT_MAX_DIMS];
    memcpy(buf, o->sizes, sizeof(int64_t) * o->ndim);
    a->v[1].ints = buf;
    a->v[1].nints = o->ndim;
    return impl(a);
}

PyObject *impl_view_as(mt_args *a) { return with_shape_of(a, impl_view); }
PyObject *impl_reshape_as(mt_args *a) { return with_shape_of(a, impl_reshape); }

static PyObject *narrowed(mt_args *a, int d, int64_t start, int64_t length)
{
    geom g;
    geom_of(&g, a->v[0].t);
    g.offset += start * g.strides[d];
    g.sizes[d] = length;
    return geom_view(a, &g);
}

PyObject *impl_narrow(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int d;
    if (t->ndim == 0)
        return PyErr_Format(PyExc_RuntimeError, "narrow() cannot be applied to a 0-dim tensor.");
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d) < 0)
        return mtpy_raise();
    int64_t start = a->v[2].i, length = a->v[3].i, size = t->sizes[d];
    if (length < 0)
        return PyErr_Format(PyExc_RuntimeError, "narrow(): length must be non-negative.");
    if (start < -size || start > size)
        return PyErr_Format(PyExc_IndexError,
                            "start out of range (expected to be in range of [%lld, %lld], but "
                            "got %lld)", (long long)-size, (long long)size, (long long)start);
    if (start < 0)
        start += size;
    if (start > size - length)
        return PyErr_Format(PyExc_RuntimeError,
                            "start (%lld) + length (%lld) exceeds dimension size (%lld).",
                            (long long)start, (long long)length, (long long)size);
    return narrowed(a, d, start, length);
}

static PyObject *selected(mt_args *a, int d, int64_t index)
{
    geom g;
    geom_of(&g, a->v[0].t);
    g.offset += index * g.strides[d];
    geom_drop(&g, d);
    return geom_view(a, &g);
}

PyObject *impl_select(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int d;
    if (t->ndim == 0)
        return PyErr_Format(PyExc_IndexError, "select() cannot be applied to a 0-dim tensor.");
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d) < 0)
        return mtpy_raise();
    int64_t i = a->v[2].i, size = t->sizes[d];
    if (i < -size || i >= size) {
        char buf[256];
        mt_format_shape(buf, sizeof buf, t->ndim, t->sizes);
        return PyErr_Format(PyExc_IndexError,
                            "select(): index %lld out of range for tensor of size %s at "
                            "dimension %d", (long long)i, buf, d);
    }
    return selected(a, d, i < 0 ? i + size : i);
}

/* A tuple of the pieces along dim d with the given lengths (which sum to its size). */
static PyObject *pieces(mt_args *a, int d, int n, const int64_t *lengths)
{
    PyObject *out = PyTuple_New(n);
    int64_t start = 0;
    for (int i = 0; out && i < n; i++) {
        PyObject *p = narrowed(a, d, start, lengths[i]);
        if (!p) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, i, p);
        start += lengths[i];
    }
    return out;
}

static int dim_of(mt_args *a, int i, int *d)
{
    if (a->v[0].t->ndim == 0)
        return PyErr_Format(PyExc_IndexError, "Dimension specified as %lld but tensor has no "
                            "dimensions", (long long)a->v[i].i), -1;
    return mt_wrap_dim(a->v[i].i, a->v[0].t->ndim, d) < 0 ? mtpy_raise_int() : 0;
}

PyObject *impl_unbind(mt_args *a)
{
    int d;
    if (dim_of(a, 1, &d) < 0)
        return NULL;
    int64_t n = a->v[0].t->sizes[d];
    PyObject *out = PyTuple_New(n);
    for (int64_t i = 0; out && i < n; i++) {
        PyObject *p = selected(a, d, i);
        if (!p) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, i, p);
    }
    return out;
}

/* Equal pieces of `step` along d, the last one shorter. */
static PyObject *split_even(mt_args *a, int d, int64_t step)
{
    int64_t size = a->v[0].t->sizes[d];
    int64_t n = step ? (size + step - 1) / step : 1;
    if (size == 0 && step)
        n = 1;
    int64_t *lengths = PyMem_Malloc(sizeof(int64_t) * (n ? n : 1));
    if (!lengths)
        return PyErr_NoMemory();
    for (int64_t i = 0; i < n; i++)
        lengths[i] = i == n - 1 ? size - step * i : step;
    PyObject *r = pieces(a, d, (int)n, lengths);
    PyMem_Free(lengths);
    return r;
}

PyObject *impl_split(mt_args *a)
{
    int d;
    if (dim_of(a, 2, &d) < 0)
        return NULL;
    int64_t step = a->v[1].i, size = a->v[0].t->sizes[d];
    if (step < 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "split expects split_size be non-negative, but got split_size=%lld",
                            (long long)step);
    if (step == 0 && size != 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "split_size can only be 0 if dimension size is 0, but got dimension "
                            "size of %lld", (long long)size);
    return split_even(a, d, step);
}

PyObject *impl_split_with_sizes(mt_args *a)
{
    int d;
    if (dim_of(a, 2, &d) < 0)
        return NULL;
    int64_t sum = 0, size = a->v[0].t->sizes[d];
    bool negative = false;
    for (int i = 0; i < a->v[1].nints; i++) {
        sum += a->v[1].ints[i];
        negative |= a->v[1].ints[i] < 0;
    }
    if (sum != size || negative) {
        char buf[256];
        mt_format_shape(buf, sizeof buf, a->v[1].nints, a->v[1].ints);
        if (negative)
            return PyErr_Format(PyExc_RuntimeError,
                                "split_with_sizes expects split_sizes have only non-negative "
                                "entries, but got split_sizes=%s", buf);
        return PyErr_Format(PyExc_RuntimeError,
                            "split_with_sizes expects split_sizes to sum exactly to %lld (input "
                            "tensor's size at dimension %d), but got split_sizes=%s",
                            (long long)size, d, buf);
    }
    return pieces(a, d, a->v[1].nints, a->v[1].ints);
}

PyObject *impl_chunk(mt_args *a)
{
    int64_t chunks = a->v[1].i;
    int d;
    if (a->v[0].t->ndim == 0)
        return PyErr_Format(PyExc_RuntimeError, "chunk expects at least a 1-dimensional tensor");
    if (chunks <= 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "chunk expects `chunks` to be greater than 0, got: %lld",
                            (long long)chunks);
    if (dim_of(a, 2, &d) < 0)
        return NULL;
    int64_t size = a->v[0].t->sizes[d];
    int64_t step = (size + chunks - 1) / chunks;
    if (step == 0 && size == 0) {
        /* torch gives `chunks` empty pieces of an empty dim */
        int64_t *zeros = PyMem_Calloc(chunks, sizeof(int64_t));
        if (!zeros)
            return PyErr_NoMemory();
        PyObject *r = pieces(a, d, (int)chunks, zeros);
        PyMem_Free(zeros);
        return r;
    }
    return split_even(a, d, step);
}

PyObject *impl_as_strided(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int n = a->v[1].nints;
    if (n != a->v[2].nints)
        return PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape");
    if (n > MT_MAX_DIMS)
        return too_many_dims();
    int64_t offset = mt_is_none(a, 3) ? t->offset : a->v[3].i;
    if (offset < 0)
        return PyErr_Format(PyExc_RuntimeError, "Tensor: invalid storage offset %lld",
                            (long long)offset);
    int64_t last = offset, numel = 1;
    for (int i = 0; i < n; i++) {
        int64_t sz = a->v[1].ints[i], st = a->v[2].ints[i];
        if (sz < 0)
            return PyErr_Format(PyExc_RuntimeError,
                                "Trying to create tensor with negative dimension %lld: ",
                                (long long)sz);
        if (st < 0) {
            char buf[256];
            mt_format_shape(buf, sizeof buf, n, a->v[2].ints);
            return PyErr_Format(PyExc_RuntimeError,
                                "as_strided: Negative strides are not supported at the moment, "
                                "got strides: %s", buf);
        }
        numel *= sz;
        last += (sz - 1) * st;
    }
    int isz = mt_itemsize(t->dtype);
    int64_t need = numel ? (last + 1) * isz : 0;
    if (need > (int64_t)t->storage->nbytes) {
        char sz[256], st[256];
        mt_format_shape(sz, sizeof sz, n, a->v[1].ints);
        mt_format_shape(st, sizeof st, n, a->v[2].ints);
        return PyErr_Format(PyExc_RuntimeError,
                            "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize "
                            "%d requiring a storage size of %lld are out of bounds for storage "
                            "of size %lld", sz, st, (long long)offset, isz, (long long)need,
                            (long long)t->storage->nbytes);
    }
    return view_of(a, n, a->v[1].ints, a->v[2].ints, offset);
}

/* Fills perm so that source dims land at destination positions, the others keep order. */
static int movedim_perm(mt_args *a, int nsrc, const int64_t *src, const int64_t *dst,
                        int64_t *perm)
{
    int nd = a->v[0].t->ndim;
    int s[MT_MAX_DIMS], t[MT_MAX_DIMS];
    bool used_src[MT_MAX_DIMS] = {false}, used_dst[MT_MAX_DIMS] = {false};
    for (int i = 0; i < nsrc; i++) {
        if (mt_wrap_dim(src[i], nd, &s[i]) < 0 || mt_wrap_dim(dst[i], nd, &t[i]) < 0)
            return mtpy_raise_int();
    }
    for (int i = 0; i < nsrc; i++) {
        char buf[256];
        if (used_src[s[i]]) {
            mt_format_shape(buf, sizeof buf, nsrc, src);
            PyErr_Format(PyExc_RuntimeError, "movedim: repeated dim in `source` (%s)", buf);
            return -1;
        }
        used_src[s[i]] = true;
    }
    for (int i = 0; i < nsrc; i++) {
        char buf[256];
        if (used_dst[t[i]]) {
            mt_format_shape(buf, sizeof buf, nsrc, dst);
            PyErr_Format(PyExc_RuntimeError, "movedim: repeated dim in `destination` (%s)", buf);
            return -1;
        }
        used_dst[t[i]] = true;
    }
    for (int i = 0; i < nd; i++)
        perm[i] = -1;
    for (int i = 0; i < nsrc; i++)
        perm[t[i]] = s[i];
    for (int i = 0, k = 0; i < nd; i++) {
        if (perm[i] >= 0)
            continue;
        while (used_src[k])
            k++;
        perm[i] = k++;
    }
    return 0;
}

static PyObject *moved(mt_args *a, int n, const int64_t *src, const int64_t *dst)
{
    mt_tensor *t = a->v[0].t;
    int64_t perm[MT_MAX_DIMS];
    if (t->ndim == 0 && n)
        return Py_NewRef(a->v[0].obj);
    if (movedim_perm(a, n, src, dst, perm) < 0)
        return NULL;
    geom g;
    geom_of(&g, t);
    for (int i = 0; i < t->ndim; i++) {
        g.sizes[i] = t->sizes[perm[i]];
        g.strides[i] = t->strides[perm[i]];
    }
    return geom_view(a, &g);
}

PyObject *impl_movedim(mt_args *a)
{
    return moved(a, 1, &a->v[1].i, &a->v[2].i);
}

PyObject *impl_movedim_list(mt_args *a)
{
    int n = a->v[1].nints;
    if (n != a->v[2].nints) {
        char s[256], d[256];
        mt_format_shape(s, sizeof s, n, a->v[1].ints);
        mt_format_shape(d, sizeof d, a->v[2].nints, a->v[2].ints);
        return PyErr_Format(PyExc_RuntimeError,
                            "movedim: Invalid source or destination dims: source (%s dims) should "
                            "contain the same number of dims as destination (%s dims)", s, d);
    }
    return moved(a, n, a->v[1].ints, a->v[2].ints);
}

PyObject *impl_diagonal(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int d1, d2;
    if (mt_wrap_dim(a->v[2].i, t->ndim, &d1) < 0 || mt_wrap_dim(a->v[3].i, t->ndim, &d2) < 0)
        return mtpy_raise();
    if (d1 == d2)
        return PyErr_Format(PyExc_RuntimeError, "diagonal dimensions cannot be identical %lld, %lld",
                            (long long)a->v[2].i, (long long)a->v[3].i);
    int64_t off = a->v[1].i, len;
    geom g;
    geom_of(&g, t);
    if (off >= 0) {
        len = t->sizes[d1] < t->sizes[d2] - off ? t->sizes[d1] : t->sizes[d2] - off;
        if (len > 0)
            g.offset += off * t->strides[d2];
    } else {
        len = t->sizes[d1] + off < t->sizes[d2] ? t->sizes[d1] + off : t->sizes[d2];
        if (len > 0)
            g.offset -= off * t->strides[d1];
    }
    if (len < 0)
        len = 0;
    int64_t st = t->strides[d1] + t->strides[d2];
    geom_drop(&g, d1 > d2 ? d1 : d2);
    geom_drop(&g, d1 < d2 ? d1 : d2);
    g.sizes[g.ndim] = len;
    g.strides[g.ndim] = st;
    g.ndim++;
    return geom_view(a, &g);
}

/* Reinterprets the bytes as another dtype; the last dim absorbs a size change. */
PyObject *impl_view_dtype(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    mt_dtype to = a->v[1].dtype;
    int from_sz = mt_itemsize(t->dtype), to_sz = mt_itemsize(to);
    const char *fn = mt_dtype_infos[t->dtype].scalar_name, *tn = mt_dtype_infos[to].scalar_name;
    geom g;
    geom_of(&g, t);
    if (from_sz == to_sz)
        goto done;
    if (t->ndim == 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "self.dim() cannot be 0 to view %s as %s (different element sizes)",
                            fn, tn);
    if (t->strides[t->ndim - 1] != 1)
        return PyErr_Format(PyExc_RuntimeError,
                            "self.stride(-1) must be 1 to view %s as %s (different element "
                            "sizes), but got %lld", fn, tn, (long long)t->strides[t->ndim - 1]);
    if (from_sz > to_sz) {
        int r = from_sz / to_sz;
        for (int d = 0; d < g.ndim - 1; d++)
            g.strides[d] *= r;
        g.sizes[g.ndim - 1] *= r;
        g.offset *= r;
    } else {
        int r = to_sz / from_sz;
        if (g.sizes[g.ndim - 1] % r)
            return PyErr_Format(PyExc_RuntimeError,
                                "self.size(-1) must be divisible by %d to view %s as %s "
                                "(different element sizes), but got %lld", r, fn, tn,
                                (long long)g.sizes[g.ndim - 1]);
        if (g.offset % r)
            return PyErr_Format(PyExc_RuntimeError,
                                "self.storage_offset() must be divisible by %d to view %s as %s "
                                "(different element sizes), but got %lld", r, fn, tn,
                                (long long)g.offset);
        for (int d = 0; d < g.ndim - 1; d++) {
            if (g.strides[d] % r)
                return PyErr_Format(PyExc_RuntimeError,
                                    "self.stride(%d) must be divisible by %d to view %s as %s "
                                    "(different element sizes), but got %lld", d, r, fn, tn,
                                    (long long)g.strides[d]);
            g.strides[d] /= r;
        }
        g.sizes[g.ndim - 1] /= r;
        g.offset /= r;
    }
done:;
    PyObject *out = view_of(a, g.ndim, g.sizes, g.strides, g.offset);
    if (out) {
        MTPy_T(out)->dtype = to;
    }
    return out;
}
