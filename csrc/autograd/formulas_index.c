/* Formulas of the index family (csrc/ops/index.def). Ops that pick input
 * elements get their positions by picking from an arange of the input's
 * element numbers the same way, and scatter-add the gradient there. */
#include "formula.h"
#include "formulas_shape.h"
#include "grad_mode.h"

#include "../ops/index.h"

#include <string.h>

/* x[key] = value: self's gradient is g with zeros where the key wrote; a
 * tensor value's is g[key] reduced to the value's shape. */
int index_put_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_tensor *p = mt_positions(n, 0);
    mt_tensor *pos = p ? mt_call(MT_OP___getitem__np, "TO", p, n->args[1].obj) : NULL;
    int rc = -1;
    if (p)
        mt_release(p);
    if (!pos)
        return -1;
    if (mt_param_needs(n, 0)) {
        const mt_tensor_meta *m = &n->edge_meta[0];
        int64_t numel = 1, flat = -1;
        for (int d = 0; d < m->ndim; d++)
            numel *= m->sizes[d];
        mt_tensor *z = mt_new(MT_BOOL, 1, &numel, true);
        mt_tensor *pf = mt_call(MT_OP_reshape, "TL", pos, 1, &flat);
        mt_tensor *w = z && pf ? mt_call(MT_OP_scatter_, "TiTb", z, (int64_t)0, pf, 1) : NULL;
        mt_tensor *mask = w ? mt_call(MT_OP_reshape, "TL", w, m->ndim, m->sizes) : NULL;
        out[0] = mask ? mt_call(MT_OP_masked_fill, "TTf", g[0], mask, 0.0) : NULL;
        mt_tensor *tmp[] = {z, pf, w, mask};
        mt_release_all(4, tmp);
        if (!out[0])
            goto done;
    }
    if (mt_param_needs(n, 2)) {
        int e = mt_edge_of(n, 2);
        const mt_tensor_meta *m = &n->edge_meta[e];
        mt_tensor *gv = mt_call(MT_OP_take, "TT", g[0], pos);
        if (gv && gv->ndim < m->ndim) {
            /* the value had leading size-1 dims that setitem dropped */
            int64_t shape[MT_MAX_DIMS];
            int lead = m->ndim - gv->ndim;
            for (int d = 0; d < m->ndim; d++)
                shape[d] = d < lead ? 1 : gv->sizes[d - lead];
            mt_tensor *v = mt_call(MT_OP_reshape, "TL", gv, m->ndim, shape);
            mt_release(gv);
            gv = v;
        }
        if (!gv || !(out[e] = mt_reduce_to_edge(n, e, gv)))
            goto done;
    }
    rc = 0;
done:
    mt_release(pos);
    return rc;
}

/* Ops whose input-0 positions are op(arange, args...) for some picking op. */
static int picked_backward(mt_node *n, mt_tensor **g, mt_tensor **out, mt_tensor *pos)
{
    out[0] = pos ? mt_embed(n, 0, g[0], pos) : NULL;
    if (pos)
        mt_release(pos);
    return out[0] ? 0 : -1;
}

/* index_select(input, dim, index), gather(input, dim, index), take(input, index),
 * masked_select(input, mask): the same pick applied to positions. */
static int pick_backward(mt_node *n, mt_tensor **g, mt_tensor **out, const char *op,
                         int index_param)
{
    mt_tensor *p = mt_positions(n, 0), *ix = mt_node_saved(n, index_param), *pos = NULL;
    if (p && ix) {
        if (strcmp(op, "index_select") == 0)
            pos = mt_call(MT_OP_index_select, "TiT", p, n->args[1].i, ix);
        else if (strcmp(op, "gather") == 0)
            pos = mt_call(MT_OP_gather, "TiT", p, n->args[1].i, ix);
        else if (strcmp(op, "take") == 0)
            pos = mt_call(MT_OP_take, "TT", p, ix);
        else
            pos = mt_call(MT_OP_masked_select, "TT", p, ix);
    }
    if (p)
        mt_release(p);
    if (ix)
        mt_release(ix);
    if (!pos)
        return -1;
    return picked_backward(n, g, out, pos);
}

/* index_select and gather of an input of at least one dim: g accumulated
 * into zeros by the inverse op (index_add_, scatter_add_), which never builds
 * the positions of every input element. */
static int accumulate_backward(mt_node *n, mt_tensor **g, mt_tensor **out, int op)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    mt_tensor *ix = mt_node_saved(n, 2);
    /* the inverse op adds only values of the input's dtype */
    mt_tensor *gc = g[0]->dtype == m->dtype ? (mt_retain(g[0]), g[0])
                                            : mt_call(MT_OP_to, "TD", g[0], (int)m->dtype);
    mt_tensor *z = ix && gc ? mt_new(m->dtype, m->ndim, m->sizes, true) : NULL;
    mt_tensor *r = z ? mt_call(op, "TiTT", z, n->args[1].i, ix, gc) : NULL;
    mt_xrelease(z);
    mt_xrelease(gc);
    mt_xrelease(ix);
    return mt_store(&out[0], r);
}

/* index_select and gather without a graph to record: the result is built
 * without a separate pass of zeros (the kernels clear what they do not
 * write, or clear a row in cache just before adding into it). */
int index_select_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    if (m->ndim == 0)
        return pick_backward(n, g, out, "index_select", 2);
    if (mt_grad_enabled || g[0]->dtype != m->dtype)
        return accumulate_backward(n, g, out, MT_OP_index_add_);
    mt_tensor *ix = mt_node_saved(n, 2);
    int dim = (int)((n->args[1].i % m->ndim + m->ndim) % m->ndim);
    mt_tensor *r = ix ? mt_index_select_backward(g[0], m->ndim, m->sizes, dim, ix) : NULL;
    mt_xrelease(ix);
    return mt_store(&out[0], r);
}

int gather_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    if (m->ndim == 0)
        return pick_backward(n, g, out, "gather", 2);
    if (mt_grad_enabled || g[0]->dtype != m->dtype)
        return accumulate_backward(n, g, out, MT_OP_scatter_add_);
    mt_tensor *ix = mt_node_saved(n, 2);
    int dim = (int)((n->args[1].i % m->ndim + m->ndim) % m->ndim);
    mt_tensor *r = ix ? mt_gather_backward(g[0], m->ndim, m->sizes, dim, ix) : NULL;
    mt_xrelease(ix);
    return mt_store(&out[0], r);
}

int take_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return pick_backward(n, g, out, "take", 1);
}

int masked_select_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return pick_backward(n, g, out, "masked_select", 1);
}

/* cat(tensors, dim): each input gets its slice of g. */
int cat_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    int64_t dim = n->args[1].i, start = 0;
    int d = (int)((dim % g[0]->ndim + g[0]->ndim) % g[0]->ndim);
    for (int k = 0; k < n->edge_count[0]; k++) {
        int e = n->edge_start[0] + k;
        const mt_tensor_meta *m = &n->edge_meta[e];
        /* cat skips 1-D empty inputs of other ranks */
        if (m->ndim != g[0]->ndim)
            continue;
        if (mt_needs(n, e) && mt_store(&out[e], mt_call(MT_OP_narrow, "Tiii", g[0], (int64_t)d,
                                                        start, m->sizes[d])) < 0)
            return -1;
        start += m->sizes[d];
    }
    return 0;
}

int stack_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    for (int k = 0; k < n->edge_count[0]; k++) {
        int e = n->edge_start[0] + k;
        if (mt_needs(n, e) &&
            mt_store(&out[e], mt_call(MT_OP_select, "Tii", g[0], n->args[1].i, (int64_t)k)) < 0)
            return -1;
    }
    return 0;
}

int flip_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mt_store(&out[0], mt_call(MT_OP_flip, "TL", g[0], n->args[1].nints, n->args[1].ints));
}

int roll_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_ad_value *s = &n->args[1], *d = &n->args[2];
    int64_t neg[2 * MT_MAX_DIMS];
    for (int k = 0; k < s->nints; k++)
        neg[k] = -s->ints[k];
    return mt_store(&out[0], mt_call(MT_OP_roll, "TLL", g[0], s->nints, neg, d->nints, d->ints));
}

/* repeat(input, repeats), tile(input, dims): each repeated dim (size r * s)
 * is split into (r, s) and summed over r. */
int repeat_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    int nd = g[0]->ndim, lead = nd - m->ndim;
    mt_tensor *r = g[0];
    mt_retain(r);
    for (int d = 0; d < nd; d++) {
        int64_t s = d < lead ? 1 : m->sizes[d - lead];
        if (r->sizes[d] == s)
            continue;
        int64_t shape[MT_MAX_DIMS + 1];
        memcpy(shape, r->sizes, sizeof(int64_t) * d);
        shape[d] = s ? r->sizes[d] / s : 0;
        shape[d + 1] = s;
        memcpy(shape + d + 2, r->sizes + d + 1, sizeof(int64_t) * (nd - d - 1));
        mt_tensor *v = mt_call(MT_OP_reshape, "TL", r, nd + 1, shape);
        mt_release(r);
        if (!v)
            return -1;
        r = mt_call(MT_OP_sum_dim, "Ti", v, (int64_t)d);
        mt_release(v);
        if (!r)
            return -1;
    }
    mt_tensor *v = mt_call(MT_OP_reshape, "TL", r, m->ndim, m->sizes);
    mt_release(r);
    return mt_store(&out[0], v);
}

/* scatter(input, dim, index, src): input keeps g where nothing was written;
 * src gets g at the positions it was written to. */
int scatter_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    if (n->nparams > 4 && !n->args[4].none) {
        mt_error(MT_ERR_RUNTIME,
                 "the derivative for 'scatter' with a reduction is not implemented.");
        return -1;
    }
    mt_tensor *ix = mt_node_saved(n, 2);
    int rc = -1;
    if (!ix)
        return -1;
    if (mt_param_needs(n, 0) &&
        mt_store(&out[0], mt_call(MT_OP_scatter, "TiTf", g[0], n->args[1].i, ix, 0.0)) < 0)
        goto done;
    if (mt_param_needs(n, 3) &&
        mt_store(&out[mt_edge_of(n, 3)], mt_call(MT_OP_gather, "TiT", g[0], n->args[1].i, ix)) < 0)
        goto done;
    rc = 0;
done:
    mt_release(ix);
    return rc;
}

/* Forward mode as torch's: the tangents scatter as the values did, the last
 * write winning at a repeated index. (The transpose of the backward, which
 * gives every repeated source the gradient, would mix their tangents.) */
int scatter_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    int e0 = mt_edge_of(n, 0), e3 = mt_edge_of(n, 3);
    mt_tensor *t0 = e0 >= 0 ? tin[e0] : NULL, *t3 = e3 >= 0 ? tin[e3] : NULL;
    if (!t0 && !t3)
        return 0;
    if (n->nparams > 4 && !n->args[4].none) {
        mt_error(MT_ERR_RUNTIME,
                 "the derivative for 'scatter' with a reduction is not implemented.");
        return -1;
    }
    const mt_tensor_meta *m = &n->out_meta[0];
    mt_tensor *ix = mt_node_saved(n, 2);
    mt_tensor *base = !ix  ? NULL
                      : t0 ? (mt_retain(t0), t0)
                           : mt_call(MT_OP_new_zeros, "TL", t3, m->ndim, m->sizes);
    mt_tensor *r = !base ? NULL
                   : t3  ? mt_call(MT_OP_scatter, "TiTT", base, n->args[1].i, ix, t3)
                         : mt_call(MT_OP_scatter, "TiTf", base, n->args[1].i, ix, 0.0);
    if (ix)
        mt_release(ix);
    if (base)
        mt_release(base);
    return mt_store(&tout[0], r);
}

int scatter_add_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_tensor *ix = mt_node_saved(n, 2);
    if (!ix)
        return -1;
    if (mt_param_needs(n, 0))
        out[0] = (mt_retain(g[0]), g[0]);
    int rc = 0;
    if (mt_param_needs(n, 3))
        rc = mt_store(&out[mt_edge_of(n, 3)], mt_call(MT_OP_gather, "TiT", g[0], n->args[1].i, ix));
    mt_release(ix);
    return rc;
}

/* index_add_(input, dim, index, source, alpha) */
int index_add_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    if (mt_param_needs(n, 0))
        out[0] = (mt_retain(g[0]), g[0]);
    if (!mt_param_needs(n, 3))
        return 0;
    int e = mt_edge_of(n, 3);
    const mt_tensor_meta *m = &n->edge_meta[e];
    const mt_ad_value *alpha = &n->args[4];
    mt_tensor *ix = mt_node_saved(n, 2);
    mt_tensor *s = ix ? mt_call(MT_OP_index_select, "TiT", g[0], n->args[1].i, ix) : NULL;
    if (ix)
        mt_release(ix);
    if (s && (alpha->is_float ? alpha->f != 1.0 : alpha->i != 1)) {
        mt_tensor *v = alpha->is_float ? mt_call(MT_OP_mul, "Tf", s, alpha->f)
                                       : mt_call(MT_OP_mul, "Ti", s, alpha->i);
        mt_release(s);
        s = v;
    }
    mt_tensor *v = s ? mt_call(MT_OP_reshape, "TL", s, m->ndim, m->sizes) : NULL;
    if (s)
        mt_release(s);
    return mt_store(&out[e], v);
}

/* masked_fill(input, mask, value): a tensor value gets the sum of g where
 * the mask is set. */
int masked_fill_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_tensor *mask = mt_node_saved(n, 1);
    int rc = -1;
    if (!mask)
        return -1;
    if (mt_param_needs(n, 0)) {
        mt_tensor *r = mt_call(MT_OP_masked_fill, "TTf", g[0], mask, 0.0);
        if (!r || !(out[0] = mt_reduce_to_edge(n, 0, r)))
            goto done;
    }
    if (mt_param_needs(n, 2)) {
        int e = mt_edge_of(n, 2);
        mt_tensor *w = mt_call(MT_OP_mul, "TT", g[0], mask);
        mt_tensor *s = w ? mt_call(MT_OP_sum, "T", w) : NULL;
        if (w)
            mt_release(w);
        if (!s || !(out[e] = mt_reduce_to_edge(n, e, s)))
            goto done;
    }
    rc = 0;
done:
    mt_release(mask);
    return rc;
}

int tril_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mt_store(&out[0], mt_call(MT_OP_tril, "Ti", g[0], n->args[1].i));
}

int triu_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mt_store(&out[0], mt_call(MT_OP_triu, "Ti", g[0], n->args[1].i));
}

/* x[index tensor] */
int index_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_tensor *p = mt_positions(n, 0), *key = mt_node_saved(n, 1);
    mt_tensor *pos = p && key ? mt_call(MT_OP___getitem__, "TT", p, key) : NULL;
    if (p)
        mt_release(p);
    if (key)
        mt_release(key);
    return mt_embed_view(n, g[0], out, pos);
}
