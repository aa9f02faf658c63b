/* sort, argsort, msort, topk, median, nanmedian, mode, kthvalue and unique of
 * the op table: shapes and torch's errors here, the line sorting in kernels/sort.c. */
#include "parser.h"
#include "return_types.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../kernels/sort.h"

#include <math.h>
#include <string.h>

/* Sorted values and their positions along dim; both new references or NULL. */
static int sorted_pair(const mt_tensor *t, int64_t dim, bool descending, PyObject **values,
                       PyObject **indices)
{
    int d = 0;
    if (mt_wrap_dim(dim, t->ndim, &d) < 0)
        return mtpy_raise_int();
    *values = mtpy_new_contiguous(t->dtype, t->ndim, t->sizes, false);
    *indices = mtpy_new_contiguous(MT_INT64, t->ndim, t->sizes, false);
    if (!*values || !*indices) {
        Py_CLEAR(*values);
        Py_CLEAR(*indices);
        return -1;
    }
    mt_sort(MTPy_T(*values), MTPy_T(*indices), t, d, descending);
    return 0;
}

/* Overload 0 of sort and argsort puts `stable` before dim and descending. */
PyObject *impl_sort(mt_args *a)
{
    PyObject *v = NULL, *i = NULL;
    int o = a->overload == 0;
    if (sorted_pair(a->v[0].t, a->v[1 + o].i, a->v[2 + o].b, &v, &i) < 0)
        return NULL;
    return mtpy_return_pair("sort", v, i);
}

PyObject *impl_argsort(mt_args *a)
{
    PyObject *v = NULL, *i = NULL;
    int o = a->overload == 0;
    if (sorted_pair(a->v[0].t, a->v[1 + o].i, a->v[2 + o].b, &v, &i) < 0)
        return NULL;
    Py_DECREF(v);
    return i;
}

PyObject *impl_msort(mt_args *a)
{
    PyObject *v = NULL, *i = NULL;
    if (sorted_pair(a->v[0].t, 0, false, &v, &i) < 0)
        return NULL;
    Py_DECREF(i);
    return v;
}

/* A contiguous copy of the first k entries of t along dim. */
static PyObject *leading(PyObject *t, int dim, int64_t k)
{
    mt_tensor part = *MTPy_T(t);
    if (part.ndim) {
        part.sizes[dim] = k;
        part.numel = part.sizes[dim] ? part.numel / MTPy_T(t)->sizes[dim] * k : 0;
    }
    PyObject *r = mtpy_new_contiguous(part.dtype, part.ndim, part.sizes, false);
    if (r && part.numel)
        mt_copy(MTPy_T(r), &part);
    return r;
}

PyObject *impl_topk(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int64_t k = a->v[1].i;
    int d;
    if (mt_wrap_dim(a->v[2].i, t->ndim, &d) < 0)
        return mtpy_raise();
    int64_t len = t->ndim ? t->sizes[d] : 1;
    if (k < 0 || k > len)
        return PyErr_Format(PyExc_RuntimeError, "selected index k out of range");
    PyObject *v = NULL, *i = NULL;
    if (sorted_pair(t, d, a->v[3].b, &v, &i) < 0)
        return NULL;
    PyObject *vk = leading(v, d, k), *ik = leading(i, d, k);
    Py_DECREF(v);
    Py_DECREF(i);
    return mtpy_return_pair("topk", vk, ik);
}

/* (values, indices) of one pick per line along dim (median, nanmedian,
 * mode, kthvalue), dim removed unless keepdim. kth is 1-based, as kthvalue's k. */
static PyObject *pick_along_dim(mt_tensor *t, int64_t dim, bool keepdim, const char *name,
                                mt_pick_op pick, int64_t kth)
{
    int d;
    if (mt_wrap_dim(dim, t->ndim, &d) < 0)
        return mtpy_raise();
    if (t->ndim && t->sizes[d] == 0)
        return PyErr_Format(PyExc_IndexError,
                            "%s(): Expected reduction dim %d to have non-zero size.",
                            pick == MT_PICK_NANMEDIAN ? "median" : name, d); /* as torch words it */
    if (pick == MT_PICK_KTH) {
        if (kth < 1 || kth > (t->ndim ? t->sizes[d] : 1))
            return PyErr_Format(PyExc_RuntimeError,
                                "kthvalue(): selected number k out of range for dimension %d", d);
        if (t->dtype == MT_BOOL)
            return PyErr_Format(PyExc_NotImplementedError,
                                "\"kthvalue_cpu\" not implemented for 'Bool'");
    } else if (pick != MT_PICK_MODE && t->dtype == MT_BOOL) {
        return PyErr_Format(PyExc_NotImplementedError, "\"median_out\" not implemented for 'Bool'");
    }
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    if (t->ndim)
        sizes[d] = 1;
    PyObject *v = mtpy_new_contiguous(t->dtype, t->ndim, sizes, false);
    PyObject *i = mtpy_new_contiguous(MT_INT64, t->ndim, sizes, false);
    if (!v || !i) {
        Py_XDECREF(v);
        Py_XDECREF(i);
        return NULL;
    }
    mt_pick(MTPy_T(v), MTPy_T(i), t, d, pick, kth - 1);
    if (!keepdim && t->ndim) {
        PyObject *pair[2] = {v, i};
        for (int k = 0; k < 2; k++) {
            mt_tensor *x = MTPy_T(pair[k]);
            int64_t s[MT_MAX_DIMS], st[MT_MAX_DIMS];
            for (int j = 0, n = 0; j < x->ndim; j++) {
                if (j == d)
                    continue;
                s[n] = x->sizes[j];
                st[n++] = x->strides[j];
            }
            PyObject *view = mtpy_new_view(pair[k], x->ndim - 1, s, st, x->offset);
            Py_DECREF(pair[k]);
            pair[k] = view;
        }
        if (!pair[0] || !pair[1]) {
            Py_XDECREF(pair[0]);
            Py_XDECREF(pair[1]);
            return NULL;
        }
        v = pair[0];
        i = pair[1];
    }
    return mtpy_return_pair(name, v, i);
}

/* median() and nanmedian() of all elements: the pick of the flat contiguous
 * copy's line; NaN when there are none. torch names their errors after median. */
static PyObject *pick_all(const mt_tensor *t, mt_pick_op pick)
{
    int64_t n = t->numel;
    if (n && t->dtype == MT_BOOL)
        return PyErr_Format(PyExc_NotImplementedError, "\"median_cpu\" not implemented for 'Bool'");
    PyObject *flat = mtpy_new_contiguous(t->dtype, t->ndim, t->sizes, false);
    PyObject *v = mtpy_new_contiguous(t->dtype, 0, NULL, false);
    PyObject *i = mtpy_new_contiguous(MT_INT64, 1, (int64_t[]){1}, false);
    PyObject *r = NULL;
    if (!flat || !v || !i)
        goto done;
    if (n == 0) {
        mt_fill(MTPy_T(v), NAN, 0, 0);
    } else {
        mt_copy(MTPy_T(flat), t);
        mt_tensor line = *MTPy_T(flat), one = *MTPy_T(i);
        line.ndim = 1;
        line.sizes[0] = n;
        line.strides[0] = 1;
        mt_tensor val = *MTPy_T(v);
        val.ndim = 1;
        val.sizes[0] = 1;
        val.strides[0] = 1;
        mt_pick(&val, &one, &line, 0, pick, 0);
    }
    r = v;
    v = NULL;
done:
    Py_XDECREF(flat);
    Py_XDECREF(v);
    Py_XDECREF(i);
    return r;
}

PyObject *impl_median(mt_args *a)
{
    if (a->overload == 0)
        return pick_all(a->v[0].t, MT_PICK_MEDIAN);
    return pick_along_dim(a->v[0].t, a->v[1].i, a->v[2].b, "median", MT_PICK_MEDIAN, 1);
}

PyObject *impl_nanmedian(mt_args *a)
{
    if (a->overload == 0)
        return pick_all(a->v[0].t, MT_PICK_NANMEDIAN);
    return pick_along_dim(a->v[0].t, a->v[1].i, a->v[2].b, "nanmedian", MT_PICK_NANMEDIAN, 1);
}

PyObject *impl_mode(mt_args *a)
{
    return pick_along_dim(a->v[0].t, a->v[1].i, a->v[2].b, "mode", MT_PICK_MODE, 1);
}

PyObject *impl_kthvalue(mt_args *a)
{
    return pick_along_dim(a->v[0].t, a->v[2].i, a->v[3].b, "kthvalue", MT_PICK_KTH, a->v[1].i);
}

/* (output, inverse, counts) packed as torch.unique returns them. */
static PyObject *unique_result(PyObject *out, PyObject *inv, PyObject *cnt, bool inverse,
                               bool counts)
{
    if (!inverse && !counts) {
        Py_INCREF(out);
        return out;
    }
    if (inverse && counts)
        return PyTuple_Pack(3, out, inv, cnt);
    return PyTuple_Pack(2, out, inverse ? inv : cnt);
}

/* unique slices along dim: the slices as rows of a contiguous copy with dim
 * moved first, sorted lexicographically; the result moved back. */
static PyObject *unique_dim(const mt_tensor *t, int64_t dim, bool inverse, bool counts)
{
    int d;
    if (mt_wrap_dim(dim, t->ndim, &d) < 0)
        return mtpy_raise();
    if (t->ndim == 0)
        return PyErr_Format(PyExc_NotImplementedError,
                            "unique(): dim= on a 0-dim tensor is not supported by minitorch yet");
    if (t->numel == 0 && t->sizes[d] != 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "There are 0 sized dimensions, and they aren't selected, so unique "
                            "cannot be applied");
    mt_tensor moved = *t;
    for (int j = 0, k = 1; j < t->ndim; j++) {
        if (j == d)
            continue;
        moved.sizes[k] = t->sizes[j];
        moved.strides[k++] = t->strides[j];
    }
    moved.sizes[0] = t->sizes[d];
    moved.strides[0] = t->strides[d];
    int64_t n = moved.sizes[0], m = 1;
    for (int j = 1; j < t->ndim; j++)
        m *= moved.sizes[j];
    PyObject *rows = mtpy_new_contiguous(t->dtype, t->ndim, moved.sizes, false);
    PyObject *out_m = NULL, *out = NULL, *inv = NULL, *cnt = NULL, *r = NULL;
    int64_t *perm = PyMem_Malloc((size_t)(n ? n : 1) * 2 * sizeof(int64_t));
    if (!rows || !perm) {
        if (!perm)
            PyErr_NoMemory();
        goto done;
    }
    if (t->numel)
        mt_copy(MTPy_T(rows), &moved);
    int64_t *groups = perm + (n ? n : 1);
    int64_t ng = mt_sorted_rows(MTPy_T(rows), n, m, perm, groups);
    if (ng < 0) {
        mtpy_raise();
        goto done;
    }
    int64_t msizes[MT_MAX_DIMS];
    memcpy(msizes, moved.sizes, sizeof msizes);
    msizes[0] = ng;
    out_m = mtpy_new_contiguous(t->dtype, t->ndim, msizes, false);
    inv = mtpy_new_contiguous(MT_INT64, 1, &n, false);
    cnt = mtpy_new_contiguous(MT_INT64, 1, &ng, true);
    if (!out_m || !inv || !cnt)
        goto done;
    size_t row = (size_t)m * mt_itemsize(t->dtype);
    const char *src = mt_data(MTPy_T(rows));
    char *dst = mt_data(MTPy_T(out_m));
    int64_t *iv = (int64_t *)mt_data(MTPy_T(inv)), *cv = (int64_t *)mt_data(MTPy_T(cnt));
    for (int64_t k = 0; k < n; k++) {
        if (k == 0 || groups[k] != groups[k - 1])
            memcpy(dst + groups[k] * row, src + perm[k] * row, row);
        iv[perm[k]] = groups[k];
        cv[groups[k]]++;
    }
    mt_tensor back = *MTPy_T(out_m);
    for (int j = 0, k = 1; j < t->ndim; j++) {
        back.sizes[j] = j == d ? ng : MTPy_T(out_m)->sizes[k];
        back.strides[j] = j == d ? MTPy_T(out_m)->strides[0] : MTPy_T(out_m)->strides[k];
        k += j != d;
    }
    out = mtpy_new_contiguous(t->dtype, t->ndim, back.sizes, false);
    if (!out)
        goto done;
    if (back.numel)
        mt_copy(MTPy_T(out), &back);
    r = unique_result(out, inv, cnt, inverse, counts);
done:
    PyMem_Free(perm);
    Py_XDECREF(rows);
    Py_XDECREF(out_m);
    Py_XDECREF(out);
    Py_XDECREF(inv);
    Py_XDECREF(cnt);
    return r;
}

PyObject *impl_unique(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    bool inverse = a->v[2].b, counts = a->v[3].b;
    if (a->v[4].obj)
        return unique_dim(t, a->v[4].i, inverse, counts);
    int64_t n = t->numel;
    PyObject *flat = mtpy_new_contiguous(t->dtype, 1, &n, false);
    PyObject *v = NULL, *i = NULL, *out = NULL, *inv = NULL, *cnt = NULL, *r = NULL;
    int64_t *groups = NULL;
    if (!flat)
        return NULL;
    mt_tensor src = *t;
    if (n) {
        /* a flat view of t's elements in C order, through a contiguous copy */
        PyObject *tmp = mtpy_new_contiguous(t->dtype, t->ndim, t->sizes, false);
        if (!tmp)
            goto done;
        mt_copy(MTPy_T(tmp), &src);
        memcpy(mt_data(MTPy_T(flat)), mt_data(MTPy_T(tmp)), (size_t)n * mt_itemsize(t->dtype));
        Py_DECREF(tmp);
    }
    if (sorted_pair(MTPy_T(flat), 0, false, &v, &i) < 0)
        goto done;
    groups = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *groups);
    if (!groups) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t ng = mt_sorted_groups(MTPy_T(v), groups);
    if (ng < 0) {
        mtpy_raise();
        goto done;
    }
    out = mtpy_new_contiguous(t->dtype, 1, &ng, false);
    inv = mtpy_new_contiguous(MT_INT64, t->ndim, t->sizes, false);
    cnt = mtpy_new_contiguous(MT_INT64, 1, &ng, true);
    if (!out || !inv || !cnt)
        goto done;
    {
        int isz = mt_itemsize(t->dtype);
        const char *sv = mt_data(MTPy_T(v));
        const int64_t *perm = (const int64_t *)mt_data(MTPy_T(i));
        char *ov = mt_data(MTPy_T(out));
        int64_t *iv = (int64_t *)mt_data(MTPy_T(inv)), *cv = (int64_t *)mt_data(MTPy_T(cnt));
        for (int64_t k = 0; k < n; k++) {
            if (k == 0 || groups[k] != groups[k - 1])
                memcpy(ov + groups[k] * isz, sv + k * isz, isz);
            iv[perm[k]] = groups[k];
            cv[groups[k]]++;
        }
    }
    r = unique_result(out, inv, cnt, inverse, counts);
done:
    PyMem_Free(groups);
    Py_XDECREF(flat);
    Py_XDECREF(v);
    Py_XDECREF(i);
    Py_XDECREF(out);
    Py_XDECREF(inv);
    Py_XDECREF(cnt);
    return r;
}
