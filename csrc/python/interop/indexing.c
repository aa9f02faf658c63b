/* x[key] and x[key] = value: basic indexing makes a view, advanced indexing
 * (integer and bool tensors, lists) gathers or puts through the index kernel. */
#include "../autograd/autograd_bind.h"
#include "../dispatch/parser.h"
#include "from_data.h"
#include "../dispatch/function.h"
#include "numpy_bridge.h"
#include "foreign_tensors.h"

#include "../../core/overlap.h"
#include "../../core/shape.h"
#include "../../kernels/copy.h"
#include "../../kernels/index.h"
#include "../../ops/index.h"
#include "../../core/hot.h"

#include <string.h>

#define MAX_ITEMS 64

/* "torch.FloatTensor": how torch names a tensor type in messages. */

/* The key after parsing: a view for the basic part and, per advanced
 * index, the view dim it indexes and its int64 tensor. */
/* The view op torch applies last for a key, which names its grad_fn (the
 * numbers are the paths of ops/host/indexing.def). */
typedef enum { LAST_NONE, LAST_SLICE, LAST_SELECT, LAST_UNSQUEEZE, LAST_INDEX } last_op;

typedef struct {
    PyObject *items; /* the key as a tuple */
    PyObject *view;
    last_op last;
    int nadv;
    int adv_dim[MT_MAX_DIMS];
    PyObject *adv[MT_MAX_DIMS];
    PyObject *owned[MAX_ITEMS]; /* tensors made from lists, masks' positions */
    int nowned;
} parsed_key;

MT_HOT static void key_clear(parsed_key *k)
{
    Py_CLEAR(k->items);
    Py_CLEAR(k->view);
    for (int i = 0; i < k->nowned; i++)
        Py_CLEAR(k->owned[i]);
    k->nowned = 0;
}

static PyObject *own(parsed_key *k, PyObject *o)
{
    if (o && k->nowned < MAX_ITEMS)
        k->owned[k->nowned++] = o;
    else if (o) {
        Py_DECREF(o);
        PyErr_SetString(PyExc_IndexError, "too many indices");
        return NULL;
    }
    return o;
}

static bool is_bool_tensor(PyObject *o)
{
    return MTPy_Check(o) && (MTPy_T(o)->dtype == MT_BOOL || MTPy_T(o)->dtype == MT_UINT8);
}

static PyObject *invalid_index(PyObject *item)
{
    return PyErr_Format(PyExc_IndexError,
                        "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                        "Variables are valid indices (got %s)",
                        Py_TYPE(item)->tp_name);
}

/* A sequence item becomes an index tensor as torch makes one: bool and uint8
 * data keep their dtype, anything else (floats too) becomes int64. */
static PyObject *as_index_tensor(parsed_key *k, PyObject *item)
{
    PyObject *t = own(k, mtpy_from_data(item, NULL, false));
    if (t && !is_bool_tensor(t) && !mt_is_integral(MTPy_T(t)->dtype, false)) {
        mt_dtype d = MT_INT64;
        t = own(k, mtpy_from_data(item, &d, false));
    }
    return t;
}

/* NumPy's old rule, which torch 2.13 still follows with a warning: a short
 * non-tuple sequence holding a tensor, sequence, slice, ... or None is a tuple
 * of indices rather than one index. */
static int sequence_is_tuple(PyObject *key)
{
    if (PyTuple_Check(key))
        return 1;
    if (MTPy_Check(key) || mtpy_is_ndarray(key) || !PySequence_Check(key))
        return 0;
    Py_ssize_t n = PySequence_Size(key);
    if (n < 0) {
        PyErr_Clear();
        return 0;
    }
    for (Py_ssize_t i = 0; i < n && n < 32; i++) {
        PyObject *o = PySequence_GetItem(key, i);
        if (!o) {
            PyErr_Clear();
            return 0;
        }
        bool multi = MTPy_Check(o) || PySequence_Check(o) || PySlice_Check(o) || o == Py_Ellipsis ||
                     o == Py_None;
        Py_DECREF(o);
        if (multi)
            return PyErr_WarnEx(PyExc_UserWarning,
                                "Using a non-tuple sequence for multidimensional indexing is "
                                "deprecated and will be changed in pytorch 2.9; use x[tuple(seq)] "
                                "instead of x[seq]. In pytorch 2.9 this will be interpreted as "
                                "tensor index, x[torch.tensor(seq)], which will result either in "
                                "an error or a different result",
                                1) < 0
                       ? -1
                       : 1;
    }
    return 0;
}

MT_HOT static int parse_key(PyObject *self, PyObject *key, parsed_key *k)
{
    mt_tensor *t = MTPy_T(self);
    PyObject *items[MAX_ITEMS];
    memset(k, 0, sizeof *k);
    int as_tuple = sequence_is_tuple(key);
    if (as_tuple < 0)
        return -1;
    k->items = as_tuple ? PySequence_Tuple(key) : PyTuple_Pack(1, key);
    if (!k->items)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(k->items);
    if (n > MAX_ITEMS) {
        PyErr_SetString(PyExc_IndexError, "too many indices");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        items[i] = PyTuple_GET_ITEM(k->items, i);
    /* first pass: resolve item kinds and count the dims they consume */
    int consumed = 0, ellipsis = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = items[i];
        if (it == Py_None || PyBool_Check(it))
            continue;
        if (it == Py_Ellipsis) {
            if (ellipsis >= 0) {
                PyErr_SetString(PyExc_IndexError,
                                "an index can only have a single ellipsis ('...')");
                return -1;
            }
            ellipsis = (int)i;
            continue;
        }
        if (PySlice_Check(it) || (PyLong_Check(it))) {
            consumed++;
            continue;
        }
        PyObject *tt = it;
        if (!MTPy_Check(it) && !PySequence_Check(it) && !mtpy_is_foreign_tensor(it)) {
            /* anything else with __index__ is an integer; a foreign tensor
             * is an index tensor, as an array is */
            PyObject *num = PyNumber_Index(it);
            if (!num) {
                PyErr_Clear();
                invalid_index(it);
                return -1;
            }
            Py_DECREF(num);
            consumed++;
            continue;
        }
        if (!MTPy_Check(it) && !(tt = as_index_tensor(k, it)))
            return -1;
        items[i] = tt;
        if (MTPy_T(tt)->dtype == MT_UINT8 &&
            PyErr_WarnEx(PyExc_UserWarning,
                         "indexing with dtype torch.uint8 is now deprecated, "
                         "please use a dtype torch.bool instead.",
                         1) < 0)
            return -1;
        if (is_bool_tensor(tt))
            consumed += MTPy_T(tt)->ndim;
        else if (!mt_is_integral(MTPy_T(tt)->dtype, false)) {
            PyErr_SetString(PyExc_IndexError,
                            "tensors used as indices must be long, int, byte or bool tensors");
            return -1;
        } else
            consumed++;
    }
    if (consumed > t->ndim) {
        PyErr_Format(PyExc_IndexError, "too many indices for tensor of dimension %d", t->ndim);
        return -1;
    }
    /* second pass: the view geometry and the advanced indices */
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS], offset = t->offset;
    int sd = 0, od = 0;
#define NEW_DIM(sz, st)                                                                \
    do {                                                                               \
        if (od >= MT_MAX_DIMS) {                                                       \
            PyErr_Format(PyExc_IndexError, "minitorch supports at most %d dimensions", \
                         MT_MAX_DIMS);                                                 \
            return -1;                                                                 \
        }                                                                              \
        sizes[od] = (sz);                                                              \
        strides[od++] = (st);                                                          \
    } while (0)
    bool advanced = false; /* torch indexes after the views, whatever the order */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = items[i];
        if (it == Py_None) {
            NEW_DIM(1, 1);
            k->last = LAST_UNSQUEEZE;
        } else if (it == Py_True || it == Py_False) {
            NEW_DIM(it == Py_True, 1);
            advanced = true;
        } else if (it == Py_Ellipsis) {
            for (int r = t->ndim - consumed; r > 0; r--, sd++)
                NEW_DIM(t->sizes[sd], t->strides[sd]);
        } else if (PySlice_Check(it)) {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(it, &start, &stop, &step) < 0)
                return -1;
            if (step <= 0) {
                PyErr_SetString(PyExc_ValueError, "step must be greater than zero");
                return -1;
            }
            Py_ssize_t len = PySlice_AdjustIndices(t->sizes[sd], &start, &stop, step);
            /* torch skips whole-dim slices inside a tuple key, not a bare one */
            if (start != 0 || len != t->sizes[sd] || step != 1 || !as_tuple)
                k->last = LAST_SLICE;
            offset += len ? start * t->strides[sd] : 0;
            NEW_DIM(len, t->strides[sd] * step);
            sd++;
        } else if (!MTPy_Check(it) || (MTPy_T(it)->ndim == 0 && !is_bool_tensor(it))) {
            PyObject *num = PyNumber_Index(it);
            if (!num)
                return -1;
            long long v = PyLong_AsLongLong(num);
            Py_DECREF(num);
            if (v == -1 && PyErr_Occurred())
                return -1;
            if (v < -t->sizes[sd] || v >= t->sizes[sd]) {
                /* torch names the index's place in the key, not the dim it
                 * selects from ((None, 0, 9) reports dimension 2) */
                PyErr_Format(PyExc_IndexError,
                             "index %lld is out of bounds for dimension %d with size %lld", v,
                             (int)i, (long long)t->sizes[sd]);
                return -1;
            }
            offset += (v < 0 ? v + t->sizes[sd] : v) * t->strides[sd];
            sd++;
            k->last = LAST_SELECT;
        } else if (is_bool_tensor(it)) {
            mt_tensor *m = MTPy_T(it);
            advanced = true;
            for (int j = 0; j < m->ndim; j++)
                if (m->sizes[j] != t->sizes[sd + j]) {
                    char ms[256], ts[256];
                    mt_format_shape(ms, sizeof ms, m->ndim, m->sizes);
                    mt_format_shape(ts, sizeof ts, t->ndim, t->sizes);
                    PyErr_Format(PyExc_IndexError,
                                 "The shape of the mask %s at index %d does not match the shape "
                                 "of the indexed tensor %s at index %d",
                                 ms, j, ts, sd + j);
                    return -1;
                }
            if (m->ndim == 0) {
                NEW_DIM(*(uint8_t *)mt_data(m) ? 1 : 0, 1);
                continue;
            }
            mt_tensor *nz = mt_nonzero_indices(m);
            PyObject *pos = own(k, nz ? (PyObject *)mtpy_container(nz) : mtpy_raise());
            if (!pos)
                return -1;
            for (int j = 0; j < m->ndim; j++, sd++) {
                int64_t cs = MTPy_T(pos)->sizes[0], cst = m->ndim;
                PyObject *col = own(k, mtpy_new_view(pos, 1, &cs, &cst, j));
                if (!col)
                    return -1;
                k->adv_dim[k->nadv] = od;
                k->adv[k->nadv++] = col;
                NEW_DIM(t->sizes[sd], t->strides[sd]);
            }
        } else {
            k->adv_dim[k->nadv] = od;
            k->adv[k->nadv++] = it;
            NEW_DIM(t->sizes[sd], t->strides[sd]);
            sd++;
        }
    }
#undef NEW_DIM
    if (advanced || k->nadv)
        k->last = LAST_INDEX;
    for (; sd < t->ndim; sd++) {
        if (od >= MT_MAX_DIMS) {
            PyErr_Format(PyExc_IndexError, "minitorch supports at most %d dimensions", MT_MAX_DIMS);
            return -1;
        }
        sizes[od] = t->sizes[sd];
        strides[od++] = t->strides[sd];
    }
    k->view = mtpy_new_view(self, od, sizes, strides, offset);
    return k->view ? 0 : -1;
}

/* Turns the advanced indices into a plan over view (permuted so that
 * separated advanced dims come first, as NumPy and torch place them). The
 * broadcast index arrays are owned by k. The result has res_ndim dims of
 * res_sizes. */
static int make_plan(parsed_key *k, mt_tensor *view, mt_index_plan *p, int *res_ndim,
                     int64_t *res_sizes)
{
    int nd = 0;
    int64_t shape[MT_MAX_DIMS];
    for (int i = 0; i < k->nadv; i++) {
        mt_tensor *ix = MTPy_T(k->adv[i]);
        if (mt_broadcast_into(&nd, shape, ix->ndim, ix->sizes) < 0) {
            mt_error_clear();
            PyObject *list = PyUnicode_FromString("");
            for (int j = 0; list && j < k->nadv; j++) {
                char s[256];
                mt_format_shape(s, sizeof s, MTPy_T(k->adv[j])->ndim, MTPy_T(k->adv[j])->sizes);
                PyObject *next = PyUnicode_FromFormat(j ? "%U, %s" : "%U%s", list, s);
                Py_SETREF(list, next);
            }
            if (list)
                PyErr_Format(PyExc_IndexError,
                             "shape mismatch: indexing tensors could not be broadcast together "
                             "with shapes %U",
                             list);
            Py_XDECREF(list);
            return -1;
        }
    }
    bool adjacent = true;
    for (int i = 1; i < k->nadv; i++)
        adjacent &= k->adv_dim[i] == k->adv_dim[i - 1] + 1;
    if (!adjacent) {
        mt_tensor src = *view;
        int perm[MT_MAX_DIMS], np = 0;
        bool is_adv[MT_MAX_DIMS] = {false};
        for (int i = 0; i < k->nadv; i++) {
            perm[np++] = k->adv_dim[i];
            is_adv[k->adv_dim[i]] = true;
        }
        for (int d = 0; d < src.ndim; d++)
            if (!is_adv[d])
                perm[np++] = d;
        for (int d = 0; d < src.ndim; d++) {
            view->sizes[d] = src.sizes[perm[d]];
            view->strides[d] = src.strides[perm[d]];
        }
    }
    p->pre = adjacent ? k->adv_dim[0] : 0;
    p->k = k->nadv;
    p->index_ndim = nd;
    memcpy(p->index_sizes, shape, sizeof(int64_t) * nd);
    if (mt_checked_numel(nd, shape, &p->index_numel) < 0)
        return mtpy_raise_int();
    for (int i = 0; i < k->nadv; i++) {
        PyObject *dense = own(k, mtpy_new_contiguous(MT_INT64, nd, shape, false));
        if (!dense)
            return -1;
        mt_copy(MTPy_T(dense), MTPy_T(k->adv[i]));
        p->index[i] = (int64_t *)mt_data(MTPy_T(dense));
    }
    if (mt_index_wrap(view, p) < 0 || mt_index_result_shape(view, p, res_ndim, res_sizes) < 0)
        return mtpy_raise_int();
    return 0;
}

MT_HOT static PyObject *getitem(mt_args *a)
{
    parsed_key k;
    PyObject *self = a->v[0].obj, *out = NULL;
    if (parse_key(self, a->v[1].obj ? a->v[1].obj : Py_None, &k) < 0)
        goto done;
    /* the path names the node (the variant rows of ops/host/indexing.def) */
    a->path = (a->v[1].obj && MTPy_Check(a->v[1].obj) ? 8 : 1) + (int)k.last;
    if (!k.nadv) {
        out = Py_NewRef(k.view);
        goto done;
    }
    mt_tensor view = *MTPy_T(k.view);
    mt_index_plan p;
    int nd;
    int64_t shape[MT_MAX_DIMS];
    if (make_plan(&k, &view, &p, &nd, shape) < 0)
        goto done;
    out = mtpy_new_contiguous(view.dtype, nd, shape, false);
    if (out) {
        mt_index_gather(&view, &p, MTPy_T(out));
        /* the gather moved a conjugate view's memory: its values are the conjugates */
        if (mt_is_conj(&view))
            mt_conj_inplace(MTPy_T(out));
    }
done:
    key_clear(&k);
    return out;
}

/* The value as a tensor of the target's dtype broadcast to (nd, shape). */
static PyObject *value_as(PyObject *value, mt_dtype dtype, int nd, const int64_t *shape,
                          bool advanced)
{
    PyObject *out = mtpy_new_contiguous(dtype, nd, shape, false);
    if (!out)
        return NULL;
    if (PyBool_Check(value) || PyLong_Check(value)) {
        long long v = PyLong_AsLongLong(value);
        if (v == -1 && PyErr_Occurred())
            goto fail;
        mt_fill(MTPy_T(out), 0, v, 1);
        return out;
    }
    if (PyFloat_Check(value)) {
        mt_fill(MTPy_T(out), PyFloat_AS_DOUBLE(value), 0, 0);
        return out;
    }
    if (PyComplex_Check(value)) {
        Py_complex c = PyComplex_AsCComplex(value);
        if (c.real == -1.0 && PyErr_Occurred())
            goto fail;
        if (!mt_is_complex(dtype) && c.imag != 0) {
            PyErr_Format(PyExc_RuntimeError,
                         "value cannot be converted to type %s without overflow",
                         mt_dtype_infos[dtype].cpp_name);
            goto fail;
        }
        mt_fill_complex(MTPy_T(out), c.real, c.imag);
        return out;
    }
    if (mtpy_is_foreign_tensor(value)) {
        mtpy_raise_foreign("__setitem__", "the value", value);
        goto fail;
    }
    if (!MTPy_Check(value)) {
        PyErr_Format(PyExc_TypeError, "can't assign a %s to a torch.%sTensor",
                     Py_TYPE(value)->tp_name, mt_dtype_infos[dtype].scalar_name);
        goto fail;
    }
    mt_tensor v = *MTPy_T(value);
    if (advanced && v.dtype != dtype) {
        PyErr_Format(PyExc_RuntimeError,
                     "Index put requires the source and destination dtypes match, got %s for "
                     "the destination and %s for the source.",
                     mt_dtype_infos[dtype].scalar_name, mt_dtype_infos[v.dtype].scalar_name);
        goto fail;
    }
    while (v.ndim > nd && v.sizes[0] == 1) {
        memmove(v.sizes, v.sizes + 1, sizeof(int64_t) * (v.ndim - 1));
        memmove(v.strides, v.strides + 1, sizeof(int64_t) * (v.ndim - 1));
        v.ndim--;
    }
    for (int i = 0; i <= nd; i++) {
        int j = i - (nd - v.ndim);
        bool bad = i == nd ? v.ndim > nd : j >= 0 && v.sizes[j] != 1 && v.sizes[j] != shape[i];
        if (!bad)
            continue;
        char ts[256], vs[256];
        mt_format_shape(ts, sizeof ts, nd, shape);
        mt_format_shape(vs, sizeof vs, MTPy_T(value)->ndim, MTPy_T(value)->sizes);
        if (advanced || i == nd)
            PyErr_Format(PyExc_RuntimeError,
                         "shape mismatch: value tensor of shape %s cannot be broadcast to "
                         "indexing result of shape %s",
                         vs, ts);
        else
            PyErr_Format(PyExc_RuntimeError,
                         "The expanded size of the tensor (%lld) must match the existing size "
                         "(%lld) at non-singleton dimension %d.  Target sizes: %s.  Tensor "
                         "sizes: %s",
                         (long long)shape[i], (long long)v.sizes[j], i, ts, vs);
        goto fail;
    }
    mt_copy(MTPy_T(out), &v);
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* torch's overlap rules for x[key] = value: a basic key copies into the
 * view (copy_'s checks), an advanced one puts into it (index_put_'s, which
 * only warns when the view's elements alias). */
static int check_setitem_overlap(const parsed_key *k, const mt_tensor *view, PyObject *value)
{
    const mt_tensor *v = MTPy_Check(value) ? MTPy_T(value) : NULL;
    if (!k->nadv) {
        if (mt_check_internal_overlap(view) < 0 || (v && mt_check_overlap(view, v, false) < 0))
            return mtpy_raise_int();
        return 0;
    }
    if (mt_has_internal_overlap(view) &&
        mt_warn("Use of index_put_ on expanded tensors is deprecated. Please clone() the "
                "tensor before performing this operation. This also applies to advanced "
                "indexing e.g. tensor[indices] = tensor") < 0)
        return mtpy_raise_int();
    if (v && mt_check_overlap(view, v, false) < 0)
        return mtpy_raise_int();
    for (int i = 0; i < k->nadv; i++)
        if (mt_check_overlap(view, MTPy_T(k->adv[i]), true) < 0)
            return mtpy_raise_int();
    return 0;
}

static PyObject *setitem(mt_args *a)
{
    parsed_key k;
    PyObject *self = a->v[0].obj, *value = a->v[2].obj ? a->v[2].obj : Py_None, *vals = NULL;
    PyObject *ret = NULL;
    if (parse_key(self, a->v[1].obj ? a->v[1].obj : Py_None, &k) < 0)
        goto done;
    mt_tensor view = *MTPy_T(k.view);
    if (check_setitem_overlap(&k, &view, value) < 0)
        goto done;
    if (!k.nadv) {
        /* copying through a temporary keeps overlapping source and target right */
        if (!(vals = value_as(value, view.dtype, view.ndim, view.sizes, false)))
            goto done;
        mt_copy(&view, MTPy_T(vals));
    } else {
        mt_index_plan p;
        int nd;
        int64_t shape[MT_MAX_DIMS];
        if (make_plan(&k, &view, &p, &nd, shape) < 0)
            goto done;
        if (!(vals = value_as(value, view.dtype, nd, shape, true)))
            goto done;
        /* torch's put kernel has no unsigned entry (it holds complex32's) */
        if (mt_is_barebones(view.dtype) && view.dtype != MT_COMPLEX32) {
            mt_error(MT_ERR_NOT_IMPLEMENTED, "\"index_put\" not implemented for '%s'",
                     mt_dtype_infos[view.dtype].scalar_name);
            mtpy_raise_int();
            goto done;
        }
        /* vals is ours: a conjugate view's memory takes the conjugates */
        if (mt_is_conj(&view))
            mt_conj_inplace(MTPy_T(vals));
        mt_index_put(&view, &p, MTPy_T(vals), MT_PUT_SET, 0, 0);
    }
    mt_bump_version(MTPy_T(self));
    ret = Py_NewRef(Py_None);
done:
    Py_XDECREF(vals);
    key_clear(&k);
    return ret;
}

/* torch dispatches __torch_function__ on tensor-likes inside the key (its
 * items and the items of sequences among them) and on the value. The handlers
 * get Tensor.__getitem__ / __setitem__; the C impl they may reach again runs
 * with subclass dispatch disabled, so the key is not collected twice. */
static PyObject *dispatch_indexing(mt_args *args, const char *name, mtpy_impl_fn impl)
{
    mtpy_call *a = mtpy_call_of(args);
    int before = a->noverloaded;
    PyObject *key = args->v[1].obj;
    if (key && (PyTuple_Check(key) || PyList_Check(key))) {
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(key); i++) {
            PyObject *it = PySequence_Fast_GET_ITEM(key, i);
            mt_collect_overloaded(a, it);
            if (PyTuple_Check(it) || PyList_Check(it))
                for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(it); j++)
                    mt_collect_overloaded(a, PySequence_Fast_GET_ITEM(it, j));
        }
    } else if (key) {
        mt_collect_overloaded(a, key);
    }
    if (a->nargs > 2 && args->v[2].obj)
        mt_collect_overloaded(a, args->v[2].obj);
    if (a->noverloaded == before)
        return impl(args);
    PyObject *func = PyObject_GetAttrString((PyObject *)mtpy_tensor_class, name);
    if (!func)
        return NULL;
    PyObject *ret = mt_dispatch(func, impl, a);
    Py_DECREF(func);
    return ret;
}

MT_HOT PyObject *impl_getitem(mt_args *a) { return dispatch_indexing(a, "__getitem__", getitem); }

PyObject *impl_setitem(mt_args *a) { return dispatch_indexing(a, "__setitem__", setitem); }
