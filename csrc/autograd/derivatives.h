#ifndef MT_AUTOGRAD_DERIVATIVES_H
#define MT_AUTOGRAD_DERIVATIVES_H

#include "node.h"

#define MT_SAVE(p) (1u << (p))

/* The kind called name (e.g. "MulBackward0"), or NULL. */
const mt_node_kind *mt_derivative_kind(const char *name);
/* For float results of ops with no formula: backward raises torch's
 * "the derivative for 'op' is not implemented". */
extern const mt_node_kind mt_not_implemented_kind;
/* Ops whose results never carry history (detach, comparisons, ...). */
extern const mt_node_kind mt_nondifferentiable_kind;

#endif
