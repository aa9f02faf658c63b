/* The formula of _rnn_layer(input, hx, cx, weight_ih, bias_ih, weight_hh,
 * bias_hh, cell, reverse): one call of _rnn_layer_backward with the saved
 * input, hx, cx, weight_ih, weight_hh and workspace (output 3). That row has no derivative of its own,
 * so a second derivative through a recurrent layer raises. */
#include "formula.h"

int rnn_layer_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    /* outputs no gradient reached count as zeros */
    mt_tensor *grads[3] = {NULL, NULL, NULL};
    mt_tensor *x = mt_node_saved(n, 0), *hx = mt_node_saved(n, 1), *cx = mt_node_saved(n, 2);
    mt_tensor *wi = mt_node_saved(n, 3), *w = mt_node_saved(n, 5);
    mt_tensor *ws = mt_node_saved(n, n->nparams);
    int rc = -1;
    if (!x || !hx || !cx || !wi || !w || !ws)
        goto done;
    for (int k = 0; k < 3; k++) {
        const mt_tensor_meta *m = &n->out_meta[k];
        if (g[k]) {
            mt_retain(g[k]);
            grads[k] = g[k];
        } else if (!(grads[k] = mt_new(m->dtype, m->ndim, m->sizes, true))) {
            goto done;
        }
    }
    bool has_bias = mt_edge_of(n, 4) >= 0 || mt_edge_of(n, 6) >= 0;
    mt_result r = {0};
    if (mt_call_result(MT_OP__rnn_layer_backward, &r, "TTTTTTTTTbib", grads[0], grads[1], grads[2],
                       ws, x, hx, cx, wi, w, has_bias, n->args[7].i, (int)n->args[8].i) < 0)
        goto done;
    /* results, one per input of the forward: d_input, d_hx, d_cx (LSTM only),
     * d_weight_ih, d_bias_ih, d_weight_hh, d_bias_hh */
    for (int k = 0; k < 7; k++) {
        int e = mt_edge_of(n, k);
        if (e >= 0 && mt_needs(n, e) && (k != 2 || n->args[7].i == 2)) {
            out[e] = r.t[k];
            r.t[k] = NULL;
        }
    }
    mt_result_clear(&r);
    rc = 0;
done:
    mt_release_all(3, grads);
    mt_xrelease(x);
    mt_xrelease(wi);
    mt_xrelease(hx);
    mt_xrelease(cx);
    mt_xrelease(w);
    mt_xrelease(ws);
    return rc;
}
