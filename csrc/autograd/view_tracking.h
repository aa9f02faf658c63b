/* Views and in-place ops, as torch does them. A view remembers its root base;
 * an in-place op on a view rewrites the base's history (CopySlices), and a
 * view whose base changed since its grad_fn was made gets a fresh one that
 * reads the base's current history (AsStridedBackward0). */
#ifndef MT_AUTOGRAD_VIEW_TRACKING_H
#define MT_AUTOGRAD_VIEW_TRACKING_H

#include "meta.h"

enum {
    MT_VIEW_DEFAULT,
    MT_VIEW_NO_GRAD,            /* made in no_grad mode */
    MT_VIEW_INFERENCE_MODE,     /* made in inference mode (of a normal tensor) */
    MT_VIEW_MULTI_OUTPUT,       /* one of several views returned by one op (unbind, split) */
    MT_VIEW_IN_CUSTOM_FUNCTION, /* returned by a custom Function, whose backward CopySlices
                                   would bypass */
};

/* Marks view (a result sharing input's storage) as a view of input's root
 * base; multi_output: one of several views one op returned. */
int mt_view_track(mt_tensor *view, mt_tensor *input, bool multi_output);
/* Before an in-place op that records on t: torch's refusals for views made
 * in no_grad mode, outputs of multi-output ops and views of leaves. */
int mt_view_check_inplace(mt_tensor *t);
/* Regenerates t's grad_fn when t is a view whose base was modified in place
 * since; a no-op otherwise. */
int mt_view_refresh(mt_tensor *t);
/* Records that op (an in-place op just run on view t, its input at edge
 * self_edge) modified t's base: the base's history becomes CopySlices(op)
 * and t's a view of it. */
int mt_view_rebase(mt_tensor *t, mt_node *op, int self_edge);
/* View replay (torch's autograd._force_original_view_tracking), per thread:
 * while on, a view made by replayable ops (one output, nothing saved) from
 * its base, or from a view made so, keeps the node of its op, and when the
 * base changes gets copies of the chain of such nodes on the base's new
 * history, where otherwise it gets an AsStridedBackward0 view of it. */
extern _Thread_local bool mt_view_replay;
/* After node n recorded the op that made view t from input: keeps n for
 * replay when replay is on or t's dtype is not its base's, n is replayable, and input is t's base or a
 * view whose history is its replayable chain. */
void mt_view_note_op(mt_tensor *t, const mt_tensor *input, mt_node *n);
/* t's geometry changed in place (an in-place view op, recorded or not): the
 * ops t kept for replay no longer make it (a view of another dtype than its
 * base's keeps them, as torch does). */
void mt_view_forget_ops(mt_tensor *t);
/* Marks view t as made by a custom Function, or (multi_output) as one of
 * several differentiable outputs of one: in-place changes to it are refused. */
void mt_view_mark_custom(mt_tensor *t, bool multi_output);

static inline bool mt_is_view(mt_tensor *t)
{
    mt_autograd_meta *m = mt_meta.get(t);
    return m && m->view_base;
}

#endif
