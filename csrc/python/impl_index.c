/* Data-movement ops of the op table: joins, flips, gathers, scatters, masks,
 * triangles. Joins and flips are copies between views; the rest use the
 * index kernel. */
#include "indexing.h"
#include "parser.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../kernels/index.h"

#include <string.h>

static int wrap(int64_t dim, int ndim, int *out)
{
    return mt_wrap_dim(dim, ndim, out) < 0 ? mtpy_raise_int() : 0;
}

static PyObject *clone_of(const mt_tensor *t)
{
    PyObject *out = mtpy_new_contiguous(t->dtype, t->ndim, t->sizes, false);
    if (out)
        mt_copy(MTPy_T(out), t);
    return out;
}

PyObject *impl_cat(mt_args *a)
{
    PyObject *seq = PySequence_Fast(a->v[0].obj, "expected a sequence of Tensors");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq), *out = NULL;
    const mt_tensor *ref = NULL;
    mt_dtype out_dtype = MT_BOOL; /* all operands rank alike: promotion is a fold */
    int dim, ref_i = 0;
    if (n == 0) {
        PyErr_SetString(PyExc_ValueError, "torch.cat(): expected a non-empty list of Tensors");
        goto done;
    }
    /* legacy: 1-d empty tensors are skipped whatever their neighbours' shapes */
    for (Py_ssize_t i = 0; i < n; i++) {
        const mt_tensor *t = MTPy_T(items[i]);
        out_dtype = i ? mt_promote_types(out_dtype, t->dtype) : t->dtype;
        if (!ref && !(t->ndim == 1 && t->numel == 0)) {
            ref = t;
            ref_i = (int)i;
        }
    }
    if (!ref)
        ref = MTPy_T(items[0]);
    if (ref->ndim == 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "zero-dimensional tensor (at position %d) cannot be concatenated", ref_i);
        goto done;
    }
    if (wrap(a->v[1].i, ref->ndim, &dim) < 0)
        goto done;
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, ref->sizes, sizeof(int64_t) * ref->ndim);
    sizes[dim] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const mt_tensor *t = MTPy_T(items[i]);
        if (t->ndim == 1 && t->numel == 0)
            continue;
        if (t->ndim != ref->ndim) {
            PyErr_Format(PyExc_RuntimeError,
                         t->ndim == 0 ? "zero-dimensional tensor (at position %d) cannot be concatenated"
                                      : "Tensors must have same number of dimensions: got %d and %d",
                         t->ndim == 0 ? (int)i : ref->ndim, t->ndim);
            goto done;
        }
        for (int d = 0; d < t->ndim; d++)
            if (d != dim && t->sizes[d] != ref->sizes[d]) {
                PyErr_Format(PyExc_RuntimeError,
                             "Sizes of tensors must match except in dimension %d. Expected size "
                             "%lld but got size %lld for tensor number %d in the list.",
                             dim, (long long)ref->sizes[d], (long long)t->sizes[d], (int)i);
                goto done;
            }
        sizes[dim] += t->sizes[dim];
    }
    if (!(out = mtpy_new_contiguous(out_dtype, ref->ndim, sizes, false)))
        goto done;
    int64_t at = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const mt_tensor *t = MTPy_T(items[i]);
        if (t->ndim == 1 && t->numel == 0)
            continue;
        mt_tensor part = mtpy_narrowed(MTPy_T(out), dim, at, t->sizes[dim]);
        mt_copy(&part, t);
        at += t->sizes[dim];
    }
done:
    Py_DECREF(seq);
    return out;
}

PyObject *impl_stack(mt_args *a)
{
    PyObject *seq = PySequence_Fast(a->v[0].obj, "expected a sequence of Tensors");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq), *out = NULL;
    mt_dtype out_dtype = MT_BOOL; /* all operands rank alike: promotion is a fold */
    int dim;
    if (n == 0) {
        PyErr_SetString(PyExc_RuntimeError, "stack expects a non-empty TensorList");
        goto done;
    }
    const mt_tensor *ref = MTPy_T(items[0]);
    if (wrap(a->v[1].i, ref->ndim + 1, &dim) < 0)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        const mt_tensor *t = MTPy_T(items[i]);
        out_dtype = i ? mt_promote_types(out_dtype, t->dtype) : t->dtype;
        bool same = t->ndim == ref->ndim;
        for (int d = 0; same && d < t->ndim; d++)
            same = t->sizes[d] == ref->sizes[d];
        if (!same) {
            char s0[256], s1[256];
            mt_format_shape(s0, sizeof s0, ref->ndim, ref->sizes);
            mt_format_shape(s1, sizeof s1, t->ndim, t->sizes);
            PyErr_Format(PyExc_RuntimeError,
                         "stack expects each tensor to be equal size, but got %s at entry 0 and "
                         "%s at entry %d", s0, s1, (int)i);
            goto done;
        }
    }
    int64_t sizes[MT_MAX_DIMS];
    for (int d = 0, j = 0; d <= ref->ndim; d++)
        sizes[d] = d == dim ? n : ref->sizes[j++];
    if (!(out = mtpy_new_contiguous(out_dtype, ref->ndim + 1, sizes, false)))
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        mt_tensor part = mtpy_narrowed(MTPy_T(out), dim, i, 1);
        mt_tensor src = *MTPy_T(items[i]);
        memmove(src.sizes + dim + 1, src.sizes + dim, sizeof(int64_t) * (src.ndim - dim));
        memmove(src.strides + dim + 1, src.strides + dim, sizeof(int64_t) * (src.ndim - dim));
        src.sizes[dim] = 1;
        src.strides[dim] = 0;
        src.ndim++;
        mt_copy(&part, &src);
    }
done:
    Py_DECREF(seq);
    return out;
}

PyObject *impl_flip(mt_args *a)
{
    mt_tensor v = *a->v[0].t;
    bool seen[MT_MAX_DIMS] = {false};
    for (int i = 0; i < a->v[1].nints; i++) {
        int d;
        if (wrap(a->v[1].ints[i], v.ndim, &d) < 0)
            return NULL;
        if (seen[d])
            return PyErr_Format(PyExc_RuntimeError, "dim %d appears multiple times in the list of dims", d);
        seen[d] = true;
        if (v.ndim && v.sizes[d] > 0) {
            v.offset += (v.sizes[d] - 1) * v.strides[d];
            v.strides[d] = -v.strides[d];
        }
    }
    return clone_of(&v);
}

/* dst = src rolled by shift along d (of nonzero size): two copies between views. */
static void roll_into(const mt_tensor *dst, const mt_tensor *src, int d, int64_t shift)
{
    int64_t size = src->sizes[d], s = (shift % size + size) % size;
    mt_tensor d0 = mtpy_narrowed(dst, d, s, size - s), s0 = mtpy_narrowed(src, d, 0, size - s);
    mt_tensor d1 = mtpy_narrowed(dst, d, 0, s), s1 = mtpy_narrowed(src, d, size - s, s);
    mt_copy(&d0, &s0);
    mt_copy(&d1, &s1);
}

/* A contiguous t seen as 1-d. */
static mt_tensor flat_of(const mt_tensor *t)
{
    mt_tensor v = *t;
    v.ndim = 1;
    v.sizes[0] = v.numel;
    v.strides[0] = 1;
    return v;
}

PyObject *impl_roll(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int ns = a->v[1].nints, nd = a->v[2].nints;
    if (nd == 0) {
        if (ns != 1)
            return PyErr_Format(PyExc_RuntimeError, "`shifts` required to be of size 1 when `dims` is empty, but got %d", ns);
        PyObject *flat = clone_of(t);
        if (!flat)
            return NULL;
        mt_tensor f = flat_of(MTPy_T(flat));
        PyObject *out = mtpy_new_contiguous(t->dtype, t->ndim, t->sizes, false);
        if (out && f.numel) {
            mt_tensor o = flat_of(MTPy_T(out));
            roll_into(&o, &f, 0, a->v[1].ints[0]);
        }
        Py_DECREF(flat);
        return out;
    }
    if (ns != nd)
        return PyErr_Format(PyExc_RuntimeError, "shifts and dimensions must align. shifts: %d, dims:%d", ns, nd);
    PyObject *cur = clone_of(t);
    for (int i = 0; cur && i < nd; i++) {
        int d;
        if (wrap(a->v[2].ints[i], t->ndim, &d) < 0) {
            Py_DECREF(cur);
            return NULL;
        }
        int64_t size = t->sizes[d];
        PyObject *next = mtpy_new_contiguous(t->dtype, t->ndim, t->sizes, false);
        if (next && size)
            roll_into(MTPy_T(next), MTPy_T(cur), d, a->v[1].ints[i]);
        else if (next)
            mt_copy(MTPy_T(next), MTPy_T(cur));
        Py_SETREF(cur, next);
    }
    return cur;
}

static PyObject *repeat_with(const mt_tensor *t, int n, const int64_t *reps)
{
    if (n < t->ndim)
        return PyErr_Format(PyExc_RuntimeError,
                            "Number of dimensions of repeat dims can not be smaller than number "
                            "of dimensions of tensor");
    if (2 * n > MT_MAX_DIMS)
        return PyErr_Format(PyExc_RuntimeError, "minitorch repeats at most %d dims", MT_MAX_DIMS / 2);
    int64_t sizes[MT_MAX_DIMS];
    mt_tensor src = {.storage = t->storage, .offset = t->offset, .numel = t->numel,
                     .ndim = 2 * n, .dtype = t->dtype};
    for (int i = 0; i < n; i++) {
        int j = i - (n - t->ndim);
        if (reps[i] < 0)
            return PyErr_Format(PyExc_RuntimeError,
                                "Trying to create tensor with negative dimension %lld: ",
                                (long long)reps[i]);
        int64_t s = j >= 0 ? t->sizes[j] : 1;
        sizes[i] = s * reps[i];
        src.sizes[2 * i] = reps[i];
        src.strides[2 * i] = 0;
        src.sizes[2 * i + 1] = s;
        src.strides[2 * i + 1] = j >= 0 ? t->strides[j] : 0;
    }
    PyObject *out = mtpy_new_contiguous(t->dtype, n, sizes, false);
    if (!out)
        return NULL;
    mt_tensor dst = src;
    dst.storage = MTPy_T(out)->storage;
    dst.offset = 0;
    mt_contiguous_strides(dst.ndim, dst.sizes, dst.strides);
    mt_checked_numel(dst.ndim, dst.sizes, &dst.numel);
    mt_copy(&dst, &src);
    return out;
}

PyObject *impl_repeat(mt_args *a)
{
    return repeat_with(a->v[0].t, a->v[1].nints, a->v[1].ints);
}

PyObject *impl_tile(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int n = a->v[1].nints;
    int64_t reps[MT_MAX_DIMS];
    int pad = t->ndim > n ? t->ndim - n : 0;
    if (n + pad > MT_MAX_DIMS)
        return PyErr_Format(PyExc_RuntimeError, "minitorch tiles at most %d dims", MT_MAX_DIMS);
    for (int i = 0; i < pad; i++)
        reps[i] = 1;
    memcpy(reps + pad, a->v[1].ints, sizeof(int64_t) * n);
    return repeat_with(t, n + pad, reps);
}

/* An int64 copy of an index tensor, dense. */
static PyObject *dense_long(const mt_tensor *ix, const char *op)
{
    if (!mt_is_integral(ix->dtype, false))
        return PyErr_Format(PyExc_RuntimeError, "%s(): Expected dtype int64 for index", op);
    PyObject *o = mtpy_new_contiguous(MT_INT64, ix->ndim, ix->sizes, false);
    if (o)
        mt_copy(MTPy_T(o), ix);
    return o;
}

/* t gathered by one index array along dim (index_select, take). */
static PyObject *select_along(const mt_tensor *t, int dim, const mt_tensor *index)
{
    PyObject *ix = mtpy_new_contiguous(MT_INT64, index->ndim, index->sizes, false);
    if (!ix)
        return NULL;
    mt_copy(MTPy_T(ix), index);
    mt_index_plan p = {.pre = dim, .k = 1, .index_ndim = index->ndim,
                       .index_numel = index->numel, .index = {(int64_t *)mt_data(MTPy_T(ix))}};
    memcpy(p.index_sizes, index->sizes, sizeof(int64_t) * index->ndim);
    PyObject *out = NULL;
    int nd;
    int64_t shape[MT_MAX_DIMS];
    if (mt_index_wrap(t, &p) < 0 || mt_index_result_shape(t, &p, &nd, shape) < 0)
        mtpy_raise();
    else if ((out = mtpy_new_contiguous(t->dtype, nd, shape, false)))
        mt_index_gather(t, &p, MTPy_T(out));
    Py_DECREF(ix);
    return out;
}

PyObject *impl_index_select(mt_args *a)
{
    mt_tensor t = *a->v[0].t, *ix = a->v[2].t;
    int dim;
    if (wrap(a->v[1].i, t.ndim, &dim) < 0)
        return NULL;
    if (ix->ndim > 1)
        return PyErr_Format(PyExc_IndexError, "index_select(): Index is supposed to be a vector");
    if (!mt_is_integral(ix->dtype, false) || ix->dtype < MT_INT32)
        return PyErr_Format(PyExc_RuntimeError,
                            "index_select(): Expected dtype int32 or int64 for index");
    mt_tensor i1 = *ix;
    if (i1.ndim == 0) {
        i1.ndim = 1;
        i1.sizes[0] = 1;
        i1.strides[0] = 0;
    }
    if (t.ndim == 0) {
        t.ndim = 1;
        t.sizes[0] = 1;
        t.strides[0] = 0;
        PyObject *r = select_along(&t, 0, &i1);
        if (r) {
            MTPy_T(r)->ndim = 0;
        }
        return r;
    }
    return select_along(&t, dim, &i1);
}

PyObject *impl_take(mt_args *a)
{
    PyObject *flat = clone_of(a->v[0].t);
    if (!flat)
        return NULL;
    mt_tensor f = *MTPy_T(flat);
    f.ndim = 1;
    f.sizes[0] = f.numel;
    f.strides[0] = 1;
    PyObject *out = NULL;
    if (!mt_is_integral(a->v[1].t->dtype, false))
        PyErr_SetString(PyExc_RuntimeError, "take(): Expected a long tensor for index, but got Float");
    else
        out = select_along(&f, 0, a->v[1].t);
    Py_DECREF(flat);
    return out;
}

PyObject *impl_gather(mt_args *a)
{
    mt_tensor *t = a->v[0].t, *ix = a->v[2].t;
    int dim;
    if (wrap(a->v[1].i, t->ndim, &dim) < 0)
        return NULL;
    if (ix->dtype != MT_INT64)
        return PyErr_Format(PyExc_RuntimeError, "gather(): Expected dtype int64 for index");
    if (ix->ndim != t->ndim && !(t->ndim <= 1 && ix->ndim <= 1))
        return PyErr_Format(PyExc_RuntimeError,
                            "Index tensor must have the same number of dimensions as input tensor");
    for (int d = 0; d < ix->ndim && d < t->ndim; d++)
        if (d != dim && ix->sizes[d] > t->sizes[d])
            return PyErr_Format(PyExc_RuntimeError,
                                "Size does not match at dimension %d expected index %S to be "
                                "no larger than self %S apart from dimension %d", d,
                                mtpy_size(ix->ndim, ix->sizes), mtpy_size(t->ndim, t->sizes), dim);
    PyObject *out = mtpy_new_contiguous(t->dtype, ix->ndim, ix->sizes, false);
    if (out && mt_gather_dim(t, dim, ix, MTPy_T(out)) < 0) {
        Py_DECREF(out);
        return mtpy_raise();
    }
    return out;
}

static PyObject *scatter_common(mt_args *a, mt_put_op op, bool inplace, bool has_reduce)
{
    mt_tensor *t = a->v[0].t, *ix = a->v[2].t;
    int dim;
    if (wrap(a->v[1].i, t->ndim, &dim) < 0)
        return NULL;
    if (ix->dtype != MT_INT64)
        return PyErr_Format(PyExc_RuntimeError, "scatter(): Expected dtype int64 for index");
    if (ix->ndim != t->ndim && !(t->ndim <= 1 && ix->ndim <= 1))
        return PyErr_Format(PyExc_RuntimeError,
                            "Index tensor must have the same number of dimensions as self tensor");
    PyObject *out = inplace ? Py_NewRef(a->v[0].obj) : clone_of(t);
    if (!out)
        return NULL;
    PyObject *src = mtpy_new_contiguous(t->dtype, ix->ndim, ix->sizes, false);
    if (!src) {
        Py_DECREF(out);
        return NULL;
    }
    const mt_value *v = &a->v[3];
    if (v->is_scalar)
        mt_fill(MTPy_T(src), v->s.f, v->s.i, v->s.kind != MT_SCALAR_FLOAT);
    else {
        mt_tensor s = *v->t;
        for (int d = 0; d < ix->ndim && d < s.ndim; d++)
            s.sizes[d] = ix->sizes[d];
        mt_copy(MTPy_T(src), &s);
    }
    if (has_reduce && !mt_is_none(a, 4)) {
        if (!strcmp(a->v[4].str, "add"))
            op = MT_PUT_ADD;
        else if (!strcmp(a->v[4].str, "multiply"))
            op = MT_PUT_MUL;
        else {
            Py_DECREF(out);
            Py_DECREF(src);
            return PyErr_Format(PyExc_RuntimeError, "reduce argument must be either add or multiply.");
        }
    }
    int rc = mt_scatter_dim(MTPy_T(out), dim, ix, MTPy_T(src), op);
    Py_DECREF(src);
    if (rc < 0) {
        Py_DECREF(out);
        return mtpy_raise();
    }
    MTPy_T(out)->storage->version++;
    return out;
}

PyObject *impl_scatter(mt_args *a) { return scatter_common(a, MT_PUT_SET, false, true); }
PyObject *impl_scatter_(mt_args *a) { return scatter_common(a, MT_PUT_SET, true, true); }
PyObject *impl_scatter_add(mt_args *a) { return scatter_common(a, MT_PUT_ADD, false, false); }
PyObject *impl_scatter_add_(mt_args *a) { return scatter_common(a, MT_PUT_ADD, true, false); }

PyObject *impl_index_add_(mt_args *a)
{
    mt_tensor *t = a->v[0].t, *ix = a->v[2].t, *src = a->v[3].t;
    int dim;
    if (wrap(a->v[1].i, t->ndim, &dim) < 0)
        return NULL;
    if (!mt_is_integral(ix->dtype, false) || ix->ndim > 1)
        return PyErr_Format(PyExc_IndexError, "index_add_(): Index is supposed to be a vector");
    PyObject *ixl = dense_long(ix, "index_add_");
    if (!ixl)
        return NULL;
    mt_index_plan p = {.pre = dim, .k = 1, .index_ndim = 1, .index_numel = ix->numel,
                       .index_sizes = {ix->numel}, .index = {(int64_t *)mt_data(MTPy_T(ixl))}};
    int nd;
    int64_t shape[MT_MAX_DIMS];
    PyObject *vals = NULL, *ret = NULL;
    if (mt_index_wrap(t, &p) < 0 || mt_index_result_shape(t, &p, &nd, shape) < 0) {
        mtpy_raise();
        goto done;
    }
    if (src->ndim != nd || memcmp(src->sizes, shape, sizeof(int64_t) * nd)) {
        PyErr_Format(PyExc_RuntimeError, "index_add_(): Source/destination tensor must have same slice shapes.");
        goto done;
    }
    if (!(vals = mtpy_new_contiguous(t->dtype, nd, shape, false)))
        goto done;
    mt_copy(MTPy_T(vals), src);
    mt_index_put(t, &p, MTPy_T(vals), MT_PUT_ADD, a->v[4].s.f, a->v[4].s.i);
    t->storage->version++;
    ret = Py_NewRef(a->v[0].obj);
done:
    Py_XDECREF(vals);
    Py_DECREF(ixl);
    return ret;
}

static PyObject *masked_fill_into(mt_tensor *dst, mt_args *a)
{
    mt_tensor *mask = a->v[1].t;
    if (mask->dtype != MT_BOOL)
        return PyErr_Format(PyExc_RuntimeError,
                            "masked_fill_ only supports boolean masks, but got mask with dtype %s",
                            mt_dtype_infos[mask->dtype].name);
    int nd = dst->ndim;
    int64_t shape[MT_MAX_DIMS];
    memcpy(shape, dst->sizes, sizeof(int64_t) * nd);
    if (mt_broadcast_into(&nd, shape, mask->ndim, mask->sizes) < 0)
        return mtpy_raise();
    if (nd != dst->ndim || memcmp(shape, dst->sizes, sizeof(int64_t) * nd))
        return PyErr_Format(PyExc_RuntimeError,
                            "output with shape %S doesn't match the broadcast shape %S",
                            mtpy_size(dst->ndim, dst->sizes), mtpy_size(nd, shape));
    const mt_value *v = &a->v[2];
    if (!v->is_scalar && v->t->ndim != 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "masked_fill_ only supports a 0-dimensional value tensor, but got "
                            "tensor with %d dimension(s).", v->t->ndim);
    PyObject *val = mtpy_new_contiguous(dst->dtype, 0, NULL, false);
    if (!val)
        return NULL;
    if (v->is_scalar)
        mt_fill(MTPy_T(val), v->s.f, v->s.i, v->s.kind != MT_SCALAR_FLOAT);
    else
        mt_copy(MTPy_T(val), v->t);
    mt_masked_fill(dst, mask, MTPy_T(val));
    Py_DECREF(val);
    dst->storage->version++;
    return Py_NewRef(Py_None);
}

PyObject *impl_masked_fill(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    int nd = t->ndim;
    int64_t shape[MT_MAX_DIMS];
    memcpy(shape, t->sizes, sizeof(int64_t) * nd);
    if (mt_broadcast_into(&nd, shape, a->v[1].t->ndim, a->v[1].t->sizes) < 0)
        return mtpy_raise();
    PyObject *out = mtpy_new_contiguous(t->dtype, nd, shape, false);
    if (!out)
        return NULL;
    mt_copy(MTPy_T(out), t);
    PyObject *r = masked_fill_into(MTPy_T(out), a);
    if (!r)
        Py_CLEAR(out);
    Py_XDECREF(r);
    return out;
}

PyObject *impl_masked_fill_(mt_args *a)
{
    PyObject *r = masked_fill_into(a->v[0].t, a);
    if (!r)
        return NULL;
    Py_DECREF(r);
    return Py_NewRef(a->v[0].obj);
}

PyObject *impl_nonzero(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    PyObject *pos = mtpy_nonzero(t);
    if (!pos || !a->v[1].b)
        return pos;
    int n = t->ndim ? t->ndim : 1;
    PyObject *tup = PyTuple_New(n);
    for (int j = 0; tup && j < n; j++) {
        int64_t cs = MTPy_T(pos)->sizes[0], st = t->ndim;
        mt_tensor col = *MTPy_T(pos);
        col.ndim = 1;
        col.sizes[0] = cs;
        col.strides[0] = st;
        col.offset = t->ndim ? j : 0;
        col.numel = cs;
        PyObject *c = mtpy_new_contiguous(MT_INT64, 1, &cs, true);
        if (c && t->ndim)
            mt_copy(MTPy_T(c), &col);
        if (!c)
            Py_CLEAR(tup);
        else
            PyTuple_SET_ITEM(tup, j, c);
    }
    Py_DECREF(pos);
    return tup;
}

PyObject *impl_masked_select(mt_args *a)
{
    mt_tensor t = *a->v[0].t, m = *a->v[1].t;
    if (m.dtype != MT_BOOL)
        return PyErr_Format(PyExc_RuntimeError,
                            "masked_select: expected BoolTensor for mask");
    int nd = t.ndim;
    int64_t shape[MT_MAX_DIMS];
    memcpy(shape, t.sizes, sizeof(int64_t) * nd);
    if (mt_broadcast_into(&nd, shape, m.ndim, m.sizes) < 0)
        return mtpy_raise();
    PyObject *tb = mtpy_new_contiguous(t.dtype, nd, shape, false);
    PyObject *mb = mtpy_new_contiguous(MT_BOOL, nd, shape, false);
    PyObject *out = NULL;
    if (tb && mb) {
        mt_copy(MTPy_T(tb), &t);
        mt_copy(MTPy_T(mb), &m);
        int64_t n = mt_count_set(MTPy_T(mb));
        if ((out = mtpy_new_contiguous(t.dtype, 1, &n, false))) {
            const uint8_t *mp = (const uint8_t *)mt_data(MTPy_T(mb));
            const char *sp = mt_data(MTPy_T(tb));
            char *op = mt_data(MTPy_T(out));
            int isz = mt_itemsize(t.dtype);
            for (int64_t i = 0; i < MTPy_T(mb)->numel; i++)
                if (mp[i]) {
                    memcpy(op, sp + i * isz, isz);
                    op += isz;
                }
        }
    }
    Py_XDECREF(tb);
    Py_XDECREF(mb);
    return out;
}

static PyObject *triangle(mt_args *a, bool lower)
{
    mt_tensor *t = a->v[0].t;
    if (t->ndim < 2)
        return PyErr_Format(PyExc_RuntimeError, "%s: input tensor must have at least 2 dimensions",
                            lower ? "tril" : "triu");
    PyObject *out = clone_of(t);
    if (out)
        mt_triangle_zero(MTPy_T(out), a->v[1].i, lower);
    return out;
}

PyObject *impl_tril(mt_args *a) { return triangle(a, true); }
PyObject *impl_triu(mt_args *a) { return triangle(a, false); }
