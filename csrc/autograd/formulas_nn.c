/* Formulas of convolution and pooling: each resolves the forward's geometry
 * from the recorded arguments and shapes, then calls a backward row of
 * ops/nn.def so the call is recorded like any other op. A convolution is
 * bilinear, so an operand's gradient takes the other one conjugated when
 * complex (mt_node_saved_conj), as torch's. */
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
        mt_tensor *w = mt_node_saved_conj(n, 1);
        if (!w)
            return -1;
        out[ei] = mt_call(MT_OP__convolution_backward_input, "TTLLLLi", g[0], w, im->ndim,
                          im->sizes, INTS(stride), npad, pads, INTS(dil), groups);
        mt_release(w);
        if (!out[ei])
            return -1;
    }
    if (mt_needs(n, ew)) {
        mt_tensor *x = mt_node_saved_conj(n, 0);
        if (!x)
            return -1;
        out[ew] = mt_call(MT_OP__convolution_backward_weight, "TTLLLLi", g[0], x, wm->ndim,
                          wm->sizes, INTS(stride), npad, pads, INTS(dil), groups);
        mt_release(x);
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
        if (!(out[eb] = mt_call(MT_OP_sum_dim, "TL", g[0], nd, dims)))
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
    out[0] = mt_call(MT_OP__max_pool2d_backward, "TTLLLL", g[0], x, INTS(k), INTS(s),
                     INTS(&n->args[3]), INTS(&n->args[4]));
    mt_release(x);
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
    out[0] = div->none ? mt_call(MT_OP__avg_pool2d_backward, "TLLLLbN", g[0], im->ndim, im->sizes,
                                 INTS(k), INTS(s), INTS(&n->args[3]), (int)n->args[5].i)
                       : mt_call(MT_OP__avg_pool2d_backward, "TLLLLbi", g[0], im->ndim, im->sizes,
                                 INTS(k), INTS(s), INTS(&n->args[3]), (int)n->args[5].i, div->i);
    return out[0] ? 0 : -1;
}

int adaptive_avg_pool2d_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *im = &n->edge_meta[0];
    out[0] = mt_call(MT_OP__adaptive_avg_pool2d_backward, "TL", g[0], im->ndim, im->sizes);
    return out[0] ? 0 : -1;
}

/* ------------------------------------------------------- double backward
 * The backward rows are linear in grad_output: their derivative there is the
 * adjoint, a forward convolution or pooling whose output has the shape of
 * grad_output (edge 0's meta). */

/* conv{1,2}d(x, w) with the geometry of a backward row (params 3..6) and an
 * output shaped like grad_output. Explicit padding is symmetric; a larger
 * grad_output can only come from padding='same' with an even window, whose
 * extra element torch puts on the far side. */
static mt_tensor *conv_like(mt_node *n, mt_tensor *x, mt_tensor *w)
{
    const mt_tensor_meta *gm = &n->edge_meta[mt_edge_of(n, 0)];
    const mt_ad_value *s = &n->args[3], *p = &n->args[4], *d = &n->args[5];
    int nsp = w->ndim - 2;
    bool same = false;
    for (int i = 0; i < nsp; i++) {
        int64_t si = s->ints[s->nints == 1 ? 0 : i], pi = p->ints[p->nints == 1 ? 0 : i];
        int64_t di = d->ints[d->nints == 1 ? 0 : i], k = w->sizes[2 + i];
        int64_t in = x->sizes[x->ndim - nsp + i];
        if ((in + 2 * pi - di * (k - 1) - 1) / si + 1 != gm->sizes[gm->ndim - nsp + i])
            same = true;
    }
    int64_t groups = n->args[6].i;
    /* one call site per op name: MT_OP caches the op it first looks up */
    if (nsp == 1)
        return same ? mt_call(MT_OP_conv1d_1, "TTNLsLi", x, w, INTS(s), "same", INTS(d), groups)
                    : mt_call(MT_OP_conv1d, "TTNLLLi", x, w, INTS(s), INTS(p), INTS(d), groups);
    return same ? mt_call(MT_OP_conv2d_1, "TTNLsLi", x, w, INTS(s), "same", INTS(d), groups)
                : mt_call(MT_OP_conv2d, "TTNLLLi", x, w, INTS(s), INTS(p), INTS(d), groups);
}

/* _convolution_backward_input(grad_output, weight, input_size, stride,
 * padding, dilation, groups): g[0] is shaped like the forward input. */
int convolution_backward_input_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    int eg = mt_edge_of(n, 0), ew = mt_edge_of(n, 1);
    mt_tensor *gy = mt_node_saved_conj(n, 0), *w = mt_node_saved_conj(n, 1);
    int rc = -1;
    if (!gy || !w)
        goto done;
    if (mt_needs(n, eg) && !(out[eg] = conv_like(n, g[0], w)))
        goto done;
    if (mt_needs(n, ew)) {
        const mt_tensor_meta *wm = &n->edge_meta[ew];
        out[ew] =
            mt_call(MT_OP__convolution_backward_weight, "TTLLLLi", gy, g[0], wm->ndim, wm->sizes,
                    INTS(&n->args[3]), INTS(&n->args[4]), INTS(&n->args[5]), n->args[6].i);
        if (!out[ew])
            goto done;
    }
    rc = 0;
done:
    if (gy)
        mt_release(gy);
    if (w)
        mt_release(w);
    return rc;
}

/* _convolution_backward_weight(grad_output, input, weight_size, stride,
 * padding, dilation, groups): g[0] is shaped like the weight. */
int convolution_backward_weight_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    int eg = mt_edge_of(n, 0), ex = mt_edge_of(n, 1);
    mt_tensor *gy = mt_node_saved_conj(n, 0), *x = mt_node_saved_conj(n, 1);
    int rc = -1;
    if (!gy || !x)
        goto done;
    if (mt_needs(n, eg) && !(out[eg] = conv_like(n, x, g[0])))
        goto done;
    if (mt_needs(n, ex)) {
        const mt_tensor_meta *xm = &n->edge_meta[ex];
        out[ex] =
            mt_call(MT_OP__convolution_backward_input, "TTLLLLi", gy, g[0], xm->ndim, xm->sizes,
                    INTS(&n->args[3]), INTS(&n->args[4]), INTS(&n->args[5]), n->args[6].i);
        if (!out[ex])
            goto done;
    }
    rc = 0;
done:
    if (gy)
        mt_release(gy);
    if (x)
        mt_release(x);
    return rc;
}

/* Does a pooling of size `in` with window k, stride s, padding p and
 * dilation d give grad_output's size only with ceil_mode? */
static bool needs_ceil(const mt_tensor_meta *gm, const int64_t *in, const mt_ad_value *k,
                       const mt_ad_value *s, const mt_ad_value *p, const mt_ad_value *d)
{
    for (int i = 0; i < 2; i++) {
        int64_t ki = k->ints[k->nints == 1 ? 0 : i], si = s->ints[s->nints == 1 ? 0 : i];
        int64_t pi = p->ints[p->nints == 1 ? 0 : i];
        int64_t di = d ? d->ints[d->nints == 1 ? 0 : i] : 1;
        if ((in[i] + 2 * pi - di * (ki - 1) - 1) / si + 1 != gm->sizes[gm->ndim - 2 + i])
            return true;
    }
    return false;
}

/* _max_pool2d_backward(grad_output, input, kernel_size, stride, padding,
 * dilation): the gradient gathers g[0] at each window's argmax. The input
 * only picks the positions, so its own gradient is zero. */
int max_pool2d_backward_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    int eg = mt_edge_of(n, 0), ex = mt_edge_of(n, 1);
    const mt_tensor_meta *gm = &n->edge_meta[eg];
    mt_tensor *x = NULL, *idx = NULL, *flat_g = NULL, *flat_i = NULL, *r = NULL;
    if (ex >= 0 && mt_needs(n, ex) && !(out[ex] = mt_call(MT_OP_zeros_like, "T", g[0])))
        return -1;
    if (!mt_needs(n, eg))
        return 0;
    if (!(x = mt_node_saved(n, 1)))
        return -1;
    const mt_ad_value *k = &n->args[2], *s = &n->args[3], *p = &n->args[4], *d = &n->args[5];
    bool ceil = needs_ceil(gm, &x->sizes[x->ndim - 2], k, s, p, d);
    idx = mt_call(MT_OP__max_pool2d_indices, "TLLLLb", x, INTS(k), INTS(s), INTS(p), INTS(d),
                  (int)ceil);
    flat_g = idx ? mt_call(MT_OP_flatten, "Ti", g[0], (int64_t)-2) : NULL;
    flat_i = flat_g ? mt_call(MT_OP_flatten, "Ti", idx, (int64_t)-2) : NULL;
    r = flat_i ? mt_call(MT_OP_gather, "TiT", flat_g, (int64_t)-1, flat_i) : NULL;
    if (r)
        out[eg] = mt_call(MT_OP_view, "TL", r, gm->ndim, gm->sizes);
    mt_tensor *tmp[] = {x, idx, flat_g, flat_i, r};
    mt_release_all(5, tmp);
    return out[eg] ? 0 : -1;
}

/* _avg_pool2d_backward(grad_output, input_size, kernel_size, stride, padding,
 * count_include_pad, divisor_override) */
int avg_pool2d_backward_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *gm = &n->edge_meta[0];
    const mt_ad_value *k = &n->args[2], *s = &n->args[3], *p = &n->args[4], *div = &n->args[6];
    bool ceil = needs_ceil(gm, &n->args[1].ints[n->args[1].nints - 2], k, s, p, NULL);
    int cip = (int)n->args[5].i;
    out[0] = div->none ? mt_call(MT_OP__avg_pool2d, "TLLLbbN", g[0], INTS(k), INTS(s), INTS(p),
                                 (int)ceil, cip)
                       : mt_call(MT_OP__avg_pool2d, "TLLLbbi", g[0], INTS(k), INTS(s), INTS(p),
                                 (int)ceil, cip, div->i);
    return out[0] ? 0 : -1;
}

int adaptive_avg_pool2d_backward_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *gm = &n->edge_meta[0];
    out[0] = mt_call(MT_OP_adaptive_avg_pool2d, "TL", g[0], 2, &gm->sizes[gm->ndim - 2]);
    return out[0] ? 0 : -1;
}
