#ifndef MT_AUTOGRAD_DERIVATIVES_H
#define MT_AUTOGRAD_DERIVATIVES_H

#include "node.h"

#define MT_SAVE(p) (1u << (p))
/* save_output of a kind that keeps output k (true keeps output 0). */
#define MT_OUTPUT(k) ((k) + 1)
#define MT_RANK(r) (-(r)-1)

/* The kind called name (e.g. "MulBackward0"), or NULL. */
const mt_node_kind *mt_derivative_kind(const char *name);
/* The kind a node of n->kind takes for its recorded arguments: torch names
 * some backward classes per overload (x ** 2 is PowBackward0, x ** y
 * PowBackward1). A row MT_VARIANT(Key, p, Variant) in csrc/ops/<family>.def says a
 * Key node whose param p was a number (or, for a non-tensor param, was given)
 * is a Variant node; with p = MT_RANK(r), a Key node whose first input has r
 * dims (diag of a matrix). A variant saves no input its base does not. */
const mt_node_kind *mt_derivative_variant(const mt_node *n);
/* For float results of ops with no formula: backward raises torch's
 * "the derivative for 'op' is not implemented". */
extern const mt_node_kind mt_not_implemented_kind;
/* Ops whose results never carry history (detach, comparisons, ...). */
extern const mt_node_kind mt_nondifferentiable_kind;

#endif
