/* Custom ops: op-table rows registered at run time (by a C extension or by
 * minitorch.library.custom_op), with ids from MT_OP_COUNT on. A custom row
 * is an mt_op like any other, so the parser, __torch_function__ dispatch and
 * the runners treat it as they treat a built-in row; its impl is made here
 * around the kernel the registrant gives (a C op's derivative is made by
 * autograd/custom_kind.c). Plain C: no host objects. */
#ifndef MT_OPS_CUSTOM_H
#define MT_OPS_CUSTOM_H

#include "table.h"

/* A C op's kernel: its result (new reference), or NULL with an error set.
 * It runs with autograd off, as torch runs a kernel below the autograd
 * layer (the kind autograd/custom_kind.c makes asks for that). */
typedef mt_tensor *(*mt_custom_kernel)(const mt_args *a);

typedef struct mt_custom_op {
    mt_op row;         /* first: a->op of a call of this row points here */
    char qualname[96]; /* "mylib::myadd" */
    mt_custom_kernel kernel;
    void *host; /* a host op's implementation (a Python callable), opaque here */
} mt_custom_op;

/* Registers "ns::name(params) -> Tensor" (the op table's grammar after the
 * namespace; the return annotation is optional). A C op gives kernel (its
 * derivative, if any, is registered on the autograd floor); a host op gives
 * host_impl, which reads op->host, and records itself (as torch's custom_op
 * does, through an autograd.Function). The row's id, or -1 with an error
 * set. */
int mt_custom_register(const char *schema, mt_custom_kernel kernel, mt_impl_fn host_impl,
                       void *host);
/* A registrant's callback failed: keeps the error it left, or says that it
 * left none. Returns -1. */
int mt_custom_failure(const char *qualname, const char *what);

/* The row of an id, built-in or custom; NULL when there is none. */
const mt_op *mt_op_row(int id);
/* The id of the first row named name ("add", "mylib::myadd"; the newest
 * custom op of a name wins), or -1 with an error set. */
int mt_op_find(const char *name);
/* The custom op of a row, or NULL for a built-in one. */
const mt_custom_op *mt_custom_of(const mt_op *op);

#endif
