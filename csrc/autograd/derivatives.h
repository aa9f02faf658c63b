/* The derivative kinds of the op table's rows: the MT_DERIV, MT_VARIANT,
 * MT_JVP and MT_GUARD rows of csrc/ops/<family>.def, resolved here from the
 * names the op rows give, so the op layer below knows no kind. */
#ifndef MT_AUTOGRAD_DERIVATIVES_H
#define MT_AUTOGRAD_DERIVATIVES_H

#include "node.h"
#include "../ops/runtime/table.h"

#define MT_SAVE(p) (1u << (p))
/* save_output of a kind that keeps output k (true keeps output 0). */
#define MT_OUTPUT(k) ((k) + 1)
#define MT_RANK(r) (-(r) - 1)
/* A variant row's criterion: the impl took path k (mt_args.path). */
#define MT_PATH_BASE 1000
#define MT_PATH(k) (MT_PATH_BASE + (k))

/* Resolves every row's derivative name (after mt_ops_init); -1 with an
 * mt_error naming a row whose derivative is unknown. */
int mt_autograd_init(void);
/* What autograd holds for a built-in row: its kind (NULL when it has none:
 * its float results get the not-implemented kind; mt_nondifferentiable_kind
 * when it records nothing) and its guard, the check autograd makes before
 * the row runs as torch's autograd kernels make it (MT_GUARD rows: 0, or -1
 * with an mt_error). Read on every call, so inline over this array. */
typedef struct {
    const mt_node_kind *kind;
    int (*guard)(const mt_args *a);
} mt_op_autograd;
extern mt_op_autograd mt_op_autograd_rows[MT_OP_COUNT];
/* A custom row's kind (mt_nondifferentiable_kind for a host op's). */
const mt_node_kind *mt_custom_op_derivative(int id);

static inline const mt_node_kind *mt_op_derivative(const mt_op *op)
{
    return op->id < MT_OP_COUNT ? mt_op_autograd_rows[op->id].kind
                                : mt_custom_op_derivative(op->id);
}
/* Gives custom row id its kind (a C op's, made by custom_kind.c); -1 with
 * an mt_error when out of memory. */
int mt_set_op_derivative(int id, const mt_node_kind *kind);
/* The kind a call of kind takes when its impl took path (MT_PATH rows). */
static inline const mt_node_kind *mt_path_variant(const mt_node_kind *kind, int path)
{
    const mt_node_kind *v =
        kind && kind->by_path && path < MT_PATH_COUNT ? kind->by_path[path] : NULL;
    return v ? v : kind;
}

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
