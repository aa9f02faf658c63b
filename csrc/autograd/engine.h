/* The backward engine: runs the graph from the given roots in reverse
 * creation order, with no Python in the loop for built-in nodes. */
#ifndef MT_AUTOGRAD_ENGINE_H
#define MT_AUTOGRAD_ENGINE_H

#include "meta.h"

typedef struct {
    int nroots;
    mt_tensor **roots;
    mt_tensor **root_grads; /* one per root, already shaped */
    bool keep_graph;
    bool create_graph;
    /* Only the part of the graph leading to these tensors runs. Capture
     * mode (autograd.grad): the gradients reaching them are returned in
     * captured[] instead of being accumulated. With accumulate
     * (backward(inputs=...)) their nodes run as in a plain backward (a
     * leaf's .grad accumulates; a non-leaf input retains its grad, which
     * the caller asks for) and nothing is captured. */
    int ninputs;
    mt_tensor **inputs;
    mt_tensor **captured; /* out: new references or NULL */
    bool accumulate;
} mt_backward_task;

/* 0 on success, or -1 with an mt_error set (MT_ERR_HOST when a host hook
 * raised: the host holds that error). */
int mt_run_backward(mt_backward_task *task);

#endif
