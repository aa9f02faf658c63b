/* Formulas of the convert family (csrc/ops/convert.def): a copy to another
 * dtype passes the gradient back in the input's dtype, copy_ passes it to
 * its source. */
#include "formula.h"

/* a real input's gradient is the real part of a complex one (no warning of
 * a discarded imaginary part, as torch's _to_copy_backward) */
int to_copy_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_dtype d = n->edge_meta[0].dtype;
    if (mt_is_complex(g[0]->dtype) && !mt_is_complex(d)) {
        mt_tensor *re = mt_call(MT_OP_real, "T", g[0]);
        out[0] = re ? mt_call(MT_OP_to, "TD", re, (int)d) : NULL;
        mt_release_all(1, &re);
    } else
        out[0] = mt_call(MT_OP_to, "TD", g[0], (int)d);
    return out[0] ? 0 : -1;
}

/* copy_(self, src): self's old value is overwritten, src gets g. */
int copy_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    /* zeros, not NULL: the formulas upstream expect a gradient tensor */
    const mt_tensor_meta *m = &n->edge_meta[0];
    if (mt_param_needs(n, 0) && !(out[0] = mt_new(m->dtype, m->ndim, m->sizes, true)))
        return -1;
    if (!mt_param_needs(n, 1))
        return 0;
    mt_retain(g[0]);
    return mt_store(&out[1], mt_reduce_to_edge(n, 1, g[0]));
}
