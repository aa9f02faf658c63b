/* Helpers for writing derivative formulas in terms of differentiable ops, so
 * that with create_graph=True the formulas themselves record a graph. The
 * ops run through mt_call (ops/call.h): below __torch_function__, as
 * torch's backward does. */
#ifndef MT_AUTOGRAD_FORMULA_H
#define MT_AUTOGRAD_FORMULA_H

#include "backend.h"
#include "meta.h"

#include "../ops/call.h"

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

/* Reduces a broadcast gradient back to the shape (and dtype) of edge e's
 * input. Consumes g. */
mt_tensor *mt_reduce_to_edge(mt_node *n, int e, mt_tensor *g);
/* grad * (number or saved tensor of param p); consumes nothing. */
mt_tensor *mt_mul_by_param(mt_node *n, mt_tensor *g, int p);

/* Releases every non-NULL tensor in the list; for error paths. */
void mt_release_all(int count, mt_tensor **ts);

#endif
