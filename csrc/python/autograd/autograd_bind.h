/* The binding side of autograd: the backend the engine calls, recording of
 * op-table calls into the graph, and the Python-facing pieces. */
#ifndef MT_PYTHON_AUTOGRAD_BIND_H
#define MT_PYTHON_AUTOGRAD_BIND_H

#include "../dispatch/parser.h"

#include "../../autograd/meta.h"

static inline MTTensorObject *mtpy_container(mt_tensor *t)
{
    return (MTTensorObject *)((char *)t - offsetof(MTTensorObject, t));
}

/* Installs the backend and meta accessors; registers the node base type. */
int mt_autograd_bind_init(PyObject *module);
/* Drops the tensor's share of its autograd meta (tensor dealloc). */
void mtpy_meta_release(MTTensorObject *o);
/* Makes dst share src's autograd meta (as_subclass aliases). */
void mtpy_meta_share(MTTensorObject *dst, MTTensorObject *src);

/* The saved-tensor hooks stack, a list of (pack, unpack) tuples (borrowed). */
PyObject *mtpy_saved_hooks_stack(void);
/* *packed = what pair's pack hook made of t, kept with pair's unpack hook
 * (a new reference); -1 with a Python error (the hook failed or wrote into t). */
int mtpy_pack_saved_with(PyObject *pair, mt_tensor *t, void **packed);
/* grad_fn._saved_<name> / _raw_saved_<name> of node n (saved_tensor.c), or
 * NULL with no error set when n keeps nothing of that name. */
PyObject *mtpy_node_saved_attr(mt_node *n, PyObject *name);
/* Appends those names of n to list (for dir(grad_fn)); -1 on error. */
int mtpy_node_saved_names(mt_node *n, PyObject *list);
/* Adds to _C._autograd SavedTensor and the saved-tensor hook state, and
 * _C._current_autograd_node. */
int mtpy_saved_tensor_init(PyObject *module);

/* A grad_fn object: node is strong. A custom Function's ctx is one too
 * (torch's grad_fn of such a node is its ctx), holding no node until first
 * handed out as a grad_fn. */
typedef struct {
    PyObject_HEAD mt_node *node;
} MTNodeObject;
extern PyTypeObject MTNode_Type;

/* The Python grad_fn object of a node (new reference). */
PyObject *mtpy_node_object(mt_node *n);
/* The node a grad_fn object stands for. */
mt_node *mtpy_node_of(PyObject *node_object);
int mt_node_object_init(PyObject *module);
/* Visits the Python objects node n holds (hooks, metadata, a custom
 * Function's ctx, argument objects, saved tensors and what pack hooks made
 * of them), for the tp_traverse of an object that alone holds n. */
int mtpy_node_traverse(mt_node *n, visitproc visit, void *arg);
/* Drops n's hooks and metadata: the tp_clear counterpart. */
void mtpy_node_clear(mt_node *n);
/* The ctx a custom Function's forward saw, for a node of such a Function
 * (borrowed); NULL for every other node. */
PyObject *mtpy_function_ctx(mt_node *n);
/* mt_ad.node_held_once: a custom Function's node held by its ctx alone,
 * the ctx by nothing but the node, is freed (as torch's, whose ctx refers to
 * its node weakly once no Python code holds it). */
void mtpy_function_held_once(mt_node *n);
/* The entries a custom Function's save_for_backward kept (*count of them),
 * or NULL for every other node. */
mt_saved *mtpy_function_saved(mt_node *n, int *count);

#endif
