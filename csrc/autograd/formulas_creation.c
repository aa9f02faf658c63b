/* Formulas of the creation family (csrc/ops/creation.def): the ops that
 * overwrite a tensor in place. */
#include "formula.h"

/* fill_(input, value) and zero_(input): the overwritten input gets zeros; a
 * 0-dim tensor value gets the sum of g. */
int fill_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    if (mt_param_needs(n, 0) && !(out[0] = mt_call(MT_OP_zeros_like, "T", g[0])))
        return -1;
    if (n->nparams > 1 && mt_param_needs(n, 1)) {
        int e = mt_edge_of(n, 1);
        mt_tensor *s = mt_call(MT_OP_sum, "T", g[0]);
        if (!s || !(out[e] = mt_reduce_to_edge(n, e, s)))
            return -1;
    }
    return 0;
}
