/* Custom ops: op-table rows registered at run time (by a C extension or by
 * minitorch.library.custom_op), with ids from MT_OP_COUNT on. A custom row
 * is an mt_op like any other, so the parser, __torch_function__ dispatch,
 * the runner and the recorder treat it as they treat a built-in row; only
 * its impl and its derivative kind are made here, around the callbacks the
 * registrant gives. Plain C: no Python. */
#ifndef MT_OPS_CUSTOM_H
#define MT_OPS_CUSTOM_H

#include "../autograd/node.h"
#include "table.h"

/* The C callbacks of a custom op. The kernel returns its result (new
 * reference) or NULL with an error set; it runs with autograd off, as torch
 * runs a kernel below the autograd layer. The backward gets the gradient of
 * the output and fills grad_inputs[p] (new references, or NULL for zero) for
 * the Tensor parameters p it has gradients for; the jvp gets the tangent of
 * each Tensor parameter (NULL for zero) and makes the output's. Both return
 * 0, or -1 with an error set. */
typedef mt_tensor *(*mt_custom_kernel)(const mt_args *a);
typedef int (*mt_custom_backward)(mt_node *n, mt_tensor *grad_output, mt_tensor **grad_inputs);
typedef int (*mt_custom_jvp)(mt_node *n, mt_tensor *const *tangents, mt_tensor **tangent_out);

typedef struct mt_custom_op {
    mt_op row; /* first: a->op of a call of this row points here */
    char qualname[96]; /* "mylib::myadd" */
    mt_node_kind kind; /* the row's derivative for a C op */
    char kind_name[160];
    mt_custom_kernel kernel;
    mt_custom_backward backward;
    mt_custom_jvp jvp;
    void *host; /* a host op's implementation (a Python callable), opaque here */
} mt_custom_op;

/* Registers "ns::name(params) -> Tensor" (the op table's grammar after the
 * namespace; the return annotation is optional). A C op gives kernel (and
 * optionally backward and jvp) and records with a node of its own kind; a
 * host op gives host_impl, which reads op->host, and records itself (as
 * torch's custom_op does, through an autograd.Function). The row's id, or
 * -1 with an error set. */
int mt_custom_register(const char *schema, mt_custom_kernel kernel, mt_custom_backward backward,
                       mt_custom_jvp jvp, mt_impl_fn host_impl, void *host);

/* The row of an id, built-in or custom; NULL when there is none. */
const mt_op *mt_op_row(int id);
/* The id of the first row named name ("add", "mylib::myadd"; the newest
 * custom op of a name wins), or -1 with an error set. */
int mt_op_find(const char *name);
/* The custom op of a row, or NULL for a built-in one. */
const mt_custom_op *mt_custom_of(const mt_op *op);

#endif
