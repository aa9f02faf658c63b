#include "formula.h"

#include <string.h>

mt_tensor *mt_reduce_to_edge(mt_node *n, int e, mt_tensor *g)
{
    const mt_tensor_meta *m = &n->edge_meta[e];
    if (!g)
        return NULL;
    int lead = g->ndim - m->ndim;
    int64_t dims[MT_MAX_DIMS];
    int nd = 0;
    for (int d = 0; d < g->ndim; d++)
        if (d < lead || (m->sizes[d - lead] == 1 && g->sizes[d] != 1))
            dims[nd++] = d;
    mt_tensor *r = g;
    if (nd) {
        r = mt_call(MT_OP_sum_dim, "TLb", g, nd, dims, 1);
        mt_release(g);
        if (!r)
            return NULL;
        if (lead) {
            mt_tensor *v = mt_call(MT_OP_reshape, "TL", r, m->ndim, m->sizes);
            mt_release(r);
            if (!(r = v))
                return NULL;
        }
    }
    /* a real input's gradient is the real part of a complex one, as torch's
     * formulas take it */
    if (mt_is_complex(r->dtype) && !mt_is_complex(m->dtype)) {
        mt_tensor *re = mt_call(MT_OP_real, "T", r);
        mt_release(r);
        if (!(r = re))
            return NULL;
    }
    if (r->dtype != m->dtype) {
        mt_tensor *c = mt_call(MT_OP_to, "TD", r, (int)m->dtype);
        mt_release(r);
        r = c;
    }
    return r;
}

mt_tensor *mt_node_saved_conj(mt_node *n, int p)
{
    mt_tensor *t = mt_node_saved(n, p);
    if (!t || !mt_is_complex(t->dtype))
        return t;
    mt_tensor *c = mt_call(MT_OP_conj, "T", t);
    mt_release(t);
    return c;
}

/* g * param p, the param conjugated when conj and complex. */
static mt_tensor *times_param(mt_node *n, mt_tensor *g, int p, bool conj)
{
    const mt_ad_value *v = &n->args[p];
    if (v->is_number && v->is_complex)
        return mt_call(MT_OP_mul, "Tc", g, v->f, conj ? -v->im : v->im);
    if (v->is_number)
        return v->is_float ? mt_call(MT_OP_mul, "Tf", g, v->f) : mt_call(MT_OP_mul, "Ti", g, v->i);
    mt_tensor *t = conj ? mt_node_saved_conj(n, p) : mt_node_saved(n, p);
    if (!t)
        return NULL;
    mt_tensor *r = mt_call(MT_OP_mul, "TT", g, t);
    mt_release(t);
    return r;
}

/* torch's convention for complex values: the gradient is scaled by the
 * conjugate of the other factor */
mt_tensor *mt_mul_by_param(mt_node *n, mt_tensor *g, int p) { return times_param(n, g, p, true); }

/* a tangent is scaled by the factor itself */
mt_tensor *mt_tangent_by_param(mt_node *n, mt_tensor *t, int p)
{
    return times_param(n, t, p, false);
}

void mt_release_all(int count, mt_tensor **ts)
{
    for (int i = 0; i < count; i++)
        if (ts[i]) {
            mt_release(ts[i]);
            ts[i] = NULL;
        }
}
