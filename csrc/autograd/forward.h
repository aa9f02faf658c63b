/* Forward-mode AD: tangents ride on the autograd meta of a tensor for the
 * active dual level, and every differentiable op computes its outputs'
 * tangents from its inputs' right after it runs. */
#ifndef MT_AUTOGRAD_FORWARD_H
#define MT_AUTOGRAD_FORWARD_H

#include "meta.h"
#include "../core/hot.h"

/* Id of the active dual level (0: none). Ids are never reused, so a tangent
 * stored under a level that has been exited is simply stale. */
extern uint64_t mt_fw_level;
/* Off while a custom Function's forward runs and while tangents are being
 * computed: the ops run there propagate nothing. */
extern _Thread_local bool mt_fw_grad_enabled MT_HOT_TLS;

/* 0 on success; -1 when a level is already active (error set). */
int mt_fw_enter_level(void);
void mt_fw_exit_level(void);

static inline bool mt_fw_active(void) { return mt_fw_level != 0 && mt_fw_grad_enabled; }

/* The tangent of t at the active level (borrowed), or NULL. */
mt_tensor *mt_fw_grad(mt_tensor *t);
/* Sets (retains) or clears (tangent NULL) t's tangent at the active level. */
int mt_fw_set_grad(mt_tensor *t, mt_tensor *tangent);

/* Tangents of n's outputs from the tangents of its edges (NULL = zero):
 * n->kind->jvp when it has one, otherwise derived from its backward. Each
 * tangents_out[k] of a floating output comes back with the output's shape
 * and dtype (new reference); others stay NULL. */
int mt_jvp(mt_node *n, mt_tensor **tangents_in, mt_tensor **tangents_out);

/* Placeholder edge target marking inputs that carry a tangent in nodes built
 * only to compute tangents (formulas skip edges with no target). */
extern mt_node mt_fw_edge_marker;

#endif
