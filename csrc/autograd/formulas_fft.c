/* Derivatives of fft.def's rows, in torch's convention for complex values
 * (the gradient of a real loss is dL/dx + i dL/dy): the adjoint of an
 * unnormalized transform is the unnormalized transform in the other
 * direction, so each gradient is a transform of the output's gradient with
 * the same normalization. Written with mt_call so double backward records. */
#include "formulas_pointwise.h"

#include <string.h>

/* The input's shape, from param 0's edge. */
static const mt_tensor_meta *input_meta(mt_node *n) { return &n->edge_meta[mt_edge_of(n, 0)]; }

static int64_t wrapped(int64_t d, int ndim) { return d < 0 ? d + ndim : d; }

/* c2c(x, dim, norm, forward): c2c(g, dim, norm, !forward) */
int fft_c2c_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    const mt_ad_value *dim = &n->args[1];
    give(&s, n, out, 0,
         MT_SCOPE_CALL(&s, MT_OP__fft_c2c, "TLib", g[0], dim->nints, dim->ints, n->args[2].i,
                       (int)!n->args[3].i));
    return done(&s);
}

/* r2c(x, dim, norm, onesided): the real part of the inverse-direction c2c of
 * g, zero-padded back to the input's length along the last dim when
 * onesided */
int fft_r2c_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    const mt_ad_value *dim = &n->args[1];
    const mt_tensor_meta *m = input_meta(n);
    mt_tensor *gf = g[0];
    if (n->args[3].i && dim->nints > 0) {
        int64_t last = wrapped(dim->ints[dim->nints - 1], m->ndim);
        int64_t h = gf->sizes[last], full = m->sizes[last];
        if (full > h) {
            int64_t sizes[MT_MAX_DIMS];
            memcpy(sizes, gf->sizes, sizeof(int64_t) * (size_t)gf->ndim);
            sizes[last] = full;
            mt_tensor *z = MT_SCOPE_CALL(&s, MT_OP_new_zeros, "TL", gf, gf->ndim, sizes);
            mt_tensor *idx = MT_SCOPE_CALL(&s, MT_OP_arange, "i", h);
            gf = z && idx ? MT_SCOPE_CALL(&s, MT_OP_index_add, "TiTT", z, last, idx, gf) : NULL;
        }
    }
    mt_tensor *c =
        gf ? MT_SCOPE_CALL(&s, MT_OP__fft_c2c, "TLib", gf, dim->nints, dim->ints, n->args[2].i, 0)
           : NULL;
    give(&s, n, out, 0, real_(&s, c));
    return done(&s);
}

/* c2r(x, dim, norm, n): r2c(g, dim, norm, onesided) with the frequencies that
 * stand for two (1 .. n - n/2 - 1) counted twice */
int fft_c2r_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    const mt_ad_value *dim = &n->args[1];
    mt_tensor *gi =
        MT_SCOPE_CALL(&s, MT_OP__fft_r2c, "TLib", g[0], dim->nints, dim->ints, n->args[2].i, 1);
    int64_t nlast = n->args[3].i, twice = nlast - nlast / 2 - 1;
    if (gi && twice > 0) {
        int64_t last = wrapped(dim->ints[dim->nints - 1], gi->ndim);
        mt_tensor *mid = MT_SCOPE_CALL(&s, MT_OP_narrow, "Tiii", gi, last, (int64_t)1, twice);
        mt_tensor *idx = MT_SCOPE_CALL(&s, MT_OP_arange_start, "ii", (int64_t)1, 1 + twice);
        gi = mid && idx ? MT_SCOPE_CALL(&s, MT_OP_index_add, "TiTT", gi, last, idx, mid) : NULL;
    }
    give(&s, n, out, 0, gi);
    return done(&s);
}
