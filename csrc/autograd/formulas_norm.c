/* Formulas of the normalization rows (ops/norm.def). A plain backward runs
 * the fused backward row, which reads the saved statistics and gives every
 * gradient in one call. With create_graph the gradients must themselves be
 * differentiable, so they are built from differentiable ops instead:
 * dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)) with gw = grad * weight
 * (no mean(gw) term for rms), the means over the normalized elements. */
#include "formula.h"
#include "grad_mode.h"

#include <string.h>

/* t reshaped to edge e's input shape, as a new reference (NULL: failed). */
static mt_tensor *shaped_like_edge(mt_node *n, int e, mt_tensor *t)
{
    const mt_tensor_meta *m = &n->edge_meta[e];
    return t ? mt_call(MT_OP_reshape, "TL", t, m->ndim, m->sizes) : NULL;
}

/* The gradients through x seen as [a, b, c, d], the statistics over dims
 * sdims, the weight over dims 1 and 2 (its gradients summed over 0 and 3). */
static int composite_backward(mt_node *n, mt_tensor *g, mt_tensor *x, mt_tensor *w,
                              const int64_t shape[4], const int64_t sdims[2], bool rms, double eps,
                              mt_tensor **out)
{
    int ei = mt_edge_of(n, 0), ew = mt_edge_of(n, 1), eb = mt_edge_of(n, 2);
    static const int64_t wdims[2] = {0, 3};
    int64_t wshape[4] = {1, shape[1], shape[2], 1};
    mt_scope s = {{NULL}, 0, false};
    mt_tensor *x4 = MT_SCOPE_CALL(&s, MT_OP_reshape, "TL", x, 4, shape);
    mt_tensor *g4 = MT_SCOPE_CALL(&s, MT_OP_reshape, "TL", g, 4, shape);
    mt_tensor *xc = x4;
    if (!rms) {
        mt_tensor *mean = MT_SCOPE_CALL(&s, MT_OP_mean, "TLb", x4, 2, sdims, 1);
        xc = MT_SCOPE_CALL(&s, MT_OP_sub, "TT", x4, mean);
    }
    mt_tensor *sq = MT_SCOPE_CALL(&s, MT_OP_mul, "TT", xc, xc);
    mt_tensor *var = MT_SCOPE_CALL(&s, MT_OP_mean, "TLb", sq, 2, sdims, 1);
    mt_tensor *ve = MT_SCOPE_CALL(&s, MT_OP_add, "Tf", var, eps);
    mt_tensor *rstd = MT_SCOPE_CALL(&s, MT_OP_rsqrt, "T", ve);
    mt_tensor *xh = MT_SCOPE_CALL(&s, MT_OP_mul, "TT", xc, rstd);
    mt_tensor *gw = g4;
    if (w) {
        mt_tensor *wv = MT_SCOPE_CALL(&s, MT_OP_reshape, "TL", w, 4, wshape);
        gw = MT_SCOPE_CALL(&s, MT_OP_mul, "TT", g4, wv);
    }
    mt_tensor *gwxh = MT_SCOPE_CALL(&s, MT_OP_mul, "TT", gw, xh);
    mt_tensor *m2 = MT_SCOPE_CALL(&s, MT_OP_mean, "TLb", gwxh, 2, sdims, 1);
    mt_tensor *t2 = MT_SCOPE_CALL(&s, MT_OP_mul, "TT", xh, m2);
    mt_tensor *inner = MT_SCOPE_CALL(&s, MT_OP_sub, "TT", gw, t2);
    if (!rms) {
        mt_tensor *m1 = MT_SCOPE_CALL(&s, MT_OP_mean, "TLb", gw, 2, sdims, 1);
        inner = MT_SCOPE_CALL(&s, MT_OP_sub, "TT", inner, m1);
    }
    if (mt_needs(n, ei))
        out[ei] = s.failed
                      ? NULL
                      : shaped_like_edge(n, ei, MT_SCOPE_CALL(&s, MT_OP_mul, "TT", inner, rstd));
    if (ew >= 0 && mt_needs(n, ew)) {
        mt_tensor *gxh = MT_SCOPE_CALL(&s, MT_OP_mul, "TT", g4, xh);
        out[ew] =
            s.failed
                ? NULL
                : shaped_like_edge(n, ew, MT_SCOPE_CALL(&s, MT_OP_sum, "TLb", gxh, 2, wdims, 0));
    }
    if (eb >= 0 && mt_needs(n, eb))
        out[eb] = s.failed ? NULL
                           : shaped_like_edge(n, eb,
                                              MT_SCOPE_CALL(&s, MT_OP_sum, "TLb", g4, 2, wdims, 0));
    bool failed = s.failed || (mt_needs(n, ei) && !out[ei]) ||
                  (ew >= 0 && mt_needs(n, ew) && !out[ew]) ||
                  (eb >= 0 && mt_needs(n, eb) && !out[eb]);
    mt_release_all(s.n, s.t);
    return failed ? -1 : 0;
}

/* Hands the fused row's (grad_input, grad_weight, grad_bias) to the edges
 * that need them: the tensors themselves where the shapes agree, so the
 * gradient accumulator can keep them instead of copying a view. */
static int fused_results(mt_node *n, mt_result *r, mt_tensor **out)
{
    int e[3] = {mt_edge_of(n, 0), mt_edge_of(n, 1), mt_edge_of(n, 2)};
    int rc = 0;
    for (int k = 0; k < 3; k++)
        if (e[k] >= 0 && mt_needs(n, e[k])) {
            const mt_tensor_meta *m = &n->edge_meta[e[k]];
            mt_tensor *t = r->t[k];
            if (t->ndim == m->ndim && memcmp(t->sizes, m->sizes, sizeof(int64_t) * m->ndim) == 0) {
                out[e[k]] = t;
                r->t[k] = NULL;
            } else {
                out[e[k]] = shaped_like_edge(n, e[k], t);
            }
            if (!out[e[k]])
                rc = -1;
        }
    mt_result_clear(r);
    return rc;
}

/* _layer_norm_rows / _rms_norm_rows / _group_norm_rows(input, weight, bias,
 * num_groups, channels, inner, eps, rms) */
int norm_rows_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    if (!g[0])
        return 0;
    bool has_w = !n->args[1].none, rms = n->args[7].i;
    int64_t groups = n->args[3].i, channels = n->args[4].i, inner = n->args[5].i;
    mt_tensor *x = mt_node_saved(n, 0), *w = has_w ? mt_node_saved(n, 1) : NULL;
    mt_tensor *stats = mt_node_saved(n, n->nparams);
    int rc = -1;
    if (x && (w || !has_w) && stats) {
        if (mt_grad_enabled) {
            int64_t cg = channels / groups, d = cg * inner;
            int64_t rows = d > 0 ? x->numel / d : 0;
            int64_t shape[4] = {rows / groups, groups, cg, inner};
            static const int64_t sdims[2] = {2, 3};
            rc = composite_backward(n, g[0], x, w, shape, sdims, rms, n->args[6].f, out);
        } else {
            mt_result r;
            rc = has_w ? mt_call_result(MT_OP__norm_rows_backward, &r, "TTTTiiib", g[0], x, w,
                                        stats, groups, channels, inner, (int)rms)
                       : mt_call_result(MT_OP__norm_rows_backward, &r, "TTNTiiib", g[0], x, stats,
                                        groups, channels, inner, (int)rms);
            if (rc == 0)
                rc = fused_results(n, &r, out);
        }
    }
    mt_tensor *tmp[3] = {x, w, stats};
    mt_release_all(3, tmp);
    return rc;
}

/* _batch_norm_train(input, weight, bias, running_mean, running_var, momentum, eps) */
int batch_norm_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    if (!g[0])
        return 0;
    bool has_w = !n->args[1].none;
    mt_tensor *x = mt_node_saved(n, 0), *w = has_w ? mt_node_saved(n, 1) : NULL;
    mt_tensor *stats = mt_node_saved(n, n->nparams);
    int rc = -1;
    if (x && (w || !has_w) && stats) {
        if (mt_grad_enabled) {
            int64_t nb = x->sizes[0], c = x->sizes[1];
            int64_t shape[4] = {nb, 1, c, nb * c > 0 ? x->numel / (nb * c) : 0};
            static const int64_t sdims[2] = {0, 3};
            rc = composite_backward(n, g[0], x, w, shape, sdims, false, n->args[6].f, out);
        } else {
            mt_result r;
            rc = has_w ? mt_call_result(MT_OP__batch_norm_backward, &r, "TTTT", g[0], x, w, stats)
                       : mt_call_result(MT_OP__batch_norm_backward, &r, "TTNT", g[0], x, stats);
            if (rc == 0)
                rc = fused_results(n, &r, out);
        }
    }
    mt_tensor *tmp[3] = {x, w, stats};
    mt_release_all(3, tmp);
    return rc;
}
