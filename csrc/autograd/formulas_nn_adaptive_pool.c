/* Adaptive max pooling's gradient: each output's gradient is added at the
 * input position its saved index names, within its plane. Written with
 * scatter_add so the gradient is itself differentiable (in grad_output). */
#include "formula.h"

#include "call.h"

int adaptive_max_pool_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *im = &n->edge_meta[0];
    int k = n->args[1].nints, lead = im->ndim - k;
    int64_t planes = 1, area = 1, oarea = 1;
    for (int d = 0; d < lead; d++)
        planes *= im->sizes[d];
    for (int d = lead; d < im->ndim; d++) {
        area *= im->sizes[d];
        oarea *= g[0]->sizes[d];
    }
    if (planes == 0 || oarea == 0) {
        out[0] = mt_call(MT_OP_new_zeros, "TL", g[0], im->ndim, im->sizes);
        return out[0] ? 0 : -1;
    }
    int64_t flat[2] = {planes, area}, rows[2] = {planes, oarea};
    mt_tensor *idx = mt_node_saved(n, n->nparams), *zero = NULL, *ix = NULL, *gg = NULL,
              *sum = NULL;
    if (idx && (zero = mt_call(MT_OP_new_zeros, "TL", g[0], 2, flat)) &&
        (ix = mt_call(MT_OP_reshape, "TL", idx, 2, rows)) &&
        (gg = mt_call(MT_OP_reshape, "TL", g[0], 2, rows)) &&
        (sum = mt_call(MT_OP_scatter_add, "TiTT", zero, (int64_t)1, ix, gg)))
        out[0] = mt_call(MT_OP_reshape, "TL", sum, im->ndim, im->sizes);
    mt_tensor *tmp[5] = {idx, zero, ix, gg, sum};
    mt_release_all(5, tmp);
    return out[0] ? 0 : -1;
}
