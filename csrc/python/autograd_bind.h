/* The binding side of autograd: the backend the engine calls, recording of
 * op-table calls into the graph, and the Python-facing pieces. */
#ifndef MT_PYTHON_AUTOGRAD_BIND_H
#define MT_PYTHON_AUTOGRAD_BIND_H

#include "parser.h"

#include "../autograd/meta.h"

static inline MTTensorObject *mtpy_container(mt_tensor *t)
{
    return (MTTensorObject *)((char *)t - offsetof(MTTensorObject, t));
}

/* Installs the backend and meta accessors; registers the node base type. */
int mt_autograd_bind_init(PyObject *module, PyObject *functions, PyObject *nn_functions);
/* Drops the tensor's share of its autograd meta (tensor dealloc). */
void mtpy_meta_release(MTTensorObject *o);
/* Makes dst share src's autograd meta (as_subclass aliases). */
void mtpy_meta_share(MTTensorObject *dst, MTTensorObject *src);

/* What recording needs from a parsed call before the impl runs. */
typedef struct {
    bool active;        /* grad mode on and some input requires grad */
    bool forward;       /* a dual level is active and some input has a tangent */
    PyObject *old_self; /* in-place ops whose formula reads self: a copy */
} mt_record_state;

/* Before impl: decides whether to record; refuses in-place ops on leaves
 * that require grad. -1 with an exception set. */
int mt_record_prepare(const char *op, const mt_node_kind *kind, bool inplace, mt_args *a,
                      mt_record_state *st);
/* After impl, before mt_record: sets the tangents of the outputs when
 * st->forward. -1 with an exception set. */
int mt_forward_propagate(const char *op, const mt_node_kind *kind, bool inplace, mt_args *a,
                         mt_record_state *st, PyObject *result);
/* After impl: attaches a new node to the result(s). Returns result or NULL
 * (result consumed on error). */
PyObject *mt_record(const char *op, const mt_node_kind *kind, bool inplace, mt_args *a,
                    mt_record_state *st, PyObject *result);

/* The Python grad_fn object of a node (new reference). */
PyObject *mtpy_node_object(mt_node *n);
int mt_node_object_init(PyObject *module);
/* The ctx a custom Function's forward saw, for a node of such a Function
 * (borrowed); NULL for every other node. */
PyObject *mtpy_function_ctx(mt_node *n);

#endif
