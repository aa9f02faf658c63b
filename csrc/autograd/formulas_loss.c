/* Formulas of the loss family (csrc/ops/loss.def): each calls a backward
 * row of loss.def so the call is recorded like any other op. */
#include "formula.h"
#include "grad_mode.h"
#include "../kernels/loss.h"

/* ------------------------------------------------------------ nll_loss */

/* _nll_loss(input, target, weight, reduction, ignore_index) is linear in
 * input; the class weights get no gradient, as in torch. */
int nll_loss_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    int ei = mt_edge_of(n, 0);
    if (!mt_needs(n, ei))
        return 0;
    const mt_tensor_meta *m = &n->edge_meta[ei];
    mt_tensor *t = mt_node_saved(n, 1), *w = n->args[2].none ? NULL : mt_node_saved(n, 2);
    if (t && (w || n->args[2].none))
        out[ei] = w ? mt_call(MT_OP__nll_loss_backward, "TTTLii", g[0], t, w, m->ndim, m->sizes,
                              n->args[3].i, n->args[4].i)
                    : mt_call(MT_OP__nll_loss_backward, "TTNLii", g[0], t, m->ndim, m->sizes,
                              n->args[3].i, n->args[4].i);
    mt_tensor *tmp[2] = {t, w};
    mt_release_all(2, tmp);
    return out[ei] ? 0 : -1;
}

/* _nll_loss_backward(grad_output, target, weight, input_size, reduction,
 * ignore_index) = L^T grad_output for the linear map L = _nll_loss, so its
 * derivative takes an incoming gradient gg to L gg. */
int nll_loss_double_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    int eg = mt_edge_of(n, 0);
    if (!mt_needs(n, eg))
        return 0;
    mt_tensor *t = mt_node_saved(n, 1), *w = n->args[2].none ? NULL : mt_node_saved(n, 2);
    if (t && (w || n->args[2].none))
        out[eg] = w ? mt_call(MT_OP__nll_loss, "TTTii", g[0], t, w, n->args[4].i, n->args[5].i)
                    : mt_call(MT_OP__nll_loss, "TTNii", g[0], t, n->args[4].i, n->args[5].i);
    mt_tensor *tmp[2] = {t, w};
    mt_release_all(2, tmp);
    return out[eg] ? 0 : -1;
}

/* ------------------------------------------------------------ cross_entropy */

/* _cross_entropy(input, target, weight, reduction, ignore_index,
 * label_smoothing), with the per-position log-sum-exp kept as output 1. The
 * class weights get no gradient, as in torch. Without a graph of the
 * gradient the fused row writes it; with one, the gradient is built from
 * ops as torch's composite has it, log_softmax's backward of the gradient
 * with respect to the log-probabilities, which is linear in g[0] and made
 * by the row from ones. */
int cross_entropy_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    int ei = mt_edge_of(n, 0);
    if (!mt_needs(n, ei) || !g[0])
        return 0;
    bool has_w = !n->args[2].none;
    int64_t red = n->args[3].i, ignore = n->args[4].i;
    double smoothing = n->args[5].f;
    mt_tensor *x = mt_node_saved(n, 0), *t = mt_node_saved(n, 1);
    mt_tensor *w = has_w ? mt_node_saved(n, 2) : NULL, *lse = mt_node_saved(n, n->nparams);
    mt_tensor *tmp[6] = {x, t, w, lse, NULL, NULL};
    if (x && t && (w || !has_w) && lse) {
        if (!mt_grad_enabled) {
            /* the row reads one dense upstream value per position (a sum's
             * gradient arrives expanded) */
            mt_tensor *gd = tmp[4] = mt_call(MT_OP_contiguous, "T", g[0]);
            out[ei] = !gd ? NULL
                      : w ? mt_call(MT_OP__cross_entropy_backward, "TTTTTiif", gd, x, t, w, lse,
                                    red, ignore, smoothing)
                          : mt_call(MT_OP__cross_entropy_backward, "TTTNTiif", gd, x, t, lse, red,
                                    ignore, smoothing);
        } else {
            int dim = x->ndim == 1 ? 0 : 1;
            mt_tensor *ones = tmp[4] = mt_call(MT_OP_ones_like, "T", g[0]);
            mt_tensor *per_class = !ones ? NULL
                                   : w ? mt_call(MT_OP__cross_entropy_backward, "TTTTNiif", ones, x,
                                                 t, w, red, ignore, smoothing)
                                       : mt_call(MT_OP__cross_entropy_backward, "TTTNNiif", ones, x,
                                                 t, red, ignore, smoothing);
            tmp[5] = per_class;
            bool spread = red == MT_REDUCTION_NONE && dim == 1;
            mt_tensor *up = !per_class ? NULL
                            : spread   ? mt_call(MT_OP_unsqueeze, "Ti", g[0], 1)
                                       : g[0];
            mt_tensor *glogp = up ? mt_call(MT_OP_mul, "TT", per_class, up) : NULL;
            if (spread)
                mt_xrelease(up);
            mt_tensor *logp = glogp ? mt_call(MT_OP_log_softmax, "Ti", x, dim) : NULL;
            if (logp)
                out[ei] = mt_call(MT_OP__log_softmax_backward_data, "TTi", glogp, logp, dim);
            mt_xrelease(glogp);
            mt_xrelease(logp);
        }
    }
    mt_release_all(6, tmp);
    return out[ei] ? 0 : -1;
}
