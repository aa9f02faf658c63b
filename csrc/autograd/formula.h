/* Helpers for writing derivative formulas in terms of differentiable ops, so
 * that with create_graph=True the formulas themselves record a graph. The
 * ops run through mt_call (autograd/call.h): below __torch_function__, as
 * torch's backward does. */
#ifndef MT_AUTOGRAD_FORMULA_H
#define MT_AUTOGRAD_FORMULA_H

#include "backend.h"
#include "meta.h"

#include "call.h"

/* Does edge e need a gradient? */
static inline bool mt_needs(const mt_node *n, int e) { return n->edges[e].fn != NULL; }
/* The single edge of tensor param p (-1 if p was a number, not a tensor). */
static inline int mt_edge_of(const mt_node *n, int p)
{
    return n->edge_count[p] > 0 ? n->edge_start[p] : -1;
}
static inline bool mt_param_needs(const mt_node *n, int p)
{
    int e = mt_edge_of(n, p);
    return e >= 0 && mt_needs(n, e);
}

/* Puts r (NULL: a failed call, its error set) in *slot: 0, or -1 when it failed. */
static inline int mt_store(mt_tensor **slot, mt_tensor *r)
{
    *slot = r;
    return r ? 0 : -1;
}

/* Reduces a broadcast gradient back to the shape (and dtype) of edge e's
 * input. Consumes g. */
mt_tensor *mt_reduce_to_edge(mt_node *n, int e, mt_tensor *g);
/* The saved tensor of param p, conjugated when complex (torch's gradients
 * take the other operand of a product conjugated): a new reference, or NULL
 * with an error. */
mt_tensor *mt_node_saved_conj(mt_node *n, int p);
/* grad * (number or saved tensor of param p); consumes nothing. */
mt_tensor *mt_mul_by_param(mt_node *n, mt_tensor *g, int p);
/* tangent * (number or saved tensor of param p), never conjugated (a jvp's
 * factor); consumes nothing. */
mt_tensor *mt_tangent_by_param(mt_node *n, mt_tensor *t, int p);

/* Releases every non-NULL tensor in the list; for error paths. */
void mt_release_all(int count, mt_tensor **ts);

/* The temporaries of one composite formula, released together
 * (mt_release_all(s.n, s.t)). Once a call fails, later MT_SCOPE_CALLs are
 * skipped and yield NULL, so a formula reads straight through and checks
 * s.failed once at the end. */
#define MT_SCOPE_CAP 64
typedef struct {
    mt_tensor *t[MT_SCOPE_CAP];
    int n;
    bool failed;
} mt_scope;

/* Takes t (NULL: a failed call, its error set) into s. */
static inline mt_tensor *mt_scope_keep(mt_scope *s, mt_tensor *t)
{
    if (!t) {
        s->failed = true;
        return NULL;
    }
    if (s->n == MT_SCOPE_CAP) {
        mt_release(t);
        mt_error(MT_ERR_RUNTIME, "minitorch autograd: formula scope is full");
        s->failed = true;
        return NULL;
    }
    return s->t[s->n++] = t;
}

#define MT_SCOPE_CALL(s, ...) ((s)->failed ? NULL : mt_scope_keep((s), mt_call(__VA_ARGS__)))

/* The saved tensor of slot, taken into s. */
static inline mt_tensor *mt_scope_saved(mt_scope *s, mt_node *n, int slot)
{
    return s->failed ? NULL : mt_scope_keep(s, mt_node_saved(n, slot));
}

/* Ends a formula: a new reference to r (NULL after a failure), temporaries released. */
static inline mt_tensor *mt_scope_finish(mt_scope *s, mt_tensor *r)
{
    if (!s->failed && r)
        mt_retain(r);
    mt_release_all(s->n, s->t);
    return s->failed ? NULL : r;
}

/* Dim d of a tensor of ndim dims, counted from 0 (0 for a 0-d tensor). */
static inline int mt_wrapped_dim(int64_t d, int ndim)
{
    return ndim ? (int)((d % ndim + ndim) % ndim) : 0;
}

#endif
