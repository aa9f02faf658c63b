/* The recording runner: every op call from the binding or from mt_call
 * runs here, above the op layer's plain runner (mt_op_exec). It decides
 * whether the call records (grad mode, inputs requiring grad, forward-mode
 * tangents), refuses what autograd refuses (in-place on a leaf, out= with
 * autograd, the row's guard), runs the row below autograd, and attaches one
 * generic node to the outputs and their tangents. The recorder reads the
 * row's signature to find tensor inputs, and the row's derivative kind
 * (resolved from the row's name by derivatives.c) to know what to save. */
#include "record.h"

#include "backend.h"
#include "call.h"
#include "derivatives.h"
#include "forward.h"
#include "grad_mode.h"
#include "view_tracking.h"
#include "../core/hot.h"
#include "../kernels/copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    bool active;         /* grad mode on and some input requires grad */
    bool forward;        /* a dual level is active and some input has a tangent */
    mt_tensor *old_self; /* in-place ops whose formula reads self: a copy */
    /* The backward node, made with the inputs saved before the kernel runs,
     * as torch's autograd saves them (a saved-tensor pack hook that raises
     * stops the call before its kernel); NULL when the kind is known only
     * from the path the impl takes (MT_PATH rows): then it is made after. */
    mt_node *node;
} record_state;

/* Calls fn(t) for every tensor argument; stops when it returns true. */
static bool any_tensor_input(const mt_args *a, bool (*fn)(mt_tensor *))
{
    const mt_signature *s = a->sig;
    for (int p = 0; p < s->nparams; p++) {
        mt_argtype ty = s->params[p].type;
        if (ty == MT_ARG_TENSOR && a->v[p].t && fn(a->v[p].t))
            return true;
        if (ty == MT_ARG_TENSOR_LIST && a->v[p].obj)
            for (int k = 0; k < a->v[p].nints; k++)
                if (fn(a->v[p].tensors[k]))
                    return true;
    }
    return false;
}

static bool requires(mt_tensor *t) { return mt_requires_grad(t); }

static bool has_tangent(mt_tensor *t) { return mt_fw_grad(t) != NULL; }

/* Writing into a leaf that requires grad is refused while grad mode is on. */
static int check_leaf_write(mt_tensor *self)
{
    mt_autograd_meta *m = mt_meta.get(self);
    if ((self->flags & MT_FLAG_REQUIRES_GRAD) && !(m && m->grad_fn))
        return mt_error(MT_ERR_RUNTIME,
                        "a leaf Variable that requires grad is being used in an in-place "
                        "operation.");
    return 0;
}

static bool shares_input_storage(const mt_args *a, const mt_tensor *o)
{
    const mt_signature *s = a->sig;
    for (int p = 0; p < s->nparams; p++) {
        mt_argtype ty = s->params[p].type;
        if (ty == MT_ARG_TENSOR && a->v[p].t && a->v[p].t->storage == o->storage)
            return true;
        if (ty == MT_ARG_TENSOR_LIST && a->v[p].obj)
            for (int k = 0; k < a->v[p].nints; k++)
                if (a->v[p].tensors[k]->storage == o->storage)
                    return true;
    }
    return false;
}

/* In inference mode a result with memory of its own is an inference tensor;
 * one sharing an input's memory (a view) is whatever that input is. */
static void mark_inference_results(const mt_args *a, const mt_result *r)
{
    for (int k = 0; k < r->n; k++)
        if (r->t[k] && !shares_input_storage(a, r->t[k]))
            r->t[k]->storage->inference = true;
}

static bool out_given(const mt_args *a)
{
    int p = a->sig->out_param;
    return p >= 0 && a->v[p].obj;
}

/* Self before an in-place op, history included, so that double backward
 * reaches it: a copy of its elements, which the op's formula reads, or (for
 * an in-place view op, which writes none) an alias keeping its geometry,
 * from which the node takes its input's shape and as_strided_ its strides. */
static mt_tensor *old_self_of(mt_tensor *self, bool copy_elements)
{
    mt_tensor *copy =
        copy_elements ? mt_new(self->dtype, self->ndim, self->sizes, false) : mt_alias(self);
    if (!copy)
        return NULL;
    if (copy_elements)
        mt_copy(copy, self);
    mt_edge e;
    int rc = mt_gradient_edge(self, &e);
    if (rc == 0 && e.fn) {
        rc = mt_set_history(copy, e.fn, e.input_nr);
        mt_node_decref(e.fn);
    }
    if (rc < 0) {
        mt_release(copy);
        return NULL;
    }
    return copy;
}

static int prepare(const char *op, const mt_node_kind *kind, bool inplace, mt_args *a,
                   record_state *st)
{
    st->active = false;
    st->forward = false;
    st->old_self = NULL;
    st->node = NULL;
    /* zeros(size, out=w) too, whose only tensor is the out= one */
    if (out_given(a) && mt_grad_enabled && any_tensor_input(a, requires))
        return mt_error(MT_ERR_RUNTIME,
                        "%s(): functions with out=... arguments don't support automatic "
                        "differentiation, but one of the arguments requires grad.",
                        op);
    if (kind == &mt_nondifferentiable_kind)
        return inplace && mt_grad_enabled ? check_leaf_write(a->v[0].t) : 0;
    bool backward = mt_grad_enabled && any_tensor_input(a, requires);
    bool forward = mt_fw_active() && any_tensor_input(a, has_tangent);
    if (!backward && !forward)
        return 0;
    if (inplace) {
        mt_tensor *self = a->v[0].t;
        if (backward && mt_view_check_inplace(self) < 0)
            return -1;
        if (backward && check_leaf_write(self) < 0)
            return -1;
        bool reshapes = a->op->alias == MT_ALIAS_INPLACE_VIEW;
        if ((reshapes || (kind && (kind->save_inputs & 1))) &&
            !(st->old_self = old_self_of(self, !reshapes)))
            return -1;
    }
    st->active = backward;
    st->forward = forward;
    return 0;
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
            d->is_complex = v->s.kind == MT_SCALAR_COMPLEX;
            d->i = v->s.i;
            d->f = v->s.f;
            d->im = v->s.im;
        }
        break;
    case MT_ARG_SCALAR:
        d->is_float = v->s.kind == MT_SCALAR_FLOAT;
        d->is_complex = v->s.kind == MT_SCALAR_COMPLEX;
        d->i = v->s.i;
        d->f = v->s.f;
        d->im = v->s.im;
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
        if (v->obj && v->obj != MT_GIVEN) {
            mt_owner.retain_object(v->obj);
            d->obj = v->obj;
        }
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
 * one for memory only), whether or not anything requires grad; an inference
 * tensor's views are plain inference tensors. An out= tensor is not: it may
 * share an input's memory only to be written into (mm(x.t(), y, out=x) made
 * x a view of itself). */
static int track_views(const mt_node_kind *kind, const mt_args *a, const mt_result *r)
{
    if (kind == &mt_nondifferentiable_kind || a->op->alias == MT_ALIAS_UNTRACKED ||
        a->sig->nparams == 0 || a->sig->params[0].type != MT_ARG_TENSOR || !a->v[0].t ||
        a->v[0].t->storage->inference)
        return 0;
    mt_tensor *in = a->v[0].t, *out = mt_out_target(a);
    /* views returned in a tuple or list (unbind, split) are one op's several
     * views, even when there is one of them */
    bool several = r->kind == MT_RESULT_TUPLE || r->kind == MT_RESULT_LIST;
    for (int k = 0; k < r->n; k++) {
        mt_tensor *o = r->t[k];
        if (o && o != in && o != out && o->storage == in->storage && mt_is_inexact(o->dtype) &&
            mt_view_track(o, in, several) < 0)
            return -1;
    }
    return 0;
}

/* The outputs of the call, or 0 when there is nothing to differentiate: an
 * op that returned one of its inputs unchanged, or no floating output. */
static int differentiable_outputs(bool inplace, const mt_args *a, const mt_result *r,
                                  mt_tensor **self_out, mt_tensor *const **outs)
{
    /* __setitem__ returns None: its output is self */
    if (inplace && r->n == 0) {
        *self_out = a->v[0].t;
        *outs = self_out;
        return mt_is_inexact(a->v[0].t->dtype) ? 1 : 0;
    }
    bool differentiable = false;
    for (int k = 0; k < r->n; k++) {
        mt_tensor *o = r->t[k];
        if (!o)
            continue;
        if (!inplace)
            for (int p = 0; p < a->sig->nparams; p++)
                if (a->v[p].t == o)
                    return 0;
        differentiable |= mt_is_inexact(o->dtype);
    }
    *outs = r->t;
    return differentiable ? r->n : 0;
}

/* Whether n keeps saved param p: some param its MT_SAVE_IF rule names has
 * an edge (a gradient or, for a forward node, a tangent to carry). */
static bool save_needed(const mt_node *n, int p)
{
    uint32_t mask = n->kind->save_if ? n->kind->save_if[p] : 0;
    if (!mask)
        return true;
    for (int q = 0; q < n->nparams && q < 32; q++)
        if ((mask & (1u << q)))
            for (int k = 0; k < n->edge_count[q]; k++)
                if (n->edges[n->edge_start[q] + k].fn)
                    return true;
    return false;
}

/* A node for the call's inputs: edges, arguments and saved inputs, handed to
 * the saved-tensor hooks (for the backward graph). The edges lead to the
 * inputs' history; a node built only to compute tangents marks the inputs
 * that carry one. Room for nout outputs (mt_node_set_outputs grows it). */
static mt_node *node_for_inputs(const mt_node_kind *kind, const char *op, const mt_args *a,
                                mt_tensor *old_self, int nout, bool for_forward)
{
    const mt_signature *s = a->sig;
    int np = s->nparams;
    int nedges = 0;
    for (int p = 0; p < np; p++) {
        mt_argtype ty = s->params[p].type;
        if (ty == MT_ARG_TENSOR && a->v[p].t)
            nedges++;
        else if (ty == MT_ARG_TENSOR_LIST && a->v[p].obj)
            nedges += a->v[p].nints;
    }
    mt_node *n = mt_node_new(kind ? kind : &mt_not_implemented_kind, nedges, nout, np);
    if (!n) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    n->op_name = op;
    n->sig = s;
    int e = 0;
    for (int p = 0; p < np; p++) {
        mt_argtype ty = s->params[p].type;
        n->edge_start[p] = (int16_t)e;
        copy_arg(&n->args[p], &a->v[p], ty);
        int len = ty == MT_ARG_TENSOR && a->v[p].t          ? 1
                  : ty == MT_ARG_TENSOR_LIST && a->v[p].obj ? a->v[p].nints
                                                            : 0;
        for (int k = 0; k < len; k++, e++) {
            mt_tensor *t = ty == MT_ARG_TENSOR ? a->v[p].t : a->v[p].tensors[k];
            /* an in-place view op's input is self before the op: its new
             * geometry is the output's */
            mt_tensor *was =
                p == 0 && old_self && a->op->alias == MT_ALIAS_INPLACE_VIEW ? old_self : t;
            if (!for_forward && mt_gradient_edge(was, &n->edges[e]) < 0)
                goto fail;
            if (for_forward && mt_fw_grad(t)) {
                n->edges[e].fn = &mt_fw_edge_marker;
                mt_node_incref(&mt_fw_edge_marker);
            }
            fill_edge_meta(&n->edge_meta[e], was);
        }
        n->edge_count[p] = (int16_t)len;
    }
    n->kind = mt_derivative_variant(n);
    for (int p = 0; p < np && p < 32; p++) {
        if (!(n->kind->save_inputs & (1u << p)) || !save_needed(n, p))
            continue;
        if (!for_forward && a->v[p].t && s->params[p].type == MT_ARG_TENSOR &&
            a->v[p].t->storage->inference) {
            mt_error(MT_ERR_RUNTIME, "%s", mt_inference_save_message);
            goto fail;
        }
        if (p == 0 && old_self)
            mt_node_save(n, 0, old_self, false, 0);
        else if (a->v[p].t && s->params[p].type == MT_ARG_TENSOR)
            mt_node_save(n, p, a->v[p].t, false, 0);
    }
    if (!for_forward && mt_saved_pack(n->saved, np) < 0)
        goto fail;
    return n;
fail:
    mt_node_decref(n);
    return NULL;
}

/* Completes n with the call's outputs: their metadata and the saved output. */
static int node_set_outputs(mt_node *n, mt_tensor *const *outs, int nout, bool for_forward)
{
    if (mt_node_set_outputs(n, nout) < 0)
        return -1;
    for (int k = 0; k < nout; k++)
        if (outs[k])
            fill_edge_meta(&n->out_meta[k], outs[k]);
    int np = n->nparams, kept = n->kind->save_output - 1;
    if (kept >= 0 && kept < nout && outs[kept]) {
        /* indices carry no history: kept as they are, not re-attached to n */
        mt_tensor *t = outs[kept];
        mt_node_save(n, np, t, !for_forward && mt_is_inexact(t->dtype), (uint32_t)kept);
    }
    return for_forward ? 0 : mt_saved_pack(&n->saved[np], 1);
}

/* A node for a call that has run: its inputs' part, then its outputs'. */
static mt_node *build_node(const char *op, const mt_node_kind *kind, const mt_args *a,
                           mt_tensor *old_self, mt_tensor *const *outs, int nout, bool for_forward)
{
    mt_node *n = node_for_inputs(kind, op, a, old_self, nout, for_forward);
    if (n && node_set_outputs(n, outs, nout, for_forward) < 0) {
        mt_node_decref(n);
        return NULL;
    }
    return n;
}

/* The lowest and highest storage positions t's elements occupy. */
static void extent(const mt_tensor *t, int64_t *lo, int64_t *hi)
{
    *lo = *hi = t->offset;
    for (int d = 0; d < t->ndim && t->numel; d++) {
        int64_t span = (t->sizes[d] - 1) * t->strides[d];
        *(span < 0 ? lo : hi) += span;
    }
}

/* An in-place op changed view, whose new tangent is tangent: as torch's, the
 * change reaches the base, whose tangent (zeros when it had none) is copied
 * into fresh memory laid out as the base is, with tangent written in the
 * view's place; the view's tangent is that part of it. 1 when the view
 * reaches outside its base's elements or is no view for forward AD (the
 * caller keeps the tangent on the view alone). */
static int fw_write_through_base(mt_tensor *view, mt_tensor *tangent)
{
    mt_tensor *base = mt_meta.get(view)->view_base;
    int64_t lo, hi, vlo, vhi;
    extent(base, &lo, &hi);
    extent(view, &vlo, &vhi);
    if (view->numel && (vlo < lo || vhi > hi))
        return 1;
    /* read while forward AD is on: off, no tensor has a tangent */
    mt_tensor *old = mt_fw_grad(base);
    /* a view's tangent is part of its base's, unless the view got its own
     * (make_dual's result, a view of a primal without one, or views of it):
     * torch's forward AD then sees it as no view */
    if (!old && mt_fw_grad(view))
        return 1;
    int64_t n = hi - lo + 1;
    mt_tensor *slots = mt_new(base->dtype, 1, &n, true), *bt = NULL, *part = NULL, *c = NULL;
    if (!slots)
        return -1;
    int status = -1;
    bool grad = mt_grad_enabled, fw = mt_fw_grad_enabled;
    mt_grad_enabled = mt_fw_grad_enabled = false;
    if (!(bt = mt_call(MT_OP_as_strided, "TLLi", slots, base->ndim, base->sizes, base->ndim,
                       base->strides, base->offset - lo)))
        goto done;
    if (old) {
        if (!(c = mt_call(MT_OP_copy_, "TT", bt, old)))
            goto done;
        mt_release(c);
    }
    if (!(part = mt_call(MT_OP_as_strided, "TLLi", slots, view->ndim, view->sizes, view->ndim,
                         view->strides, view->offset - lo)))
        goto done;
    /* a conjugate view of its base reads its part of the base's tangent conjugated */
    if (mt_is_conj(view) != mt_is_conj(base)) {
        mt_tensor *conj = mt_call(MT_OP_conj, "T", part);
        mt_release(part);
        if (!(part = conj))
            goto done;
    }
    if (!(c = mt_call(MT_OP_copy_, "TT", part, tangent)))
        goto done;
    mt_release(c);
    if (mt_fw_set_grad(base, bt) == 0 && mt_fw_set_grad(view, part) == 0)
        status = 0;
done:
    mt_grad_enabled = grad;
    mt_fw_grad_enabled = fw;
    mt_release(slots);
    mt_xrelease(bt);
    mt_xrelease(part);
    return status;
}

static int forward_propagate(const char *op, const mt_node_kind *kind, bool inplace,
                             const mt_args *a, record_state *st, const mt_result *r)
{
    mt_tensor *self_out;
    mt_tensor *const *outs;
    if (out_given(a))
        return mt_error(MT_ERR_NOT_IMPLEMENTED,
                        "Trying to use forward AD with %s_out that does not support it because "
                        "it is an out= function",
                        op);
    int nout = differentiable_outputs(inplace, a, r, &self_out, &outs);
    if (!nout)
        return 0;
    if (!kind)
        return mt_error(MT_ERR_NOT_IMPLEMENTED,
                        "Trying to use forward AD with %s that does not support it.", op);
    mt_node *n = build_node(op, kind, a, st->old_self, outs, nout, true);
    if (!n)
        return -1;
    mt_tensor **tin = calloc((size_t)n->nedges + nout + 1, sizeof(mt_tensor *));
    int status = -1;
    if (!tin) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        goto done;
    }
    mt_tensor **tout = tin + n->nedges;
    for (int p = 0; p < n->nparams; p++)
        for (int k = 0; k < n->edge_count[p]; k++) {
            int e = n->edge_start[p] + k;
            mt_tensor *t = a->sig->params[p].type == MT_ARG_TENSOR ? a->v[p].t : a->v[p].tensors[k];
            if (n->edges[e].fn)
                tin[e] = mt_fw_grad(t);
        }
    if (mt_jvp(n, tin, tout) < 0)
        goto done;
    status = 0;
    for (int k = 0; k < nout; k++)
        if (tout[k]) {
            /* an in-place view op changes the view's geometry, not its values */
            int through = status == 0 && inplace && a->op->alias != MT_ALIAS_INPLACE_VIEW &&
                                  mt_is_view(outs[k])
                              ? fw_write_through_base(outs[k], tout[k])
                              : 1;
            if (through < 0 || (status == 0 && through && mt_fw_set_grad(outs[k], tout[k]) < 0))
                status = -1;
            mt_release(tout[k]);
        }
done:
    free(tin);
    mt_node_decref(n);
    return status;
}

static int record(const char *op, const mt_node_kind *kind, bool inplace, const mt_args *a,
                  record_state *st, const mt_result *r)
{
    mt_tensor *self_out;
    mt_tensor *const *outs;
    if (!inplace && track_views(kind, a, r) < 0)
        return -1;
    if (inplace && a->op->alias == MT_ALIAS_INPLACE_VIEW)
        mt_view_forget_ops(a->v[0].t);
    int nout;
    if (!st->active || !(nout = differentiable_outputs(inplace, a, r, &self_out, &outs)))
        return 0;
    /* an inference tensor's views are inference tensors, which have no
     * history (torch keeps no autograd data for them) */
    for (int k = 0; k < nout; k++)
        if (outs[k] && outs[k]->storage->inference)
            return 0;
    mt_node *n = st->node;
    st->node = NULL;
    if (n && node_set_outputs(n, outs, nout, false) < 0) {
        mt_node_decref(n);
        return -1;
    }
    if (!n && !(n = build_node(op, kind, a, st->old_self, outs, nout, false)))
        return -1;
    int status = 0;
    for (int k = 0; k < nout && status == 0; k++) {
        mt_tensor *o = outs[k];
        if (o && mt_is_inexact(o->dtype))
            /* an in-place view op leaves the base's history alone, as torch's */
            status = inplace && mt_is_view(o) && a->op->alias != MT_ALIAS_INPLACE_VIEW
                         ? mt_view_rebase(o, n, 0)
                         : mt_set_history(o, n, k);
        if (status == 0 && o && !inplace && mt_is_view(o))
            mt_view_note_op(o, a->v[0].t, n);
    }
    mt_node_decref(n);
    return status;
}

MT_HOT int mt_op_run(const mt_op *op, mt_args *a, mt_result *r)
{
    const mt_node_kind *kind;
    bool below = false;
    const char *name = op->sig->name;
    record_state st;
    a->op = op;
    a->sig = op->sig;
    if (op->id < MT_OP_COUNT) {
        const mt_op_autograd *row = &mt_op_autograd_rows[op->id];
        kind = row->kind;
        if (row->guard && row->guard(a) < 0)
            return -1;
    } else {
        /* only a custom op's kernel runs below autograd */
        kind = mt_custom_op_derivative(op->id);
        below = kind->runs_below;
    }
    bool inplace = mt_writes_inplace(op, a);
    if (prepare(name, kind, inplace, a, &st) < 0)
        return -1;
    mt_tensor *target = inplace ? a->v[0].t : mt_out_target(a);
    /* after autograd's own refusals, as torch's ADInplaceOrView kernel runs
     * below autograd's; the flag is read here so the common call stays inline */
    if (target && target->storage->inference && mt_inference_check_write(target) < 0) {
        mt_xrelease(st.old_self);
        return -1;
    }
    if (st.active && !(kind && kind->by_path) &&
        !(st.node = node_for_inputs(kind, name, a, st.old_self, 1, false))) {
        mt_xrelease(st.old_self);
        return -1;
    }
    int rc;
    if (below) {
        bool grad = mt_grad_enabled, fw = mt_fw_grad_enabled;
        mt_grad_enabled = false;
        mt_fw_grad_enabled = false;
        rc = mt_op_exec_into(op, a, r, target);
        mt_grad_enabled = grad;
        mt_fw_grad_enabled = fw;
    } else {
        rc = mt_op_exec_into(op, a, r, target);
    }
    if (rc == 0 && mt_inference_mode)
        mark_inference_results(a, r);
    if (rc == 0 && a->path)
        kind = mt_path_variant(kind, a->path);
    if (rc == 0 && st.forward)
        rc = forward_propagate(name, kind, inplace, a, &st, r);
    if (rc == 0)
        rc = record(name, kind, inplace, a, &st, r);
    if (st.node)
        mt_node_decref(st.node);
    mt_xrelease(st.old_self);
    if (rc < 0 && r->kind != MT_RESULT_NONE)
        mt_result_clear(r);
    return rc;
}
