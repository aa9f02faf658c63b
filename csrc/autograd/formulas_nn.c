/* Formulas of convolution and pooling: each resolves the forward's geometry
 * from the recorded arguments and shapes, then calls a backward row of
 * ops/nn.def so the call is recorded like any other op. */
#include "formula.h"

/* An int[] argument as recorded (1 or nsp values, the backward rows repeat one). */
#define INTS(v) (v)->nints, (v)->ints

/* conv1d/conv2d(input, weight, bias, stride, padding, dilation, groups) */
int convolution_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    int ei = mt_edge_of(n, 0), ew = mt_edge_of(n, 1), eb = mt_edge_of(n, 2);
    const mt_tensor_meta *im = &n->edge_meta[ei], *wm = &n->edge_meta[ew];
    const mt_tensor_meta *om = &n->out_meta[0];
    const mt_ad_value *stride = &n->args[3], *padding = &n->args[4], *dil = &n->args[5];
    int64_t groups = n->args[6].i;
    int nsp = wm->ndim - 2;
    int64_t pad[2];
    int npad = padding->nints;
    if (npad == 0) {
        /* padding='valid' or 'same' (a string, not recorded): 'same' keeps the
         * size with stride 1, and where 'valid' does too its padding is 0 as well */
        npad = nsp;
        for (int i = 0; i < nsp; i++) {
            int64_t d = dil->ints[dil->nints == 1 ? 0 : i], k = wm->sizes[2 + i];
            int64_t in = im->sizes[im->ndim - nsp + i], o = om->sizes[om->ndim - nsp + i];
            pad[i] = o == in ? d * (k - 1) / 2 : 0;
        }
    }
    const int64_t *pads = padding->nints ? padding->ints : pad;
    if (mt_needs(n, ei)) {
        mt_tensor *w = mt_node_saved(n, 1);
        if (!w)
            return -1;
        out[ei] = MT_OP("_convolution_backward_input", "TTLLLLi", g[0], w, im->ndim,
                        im->sizes, INTS(stride), npad, pads, INTS(dil), groups);
        mt_ad.release(w);
        if (!out[ei])
            return -1;
    }
    if (mt_needs(n, ew)) {
        mt_tensor *x = mt_node_saved(n, 0);
        if (!x)
            return -1;
        out[ew] = MT_OP("_convolution_backward_weight", "TTLLLLi", g[0], x, wm->ndim,
                        wm->sizes, INTS(stride), npad, pads, INTS(dil), groups);
        mt_ad.release(x);
        if (!out[ew])
            return -1;
    }
    if (eb >= 0 && mt_needs(n, eb)) {
        /* every dim but the channels (dim 1 when batched, else 0) */
        int channel = om->ndim == nsp + 2 ? 1 : 0;
        int64_t dims[MT_MAX_DIMS];
        int nd = 0;
        for (int d = 0; d < om->ndim; d++)
            if (d != channel)
                dims[nd++] = d;
        if (!(out[eb] = MT_OP("sum", "TL", g[0], nd, dims)))
            return -1;
    }
    return 0;
}

/* max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode,
 * return_indices): the indices output is int64 and gets no gradient. */
int max_pool2d_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_ad_value *k = &n->args[1], *s = &n->args[2];
    mt_tensor *x = mt_node_saved(n, 0);
    if (!x)
        return -1;
    if (s->none || s->nints == 0)
        s = k;
    out[0] = MT_OP("_max_pool2d_backward", "TTLLLL", g[0], x, INTS(k), INTS(s),
                   INTS(&n->args[3]), INTS(&n->args[4]));
    mt_ad.release(x);
    return out[0] ? 0 : -1;
}

/* avg_pool2d(input, kernel_size, stride, padding, ceil_mode,
 * count_include_pad, divisor_override) */
int avg_pool2d_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *im = &n->edge_meta[0];
    const mt_ad_value *k = &n->args[1], *s = &n->args[2], *div = &n->args[6];
    if (s->none || s->nints == 0)
        s = k;
    out[0] = div->none
                 ? MT_OP("_avg_pool2d_backward", "TLLLLbN", g[0], im->ndim, im->sizes,
                         INTS(k), INTS(s), INTS(&n->args[3]), (int)n->args[5].i)
                 : MT_OP("_avg_pool2d_backward", "TLLLLbi", g[0], im->ndim, im->sizes,
                         INTS(k), INTS(s), INTS(&n->args[3]), (int)n->args[5].i, div->i);
    return out[0] ? 0 : -1;
}

int adaptive_avg_pool2d_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *im = &n->edge_meta[0];
    out[0] = MT_OP("_adaptive_avg_pool2d_backward", "TL", g[0], im->ndim, im->sizes);
    return out[0] ? 0 : -1;
}
