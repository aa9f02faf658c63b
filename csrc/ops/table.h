/* The op table: one mt_op per row of csrc/ops.def, addressed by id
 * (MT_OP_add, MT_OP_sum_dim, ...). Rows come in two forms:
 *
 *     MT_OP(id, kinds, impl, "signature", Derivative)    impl in csrc/ops/, plain C
 *     MT_PYOP(id, kinds, impl, "signature", Derivative)  impl in the Python binding
 *
 * A MT_PYOP impl takes Python data (tensor() from nested lists, indexing
 * keys, NumPy arrays); C callers cannot run it. */
#ifndef MT_OPS_TABLE_H
#define MT_OPS_TABLE_H

#include "signature.h"

typedef enum {
#define MT_OP(id, ...) MT_OP_##id,
#define MT_PYOP(id, ...) MT_OP_##id,
#include "../ops.def"
#undef MT_OP
#undef MT_PYOP
    MT_OP_COUNT
} mt_op_id;

typedef struct mt_op {
    mt_op_id id;
    const char *text; /* the signature string */
    unsigned kinds;
    mt_impl_fn impl;
    bool host_impl;   /* a MT_PYOP row */
    const char *derivative_name;
    /* filled by mt_ops_init */
    mt_signature *sig;
    const struct mt_node_kind *derivative; /* NULL: no formula */
    bool inplace;     /* writes into its first argument */
    int overload;     /* index among the rows of its name and kind */
} mt_op;

extern mt_op mt_ops[MT_OP_COUNT];

/* Parses every signature and resolves derivatives; -1 with an mt_error. */
int mt_ops_init(void);
/* The first row named name, or NULL. */
const mt_op *mt_op_named(const char *name);

#endif
