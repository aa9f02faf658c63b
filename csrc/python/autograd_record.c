/* Recording op-table calls into the autograd graph. */
#include "autograd_bind.h"

#include "../autograd/backend.h"
#include "../autograd/derivatives.h"
#include "../autograd/forward.h"
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

static bool has_tangent(mt_tensor *t)
{
    return mt_fw_grad(t) != NULL;
}

/* Writing into a leaf that requires grad is refused while grad mode is on. */
static int check_leaf_write(mt_tensor *self)
{
    mt_autograd_meta *m = mt_meta.get(self);
    if ((self->flags & MT_FLAG_REQUIRES_GRAD) && !(m && m->grad_fn)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "a leaf Variable that requires grad is being used in an in-place "
                        "operation.");
        return -1;
    }
    return 0;
}

static bool out_given(mt_args *a)
{
    int p = mt_signature_out_param(a->sig);
    return p >= 0 && a->v[p].obj;
}

int mt_record_prepare(const char *op, const mt_node_kind *kind, bool inplace, mt_args *a,
                      mt_record_state *st)
{
    st->active = false;
    st->forward = false;
    st->old_self = NULL;
    if (kind == &mt_nondifferentiable_kind)
        return inplace && mt_grad_enabled ? check_leaf_write(a->v[0].t) : 0;
    bool backward = mt_grad_enabled && any_tensor_input(a, requires);
    bool forward = mt_fw_active() && any_tensor_input(a, has_tangent);
    if (!backward && !forward)
        return 0;
    if (backward && out_given(a)) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s(): functions with out=... arguments don't support automatic "
                     "differentiation, but one of the arguments requires grad.",
                     op);
        return -1;
    }
    if (inplace) {
        mt_tensor *self = a->v[0].t;
        if (backward && mt_view_check_inplace(self) < 0)
            return -1;
        if (backward && check_leaf_write(self) < 0)
            return -1;
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
    st->active = backward;
    st->forward = forward;
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

/* The outputs of the call, or NULL when there is nothing to differentiate:
 * an op that returned one of its inputs unchanged, or no floating output. */
static PyObject *differentiable_result(bool inplace, mt_args *a, PyObject *result, int *nout)
{
    /* __setitem__ returns None: its output is self */
    if (inplace && result == Py_None)
        result = a->v[0].obj;
    *nout = count_outputs(result);
    bool differentiable = false;
    for (int k = 0; k < *nout; k++) {
        PyObject *o = output_at(result, k);
        if (!MTPy_Check(o))
            continue;
        if (!inplace)
            for (int p = 0; p < mt_signature_nparams(a->sig); p++)
                if (a->v[p].obj == o)
                    return NULL;
        differentiable |= mt_is_floating(MTPy_T(o)->dtype);
    }
    return differentiable ? result : NULL;
}

/* A node for the call: edges, arguments, saved inputs, output metadata and
 * the saved output. For the backward graph the edges lead to the inputs'
 * history; a node built only to compute tangents marks the inputs that carry
 * one, and saves its output as a plain tensor. */
static mt_node *build_node(const char *op, const mt_node_kind *kind, mt_args *a,
                           PyObject *old_self, PyObject *result, int nout, bool for_forward)
{
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
        return NULL;
    }
    n->op_name = op;
    int e = 0;
    for (int p = 0; p < np; p++) {
        mt_argtype ty = mt_signature_param_type(s, p);
        n->edge_start[p] = (int16_t)e;
        copy_arg(&n->args[p], &a->v[p], ty);
        PyObject *single = ty == MT_ARG_TENSOR && a->v[p].t ? a->v[p].obj : NULL;
        PyObject *seq = ty == MT_ARG_TENSOR_LIST ? a->v[p].obj : NULL;
        Py_ssize_t len = single ? 1 : seq ? PySequence_Fast_GET_SIZE(seq) : 0;
        for (Py_ssize_t k = 0; k < len; k++, e++) {
            mt_tensor *t = single ? a->v[p].t : NULL;
            if (seq && MTPy_Check(PySequence_Fast_GET_ITEM(seq, k)))
                t = MTPy_T(PySequence_Fast_GET_ITEM(seq, k));
            if (!t)
                continue;
            if (!for_forward && mt_gradient_edge(t, &n->edges[e]) < 0)
                goto fail;
            if (for_forward && mt_fw_grad(t)) {
                n->edges[e].fn = &mt_fw_edge_marker;
                mt_node_incref(&mt_fw_edge_marker);
            }
            fill_edge_meta(&n->edge_meta[e], t);
        }
        n->edge_count[p] = (int16_t)len;
    }
    n->kind = mt_derivative_variant(n);
    for (int p = 0; p < np && p < 32; p++) {
        if (!(n->kind->save_inputs & (1u << p)))
            continue;
        if (p == 0 && old_self)
            mt_node_save(n, 0, MTPy_T(old_self), false, 0);
        else if (a->v[p].t && mt_signature_param_type(s, p) == MT_ARG_TENSOR)
            mt_node_save(n, p, a->v[p].t, false, 0);
    }
    for (int k = 0; k < nout; k++)
        if (MTPy_Check(output_at(result, k)))
            fill_edge_meta(&n->out_meta[k], MTPy_T(output_at(result, k)));
    int kept = n->kind->save_output - 1;
    if (kept >= 0 && MTPy_Check(output_at(result, kept))) {
        /* indices carry no history: kept as they are, not re-attached to n */
        mt_tensor *t = MTPy_T(output_at(result, kept));
        mt_node_save(n, np, t, !for_forward && mt_is_floating(t->dtype), (uint32_t)kept);
    }
    return n;
fail:
    mt_node_decref(n);
    return NULL;
}

int mt_forward_propagate(const char *op, const mt_node_kind *kind, bool inplace, mt_args *a,
                         mt_record_state *st, PyObject *result)
{
    int nout;
    if (!st->forward)
        return 0;
    if (out_given(a)) {
        PyErr_Format(PyExc_NotImplementedError,
                     "Trying to use forward AD with %s_out that does not support it because it "
                     "is an out= function",
                     op);
        return -1;
    }
    if (!(result = differentiable_result(inplace, a, result, &nout)))
        return 0;
    if (!kind) {
        PyErr_Format(PyExc_NotImplementedError,
                     "Trying to use forward AD with %s that does not support it.", op);
        return -1;
    }
    mt_node *n = build_node(op, kind, a, st->old_self, result, nout, true);
    if (!n)
        return -1;
    mt_tensor **tin = PyMem_Calloc((size_t)n->nedges + nout + 1, sizeof(mt_tensor *));
    int status = -1;
    if (!tin) {
        PyErr_NoMemory();
        goto done;
    }
    mt_tensor **tout = tin + n->nedges;
    for (int p = 0; p < n->nparams; p++)
        for (int k = 0; k < n->edge_count[p]; k++) {
            int e = n->edge_start[p] + k;
            PyObject *o = mt_signature_param_type(a->sig, p) == MT_ARG_TENSOR
                              ? a->v[p].obj
                              : PySequence_Fast_GET_ITEM(a->v[p].obj, k);
            if (n->edges[e].fn)
                tin[e] = mt_fw_grad(MTPy_T(o));
        }
    if (mt_jvp(n, tin, tout) < 0)
        goto done;
    status = 0;
    for (int k = 0; k < nout; k++)
        if (tout[k]) {
            if (status == 0 && mt_fw_set_grad(MTPy_T(output_at(result, k)), tout[k]) < 0)
                status = -1;
            mt_ad.release(tout[k]);
        }
done:
    PyMem_Free(tin);
    mt_node_decref(n);
    return status;
}

PyObject *mt_record(const char *op, const mt_node_kind *kind, bool inplace, mt_args *a,
                    mt_record_state *st, PyObject *result)
{
    int nout;
    PyObject *outs;
    if (!inplace && track_views(kind, a, result) < 0) {
        Py_CLEAR(st->old_self);
        Py_DECREF(result);
        return NULL;
    }
    if (!st->active || !(outs = differentiable_result(inplace, a, result, &nout))) {
        Py_CLEAR(st->old_self);
        return result;
    }
    mt_node *n = build_node(op, kind, a, st->old_self, outs, nout, false);
    Py_CLEAR(st->old_self);
    if (!n) {
        Py_DECREF(result);
        return NULL;
    }
    for (int k = 0; k < nout; k++) {
        PyObject *o = output_at(outs, k);
        if (MTPy_Check(o) && mt_is_floating(MTPy_T(o)->dtype) &&
            (inplace && mt_is_view(MTPy_T(o)) ? mt_view_rebase(MTPy_T(o), n)
                                               : mt_set_history(MTPy_T(o), n, k)) < 0) {
            mt_node_decref(n);
            Py_DECREF(result);
            return NULL;
        }
    }
    mt_node_decref(n);
    return result;
}
