/* Helpers for writing derivative formulas in terms of differentiable ops, so
 * that with create_graph=True the formulas themselves record a graph. */
#ifndef MT_AUTOGRAD_FORMULA_H
#define MT_AUTOGRAD_FORMULA_H

#include "backend.h"
#include "meta.h"

/* Calls a public op (see mt_ad_backend.call for fmt); one lookup cache per
 * call site, so name must be a literal: a call site whose name varies would
 * keep calling the op it saw first. Yields a new reference or NULL with an
 * error pending. */
#define MT_OP(name, ...)                                  \
    __extension__({                                       \
        static void *mt_op_cache_;                        \
        mt_ad.call(&mt_op_cache_, name, __VA_ARGS__);     \
    })

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
