/* Formulas of the softmax family (csrc/ops/softmax.def): the derivatives of
 * the fused backward rows, written as torch writes them so that double
 * backward through softmax and log_softmax agrees with torch. */
#include "formula.h"

/* Gives r to param p's edge (cast and reduced to its input). */
static int give_param(mt_node *n, mt_tensor **out, int p, mt_tensor *r)
{
    if (!r)
        return -1;
    int e = mt_edge_of(n, p);
    return (out[e] = mt_reduce_to_edge(n, e, r)) ? 0 : -1;
}

/* r = y (go - sum(go y)): linear in go, whose gradient is the same row of
 * the incoming gg; for y it is gg (go - sum(go y)) - go sum(gg y). */
int softmax_backward_data_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope sc = {0};
    mt_tensor *go = mt_scope_saved(&sc, n, 0), *y = mt_scope_saved(&sc, n, 1), *r0 = NULL,
              *r1 = NULL;
    if (!y)
        return mt_scope_finish(&sc, NULL), -1;
    int nd = y->ndim;
    int64_t d = mt_wrapped_dim(n->args[2].i, nd);
    if (mt_param_needs(n, 0))
        r0 = MT_SCOPE_CALL(&sc, MT_OP__softmax_backward_data, "TTiD", g[0], y, d, (int)y->dtype);
    if (mt_param_needs(n, 1)) {
        mt_tensor *s = MT_SCOPE_CALL(&sc, MT_OP_sum_dim, "TLb",
                                     MT_SCOPE_CALL(&sc, MT_OP_mul, "TT", go, y), nd > 0, &d, 1);
        mt_tensor *t = MT_SCOPE_CALL(&sc, MT_OP_sum_dim, "TLb",
                                     MT_SCOPE_CALL(&sc, MT_OP_mul, "TT", g[0], y), nd > 0, &d, 1);
        mt_tensor *a =
            MT_SCOPE_CALL(&sc, MT_OP_mul, "TT", g[0], MT_SCOPE_CALL(&sc, MT_OP_sub, "TT", go, s));
        r1 = MT_SCOPE_CALL(&sc, MT_OP_sub, "TT", a, MT_SCOPE_CALL(&sc, MT_OP_mul, "TT", go, t));
    }
    int rc = sc.failed ? -1 : 0;
    if (!rc && r0)
        rc = give_param(n, out, 0, (mt_retain(r0), r0));
    if (!rc && r1)
        rc = give_param(n, out, 1, (mt_retain(r1), r1));
    mt_scope_finish(&sc, NULL);
    return rc;
}

/* r = go - exp(y) sum(go): for go, gg - sum(gg exp(y)); for y,
 * -gg exp(y) sum(go). */
int log_softmax_backward_data_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope sc = {0};
    mt_tensor *go = mt_scope_saved(&sc, n, 0), *y = mt_scope_saved(&sc, n, 1), *r0 = NULL,
              *r1 = NULL;
    if (!y)
        return mt_scope_finish(&sc, NULL), -1;
    int nd = y->ndim;
    int64_t d = mt_wrapped_dim(n->args[2].i, nd);
    mt_tensor *e = MT_SCOPE_CALL(&sc, MT_OP_exp, "T", y);
    if (mt_param_needs(n, 0)) {
        mt_tensor *t = MT_SCOPE_CALL(&sc, MT_OP_sum_dim, "TLb",
                                     MT_SCOPE_CALL(&sc, MT_OP_mul, "TT", g[0], e), nd > 0, &d, 1);
        r0 = MT_SCOPE_CALL(&sc, MT_OP_sub, "TT", g[0], t);
    }
    if (mt_param_needs(n, 1)) {
        mt_tensor *s = MT_SCOPE_CALL(&sc, MT_OP_sum_dim, "TLb", go, nd > 0, &d, 1);
        r1 = MT_SCOPE_CALL(
            &sc, MT_OP_neg, "T",
            MT_SCOPE_CALL(&sc, MT_OP_mul, "TT", MT_SCOPE_CALL(&sc, MT_OP_mul, "TT", g[0], e), s));
    }
    int rc = sc.failed ? -1 : 0;
    if (!rc && r0)
        rc = give_param(n, out, 0, (mt_retain(r0), r0));
    if (!rc && r1)
        rc = give_param(n, out, 1, (mt_retain(r1), r1));
    mt_scope_finish(&sc, NULL);
    return rc;
}
