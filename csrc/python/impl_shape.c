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
