/* Formula of fused attention (ops/attention.def). A plain backward runs the
 * fused backward row on the saved weights w. With create_graph, or when the
 * weights themselves got a gradient gw, the gradients are built from
 * differentiable ops instead: dv = w^T g, ds = scale * softmax_backward(g v^T
 * + gw, w), dq = ds k, dk = ds^T q. The saved weights come back attached to
 * this node, so a second backward reaches them through gw; the causal mask
 * needs no op of its own, as its weights are exact zeros. */
#include "formula.h"
#include "grad_mode.h"

static mt_tensor *mT(mt_scope *s, mt_tensor *t)
{
    return MT_SCOPE_CALL(s, MT_OP_transpose, "Tii", t, (int64_t)-2, (int64_t)-1);
}

/* Hands result t (a new reference, or NULL) to the edge of param p. */
static int give(mt_node *n, int p, mt_tensor *t, mt_tensor **out)
{
    int e = mt_edge_of(n, p);
    if (e < 0 || !mt_needs(n, e)) {
        mt_xrelease(t);
        return 0;
    }
    out[e] = t;
    return t ? 0 : -1;
}

static int composite(mt_node *n, mt_tensor *g, mt_tensor *gw, mt_tensor *q, mt_tensor *k,
                     mt_tensor *v, mt_tensor *w, mt_tensor **out)
{
    double scale = n->args[3].f;
    mt_scope s = {{NULL}, 0, false};
    mt_tensor *dv = NULL, *dq = NULL, *dk = NULL;
    if (g && mt_param_needs(n, 2)) {
        mt_tensor *wt = mT(&s, w);
        dv = MT_SCOPE_CALL(&s, MT_OP_matmul, "TT", wt, g);
    }
    if (mt_param_needs(n, 0) || mt_param_needs(n, 1)) {
        mt_tensor *vt = g ? mT(&s, v) : NULL;
        mt_tensor *dw = g ? MT_SCOPE_CALL(&s, MT_OP_matmul, "TT", g, vt) : gw;
        if (g && gw)
            dw = MT_SCOPE_CALL(&s, MT_OP_add, "TT", dw, gw);
        mt_tensor *ds = MT_SCOPE_CALL(&s, MT_OP__softmax_backward_data, "TTi", dw, w, (int64_t)-1);
        ds = MT_SCOPE_CALL(&s, MT_OP_mul, "Tf", ds, scale);
        if (mt_param_needs(n, 0))
            dq = MT_SCOPE_CALL(&s, MT_OP_matmul, "TT", ds, k);
        if (mt_param_needs(n, 1)) {
            mt_tensor *dst = mT(&s, ds);
            dk = MT_SCOPE_CALL(&s, MT_OP_matmul, "TT", dst, q);
        }
    }
    /* the results are handed out, not released with the scope; with no
     * gradient of the output, value's is zero (none) */
    mt_tensor *res[3] = {dq, dk, dv};
    int rc = s.failed ? -1 : 0;
    for (int p = 0; p < 3 && rc == 0; p++) {
        if (res[p]) {
            mt_retain(res[p]);
            rc = give(n, p, res[p], out);
        } else if (mt_param_needs(n, p) && (p < 2 || g)) {
            rc = -1;
        }
    }
    mt_release_all(s.n, s.t);
    return rc;
}

static int fused(mt_node *n, mt_tensor *g, mt_tensor *q, mt_tensor *k, mt_tensor *v, mt_tensor *w,
                 mt_tensor **out)
{
    mt_result r;
    if (mt_call_result(MT_OP__fused_attention_backward, &r, "TTTTTfb", g, q, k, v, w, n->args[3].f,
                       (int)n->args[4].i) < 0)
        return -1;
    int rc = 0;
    for (int p = 0; p < 3; p++) {
        if (give(n, p, r.t[p], out) < 0)
            rc = -1;
        r.t[p] = NULL;
    }
    mt_result_clear(&r);
    return rc;
}

/* _fused_attention(query, key, value, scale, is_causal) -> (out, weights) */
int fused_attention_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    if (!g[0] && !g[1])
        return 0;
    mt_tensor *q = mt_node_saved(n, 0), *k = mt_node_saved(n, 1), *v = mt_node_saved(n, 2);
    mt_tensor *w = mt_node_saved(n, n->nparams);
    int rc = -1;
    if (q && k && v && w)
        rc = mt_grad_enabled || g[1] ? composite(n, g[0], g[1], q, k, v, w, out)
                                     : fused(n, g[0], q, k, v, w, out);
    mt_tensor *tmp[4] = {q, k, v, w};
    mt_release_all(4, tmp);
    return rc;
}
