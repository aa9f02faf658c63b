#include "node.h"
#include "backend.h"
#include "grad_mode.h"
#include "meta.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

mt_ad_backend mt_ad;
mt_node *mt_running_node;

static uint64_t seq_counter;

uint64_t mt_next_seq(void) { return ++seq_counter; }

mt_node *mt_node_new(const mt_node_kind *kind, int nedges, int nout, int nparams)
{
    /* One block: the node, its edges, edge metadata, output metadata, args. */
    size_t size = sizeof(mt_node) + sizeof(mt_edge) * nedges + sizeof(mt_tensor_meta) * nedges +
                  sizeof(mt_tensor_meta) * nout + sizeof(mt_ad_value) * nparams +
                  sizeof(mt_saved) * (nparams + 1);
    mt_node *n = calloc(1, size);
    if (!n)
        return NULL;
    n->refcount = 1;
    n->kind = kind;
    n->seq = mt_next_seq();
    n->nedges = nedges;
    n->nout = nout;
    n->nparams = nparams;
    n->edges = (mt_edge *)(n + 1);
    n->edge_meta = (mt_tensor_meta *)(n->edges + nedges);
    n->out_meta = n->edge_meta + nedges;
    n->args = (mt_ad_value *)(n->out_meta + nout);
    n->saved = (mt_saved *)(n->args + nparams);
    if (mt_anomaly_enabled && mt_ad.node_created)
        mt_ad.node_created(n, mt_running_node);
    return n;
}

/* The entry is emptied before anything is released: a release can run
 * Python code (a collection traversing this node) that must not see it. */
void mt_saved_release(mt_saved *s)
{
    mt_tensor *t = s->t;
    void *packed = s->packed;
    mt_node *history = s->history.fn;
    if (t || packed)
        s->released = true;
    s->t = NULL;
    s->packed = NULL;
    s->history.fn = NULL;
    if (t)
        mt_release(t);
    if (packed)
        mt_owner.release_object(packed);
    if (history)
        mt_node_decref(history);
}

int mt_saved_pack(mt_saved *s, int count)
{
    for (int i = 0; i < count && mt_ad.pack_saved; i++) {
        void *packed = NULL;
        if (!s[i].t)
            continue;
        if (mt_ad.pack_saved(s[i].t, &packed) < 0)
            return -1;
        if (!packed)
            return 0; /* no hooks active */
        if (mt_saved_take_packed(&s[i], packed) < 0)
            return -1;
    }
    return 0;
}

int mt_saved_take_packed(mt_saved *s, void *packed)
{
    if (!s->is_output && mt_gradient_edge(s->t, &s->history) < 0) {
        mt_owner.release_object(packed);
        return -1;
    }
    mt_release(s->t);
    s->t = NULL;
    s->packed = packed;
    return 0;
}

void mt_node_release_saved(mt_node *n)
{
    for (int s = 0; s <= n->nparams; s++)
        mt_saved_release(&n->saved[s]);
    if (n->kind->release)
        n->kind->release(n);
    n->saved_released = true;
}

void mt_node_decref(mt_node *n)
{
    if (--n->refcount > 0) {
        if (n->refcount == 1 && n->py_ctx && mt_ad.node_held_once)
            mt_ad.node_held_once(n);
        return;
    }
    /* A long chain freed recursively would overflow the C stack: nodes whose
     * last reference goes away are queued through free_next instead. */
    static mt_node *queue = NULL;
    static bool draining = false;
    n->free_next = queue;
    queue = n;
    if (draining)
        return;
    draining = true;
    while (queue) {
        mt_node *m = queue;
        queue = m->free_next;
        /* saved first: a custom kind's release reads its state, which
         * node_freed drops (with, possibly, the last hold on the kind) */
        mt_node_release_saved(m);
        if (mt_ad.node_freed)
            mt_ad.node_freed(m);
        if (m->variable) {
            mt_autograd_meta *vm = mt_meta.get(m->variable);
            if (vm && vm->grad_accumulator == m)
                vm->grad_accumulator = NULL;
            mt_release(m->variable);
        }
        for (int e = 0; e < m->nedges; e++)
            if (m->edges[e].fn)
                mt_node_decref(m->edges[e].fn);
        if (m->wrapped)
            mt_node_decref(m->wrapped);
        if (m->own_out_meta)
            free(m->out_meta);
        free(m);
    }
    draining = false;
}

int mt_node_set_outputs(mt_node *n, int nout)
{
    if (nout > n->nout) {
        mt_tensor_meta *m = calloc((size_t)nout, sizeof *m);
        if (!m)
            return mt_error(MT_ERR_MEMORY, "out of memory");
        n->out_meta = m;
        n->own_out_meta = true;
    }
    n->nout = nout;
    return 0;
}

void mt_node_save(mt_node *n, int slot, mt_tensor *t, bool is_output, uint32_t output_nr)
{
    mt_saved_set(n, &n->saved[slot], t, is_output, output_nr);
}

mt_tensor *mt_node_saved(mt_node *n, int slot) { return mt_saved_get(n, &n->saved[slot]); }

/* A new tensor on t's memory for a saved entry: the host's when it keeps
 * t's data itself, else a plain alias. */
static mt_tensor *saved_alias(mt_tensor *t)
{
    mt_tensor *own = mt_ad.alias_saved ? mt_ad.alias_saved(t) : NULL;
    return own ? own : mt_alias(t);
}

void mt_saved_set(mt_node *n, mt_saved *s, mt_tensor *t, bool is_output, uint32_t output_nr)
{
    s->t = is_output ? saved_alias(t) : (mt_retain(t), t);
    s->version = mt_version(t);
    s->is_output = is_output;
    s->output_nr = output_nr;
    s->producer = NULL;
    s->history.fn = NULL;
    s->released = false;
    if (is_output) {
        s->producer = n->kind->name;
        s->producer_nr = output_nr;
    } else {
        mt_autograd_meta *m = mt_meta.get(t);
        if (m && m->grad_fn) {
            s->producer = m->grad_fn->kind->name;
            s->producer_nr = m->output_nr;
        }
    }
}

/* The unpacked input joins the original's history. The engine checks a
 * gradient against its sender's record of the input, so one of another
 * dtype or shape would reach the original unconverted: that only matters
 * when the use is differentiated (grad mode on), and is refused then. */
static mt_tensor *attach_input_history(mt_tensor *out, const mt_edge *e)
{
    const mt_tensor_meta *want = &e->fn->out_meta[e->input_nr];
    bool same = want->dtype == out->dtype && want->ndim == out->ndim &&
                memcmp(want->sizes, out->sizes, sizeof(int64_t) * out->ndim) == 0;
    if (!same) {
        if (!mt_grad_enabled)
            return out;
        mt_release(out);
        mt_error(MT_ERR_RUNTIME,
                 "the saved tensors unpack_hook returned a tensor of another dtype or shape "
                 "than the saved one; minitorch cannot differentiate through it "
                 "(create_graph=True): return a tensor like the one pack_hook received");
        return NULL;
    }
    mt_autograd_meta *m = mt_meta.get_or_create(out);
    if (!m) {
        mt_release(out);
        return NULL;
    }
    mt_node_incref(e->fn);
    m->grad_fn = e->fn;
    m->output_nr = e->input_nr;
    return out;
}

mt_tensor *mt_saved_get(mt_node *n, mt_saved *s)
{
    if ((n && n->saved_released) || s->released) {
        mt_error(
            MT_ERR_RUNTIME,
            "Trying to backward through the graph a second time (or directly access saved "
            "tensors after they have already been freed). Saved intermediate values of the graph "
            "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
            "you need to backward through the graph a second time or if you need to access saved "
            "tensors after calling backward.");
        return NULL;
    }
    if (s->packed) {
        mt_tensor *t = mt_ad.unpack_saved(s->packed);
        if (!t || !(s->is_output || s->history.fn))
            return t;
        mt_tensor *out = saved_alias(t);
        mt_release(t);
        if (out && !s->is_output)
            return attach_input_history(out, &s->history);
        if (out && mt_set_history(out, n, s->output_nr) < 0) {
            mt_release(out);
            return NULL;
        }
        return out;
    }
    if (!s->t)
        return NULL;
    /* an input saved with history that lost it (x.detach_()) can no longer
     * lead double backward back to x: torch refuses it */
    if (!s->is_output && s->producer && !mt_requires_grad(s->t)) {
        mt_error(MT_ERR_RUNTIME,
                 "Trying to use a saved tensor that has been detached in-place, i.e. with "
                 ".detach_().This is not supported, please use out-of-place `.detach()` instead");
        return NULL;
    }
    if (mt_version(s->t) != s->version) {
        char msg[768], shape[256], origin[160] = "";
        int len = 0;
        shape[0] = 0;
        for (int d = 0; d < s->t->ndim; d++)
            len += snprintf(shape + len, sizeof shape - len, d ? ", %lld" : "%lld",
                            (long long)s->t->sizes[d]);
        if (s->producer)
            snprintf(origin, sizeof origin, ", which is output %u of %s,", s->producer_nr,
                     s->producer);
        snprintf(msg, sizeof msg,
                 "one of the variables needed for gradient computation has been modified by an "
                 "inplace operation: [minitorch.%sTensor [%s]]%s is at version %lld; expected "
                 "version %lld instead. Hint: the backtrace further above shows the operation "
                 "that failed to compute its gradient. The variable in question was changed in "
                 "there or anywhere later. Good luck!",
                 mt_dtype_infos[s->t->dtype].scalar_name, shape, origin,
                 (long long)mt_version(s->t), (long long)s->version);
        mt_error(MT_ERR_RUNTIME, "%s", msg);
        return NULL;
    }
    if (!s->is_output) {
        /* an input saved with a history that detach_() has since cut */
        mt_autograd_meta *m = mt_meta.get(s->t);
        if (s->producer && !(m && m->grad_fn)) {
            mt_error(MT_ERR_RUNTIME,
                     "Trying to use a saved tensor that has been detached in-place, i.e. with "
                     ".detach_().This is not supported, please use out-of-place `.detach()` "
                     "instead");
            return NULL;
        }
        mt_retain(s->t);
        return s->t;
    }
    /* An output saved without history gets it back, pointing at n. */
    mt_tensor *out = saved_alias(s->t);
    if (out && mt_set_history(out, n, s->output_nr) < 0) {
        mt_release(out);
        return NULL;
    }
    return out;
}
