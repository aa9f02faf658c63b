/* The autograd side of a tensor: its grad_fn, grad, and leaf accumulator. */
#ifndef MT_AUTOGRAD_META_H
#define MT_AUTOGRAD_META_H

#include "node.h"

typedef struct mt_autograd_meta {
    int64_t refcount; /* shared by aliases made with as_subclass */
    mt_node *grad_fn; /* strong; NULL for leaves */
    uint32_t output_nr;
    mt_node *grad_accumulator; /* weak: cleared when the AccumulateGrad node dies */
    mt_tensor *grad;           /* strong */
    bool retains_grad;
    void *hooks;        /* owned by the binding layer */
    mt_tensor *fw_grad; /* strong: the tangent, valid while fw_level is active */
    uint64_t fw_level;
    /* A differentiable view (see view_tracking.h): its root base (strong),
     * how it was made, and the storage version its grad_fn was made for. */
    mt_tensor *view_base;
    uint8_t view_creation;
    int64_t view_version;
    /* The node of the op that made the view, kept (strong) when view
     * replay was on, and how many view nodes lead from it (through their
     * first edges) back to the base: replayed on the base's new history
     * instead of an as_strided view when the base changes (view_tracking.h). */
    mt_node *view_fn;
    int view_fn_depth;
} mt_autograd_meta;

/* Every mt_tensor lives inside a binding-layer object that also holds its
 * meta; these accessors are installed with the backend. */
typedef struct {
    mt_autograd_meta *(*get)(mt_tensor *t);           /* may be NULL */
    mt_autograd_meta *(*get_or_create)(mt_tensor *t); /* NULL on OOM */
} mt_meta_access;

extern mt_meta_access mt_meta;

/* A view also requires grad when its base does, even without a grad_fn
 * (made in no_grad mode, or before the base required grad). */
static inline bool mt_requires_grad(mt_tensor *t)
{
    if (t->flags & MT_FLAG_REQUIRES_GRAD)
        return true;
    mt_autograd_meta *m = mt_meta.get(t);
    return m && (m->grad_fn || (m->view_base && mt_requires_grad(m->view_base)));
}

/* The node a gradient for t flows into: its grad_fn, or (for a leaf that
 * requires grad) its AccumulateGrad node, created on first use. */
int mt_gradient_edge(mt_tensor *t, mt_edge *out);
/* Makes node output output_nr the history of t. */
int mt_set_history(mt_tensor *t, mt_node *n, uint32_t output_nr);
void mt_meta_clear(mt_autograd_meta *m);

extern const mt_node_kind mt_accumulate_grad_kind;

#endif
