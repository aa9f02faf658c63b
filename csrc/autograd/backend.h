/* What the engine needs from the layer that owns tensor objects. The binding
 * layer installs these; the engine and the derivative formulas only see
 * mt_tensor pointers and never include Python.h.
 *
 * Functions returning a tensor return a new reference, or NULL with an error
 * pending in the binding layer. */
#ifndef MT_AUTOGRAD_BACKEND_H
#define MT_AUTOGRAD_BACKEND_H

#include "../core/tensor.h"

struct mt_node;

typedef struct {
    void (*retain)(mt_tensor *t);
    void (*release)(mt_tensor *t);
    /* A tensor sharing t's storage and geometry, with no autograd history. */
    mt_tensor *(*alias)(mt_tensor *t);
    /* Calls a public op by name. fmt: one char per argument:
     * T tensor, N None, i int64_t, f double, b int (bool), L (int n, const int64_t *v),
     * s const char *, O an object argument kept in mt_ad_value.obj; k before
     * any of these: a keyword argument, its name (const char *) first; keyword
     * arguments come last. */
    mt_tensor *(*call)(void **cache, const char *name, const char *fmt, ...);
    /* No one else holds t or its memory: the engine may keep it as a .grad. */
    bool (*unshared)(mt_tensor *t);
    /* New zeros of a dtype and shape. */
    mt_tensor *(*zeros)(mt_dtype dtype, int ndim, const int64_t *sizes);
    /* Node hooks kept by the binding layer (Python callables). Return -1 on error. */
    int (*run_pre_hooks)(struct mt_node *n, mt_tensor **grads);
    int (*run_post_hooks)(struct mt_node *n, mt_tensor **grads_in, mt_tensor **grads_out);
    int (*run_tensor_post_acc_hooks)(mt_tensor *leaf);
    void (*node_freed)(struct mt_node *n);
    /* Raises a RuntimeError with msg in the binding layer. */
    void (*set_error)(const char *msg);
} mt_ad_backend;

extern mt_ad_backend mt_ad;

#endif
