/* The op table: one mt_op per row of csrc/ops.def, addressed by id
 * (MT_OP_add, MT_OP_sum_dim, ...). Rows come in three forms:
 *
 *     MT_OP(id, kinds, impl, "signature", Derivative)    impl in csrc/ops/, plain C
 *     MT_PYOP(id, kinds, impl, "signature", Derivative)  impl installed by the host
 *     MT_OPERATOR(id, stem, forms, kinds, impl, "signature", Derivative, ReflectedDerivative)
 *
 * A MT_PYOP impl takes Python data (tensor() from nested lists, indexing
 * keys, NumPy arrays); C callers cannot run it. An MT_OPERATOR row is one
 * operator with the forms it asks for: the in-place method id_ and Python's
 * __stem__, __istem__ (in place) and __rstem__ (reflected, with the second
 * derivative name). Each form is a row of its own (MT_OP_add_,
 * MT_OP_add_dunder, MT_OP_add_idunder, MT_OP_add_rdunder) running the same
 * impl, which reads a->op->form; the forms' signatures are the operator's,
 * cut down at start-up. */
#ifndef MT_OPS_TABLE_H
#define MT_OPS_TABLE_H

#include "signature.h"
#include "../tags.h"

typedef enum {
#define MT_OP(id, ...) MT_OP_##id,
#define MT_PYOP(id, ...) MT_OP_##id,
#define MT_OPERATOR(id, ...) \
    MT_OP_##id, MT_OP_##id##_, MT_OP_##id##_dunder, MT_OP_##id##_idunder, MT_OP_##id##_rdunder,
#include "../../ops.def"
#undef MT_OP
#undef MT_PYOP
#undef MT_OPERATOR
    MT_OP_COUNT
} mt_op_id;

/* The forms of an operator row (a plain row is MT_FORM_PLAIN). */
typedef enum {
    MT_FORM_PLAIN = 0,
    MT_FORM_INPLACE = 1u << 0, /* id_ */
    MT_FORM_DUNDER = 1u << 1,  /* __stem__ */
    MT_FORM_IDUNDER = 1u << 2, /* __istem__: in place */
    MT_FORM_RDUNDER = 1u << 3, /* __rstem__: other (op) input */
    /* not a form: id_ is also a function (minitorch.exp_), not only a method */
    MT_FORM_INPLACE_FUNCTION = 1u << 4,
} mt_form;
#define MT_FORMS_ALL (MT_FORM_INPLACE | MT_FORM_DUNDER | MT_FORM_IDUNDER | MT_FORM_RDUNDER)

/* How a row's results alias its input where the rule autograd applies by
 * default (a result sharing input 0's memory is its view; an in-place row
 * writes input 0's elements) is not torch's: the MT_ALIAS rows. */
typedef enum {
    MT_ALIAS_DEFAULT = 0,
    /* changes input 0's geometry in place (transpose_): no element is
     * written, and the tensor's history continues from its old self */
    MT_ALIAS_INPLACE_VIEW,
    /* results share input 0's memory but are no views for autograd
     * (unsafe_split): in-place changes to them are not tracked as such, and
     * each counts its versions apart (mt_result_own_counters) */
    MT_ALIAS_UNTRACKED,
} mt_alias_rule;

/* How the runner writes the result of an MT_OUT_BY_COPY row into its out=
 * tensor, by the rule torch's out= variant of the op follows. */
typedef enum {
    MT_OUT_BY_IMPL = 0, /* the impl writes out= itself */
    /* out must have the result's dtype */
    MT_OUT_SAME_DTYPE,
    /* the result is cast into out where torch allows the cast */
    MT_OUT_CAST,
    /* dtype= left None defaults to out's (factories, cumulative ops); then cast */
    MT_OUT_TAKES_DTYPE,
    /* a floating input is reduced in a floating out's dtype; then cast */
    MT_OUT_REDUCES_IN_ITS_DTYPE,
} mt_out_rule;

typedef struct mt_op {
    mt_op_id id;
    const char *text; /* the signature string; a form's is made from its base's */
    unsigned kinds;   /* 0: a form its operator does not ask for (unpublished) */
    mt_impl_fn impl;
    bool host_impl; /* a MT_PYOP row */
    const char *derivative_name;
    mt_form form;
    mt_op_id base;         /* the operator row of a form; for a MT_PYOP row, the
                         plain-C row of the same name it stands beside */
    const char *form_name; /* "__radd__": the name of a form (NULL: id_) */
    /* filled by mt_ops_init */
    mt_signature *sig;
    bool inplace;           /* writes into its first argument */
    unsigned write_overlap; /* what a write may not overlap (write_overlap.h) */
    mt_alias_rule alias;    /* MT_ALIAS rows */
    mt_out_rule out_rule;   /* MT_OUT_BY_COPY rows: out= written by the runner */
    unsigned tags;          /* MT_TAG_* (ops/tags.h); a form's are its operator's */
    int overload;           /* index among the rows of its name and kind */
} mt_op;

extern mt_op mt_ops[MT_OP_COUNT];

/* Whether a call writes into its first argument: an in-place row, or a row
 * whose `inplace=True` parameter asks it to (F.relu(x, inplace=True)). */
static inline bool mt_writes_inplace(const mt_op *op, const mt_args *a)
{
    int ip = op->sig->inplace_param;
    return op->inplace || (ip >= 0 && a->v[ip].b);
}

/* Where a call writes besides a new tensor: its input, for the forms that
 * work in place (NULL otherwise), and its out= tensor (NULL when none). */
static inline mt_tensor *mt_inplace_target(const mt_args *a)
{
    return a->op->form == MT_FORM_INPLACE || a->op->form == MT_FORM_IDUNDER ? a->v[0].t : NULL;
}
static inline mt_tensor *mt_out_target(const mt_args *a)
{
    int p = a->sig->out_param;
    return p >= 0 && !mt_is_none(a, p) ? a->v[p].t : NULL;
}

/* Parses every signature; -1 with an mt_error. */
int mt_ops_init(void);
/* The host's impl of MT_PYOP row id (the binding installs one per row at
 * module init; C callers without a host find none and are refused). */
void mt_op_install_host_impl(mt_op_id id, mt_impl_fn impl);

#endif
