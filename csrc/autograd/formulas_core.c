/* Formulas of the core ops: arithmetic, sum, mm, views and copies. */
#include "formula.h"

#include <string.h>

/* add(input, other, alpha): d/dinput = g, d/dother = alpha * g */
int add_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    if (mt_param_needs(n, 0)) {
        mt_retain(g[0]);
        if (!(out[mt_edge_of(n, 0)] = mt_reduce_to_edge(n, mt_edge_of(n, 0), g[0])))
            return -1;
    }
    if (mt_param_needs(n, 1)) {
        const mt_ad_value *alpha = n->nparams > 2 ? &n->args[2] : NULL;
        mt_tensor *ga;
        if (alpha && !alpha->none && (alpha->is_float ? alpha->f != 1.0 : alpha->i != 1))
            ga = alpha->is_float ? mt_call(MT_OP_mul, "Tf", g[0], alpha->f)
                                 : mt_call(MT_OP_mul, "Ti", g[0], alpha->i);
        else
            ga = (mt_retain(g[0]), g[0]);
        if (!ga || !(out[mt_edge_of(n, 1)] = mt_reduce_to_edge(n, mt_edge_of(n, 1), ga)))
            return -1;
    }
    return 0;
}

int mul_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    for (int p = 0; p < 2; p++) {
        if (!mt_param_needs(n, p))
            continue;
        mt_tensor *r = mt_mul_by_param(n, g[0], 1 - p);
        if (!r || !(out[mt_edge_of(n, p)] = mt_reduce_to_edge(n, mt_edge_of(n, p), r)))
            return -1;
    }
    return 0;
}

/* sum(input, dim, keepdim): the gradient spreads back over the reduced dims. */
int sum_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    const mt_ad_value *dim = &n->args[1], *keepdim = &n->args[2];
    mt_tensor *gg = g[0];
    mt_retain(gg);
    if (!dim->none && !keepdim->i && m->ndim > 0) {
        /* put the reduced dims back as size 1 before expanding */
        int64_t shape[MT_MAX_DIMS];
        bool reduced[MT_MAX_DIMS] = {false};
        for (int k = 0; k < dim->nints; k++)
            reduced[(dim->ints[k] % m->ndim + m->ndim) % m->ndim] = true;
        for (int d = 0; d < m->ndim; d++)
            shape[d] = reduced[d] ? 1 : m->sizes[d];
        mt_tensor *v = mt_call(MT_OP_reshape, "TL", gg, m->ndim, shape);
        mt_release(gg);
        if (!(gg = v))
            return -1;
    }
    /* a full reduction's 0-dim gradient expands to any shape directly */
    out[0] = mt_call(MT_OP_expand, "TL", gg, m->ndim, m->sizes);
    mt_release(gg);
    return out[0] ? 0 : -1;
}

int mm_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    if (mt_param_needs(n, 0)) {
        mt_tensor *b = mt_node_saved(n, 1), *bt = b ? mt_call(MT_OP_t, "T", b) : NULL;
        out[0] = bt ? mt_call(MT_OP_mm, "TT", g[0], bt) : NULL;
        if (b)
            mt_release(b);
        if (bt)
            mt_release(bt);
        if (!out[0])
            return -1;
    }
    if (mt_param_needs(n, 1)) {
        mt_tensor *a = mt_node_saved(n, 0), *at = a ? mt_call(MT_OP_t, "T", a) : NULL;
        out[1] = at ? mt_call(MT_OP_mm, "TT", at, g[0]) : NULL;
        if (a)
            mt_release(a);
        if (at)
            mt_release(at);
        if (!out[1])
            return -1;
    }
    return 0;
}

/* Any op that only reshapes: the gradient is reshaped back. */
int view_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    out[0] = mt_call(MT_OP_reshape, "TL", g[0], m->ndim, m->sizes);
    return out[0] ? 0 : -1;
}

int t_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    out[0] = mt_call(MT_OP_t, "T", g[0]);
    return out[0] ? 0 : -1;
}

int transpose_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    out[0] = mt_call(MT_OP_transpose, "Tii", g[0], n->args[1].i, n->args[2].i);
    return out[0] ? 0 : -1;
}

int permute_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_ad_value *dims = &n->args[1];
    int64_t inv[MT_MAX_DIMS];
    int nd = dims->nints;
    for (int k = 0; k < nd; k++)
        inv[(dims->ints[k] % nd + nd) % nd] = k;
    out[0] = mt_call(MT_OP_permute, "TL", g[0], nd, inv);
    return out[0] ? 0 : -1;
}

int expand_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_retain(g[0]);
    out[0] = mt_reduce_to_edge(n, 0, g[0]);
    return out[0] ? 0 : -1;
}

int identity_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_retain(g[0]);
    out[0] = g[0];
    return 0;
}

int to_copy_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    out[0] = mt_call(MT_OP_to, "TD", g[0], (int)n->edge_meta[0].dtype);
    return out[0] ? 0 : -1;
}
