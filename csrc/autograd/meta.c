#include "meta.h"
#include "backend.h"
#include "call.h"
#include "grad_mode.h"
#include "view_tracking.h"
#include "../core/hot.h"

#include <string.h>

mt_meta_access mt_meta;

static void fill_meta(mt_tensor_meta *m, const mt_tensor *t)
{
    m->dtype = t->dtype;
    m->ndim = t->ndim;
    memcpy(m->sizes, t->sizes, sizeof(int64_t) * t->ndim);
}

/* AccumulateGrad: adds the incoming gradient into the leaf's .grad. */
static int accumulate_backward(mt_node *n, mt_tensor **gin, mt_tensor **gout)
{
    mt_tensor *g = gin[0];
    mt_autograd_meta *m = mt_meta.get_or_create(n->variable);
    if (!g)
        return 0;
    if (!m)
        return -1;
    if (!m->grad && mt_grad_enabled) {
        /* As torch's: a copy into a fresh tensor laid out as the leaf, made
         * by copy_, so double backward reaches g through its CopyBackwards. */
        mt_tensor *e = mt_call(MT_OP_empty_like, "T", n->variable);
        mt_tensor *own = e ? mt_call(MT_OP_copy_, "TT", e, g) : NULL;
        if (e)
            mt_release(e);
        if (!own)
            return -1;
        m->grad = own;
    } else if (!m->grad) {
        /* A view or a tensor the caller still holds is copied; a fresh
         * contiguous gradient is kept. */
        bool keep = mt_owner.unshared(g) && mt_tensor_is_contiguous(g);
        mt_tensor *own = keep ? (mt_retain(g), g) : mt_call(MT_OP_clone, "T", g);
        if (!own)
            return -1;
        m->grad = own;
    } else if (mt_grad_enabled) {
        mt_tensor *sum = mt_call(MT_OP_add, "TT", m->grad, g);
        if (!sum)
            return -1;
        mt_release(m->grad);
        m->grad = sum;
    } else {
        mt_tensor *r = mt_call(MT_OP_add_, "TT", m->grad, g);
        if (!r)
            return -1;
        mt_release(r);
    }
    return mt_ad.run_tensor_post_acc_hooks(n->variable);
}

const mt_node_kind mt_accumulate_grad_kind = {"AccumulateGrad", accumulate_backward, 0, false,
                                              false};

int mt_gradient_edge(mt_tensor *t, mt_edge *out)
{
    mt_autograd_meta *m = mt_meta.get(t);
    if (m && m->view_base && mt_view_refresh(t) < 0)
        return -1;
    if (m && m->grad_fn) {
        out->fn = m->grad_fn;
        out->input_nr = m->output_nr;
        mt_node_incref(out->fn);
        return 0;
    }
    if (!(t->flags & MT_FLAG_REQUIRES_GRAD)) {
        out->fn = NULL;
        out->input_nr = 0;
        return 0;
    }
    if (!m && !(m = mt_meta.get_or_create(t)))
        return -1;
    if (!m->grad_accumulator) {
        mt_node *acc = mt_node_new(&mt_accumulate_grad_kind, 0, 1, 0);
        if (!acc)
            return -1;
        /* as torch's, it runs as soon as it is ready: a leaf's hooks and
         * .grad come before any other node that is ready with it */
        acc->seq = UINT64_MAX;
        mt_retain(t);
        acc->variable = t;
        fill_meta(&acc->out_meta[0], t);
        m->grad_accumulator = acc; /* weak: the node clears it when freed */
        out->fn = acc;             /* the caller's edge takes the creation reference */
    } else {
        out->fn = m->grad_accumulator;
        mt_node_incref(out->fn);
    }
    out->input_nr = 0;
    return 0;
}

int mt_set_history(mt_tensor *t, mt_node *n, uint32_t output_nr)
{
    mt_autograd_meta *m = mt_meta.get_or_create(t);
    if (!m)
        return -1;
    mt_node *old = m->grad_fn;
    mt_node_incref(n);
    m->grad_fn = n;
    m->output_nr = output_nr;
    /* a view's new history already accounts for the changes made to it so
     * far (a custom Function may change its outputs before they get one) */
    if (m->view_base)
        m->view_version = mt_version(t);
    fill_meta(&n->out_meta[output_nr], t);
    int rc = old && old != n && mt_ad.history_moved ? mt_ad.history_moved(t, old) : 0;
    if (old)
        mt_node_decref(old);
    return rc;
}

MT_HOT void mt_meta_clear(mt_autograd_meta *m)
{
    if (m->grad_fn) {
        mt_node_decref(m->grad_fn);
        m->grad_fn = NULL;
    }
    if (m->grad) {
        mt_release(m->grad);
        m->grad = NULL;
    }
    if (m->fw_grad) {
        mt_release(m->fw_grad);
        m->fw_grad = NULL;
    }
    if (m->view_base) {
        mt_release(m->view_base);
        m->view_base = NULL;
    }
    if (m->view_fn) {
        mt_node_decref(m->view_fn);
        m->view_fn = NULL;
    }
}
