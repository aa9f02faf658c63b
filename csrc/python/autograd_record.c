/* Recording op-table calls into the autograd graph. */
#include "autograd_bind.h"

#include "../autograd/backend.h"
#include "../autograd/derivatives.h"
#include "../autograd/grad_mode.h"
#include "../autograd/view_tracking.h"
#include "../kernels/copy.h"

#include <stdio.h>
#include <string.h>

/* Calls fn(t) for every tensor argument; stops when it returns true. */
static bool any_tensor_input(mt_args *a, bool (*fn)(mt_tensor *))
{
    const mt_signature *s = a->sig;
    int np = mt_signature_nparams(s);
    for (int p = 0; p < np; p++) {
        mt_argtype ty = mt_signature_param_type(s, p);
        if (ty == MT_ARG_TENSOR && a->v[p].t && fn(a->v[p].t))
            return true;
        if (ty == MT_ARG_TENSOR_LIST && a->v[p].obj) {
            PyObject *seq = a->v[p].obj;
            for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
                PyObject *o = PySequence_Fast_GET_ITEM(seq, k);
                if (MTPy_Check(o) && fn(MTPy_T(o)))
                    return true;
            }
        }
    }
    return false;
}

static bool requires(mt_tensor *t)
{
    return mt_requires_grad(t);
}

int mt_record_prepare(const char *op, const mt_node_kind *kind, bool inplace, mt_args *a,
                      mt_record_state *st)
{
    st->active = false;
    st->old_self = NULL;
    if (!mt_grad_enabled || kind == &mt_nondifferentiable_kind || !any_tensor_input(a, requires))
        return 0;
    if (inplace) {
        mt_tensor *self = a->v[0].t;
        mt_autograd_meta *m = mt_meta.get(self);
        if (mt_view_check_inplace(self) < 0)
            return -1;
        if ((self->flags & MT_FLAG_REQUIRES_GRAD) && !(m && m->grad_fn)) {
            PyErr_SetString(PyExc_RuntimeError,
                            "a leaf Variable that requires grad is being used in an in-place "
                            "operation.");
            return -1;
        }
        if (kind && (kind->save_inputs & 1)) {
            /* the formula reads self as it was before being overwritten */
            PyObject *copy = mtpy_new_contiguous(self->dtype, self->ndim, self->sizes, false);
            if (!copy)
                return -1;
            mt_copy(MTPy_T(copy), self);
            st->old_self = copy;
            /* the copy stands for self before the op, history included, so
             * that double backward reaches it */
            mt_edge e;
            int rc = mt_gradient_edge(self, &e);
            if (rc == 0 && e.fn) {
                rc = mt_set_history(MTPy_T(copy), e.fn, e.input_nr);
                mt_node_decref(e.fn);
            }
            if (rc < 0) {
                Py_CLEAR(st->old_self);
                return -1;
            }
        }
    }
    st->active = true;
    return 0;
}

static int count_outputs(PyObject *result)
{
    if (MTPy_Check(result))
        return 1;
    if (PyTuple_Check(result) || PyList_Check(result))
        return (int)PySequence_Fast_GET_SIZE(result);
    return 0;
}

static PyObject *output_at(PyObject *result, int k)
{
    return MTPy_Check(result) ? result : PySequence_Fast_GET_ITEM(result, k);
}

static void fill_edge_meta(mt_tensor_meta *m, const mt_tensor *t)
{
    m->dtype = t->dtype;
    m->ndim = t->ndim;
    memcpy(m->sizes, t->sizes, sizeof(int64_t) * t->ndim);
}

static void copy_arg(mt_ad_value *d, const mt_value *v, mt_argtype ty)
{
    memset(d, 0, offsetof(mt_ad_value, ints));
    d->none = v->obj == NULL && ty != MT_ARG_INT_LIST;
    switch (ty) {
    case MT_ARG_TENSOR:
        if (v->is_scalar) {
            d->none = false;
            d->is_number = true;
            d->is_float = v->s.kind == MT_SCALAR_FLOAT;
            d->i = v->s.i;
            d->f = v->s.f;
        }
        break;
    case MT_ARG_SCALAR:
        d->is_float = v->s.kind == MT_SCALAR_FLOAT;
        d->i = v->s.i;
        d->f = v->s.f;
        break;
    case MT_ARG_INT:
        d->i = v->i;
        d->f = (double)v->i;
        break;
    case MT_ARG_FLOAT:
        d->f = v->f;
        d->is_float = true;
        break;
    case MT_ARG_BOOL:
        d->i = v->b;
        break;
    case MT_ARG_DTYPE:
        d->i = v->dtype;
        break;
    case MT_ARG_STR:
        if (v->obj)
            snprintf(d->str, sizeof d->str, "%s", v->str);
        break;
    case MT_ARG_OBJECT:
        d->obj = Py_XNewRef(v->obj);
        break;
    case MT_ARG_INT_LIST:
        d->none = v->ints == NULL;
        d->nints = v->ints ? v->nints : 0;
        if (d->nints > 2 * MT_MAX_DIMS)
            d->nints = 2 * MT_MAX_DIMS;
        if (d->nints)
            memcpy(d->ints, v->ints, sizeof(int64_t) * d->nints);
        break;
    default:
        break;
    }
}

/* Float results sharing input 0's memory are its views (detach's result is
 * one for memory only), whether or not anything requires grad. */
static int track_views(const mt_node_kind *kind, mt_args *a, PyObject *result)
{
    if (kind == &mt_nondifferentiable_kind || mt_signature_nparams(a->sig) == 0 ||
        mt_signature_param_type(a->sig, 0) != MT_ARG_TENSOR || !a->v[0].t)
        return 0;
    mt_tensor *in = a->v[0].t;
    int nout = count_outputs(result);
    for (int k = 0; k < nout; k++) {
        PyObject *o = output_at(result, k);
        if (MTPy_Check(o) && o != a->v[0].obj && MTPy_T(o)->storage == in->storage &&
            mt_is_floating(MTPy_T(o)->dtype) && mt_view_track(MTPy_T(o), in, nout > 1) < 0)
            return -1;
    }
    return 0;
}

PyObject *mt_record(const char *op, const mt_node_kind *kind, bool inplace, mt_args *a,
                    mt_record_state *st, PyObject *result)
{
    if (!inplace && track_views(kind, a, result) < 0) {
        Py_CLEAR(st->old_self);
        Py_DECREF(result);
        return NULL;
    }
    if (!st->active)
        return result;
    /* __setitem__ returns None: its output is self */
    PyObject *ret = result;
    if (inplace && result == Py_None)
        result = a->v[0].obj;
    int nout = count_outputs(result);
    bool differentiable = false;
    for (int k = 0; k < nout; k++) {
        PyObject *o = output_at(result, k);
        if (!MTPy_Check(o))
            continue;
        /* an op that returned one of its inputs unchanged records nothing */
        if (!inplace)
            for (int p = 0; p < mt_signature_nparams(a->sig); p++)
                if (a->v[p].obj == o) {
                    Py_CLEAR(st->old_self);
                    return ret;
                }
        differentiable |= mt_is_floating(MTPy_T(o)->dtype);
    }
    if (!differentiable) {
        Py_CLEAR(st->old_self);
        return ret;
    }
    const mt_signature *s = a->sig;
    int np = mt_signature_nparams(s);
    int nedges = 0;
    for (int p = 0; p < np; p++) {
        mt_argtype ty = mt_signature_param_type(s, p);
        if (ty == MT_ARG_TENSOR && a->v[p].t)
            nedges++;
        else if (ty == MT_ARG_TENSOR_LIST && a->v[p].obj)
            nedges += (int)PySequence_Fast_GET_SIZE(a->v[p].obj);
    }
    mt_node *n = mt_node_new(kind ? kind : &mt_not_implemented_kind, nedges, nout, np);
    if (!n) {
        PyErr_NoMemory();
        goto fail;
    }
    n->op_name = op;
    int e = 0;
    for (int p = 0; p < np; p++) {
        mt_argtype ty = mt_signature_param_type(s, p);
        n->edge_start[p] = (int16_t)e;
        copy_arg(&n->args[p], &a->v[p], ty);
        if (ty == MT_ARG_TENSOR && a->v[p].t) {
            if (mt_gradient_edge(a->v[p].t, &n->edges[e]) < 0)
                goto fail_node;
            fill_edge_meta(&n->edge_meta[e], a->v[p].t);
            n->edge_count[p] = 1;
            e++;
        } else if (ty == MT_ARG_TENSOR_LIST && a->v[p].obj) {
            PyObject *seq = a->v[p].obj;
            Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
            for (Py_ssize_t k = 0; k < len; k++, e++) {
                PyObject *o = PySequence_Fast_GET_ITEM(seq, k);
                if (!MTPy_Check(o))
                    continue;
                if (mt_gradient_edge(MTPy_T(o), &n->edges[e]) < 0)
                    goto fail_node;
                fill_edge_meta(&n->edge_meta[e], MTPy_T(o));
            }
            n->edge_count[p] = (int16_t)len;
        }
    }
    n->kind = mt_derivative_variant(n);
    for (int p = 0; p < np && p < 32; p++) {
        if (!(n->kind->save_inputs & (1u << p)))
            continue;
        if (p == 0 && st->old_self)
            mt_node_save(n, 0, MTPy_T(st->old_self), false, 0);
        else if (a->v[p].t && mt_signature_param_type(s, p) == MT_ARG_TENSOR)
            mt_node_save(n, p, a->v[p].t, false, 0);
    }
    for (int k = 0; k < nout; k++) {
        PyObject *o = output_at(result, k);
        if (!MTPy_Check(o))
            continue;
        fill_edge_meta(&n->out_meta[k], MTPy_T(o));
        if (!mt_is_floating(MTPy_T(o)->dtype))
            continue;
        if (inplace && mt_is_view(MTPy_T(o)) ? mt_view_rebase(MTPy_T(o), n) < 0
                                              : mt_set_history(MTPy_T(o), n, k) < 0)
            goto fail_node;
    }
    if (n->kind->save_output && MTPy_Check(output_at(result, 0)))
        mt_node_save(n, np, MTPy_T(output_at(result, 0)), true, 0);
    mt_node_decref(n);
    Py_CLEAR(st->old_self);
    return ret;
fail_node:
    mt_node_decref(n);
fail:
    Py_CLEAR(st->old_self);
    Py_DECREF(ret);
    return NULL;
}
