/* Formulas of the extra_shape family (csrc/ops/extra_shape.def): hstack and
 * vstack give each input its slice of g, diag and pad take g back through
 * the inverse crop or diagonal, and repeat_interleave sums the repeats. */
#include "formula.h"

/* hstack (rank 1) and vstack (rank 2): cat of the inputs seen with at least
 * rank dims ([n] -> [1, n] for vstack), along dim 1 for hstack whose first
 * input is 2-D or wider, else 0; each input gets its slice of g back in its
 * own shape. */
static int stacked_backward(mt_node *n, mt_tensor **g, mt_tensor **out, int rank)
{
    int64_t d = rank == 1 && n->edge_meta[n->edge_start[0]].ndim > 1 ? 1 : 0, start = 0;
    for (int k = 0; k < n->edge_count[0]; k++) {
        int e = n->edge_start[0] + k;
        const mt_tensor_meta *m = &n->edge_meta[e];
        int seen_ndim = m->ndim > rank ? m->ndim : rank;
        if (seen_ndim != g[0]->ndim)
            continue; /* an empty 1-D input that cat skipped */
        int64_t extent = m->ndim >= rank ? m->sizes[d] : 1;
        if (mt_needs(n, e)) {
            mt_tensor *piece = mt_call(MT_OP_narrow, "Tiii", g[0], d, start, extent);
            out[e] = piece ? mt_call(MT_OP_reshape, "TL", piece, m->ndim, m->sizes) : NULL;
            if (piece)
                mt_release(piece);
            if (!out[e])
                return -1;
        }
        start += extent;
    }
    return 0;
}

int hstack_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return stacked_backward(n, g, out, 1);
}

int vstack_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return stacked_backward(n, g, out, 2);
}

/* diag of a vector builds a matrix: its gradient is that diagonal of g. diag
 * of an [r, c] matrix reads a diagonal: g goes back onto it, as the square
 * matrix diag(g, k) padded (or cropped, past its last nonzero) to [r, c]. */
int diag_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    int64_t k = n->args[1].i;
    if (m->ndim == 1)
        return mt_store(&out[0], mt_call(MT_OP_diagonal, "Tiii", g[0], k, (int64_t)0, (int64_t)1));
    mt_tensor *sq = mt_call(MT_OP_diag, "Ti", g[0], k);
    if (!sq)
        return -1;
    int64_t s = sq->sizes[0], pads[4] = {0, m->sizes[1] - s, 0, m->sizes[0] - s};
    mt_tensor *r = mt_call(MT_OP_pad, "TL", sq, 4, pads);
    mt_release(sq);
    return mt_store(&out[0], r);
}

/* constant pad: g cropped back by the same amounts (zeros where pad cropped) */
int pad_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_ad_value *p = &n->args[1];
    int64_t neg[2 * MT_MAX_DIMS];
    for (int k = 0; k < p->nints; k++)
        neg[k] = -p->ints[k];
    return mt_store(&out[0], mt_call(MT_OP_pad, "TL", g[0], p->nints, neg));
}

/* repeat_interleave(input, repeats, dim): slice i of the input went to
 * repeats[i] consecutive slices of the result, so its gradient is their sum:
 * index_add of g at repeat_interleave(arange(len), repeats). Without dim the
 * input was flattened first. */
int repeat_interleave_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    int64_t numel = 1, flat = -1;
    for (int d = 0; d < m->ndim; d++)
        numel *= m->sizes[d];
    bool whole = n->args[2].none || m->ndim == 0;
    int64_t d = whole ? 0 : (n->args[2].i % m->ndim + m->ndim) % m->ndim;
    int64_t len = whole ? numel : m->sizes[d];
    mt_tensor *tmp[6] = {0};
    tmp[0] = mt_call(MT_OP_arange, "i", len);
    if (n->edge_count[1]) /* repeats given as a tensor */
        tmp[5] = mt_node_saved(n, 1);
    if (tmp[0] && (tmp[5] || !n->edge_count[1]))
        tmp[1] = tmp[5] ? mt_call(MT_OP_repeat_interleave, "TT", tmp[0], tmp[5])
                        : mt_call(MT_OP_repeat_interleave_1, "Ti", tmp[0], n->args[1].i);
    mt_tensor *gv = g[0];
    if (whole && tmp[1])
        gv = tmp[2] = mt_call(MT_OP_reshape, "TL", g[0], 1, &flat);
    if (gv && tmp[1])
        tmp[3] = whole ? mt_new(g[0]->dtype, 1, &len, true)
                       : mt_new(g[0]->dtype, m->ndim, m->sizes, true);
    if (tmp[3])
        tmp[4] = mt_call(MT_OP_index_add_, "TiTT", tmp[3], d, tmp[1], gv);
    mt_tensor *r = tmp[4] ? mt_call(MT_OP_reshape, "TL", tmp[4], m->ndim, m->sizes) : NULL;
    mt_release_all(6, tmp);
    return mt_store(&out[0], r);
}
