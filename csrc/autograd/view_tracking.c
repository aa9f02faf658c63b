#include "view_tracking.h"
#include "formula.h"
#include "formulas_shape.h"
#include "grad_mode.h"
#include "../core/hot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MT_HOT int mt_view_track(mt_tensor *view, mt_tensor *input, bool multi_output)
{
    mt_autograd_meta *im = mt_meta.get(input);
    mt_tensor *base = im && im->view_base ? im->view_base : input;
    uint8_t creation = MT_VIEW_DEFAULT;
    /* a view of a refused view is refused alike */
    if (im && im->view_base && im->view_creation != MT_VIEW_DEFAULT)
        creation = im->view_creation;
    else if (mt_inference_mode)
        creation = MT_VIEW_INFERENCE_MODE;
    else if (!mt_grad_enabled)
        creation = MT_VIEW_NO_GRAD;
    else if (multi_output)
        creation = MT_VIEW_MULTI_OUTPUT;
    mt_autograd_meta *m = mt_meta.get_or_create(view);
    if (!m)
        return -1;
    mt_retain(base);
    if (m->view_base)
        mt_release(m->view_base);
    m->view_base = base;
    m->view_creation = creation;
    m->view_version = mt_version(view);
    return 0;
}

/* torch's message for an in-place change a view may not take: on the view
 * itself, or (indirect) on its base or a sibling view seen later. */
static int refuse(const mt_autograd_meta *m, bool indirect)
{
    const char *what = indirect ? "its base or another view of its base has been" : "is being";
    char msg[1024], name[64] = "";
    int len;
    if (m->grad_fn) {
        /* "UnbindBackward0" -> "Unbind"; the last "Backward" is the suffix, so
         * "BackwardHookFunctionBackward" -> "BackwardHookFunction" */
        const char *k = m->grad_fn->kind->name, *cut = NULL;
        for (const char *p = strstr(k, "Backward"); p; p = strstr(p + 1, "Backward"))
            cut = p;
        snprintf(name, sizeof name, "%.*s", (int)(cut ? cut - k : (long)strlen(k)), k);
    }
    if (m->view_creation == MT_VIEW_NO_GRAD && m->grad_fn)
        len = snprintf(msg, sizeof msg,
                       "Output %u of %s is a view of a view which was created in no_grad mode and "
                       "%s modified inplace with grad mode enabled.",
                       m->output_nr, name, what);
    else if (m->view_creation == MT_VIEW_INFERENCE_MODE && m->grad_fn)
        len = snprintf(msg, sizeof msg,
                       "Output %u of %s is a view of a view which was created in inference mode "
                       "and %s modified inplace in normal mode.",
                       m->output_nr, name, what);
    else if (m->view_creation == MT_VIEW_INFERENCE_MODE)
        len = snprintf(msg, sizeof msg,
                       "A view was created in inference mode and %s modified inplace in normal "
                       "mode.",
                       what);
    else if (!m->grad_fn)
        len = snprintf(msg, sizeof msg,
                       "A view was created in no_grad mode and %s modified inplace with grad "
                       "mode enabled.",
                       what);
    else
        len = snprintf(msg, sizeof msg, "Output %u of %s is a view and %s modified inplace.",
                       m->output_nr, name, what);
    const char *why =
        m->view_creation == MT_VIEW_MULTI_OUTPUT
            ? "This view is the output of a function that returns multiple views. Such "
              "functions do not allow the output views to be modified inplace. You should "
              "replace the inplace operation by an out-of-place one."
        : m->view_creation == MT_VIEW_IN_CUSTOM_FUNCTION
            ? "This view was created inside a custom Function (or because an input was returned "
              "as-is) and the autograd logic to handle view+inplace would override the custom "
              "backward associated with the custom Function, leading to incorrect gradients. "
              "This behavior is forbidden. You can fix this by cloning the output of the custom "
              "Function."
            : "Given that this use case is ambiguous and error-prone, it is forbidden. You "
              "can clarify your code by moving both the view and the inplace either both "
              "inside the %s block (if you don't want the inplace to be tracked) or "
              "both outside (if you want the inplace to be tracked).";
    const char *block = m->view_creation == MT_VIEW_INFERENCE_MODE ? "inference_mode" : "no_grad";
    msg[len++] = ' ';
    snprintf(msg + len, sizeof msg - len, why, block);
    mt_error(MT_ERR_RUNTIME, "%s", msg);
    return -1;
}

int mt_view_check_inplace(mt_tensor *t)
{
    mt_autograd_meta *m = mt_meta.get(t);
    if (!m || !m->view_base)
        return 0;
    if (m->view_creation != MT_VIEW_DEFAULT)
        return refuse(m, false);
    mt_autograd_meta *bm = mt_meta.get(m->view_base);
    if (mt_requires_grad(t) && !(bm && bm->grad_fn)) {
        mt_error(MT_ERR_RUNTIME, "a view of a leaf Variable that requires grad is being used in an "
                                 "in-place operation.");
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- geometry
 * The nodes below keep the view's geometry relative to its base in args[0]
 * (sizes then strides in ints, storage offset in i) and the base's in
 * args[1], so they hold no tensor whose version could move on. */

static void put_geometry(mt_ad_value *v, const mt_tensor *t, int64_t offset)
{
    memset(v, 0, sizeof *v);
    v->nints = 2 * t->ndim;
    memcpy(v->ints, t->sizes, sizeof(int64_t) * t->ndim);
    memcpy(v->ints + t->ndim, t->strides, sizeof(int64_t) * t->ndim);
    v->i = offset;
}

/* t's storage offset from base's first element, counted in t's elements (a
 * view of another dtype, view_as_real's, counts in its own). */
static int64_t offset_in_base(const mt_tensor *t, const mt_tensor *base)
{
    return t->offset - base->offset * mt_itemsize(base->dtype) / mt_itemsize(t->dtype);
}

static void fill_meta(mt_tensor_meta *m, const mt_tensor *t)
{
    m->dtype = t->dtype;
    m->ndim = t->ndim;
    memcpy(m->sizes, t->sizes, sizeof(int64_t) * t->ndim);
}

/* For each element of the view, the element number (row-major) of the base
 * element it shares memory with: element numbers are written into a buffer
 * over the storage the base spans, and read back through the view's strides. */
static mt_tensor *view_positions(const mt_node *n)
{
    const mt_ad_value *vg = &n->args[0], *bg = &n->args[1];
    int vnd = vg->nints / 2, bnd = bg->nints / 2;
    const int64_t *bs = bg->ints, *bst = bg->ints + bnd;
    int64_t numel = 1, lo = 0, hi = 0;
    for (int d = 0; d < bnd; d++)
        numel *= bs[d];
    for (int d = 0; d < bnd && numel; d++) {
        int64_t span = (bs[d] - 1) * bst[d];
        *(span < 0 ? &lo : &hi) += span;
    }
    int64_t extent = hi - lo + 1;
    mt_tensor *slots = mt_new(MT_INT64, 1, &extent, true), *pos = NULL;
    mt_tensor *ar = mt_call(MT_OP_arange, "i", numel);
    mt_tensor *numbers = ar ? mt_call(MT_OP_reshape, "TL", ar, bnd, bs) : NULL;
    mt_tensor *in_base =
        slots ? mt_call(MT_OP_as_strided, "TLLi", slots, bnd, bs, bnd, bst, -lo) : NULL;
    mt_tensor *written = in_base && numbers ? mt_call(MT_OP_copy_, "TT", in_base, numbers) : NULL;
    if (written)
        pos = mt_call(MT_OP_as_strided, "TLLi", slots, vnd, vg->ints, vnd, vg->ints + vnd,
                      vg->i - lo);
    mt_tensor *tmp[] = {slots, ar, numbers, in_base, written};
    mt_release_all(5, tmp);
    return pos;
}

/* ------------------------------------------------------ AsStridedBackward0
 * A view's history read from its base's: the view's gradient lands in zeros
 * of the base's shape at the view's elements. */

static int view_of_base_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_tensor *pos = view_positions(n);
    if (!pos)
        return -1;
    out[0] = mt_embed(n, 0, g[0], pos);
    mt_release(pos);
    return out[0] ? 0 : -1;
}

static const mt_node_kind view_of_base_kind = {"AsStridedBackward0", view_of_base_backward, 0,
                                               false, false};

static mt_node *new_view_of_base(mt_edge e)
{
    mt_node *n = mt_node_new(&view_of_base_kind, 1, 1, 2);
    if (!n) {
        if (e.fn)
            mt_node_decref(e.fn);
        mt_error(MT_ERR_RUNTIME, "out of memory");
        return NULL;
    }
    n->op_name = "as_strided";
    n->edges[0] = e;
    return n;
}

/* A node making t (a view of base) read base's history through edge e
 * (consumed). */
static mt_node *view_of_base(mt_tensor *base, mt_tensor *t, mt_edge e)
{
    mt_node *n = new_view_of_base(e);
    if (n) {
        fill_meta(&n->edge_meta[0], base);
        put_geometry(&n->args[0], t, offset_in_base(t, base));
        put_geometry(&n->args[1], base, 0);
    }
    return n;
}

/* The same for the view and base whose geometry CopySlices node g keeps. */
static mt_node *view_of_base_geometry(const mt_node *g, mt_edge e)
{
    mt_node *n = new_view_of_base(e);
    if (n) {
        n->edge_meta[0] = g->edge_meta[g->args[2].i];
        n->args[0] = g->args[0];
        n->args[1] = g->args[1];
    }
    return n;
}

/* ------------------------------------------------------------ view replay */

_Thread_local bool mt_view_replay = false;

static void drop_ops(mt_autograd_meta *m)
{
    if (m && m->view_fn) {
        mt_node_decref(m->view_fn);
        m->view_fn = NULL;
    }
}

/* Whether view t reads as an as_strided of its base: same dtype, same
 * conjugate bit. */
static bool as_strided_of_base(const mt_tensor *t, const mt_tensor *base)
{
    return t->dtype == base->dtype && mt_is_conj(t) == mt_is_conj(base);
}

void mt_view_forget_ops(mt_tensor *t)
{
    mt_autograd_meta *m = mt_meta.get(t);
    /* a view of another dtype than its base's keeps its ops: it has no
     * as_strided form, and torch too keeps its view_fn, so it replays without
     * the in-place view op (pytorch#49825) */
    if (m && m->view_base && !as_strided_of_base(t, m->view_base))
        return;
    drop_ops(m);
}

void mt_view_note_op(mt_tensor *t, const mt_tensor *input, mt_node *n)
{
    mt_autograd_meta *m = mt_meta.get(t);
    if (!m || !m->view_base)
        return;
    drop_ops(m);
    /* a view of another dtype than its base's (view_as_real) or another
     * conjugate bit has no as_strided form over the base: its ops are kept
     * for replay, as torch keeps its view_fn */
    bool replay = mt_view_replay || !as_strided_of_base(t, m->view_base);
    if (!replay || n->nout != 1 || n->kind->save_inputs || n->kind->save_output)
        return;
    int depth = 1;
    if (input != m->view_base) {
        mt_autograd_meta *im = mt_meta.get((mt_tensor *)input);
        if (!im || !im->view_fn || im->grad_fn != im->view_fn || n->edges[0].fn != im->grad_fn)
            return;
        depth = im->view_fn_depth + 1;
    }
    mt_node_incref(n);
    m->view_fn = n;
    m->view_fn_depth = depth;
}

/* A copy of view op node f whose input edge is e (consumed): the op replayed
 * on the base's new history. Its other edges (view_as's template) stay. */
static mt_node *replay(const mt_node *f, mt_edge e)
{
    mt_node *n = mt_node_new(f->kind, f->nedges, 1, f->nparams);
    if (!n) {
        if (e.fn)
            mt_node_decref(e.fn);
        mt_error(MT_ERR_RUNTIME, "out of memory");
        return NULL;
    }
    n->op_name = f->op_name;
    n->edges[0] = e;
    for (int k = 1; k < f->nedges; k++) {
        n->edges[k] = f->edges[k];
        if (n->edges[k].fn)
            mt_node_incref(n->edges[k].fn);
    }
    memcpy(n->edge_meta, f->edge_meta, sizeof *n->edge_meta * f->nedges);
    n->out_meta[0] = f->out_meta[0];
    memcpy(n->edge_start, f->edge_start, sizeof n->edge_start);
    memcpy(n->edge_count, f->edge_count, sizeof n->edge_count);
    memcpy(n->args, f->args, sizeof *n->args * f->nparams);
    for (int p = 0; p < f->nparams; p++)
        if (n->args[p].obj)
            mt_owner.retain_object(n->args[p].obj);
    return n;
}

/* The chain of depth view nodes ending in f replayed from edge e (consumed). */
static mt_node *replay_chain(const mt_node *f, int depth, mt_edge e)
{
    if (depth > 1) {
        mt_node *parent = replay_chain(f->edges[0].fn, depth - 1, e);
        if (!parent)
            return NULL;
        e = (mt_edge){parent, 0};
    }
    return replay(f, e);
}

/* The history t (a view of base) takes from base's history through edge e
 * (consumed): its ops replayed (the new last node is then the one it keeps),
 * or an as_strided view. */
static mt_node *history_from_base(mt_tensor *base, mt_tensor *t, mt_edge e)
{
    mt_autograd_meta *m = mt_meta.get(t);
    if (!m || !m->view_fn)
        return view_of_base(base, t, e);
    mt_node *n = replay_chain(m->view_fn, m->view_fn_depth, e);
    if (n) {
        mt_node_decref(m->view_fn);
        mt_node_incref(n);
        m->view_fn = n;
    }
    return n;
}

/* Gives t the history node n (consumed) as of its storage's current version. */
static int set_view_history(mt_tensor *t, mt_node *n)
{
    int rc = mt_set_history(t, n, 0);
    mt_node_decref(n);
    if (rc == 0)
        mt_meta.get(t)->view_version = mt_version(t);
    return rc;
}

int mt_view_refresh(mt_tensor *t)
{
    mt_autograd_meta *m = mt_meta.get(t);
    if (!m || !m->view_base || mt_version(t) == m->view_version)
        return 0;
    if (!m->grad_fn && !mt_requires_grad(m->view_base))
        return 0;
    if (m->view_creation != MT_VIEW_DEFAULT)
        return refuse(m, true);
    mt_edge e;
    if (mt_gradient_edge(m->view_base, &e) < 0)
        return -1;
    mt_node *n = history_from_base(m->view_base, t, e);
    return n ? set_view_history(t, n) : -1;
}

/* -------------------------------------------------------------- CopySlices
 * The base after an in-place op on its view: the base's gradient outside the
 * view passes through to its previous history; inside, the op's formula
 * turns it into the gradient of the view before the op (put back in place)
 * and of the op's other inputs (edges 1.. of both nodes). */

/* The op's formula on the gradient of its output. An output it saved comes
 * back with the history the view has after the op (a view of n), not with
 * op's, which is no node of the graph. */
/* The in-place op's gradients for its other inputs are CopySlices' own. */
static void hand_over_others(const mt_node *op, int self, mt_tensor **op_out, mt_tensor **out)
{
    for (int e = 0; e < op->nedges; e++) {
        if (e == self)
            continue;
        out[e] = op_out[e];
        op_out[e] = NULL;
    }
}

static void free_op_grads(const mt_node *op, mt_tensor **op_out)
{
    if (op_out) {
        mt_release_all(op->nedges, op_out);
        free(op_out);
    }
}

static int run_op_backward(mt_node *n, mt_node *op, mt_tensor *g, mt_tensor **op_out)
{
    mt_saved *s = &op->saved[op->nparams];
    if (!s->t || !s->is_output || !mt_grad_enabled || op->saved_released)
        return op->kind->backward(op, &g, op_out);
    mt_tensor *out = mt_alias(s->t);
    if (!out)
        return -1;
    mt_node_incref(n);
    mt_node *v = view_of_base_geometry(n, (mt_edge){n, 0});
    if (!v || set_view_history(out, v) < 0) {
        mt_release(out);
        return -1;
    }
    /* held as a plain saved input only while the formula runs: the output's
     * history leads back to op, which must not keep it */
    mt_tensor *saved = s->t;
    s->t = out;
    s->is_output = false;
    int rc = op->kind->backward(op, &g, op_out);
    s->t = saved;
    s->is_output = true;
    mt_release(out);
    return rc;
}

/* *t replaced by its conjugate in new memory. */
static int swap_for_conjugate(mt_tensor **t)
{
    mt_tensor *c = mt_call(MT_OP_conj_physical, "T", *t);
    mt_release(*t);
    *t = c;
    return c ? 0 : -1;
}

/* A base whose layout has holes or overlaps: the view's part of the
 * gradient is read and written back through the element positions. */
static int copy_slices_by_positions(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_node *op = n->wrapped;
    int self = (int)n->args[2].i;
    const mt_tensor_meta *bm = &n->edge_meta[self];
    mt_tensor **op_out = calloc(op->nedges ? op->nedges : 1, sizeof *op_out);
    mt_tensor *pos = view_positions(n), *slice = NULL, *src = NULL, *gf = NULL, *pf = NULL,
              *put = NULL;
    int64_t flat = -1;
    int rc = -1;
    if (!op_out || !pos || !(slice = mt_call(MT_OP_take, "TT", g[0], pos)))
        goto done;
    if (n->args[3].i && swap_for_conjugate(&slice) < 0) /* see copy_slices_backward */
        goto done;
    if (run_op_backward(n, op, slice, op_out) < 0)
        goto done;
    if (mt_needs(n, self)) {
        if (op_out[self])
            src = mt_call(MT_OP_reshape, "TL", op_out[self], 1, &flat);
        else
            src = mt_new(bm->dtype, 1, &slice->numel, true);
        if (src && n->args[3].i && swap_for_conjugate(&src) < 0)
            goto done;
        gf = mt_call(MT_OP_reshape, "TL", g[0], 1, &flat);
        pf = mt_call(MT_OP_reshape, "TL", pos, 1, &flat);
        put = src && gf && pf ? mt_call(MT_OP_scatter, "TiTT", gf, (int64_t)0, pf, src) : NULL;
        if (!put || !(out[self] = mt_call(MT_OP_reshape, "TL", put, bm->ndim, bm->sizes)))
            goto done;
    }
    hand_over_others(op, self, op_out, out);
    rc = 0;
done:
    free_op_grads(op, op_out);
    mt_tensor *tmp[] = {pos, slice, src, gf, pf, put};
    mt_release_all(6, tmp);
    return rc;
}

/* The last element (relative to the base's first) a geometry kept by
 * put_geometry reaches, or -1 for an empty one. */
static int64_t last_element(const mt_ad_value *v)
{
    int nd = v->nints / 2;
    int64_t last = v->i;
    for (int d = 0; d < nd; d++) {
        if (v->ints[d] == 0)
            return -1;
        last += (v->ints[d] - 1) * v->ints[nd + d];
    }
    return last;
}

/* As torch's CopySlices: the gradient laid out as the base is, the op's
 * formula run on a copy of the view's part of it, and what the formula gives
 * for the view written back into that part. With create_graph the steps
 * record as torch's do (CopyBackwards, then a CopySlices of the result). */
static int copy_slices_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_ad_value *vg = &n->args[0], *bg = &n->args[1];
    int vnd = vg->nints / 2, bnd = bg->nints / 2;
    mt_tensor layout = *g[0];
    layout.ndim = bnd;
    memcpy(layout.sizes, bg->ints, sizeof(int64_t) * bnd);
    memcpy(layout.strides, bg->ints + bnd, sizeof(int64_t) * bnd);
    mt_node *op = n->wrapped;
    int self = (int)n->args[2].i;
    /* a view of another dtype than the base's counts its geometry in its own
     * elements, and reads the gradient as its dtype */
    mt_dtype vd = op->edge_meta[self].dtype;
    int64_t ends = (last_element(bg) + 1) * mt_itemsize(g[0]->dtype) / mt_itemsize(vd);
    if (!mt_tensor_is_non_overlapping_and_dense(&layout) || vg->i < 0 || last_element(vg) >= ends)
        return copy_slices_by_positions(n, g, out);
    mt_tensor **op_out = calloc(op->nedges ? op->nedges : 1, sizeof *op_out);
    mt_tensor *result = mt_new_strided(g[0]->dtype, bnd, bg->ints, bg->ints + bnd);
    mt_tensor *copied = NULL, *over = NULL, *slice = NULL, *part = NULL, *put = NULL;
    int rc = -1;
    if (!op_out || !result || !(copied = mt_call(MT_OP_copy_, "TT", result, g[0])))
        goto done;
    over = vd == result->dtype            ? (mt_retain(result), result)
           : mt_is_complex(result->dtype) ? mt_call(MT_OP_view_as_real, "T", result)
                                          : mt_call(MT_OP_view_as_complex, "T", result);
    slice = over
                ? mt_call(MT_OP_as_strided, "TLLi", over, vnd, vg->ints, vnd, vg->ints + vnd, vg->i)
                : NULL;
    if (slice && n->args[3].i) {
        /* the view's part read and written through a conjugate view of it */
        mt_tensor *c = mt_call(MT_OP_conj, "T", slice);
        mt_release(slice);
        slice = c;
    }
    if (!slice || !(part = mt_call(MT_OP_clone, "T", slice)) ||
        run_op_backward(n, op, part, op_out) < 0)
        goto done;
    if (mt_needs(n, self)) {
        put = op_out[self] ? mt_call(MT_OP_copy_, "TT", slice, op_out[self])
                           : mt_call(MT_OP_zero_, "T", slice);
        if (!put)
            goto done;
        out[self] = result;
        result = NULL;
    }
    hand_over_others(op, self, op_out, out);
    rc = 0;
done:
    free_op_grads(op, op_out);
    mt_tensor *tmp[] = {result, copied, over, slice, part, put};
    mt_release_all(6, tmp);
    return rc;
}

static void copy_slices_release(mt_node *n)
{
    if (n->wrapped)
        mt_node_release_saved(n->wrapped);
}

static const mt_node_kind copy_slices_kind = {"CopySlices", copy_slices_backward, 0, false,
                                              false,        copy_slices_release};

int mt_view_rebase(mt_tensor *t, mt_node *op, int self_edge)
{
    mt_autograd_meta *m = mt_meta.get(t);
    mt_tensor *base = m->view_base;
    mt_node *c = mt_node_new(&copy_slices_kind, op->nedges, 1, 4);
    if (!c) {
        mt_error(MT_ERR_RUNTIME, "out of memory");
        return -1;
    }
    c->op_name = op->op_name;
    c->args[2].i = self_edge;
    /* a conjugate view of a base without the bit (or the reverse) reads the
     * base's gradient conjugated */
    c->args[3].i = mt_is_conj(t) != mt_is_conj(base);
    if (mt_gradient_edge(base, &c->edges[self_edge]) < 0)
        goto fail;
    fill_meta(&c->edge_meta[self_edge], base);
    for (int e = 0; e < op->nedges; e++) {
        if (e == self_edge)
            continue;
        c->edges[e] = op->edges[e];
        if (c->edges[e].fn)
            mt_node_incref(c->edges[e].fn);
        c->edge_meta[e] = op->edge_meta[e];
    }
    /* the op's self gradient now feeds the base's previous history, so it
     * is needed exactly when that history is */
    mt_edge *own = &op->edges[self_edge];
    if (own->fn)
        mt_node_decref(own->fn);
    *own = c->edges[self_edge];
    if (own->fn)
        mt_node_incref(own->fn);
    mt_node_incref(op);
    c->wrapped = op;
    put_geometry(&c->args[0], t, offset_in_base(t, base));
    put_geometry(&c->args[1], base, 0);
    if (mt_set_history(base, c, 0) < 0)
        goto fail;
    mt_node_incref(c);
    mt_node *v = history_from_base(base, t, (mt_edge){c, 0});
    mt_node_decref(c);
    return v ? set_view_history(t, v) : -1;
fail:
    mt_node_decref(c);
    return -1;
}

void mt_view_mark_custom(mt_tensor *t, bool multi_output)
{
    mt_autograd_meta *m = mt_meta.get(t);
    if (m && m->view_base)
        m->view_creation = multi_output ? MT_VIEW_MULTI_OUTPUT : MT_VIEW_IN_CUSTOM_FUNCTION;
}
