/* Formulas of views and shape ops. A view that reads each input element at
 * most once (narrow, select, basic indexing, split, unbind) gets its gradient
 * copied into the same view of zeros. Other views land their gradient on the
 * input elements they read: mt_positions applies the same view to an arange
 * of the input's element numbers, and mt_embed scatter-adds the gradient
 * there. */
#include "formula.h"
#include "../ops/tensor.h"
#include "formulas_shape.h"

mt_tensor *mt_positions(mt_node *n, int e)
{
    const mt_tensor_meta *m = &n->edge_meta[e];
    int64_t numel = 1;
    for (int d = 0; d < m->ndim; d++)
        numel *= m->sizes[d];
    mt_tensor *r = mt_call(MT_OP_arange, "i", numel);
    if (!r)
        return NULL;
    mt_tensor *v = mt_call(MT_OP_reshape, "TL", r, m->ndim, m->sizes);
    mt_release(r);
    return v;
}

/* acc (flat, edge e's dtype; made when *acc is NULL) += g at positions pos. */
int mt_embed_into(mt_node *n, int e, mt_tensor **acc, mt_tensor *g, mt_tensor *pos)
{
    const mt_tensor_meta *m = &n->edge_meta[e];
    if (!*acc) {
        int64_t numel = 1;
        for (int d = 0; d < m->ndim; d++)
            numel *= m->sizes[d];
        if (!(*acc = mt_new(m->dtype, 1, &numel, true)))
            return -1;
    }
    int64_t flat = -1;
    mt_tensor *gc =
        g->dtype == m->dtype ? (mt_retain(g), g) : mt_call(MT_OP_to, "TD", g, (int)m->dtype);
    mt_tensor *gf = gc ? mt_call(MT_OP_reshape, "TL", gc, 1, &flat) : NULL;
    mt_tensor *pf = mt_call(MT_OP_reshape, "TL", pos, 1, &flat);
    mt_tensor *r = gf && pf ? mt_call(MT_OP_index_add_, "TiTT", *acc, (int64_t)0, pf, gf) : NULL;
    mt_tensor *tmp[] = {gc, gf, pf};
    mt_release_all(3, tmp);
    if (!r)
        return -1;
    mt_release(*acc);
    *acc = r;
    return 0;
}

/* The flat accumulator shaped as edge e's input. Consumes acc. */
mt_tensor *mt_embed_finish(mt_node *n, int e, mt_tensor *acc)
{
    const mt_tensor_meta *m = &n->edge_meta[e];
    if (!acc)
        return NULL;
    mt_tensor *r = mt_call(MT_OP_reshape, "TL", acc, m->ndim, m->sizes);
    mt_release(acc);
    return r;
}

mt_tensor *mt_embed(mt_node *n, int e, mt_tensor *g, mt_tensor *pos)
{
    mt_tensor *acc = NULL;
    if (!pos || mt_embed_into(n, e, &acc, g, pos) < 0) {
        if (acc)
            mt_release(acc);
        return NULL;
    }
    return mt_embed_finish(n, e, acc);
}

int mt_embed_view(mt_node *n, mt_tensor *g, mt_tensor **out, mt_tensor *pos)
{
    out[0] = mt_embed(n, 0, g, pos);
    if (pos)
        mt_release(pos);
    return out[0] ? 0 : -1;
}

/* Zeros shaped as edge 0's input, to receive a gradient through a view. */
static mt_tensor *edge_zeros(mt_node *n)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    return mt_new(m->dtype, m->ndim, m->sizes, true);
}

/* g copied into view, a view of zeros (consumed): for views that read each
 * element at most once, which need no scatter-add over positions. */
static int copy_into(mt_tensor *view, mt_tensor *g)
{
    if (!view)
        return -1;
    mt_tensor *c = mt_call(MT_OP_copy_, "TT", view, g);
    mt_release(view);
    if (!c)
        return -1;
    mt_release(c);
    return 0;
}

/* narrow(input, dim, start, length); x[key] for any key a GetitemIndex row
 * saw. A key that gives a view of zeros reads each element once; one with
 * lists gives a copy, and may repeat elements, so its gradient goes through
 * the positions it picks. */
/* narrow's start: its int argument, or the 0-d tensor narrow_tensor saved */
static int narrow_start(mt_node *n, int64_t *start)
{
    if (!n->edge_count[2]) {
        *start = n->args[2].i;
        return 0;
    }
    mt_tensor *s = mt_node_saved(n, 2);
    if (!s)
        return -1;
    *start = mt_scalar_at(s, mt_data(s)).i;
    mt_release(s);
    return 0;
}

int slice_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    int64_t start = 0;
    if (n->nparams != 2 && narrow_start(n, &start) < 0)
        return -1;
    mt_tensor *z = edge_zeros(n), *v;
    if (!z)
        return -1;
    if (n->nparams == 2)
        v = mt_call(MT_OP___getitem__np, "TO", z, n->args[1].obj);
    else
        v = mt_call(MT_OP_narrow, "Tiii", z, n->args[1].i, start, n->args[3].i);
    if (v && v->storage != z->storage) {
        mt_release(v);
        mt_release(z);
        mt_tensor *p = mt_positions(n, 0);
        mt_tensor *pos = p ? mt_call(MT_OP___getitem__np, "TO", p, n->args[1].obj) : NULL;
        if (p)
            mt_release(p);
        return mt_embed_view(n, g[0], out, pos);
    }
    if (copy_into(v, g[0]) < 0) {
        mt_release(z);
        return -1;
    }
    out[0] = z;
    return 0;
}

int select_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_tensor *z = edge_zeros(n);
    if (!z)
        return -1;
    if (copy_into(mt_call(MT_OP_select, "Tii", z, n->args[1].i, n->args[2].i), g[0]) < 0) {
        mt_release(z);
        return -1;
    }
    out[0] = z;
    return 0;
}

int diagonal_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_tensor *p = mt_positions(n, 0);
    mt_tensor *pos =
        p ? mt_call(MT_OP_diagonal, "Tiii", p, n->args[1].i, n->args[2].i, n->args[3].i) : NULL;
    if (p)
        mt_release(p);
    return mt_embed_view(n, g[0], out, pos);
}

/* unbind(input, dim), split(input, size(s), dim), chunk(input, chunks, dim):
 * each output's gradient is copied into its part of zeros of the input. */
static int parts_backward(mt_node *n, mt_tensor **g, mt_tensor **out, int64_t dim, bool unbind)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    int64_t d = m->ndim ? (dim % m->ndim + m->ndim) % m->ndim : 0;
    mt_tensor *z = NULL;
    int64_t start = 0;
    for (int k = 0; k < n->nout; k++) {
        int64_t len = unbind ? 1 : n->out_meta[k].sizes[d];
        if (g[k]) {
            if (!z && !(z = edge_zeros(n)))
                return -1;
            mt_tensor *part = unbind ? mt_call(MT_OP_select, "Tii", z, d, (int64_t)k)
                                     : mt_call(MT_OP_narrow, "Tiii", z, d, start, len);
            if (copy_into(part, g[k]) < 0) {
                mt_release(z);
                return -1;
            }
        }
        start += len;
    }
    out[0] = z;
    return 0;
}

int unbind_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return parts_backward(n, g, out, n->args[1].i, true);
}

int split_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return parts_backward(n, g, out, n->args[2].i, false);
}

/* movedim(input, source, destination), int or int[] forms. */
int movedim_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_ad_value *src = &n->args[1], *dst = &n->args[2];
    if (src->nints || dst->nints || src->none)
        out[0] =
            mt_call(MT_OP_movedim_1, "TLL", g[0], dst->nints, dst->ints, src->nints, src->ints);
    else
        out[0] = mt_call(MT_OP_movedim, "Tii", g[0], dst->i, src->i);
    return out[0] ? 0 : -1;
}

int adjoint_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    out[0] = mt_call(MT_OP_adjoint, "T", g[0]);
    return out[0] ? 0 : -1;
}

/* as_strided reads the input's storage: a buffer over the storage slots the
 * input and the result cover holds each of the input's slots' element
 * number (-1 in the others), and the same as_strided of that buffer gives
 * the positions. A result element read from a slot that is no element of
 * the input (before a view's offset, or between its strides) passes no
 * gradient, as torch's. */
int as_strided_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    /* only the input's geometry is read, which no in-place change of its
     * elements moves (torch saves the geometry alone): an input kept as it
     * is skips the version check */
    mt_tensor *in = n->saved[0].t && !n->saved_released ? (mt_retain(n->saved[0].t), n->saved[0].t)
                                                        : mt_node_saved(n, 0);
    mt_tensor *p = NULL, *slots = NULL, *pos = NULL, *gm = NULL;
    if (!in)
        return -1;
    const mt_ad_value *size = &n->args[1], *stride = &n->args[2];
    int64_t off = n->args[3].none ? in->offset : n->args[3].i;
    int64_t lo = in->offset, hi = in->offset, olo = off, ohi = off, onumel = 1;
    for (int d = 0; d < in->ndim && in->numel; d++) {
        int64_t span = (in->sizes[d] - 1) * in->strides[d];
        *(span < 0 ? &lo : &hi) += span;
    }
    for (int d = 0; d < size->nints; d++)
        onumel *= size->ints[d];
    for (int d = 0; d < size->nints && d < stride->nints && onumel; d++) {
        int64_t span = (size->ints[d] - 1) * stride->ints[d];
        *(span < 0 ? &olo : &ohi) += span;
    }
    if (onumel && olo < lo)
        lo = olo;
    if (onumel && ohi > hi)
        hi = ohi;
    int64_t extent = hi - lo + 1;
    if (!(p = mt_positions(n, 0)) || !(slots = mt_new(MT_INT64, 1, &extent, false)))
        goto done;
    for (int64_t i = 0; i < extent; i++)
        ((int64_t *)mt_data(slots))[i] = -1;
    mt_tensor *view = mt_call(MT_OP_as_strided, "TLLi", slots, in->ndim, in->sizes, in->ndim,
                              in->strides, in->offset - lo);
    mt_tensor *c = view ? mt_call(MT_OP_copy_, "TT", view, p) : NULL;
    if (view)
        mt_release(view);
    if (!c)
        goto done;
    mt_release(c);
    pos = mt_call(MT_OP_as_strided, "TLLi", slots, size->nints, size->ints, stride->nints,
                  stride->ints, off - lo);
    if (pos && extent != in->numel) {
        mt_tensor *outside = mt_call(MT_OP_lt, "Ti", pos, (int64_t)0);
        gm = outside ? mt_call(MT_OP_masked_fill, "TTf", g[0], outside, 0.0) : NULL;
        mt_tensor *kept = gm ? mt_call(MT_OP_masked_fill, "TTi", pos, outside, (int64_t)0) : NULL;
        mt_xrelease(outside);
        mt_release(pos);
        pos = kept;
    }
done:
    mt_release(in);
    mt_xrelease(p);
    mt_xrelease(slots);
    if (!pos) {
        mt_xrelease(gm);
        return -1;
    }
    int rc = mt_embed_view(n, gm ? gm : g[0], out, pos);
    mt_xrelease(gm);
    return rc;
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

/* Direct forward-mode formulas of the view ops: the tangent takes the same
 * view. */
int reshape_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    if (!tin[0])
        return 0;
    const mt_tensor_meta *m = &n->out_meta[0];
    return mt_store(&tout[0], mt_call(MT_OP_reshape, "TL", tin[0], m->ndim, m->sizes));
}

int expand_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    if (!tin[0])
        return 0;
    const mt_tensor_meta *m = &n->out_meta[0];
    return mt_store(&tout[0], mt_call(MT_OP_expand, "TL", tin[0], m->ndim, m->sizes));
}

int t_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    if (!tin[0])
        return 0;
    return mt_store(&tout[0], mt_call(MT_OP_t, "T", tin[0]));
}

int transpose_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    if (!tin[0])
        return 0;
    return mt_store(&tout[0], mt_call(MT_OP_transpose, "Tii", tin[0], n->args[1].i, n->args[2].i));
}

int permute_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    if (!tin[0])
        return 0;
    const mt_ad_value *d = &n->args[1];
    return mt_store(&tout[0], mt_call(MT_OP_permute, "TL", tin[0], d->nints, d->ints));
}
