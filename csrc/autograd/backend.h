/* What the engine needs from the host beyond the owner hooks
 * (core/owner.h): running the hooks users attach to nodes and tensors, and
 * releasing what the host keeps on a node. The binding installs these; the
 * engine and the derivative formulas know nothing of Python.
 *
 * Functions returning a tensor return a new reference, or NULL with an
 * mt_error set (MT_ERR_HOST when the host holds the error itself). */
#ifndef MT_AUTOGRAD_BACKEND_H
#define MT_AUTOGRAD_BACKEND_H

#include "../core/error.h"
#include "../core/owner.h"

struct mt_node;

typedef struct {
    /* Hooks kept by the binding layer (Python callables), in torch's order:
     * the tensor hooks of n's outputs (of its leaf, for AccumulateGrad) and
     * their retained grads, then the node's own prehooks, then (after its
     * backward) its post hooks. Return -1 on error. run_post_hooks gets
     * grads_in NULL when the node had no post hooks as its formula started:
     * they see no grad_outputs. */
    int (*run_tensor_pre_hooks)(struct mt_node *n, mt_tensor **grads);
    int (*run_pre_hooks)(struct mt_node *n, mt_tensor **grads);
    int (*run_post_hooks)(struct mt_node *n, mt_tensor **grads_in, mt_tensor **grads_out);
    int (*run_tensor_post_acc_hooks)(mt_tensor *leaf);
    void (*node_freed)(struct mt_node *n);
    /* n (with a host ctx) is down to one holder: the host breaks the cycle
     * its ctx and n form when nothing else holds either, so n is freed at
     * once, not at the host's next cycle collection. */
    void (*node_held_once)(struct mt_node *n);
    /* t (a non-leaf) has a new grad_fn in place of old: its hooks stay with
     * old, its retained grad moves to the new one. */
    int (*history_moved)(mt_tensor *t, struct mt_node *old);
    /* Anomaly mode: n was just made (by parent's backward, or NULL); n failed
     * (reports where n and its causes were made, keeping the pending error). */
    void (*node_created)(struct mt_node *n, struct mt_node *parent);
    void (*node_failed)(struct mt_node *n);
    /* Saved-tensor hooks: *packed = what the active pack hook made of t (a
     * host object), or NULL when no hooks are active; unpack gives the
     * tensor back (a new reference). */
    int (*pack_saved)(mt_tensor *t, void **packed);
    mt_tensor *(*unpack_saved)(void *packed);
    /* A new tensor standing for t in a saved entry (an output kept without
     * history, an unpacked entry given history): the host's own for a tensor
     * whose data the host holds elsewhere (a wrapper subclass), else NULL
     * for a plain alias. */
    mt_tensor *(*alias_saved)(mt_tensor *t);
} mt_ad_backend;

extern mt_ad_backend mt_ad;

#endif
