/* hstack/vstack, diag, repeat_interleave, one_hot and constant pad: views of
 * the inputs copied into new tensors with mt_copy. */
#include "indexing.h"
#include "parser.h"

#include "../core/shape.h"
#include "../kernels/copy.h"

#include <string.h>

PyObject *impl_cat(mt_args *a);

/* cat of the tensors seen with at least `rank` dims (1: [n]; 2: [1, n]). */
static PyObject *stack_like(mt_args *a, const char *name, int rank, bool horizontal)
{
    PyObject *seq = PySequence_Fast(a->v[0].obj, "expected a sequence of Tensors");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *list = NULL, *r = NULL;
    if (n == 0) {
        PyErr_Format(PyExc_RuntimeError, "%s expects a non-empty TensorList", name);
        goto done;
    }
    list = PyList_New(n);
    if (!list)
        goto done;
    bool all_1d = true;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        const mt_tensor *t = MTPy_T(item);
        if (t->ndim >= rank) {
            Py_INCREF(item);
            PyList_SET_ITEM(list, i, item);
        } else {
            int64_t sizes[2] = {1, t->ndim ? t->sizes[0] : 1};
            int64_t strides[2] = {0, t->ndim ? t->strides[0] : 1};
            PyObject *v = mtpy_new_view(item, rank, sizes + 2 - rank, strides + 2 - rank,
                                        t->offset);
            if (!v)
                goto done;
            PyList_SET_ITEM(list, i, v);
        }
        all_1d &= MTPy_T(PyList_GET_ITEM(list, i))->ndim == 1;
    }
    mt_args b;
    memset(&b, 0, sizeof b);
    b.v[0].obj = list;
    b.v[1].i = horizontal && !all_1d ? 1 : 0;
    r = impl_cat(&b);
done:
    Py_XDECREF(list);
    Py_DECREF(seq);
    return r;
}

PyObject *impl_hstack(mt_args *a) { return stack_like(a, "hstack", 1, true); }
PyObject *impl_vstack(mt_args *a) { return stack_like(a, "vstack", 2, false); }

/* The diagonal `k` of an [r, c] geometry: its length and element offset. */
static int64_t diag_geometry(int64_t r, int64_t c, int64_t k, int64_t sr, int64_t sc,
                             int64_t *offset)
{
    int64_t len = k >= 0 ? (c - k < r ? c - k : r) : (r + k < c ? r + k : c);
    *offset = k >= 0 ? k * sc : -k * sr;
    return len > 0 ? len : 0;
}

PyObject *impl_diag(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int64_t k = a->v[1].i;
    if (t->ndim != 1 && t->ndim != 2)
        return PyErr_Format(PyExc_RuntimeError, "diag(): Supports 1D or 2D tensors. Got %dD",
                            t->ndim);
    if (t->ndim == 1) {
        int64_t n = t->sizes[0] + (k >= 0 ? k : -k);
        PyObject *out = mtpy_new_contiguous(t->dtype, 2, (int64_t[]){n, n}, true);
        if (!out || t->numel == 0)
            return out;
        mt_tensor d = *MTPy_T(out);
        int64_t off;
        d.ndim = 1;
        d.sizes[0] = diag_geometry(n, n, k, n, 1, &off);
        d.strides[0] = n + 1;
        d.offset += off;
        d.numel = d.sizes[0];
        mt_copy(&d, t);
        return out;
    }
    mt_tensor d = *t;
    int64_t off;
    d.ndim = 1;
    d.sizes[0] = diag_geometry(t->sizes[0], t->sizes[1], k, t->strides[0], t->strides[1], &off);
    d.strides[0] = t->strides[0] + t->strides[1];
    d.offset += d.sizes[0] ? off : 0;
    d.numel = d.sizes[0];
    PyObject *out = mtpy_new_contiguous(t->dtype, 1, d.sizes, false);
    if (out && d.numel)
        mt_copy(MTPy_T(out), &d);
    return out;
}

/* Repeat counts as int64, one per slice (a single count applies to all). */
static int64_t *repeat_counts(mt_args *a, int ri, int64_t len)
{
    int64_t *c = PyMem_Malloc((size_t)(len ? len : 1) * sizeof *c);
    if (!c) {
        PyErr_NoMemory();
        return NULL;
    }
    if (a->overload == 1) {
        if (a->v[ri].i < 0) {
            PyErr_SetString(PyExc_RuntimeError, "Repeats must be non-negative");
            goto fail;
        }
        for (int64_t i = 0; i < len; i++)
            c[i] = a->v[ri].i;
        return c;
    }
    const mt_tensor *r = a->v[ri].t;
    if (r->ndim > 1) {
        PyErr_SetString(PyExc_RuntimeError, "repeats must be 0-dim or 1-dim tensor");
        goto fail;
    }
    if (r->dtype != MT_INT64 && r->dtype != MT_INT32) {
        PyErr_Format(PyExc_NotImplementedError,
                     "\"repeat_interleave_cpu\" not implemented for '%s'",
                     mt_dtype_infos[r->dtype].scalar_name);
        goto fail;
    }
    int64_t rn = r->ndim ? r->sizes[0] : 1;
    if (rn != 1 && rn != len) {
        PyErr_Format(PyExc_RuntimeError,
                     "repeats must have the same size as input along dim, but got "
                     "repeats.size(0) = %lld and input.size(0) = %lld",
                     (long long)rn, (long long)len);
        goto fail;
    }
    mt_tensor dst = {0};
    PyObject *tmp = mtpy_new_contiguous(MT_INT64, 1, &rn, false);
    if (!tmp)
        goto fail;
    dst = *MTPy_T(tmp);
    mt_tensor src = *r;
    src.ndim = 1;
    src.sizes[0] = rn;
    if (!r->ndim)
        src.strides[0] = 1;
    mt_copy(&dst, &src);
    const int64_t *v = (const int64_t *)mt_data(&dst);
    for (int64_t i = 0; i < len; i++) {
        c[i] = v[rn == 1 ? 0 : i];
        if (c[i] < 0) {
            Py_DECREF(tmp);
            PyErr_SetString(PyExc_RuntimeError, "repeats can not be negative");
            goto fail;
        }
    }
    Py_DECREF(tmp);
    return c;
fail:
    PyMem_Free(c);
    return NULL;
}

PyObject *impl_repeat_interleave(mt_args *a)
{
    PyObject *owned = NULL, *out = NULL;
    mt_tensor in;
    int dim = 0, ri = 1;
    if (a->overload == 2) {
        /* repeat_interleave(repeats): arange(len(repeats)) repeated by them */
        mt_tensor *r = a->v[0].t;
        int64_t n = r->ndim ? r->sizes[0] : 1;
        owned = mtpy_new_contiguous(MT_INT64, 1, &n, false);
        if (!owned)
            return NULL;
        for (int64_t i = 0; i < n; i++)
            ((int64_t *)mt_data(MTPy_T(owned)))[i] = i;
        in = *MTPy_T(owned);
        ri = 0;
    } else if (mt_is_none(a, 2)) {
        /* no dim: the flattened input */
        int64_t n = a->v[0].t->numel;
        owned = mtpy_new_contiguous(a->v[0].t->dtype, a->v[0].t->ndim, a->v[0].t->sizes, false);
        if (!owned)
            return NULL;
        mt_copy(MTPy_T(owned), a->v[0].t);
        in = *MTPy_T(owned);
        in.ndim = 1;
        in.sizes[0] = n;
        in.strides[0] = 1;
    } else {
        in = *a->v[0].t;
        if (mt_wrap_dim(a->v[2].i, in.ndim, &dim) < 0)
            return mtpy_raise();
        if (in.ndim == 0) {
            in.ndim = 1;
            in.sizes[0] = 1;
            in.strides[0] = 1;
        }
    }
    int64_t len = in.sizes[dim];
    int64_t *c = repeat_counts(a, ri, len);
    if (!c)
        goto done;
    int64_t total = 0;
    for (int64_t i = 0; i < len; i++)
        total += c[i];
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, in.sizes, sizeof sizes);
    sizes[dim] = total;
    out = mtpy_new_contiguous(in.dtype, in.ndim, sizes, false);
    if (out) {
        int64_t pos = 0;
        for (int64_t i = 0; i < len; i++) {
            if (c[i] == 0)
                continue;
            mt_tensor dst = mtpy_narrowed(MTPy_T(out), dim, pos, c[i]);
            mt_tensor src = mtpy_narrowed(&in, dim, i, 1);
            if (dst.numel)
                mt_copy(&dst, &src);
            pos += c[i];
        }
    }
    PyMem_Free(c);
done:
    Py_XDECREF(owned);
    return out;
}

PyObject *impl_one_hot(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int64_t classes = a->v[1].i;
    if (t->dtype != MT_INT64)
        return PyErr_Format(PyExc_RuntimeError,
                            "one_hot is only applicable to index tensor of type LongTensor.");
    PyObject *flat = mtpy_new_contiguous(MT_INT64, t->ndim, t->sizes, false);
    if (!flat)
        return NULL;
    mt_copy(MTPy_T(flat), t);
    const int64_t *v = (const int64_t *)mt_data(MTPy_T(flat));
    PyObject *out = NULL;
    int64_t mx = -1;
    for (int64_t i = 0; i < t->numel; i++) {
        if (v[i] < 0) {
            PyErr_SetString(PyExc_RuntimeError, "Class values must be non-negative.");
            goto done;
        }
        mx = v[i] > mx ? v[i] : mx;
    }
    if (classes == -1) {
        if (t->numel == 0) {
            PyErr_SetString(PyExc_RuntimeError,
                            "Can not infer total number of classes from empty tensor.");
            goto done;
        }
        classes = mx + 1;
    } else if (mx >= classes) {
        PyErr_SetString(PyExc_RuntimeError, "Class values must be smaller than num_classes.");
        goto done;
    }
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof(int64_t) * t->ndim);
    sizes[t->ndim] = classes;
    out = mtpy_new_contiguous(MT_INT64, t->ndim + 1, sizes, true);
    if (out) {
        int64_t *o = (int64_t *)mt_data(MTPy_T(out));
        for (int64_t i = 0; i < t->numel; i++)
            o[i * classes + v[i]] = 1;
    }
done:
    Py_DECREF(flat);
    return out;
}

PyObject *impl_pad(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    const int64_t *pad = a->v[1].ints;
    int np = a->v[1].nints;
    const char *mode = a->v[2].str;
    if (strcmp(mode, "constant") != 0) {
        if (strcmp(mode, "reflect") && strcmp(mode, "replicate") && strcmp(mode, "circular"))
            return PyErr_Format(PyExc_NotImplementedError, "Unrecognised padding mode %s", mode);
        return PyErr_Format(PyExc_NotImplementedError,
                            "pad(): mode '%s' is not supported by minitorch yet", mode);
    }
    if (np % 2)
        return PyErr_Format(PyExc_RuntimeError, "Padding length must be divisible by 2");
    if (np / 2 > t->ndim)
        return PyErr_Format(PyExc_RuntimeError,
                            "Padding length should be less than or equal to two times the input "
                            "dimension but got padding length %d and input of dimension %d",
                            np, t->ndim);
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    mt_tensor src = *t;
    for (int k = 0; k < np / 2; k++) {
        int d = t->ndim - 1 - k;
        int64_t l = pad[2 * k], r = pad[2 * k + 1];
        sizes[d] = t->sizes[d] + l + r;
        /* torch narrows the input by the negative pads first */
        if (sizes[d] < 0 || t->sizes[d] - (l < 0 ? -l : 0) - (r < 0 ? -r : 0) < 0)
            return PyErr_Format(PyExc_RuntimeError, "narrow(): length must be non-negative.");
    }
    PyObject *out = mtpy_new_contiguous(t->dtype, t->ndim, sizes, false);
    if (!out)
        return NULL;
    double value = mt_is_none(a, 3) ? 0.0 : a->v[3].f;
    mt_fill(MTPy_T(out), value, (int64_t)value, !mt_is_floating(t->dtype));
    mt_tensor dst = *MTPy_T(out);
    for (int k = 0; k < np / 2; k++) {
        int d = t->ndim - 1 - k;
        int64_t l = pad[2 * k], r = pad[2 * k + 1];
        int64_t skip_l = l < 0 ? -l : 0, skip_r = r < 0 ? -r : 0;
        int64_t len = t->sizes[d] - skip_l - skip_r;
        if (len == 0)
            return out;
        src = mtpy_narrowed(&src, d, skip_l, len);
        dst = mtpy_narrowed(&dst, d, l > 0 ? l : 0, len);
    }
    if (src.numel)
        mt_copy(&dst, &src);
    return out;
}
