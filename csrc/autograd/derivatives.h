#ifndef MT_AUTOGRAD_DERIVATIVES_H
#define MT_AUTOGRAD_DERIVATIVES_H

/* The derivative kinds of the op table's rows: the MT_DERIV, MT_VARIANT,
 * MT_JVP and MT_GUARD rows of csrc/ops/<family>.def, resolved here from the
 * names the op rows give, so the op layer below knows no kind. */
#include "node.h"
#include "../ops/runtime/table.h"

#define MT_SAVE(p) (1u << (p))
/* save_output of a kind that keeps output k (true keeps output 0). */
#define MT_OUTPUT(k) ((k) + 1)
#define MT_RANK(r) (-(r)-1)
/* A variant row's criterion: the impl took path k (mt_args.path). */
#define MT_PATH_BASE 1000
#define MT_PATH(k) (MT_PATH_BASE + (k))

/* Resolves every row's derivative name (after mt_ops_init); -1 with an
 * mt_error naming a row whose derivative is unknown. */
int mt_autograd_init(void);
/* The derivative kind of a row: NULL when it has none (its float results
 * get the not-implemented kind), mt_nondifferentiable_kind when it records
 * nothing. */
const mt_node_kind *mt_op_derivative(const mt_op *op);
/* Gives custom row id its kind (a C op's, made by custom_kind.c); -1 with
 * an mt_error when out of memory. */
int mt_set_op_derivative(int id, const mt_node_kind *kind);
/* The checks autograd makes before a row runs, as torch's autograd kernels
 * make them (MT_GUARD rows): 0, or -1 with an mt_error. */
int mt_op_guard(const mt_op *op, const mt_args *a);
/* The kind a call of kind takes when its impl took path (MT_PATH rows). */
const mt_node_kind *mt_path_variant(const mt_node_kind *kind, int path);

/* The kind called name (e.g. "MulBackward0"), or NULL. */
const mt_node_kind *mt_derivative_kind(const char *name);
/* The kind a node of n->kind takes for its recorded arguments: torch names
 * some backward classes per overload (x ** 2 is PowBackward0, x ** y
 * PowBackward1). A row MT_VARIANT(Key, p, Variant) in csrc/ops/<family>.def says a
 * Key node whose param p was a number (or, for a non-tensor param, was given)
 * is a Variant node; with p = MT_RANK(r), a Key node whose first input has r
 * dims (diag of a matrix); with p = MT_PATH(k), a call whose impl took path
 * k (resolved at recording, mt_path_variant). A variant saves no input its
 * base does not. */
const mt_node_kind *mt_derivative_variant(const mt_node *n);
/* For float results of ops with no formula: backward raises torch's
 * "the derivative for 'op' is not implemented". */
extern const mt_node_kind mt_not_implemented_kind;
/* Ops whose results never carry history (detach, comparisons, ...). */
extern const mt_node_kind mt_nondifferentiable_kind;

#endif
