/* Formulas of the matrix products. A product is linear in each operand, so
 * an operand's gradient is the product of the gradient with the other
 * operand conjugated (torch's convention for complex values): the saved
 * operands are read through mt_node_saved_conj(). */
#include "formula.h"

static mt_tensor *mT(mt_tensor *t)
{
    return t ? mt_call(MT_OP_transpose, "Tii", t, (int64_t)-2, (int64_t)-1) : NULL;
}

/* t * conj(Scalar arg), consuming t; t itself when the scalar is 1. */
static mt_tensor *scaled(mt_tensor *t, const mt_ad_value *s)
{
    if (!t || (s->is_complex ? s->f == 1.0 && s->im == 0.0 : s->is_float ? s->f == 1.0 : s->i == 1))
        return t;
    mt_tensor *r = s->is_complex ? mt_call(MT_OP_mul, "Tc", t, s->f, -s->im)
                   : s->is_float ? mt_call(MT_OP_mul, "Tf", t, s->f)
                                 : mt_call(MT_OP_mul, "Ti", t, s->i);
    mt_release(t);
    return r;
}

/* alpha * op(x, y) as the gradient of param p. */
static int product_to(mt_node *n, mt_tensor **out, int p, mt_op_id op, mt_tensor *x, mt_tensor *y,
                      const mt_ad_value *alpha)
{
    int e = mt_edge_of(n, p);
    mt_tensor *r = x && y ? mt_call(op, "TT", x, y) : NULL;
    r = scaled(r, alpha);
    return mt_store(&out[e], r ? mt_reduce_to_edge(n, e, r) : NULL);
}

/* The tensor of param p as saved, transposed when trans. */
static mt_tensor *saved(mt_node *n, int p, bool trans)
{
    mt_tensor *t = mt_node_saved_conj(n, p);
    if (!t || !trans)
        return t;
    mt_tensor *r = mT(t);
    mt_release(t);
    return r;
}

/* out = beta * input + alpha * op(a, b) for mm, mv, bmm with a, b params 1, 2;
 * the plain products have a, b as params 0, 1 and no scalars. */
static int product_backward(mt_node *n, mt_tensor **g, mt_tensor **out, mt_op_id op, int pa,
                            bool is_mv)
{
    static const mt_ad_value one = {.i = 1, .f = 1.0};
    const mt_ad_value *beta = pa ? &n->args[3] : &one, *alpha = pa ? &n->args[4] : &one;
    if (pa && mt_param_needs(n, 0)) {
        mt_retain(g[0]);
        mt_tensor *r = scaled(g[0], beta);
        if (mt_store(&out[0], r ? mt_reduce_to_edge(n, 0, r) : NULL) < 0)
            return -1;
    }
    if (mt_param_needs(n, pa)) {
        mt_tensor *b = saved(n, pa + 1, !is_mv);
        int rc = product_to(n, out, pa, is_mv ? MT_OP_outer : op, g[0], b, alpha);
        if (b)
            mt_release(b);
        if (rc < 0)
            return -1;
    }
    if (mt_param_needs(n, pa + 1)) {
        mt_tensor *a = saved(n, pa, true);
        int rc = product_to(n, out, pa + 1, is_mv ? MT_OP_mv : op, a, g[0], alpha);
        if (a)
            mt_release(a);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int bmm_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return product_backward(n, g, out, MT_OP_bmm, 0, false);
}

int mv_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return product_backward(n, g, out, MT_OP_mv, 0, true);
}

int addmm_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return product_backward(n, g, out, MT_OP_mm, 1, false);
}

int addmv_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return product_backward(n, g, out, MT_OP_mv, 1, true);
}

int baddbmm_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return product_backward(n, g, out, MT_OP_bmm, 1, false);
}

/* dot(a, b), vdot(a, b) (real): g * the other. */
int dot_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    for (int p = 0; p < 2; p++) {
        if (!mt_param_needs(n, p))
            continue;
        mt_tensor *r = mt_mul_by_param(n, g[0], 1 - p);
        if (mt_store(&out[p], r ? mt_reduce_to_edge(n, p, r) : NULL) < 0)
            return -1;
    }
    return 0;
}

/* vdot(a, b) = sum(conj(a) * b): a gets conj(g) * b, b gets g * a (torch's
 * formulas; both are g * the other for real tensors). */
int vdot_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    for (int p = 0; p < 2; p++) {
        if (!mt_param_needs(n, p))
            continue;
        mt_tensor *other = mt_node_saved(n, 1 - p);
        mt_tensor *gc = p == 0 && mt_is_complex(g[0]->dtype) ? mt_call(MT_OP_conj, "T", g[0])
                                                             : (mt_retain(g[0]), g[0]);
        mt_tensor *r = other && gc ? mt_call(MT_OP_mul, "TT", gc, other) : NULL;
        mt_tensor *tmp[] = {other, gc};
        mt_release_all(2, tmp);
        if (mt_store(&out[p], r ? mt_reduce_to_edge(n, p, r) : NULL) < 0)
            return -1;
    }
    return 0;
}

/* outer(a, b): a gets g @ b, b gets g^T @ a. */
int outer_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    for (int p = 0; p < 2; p++) {
        if (!mt_param_needs(n, p))
            continue;
        mt_tensor *other = mt_node_saved_conj(n, 1 - p);
        mt_tensor *gm = p ? mt_call(MT_OP_t, "T", g[0]) : (mt_retain(g[0]), g[0]);
        mt_tensor *r = other && gm ? mt_call(MT_OP_mv, "TT", gm, other) : NULL;
        mt_tensor *tmp[] = {other, gm};
        mt_release_all(2, tmp);
        if (mt_store(&out[p], r ? mt_reduce_to_edge(n, p, r) : NULL) < 0)
            return -1;
    }
    return 0;
}

/* matmul(a, b) in every rank combination: 1-D operands become matrices
 * (a as a row, b as a column), g gets their size-1 dims back, the products
 * broadcast and the gradients are reduced to each operand's shape. Serves
 * __rmatmul__(input, other) = other @ input with the operands swapped. */
int matmul_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    int pa = 0, pb = 1;
    if (n->op_name && n->op_name[2] == 'r') {
        pa = 1;
        pb = 0;
    }
    int ea = mt_edge_of(n, pa), eb = mt_edge_of(n, pb);
    int da = n->edge_meta[ea].ndim, db = n->edge_meta[eb].ndim;
    mt_tensor *a = NULL, *b = NULL, *g1 = NULL, *t = NULL, *r = NULL;
    int rc = -1;
    int64_t shape[MT_MAX_DIMS + 2];
    int nd = 0;
    for (int d = 0; d < g[0]->ndim; d++)
        shape[nd++] = g[0]->sizes[d];
    if (da == 1) {
        shape[nd] = nd ? shape[nd - 1] : 1;
        if (nd)
            shape[nd - 1] = 1;
        nd++;
    }
    if (db == 1)
        shape[nd++] = 1;
    if (!(g1 = mt_call(MT_OP_reshape, "TL", g[0], nd, shape)))
        goto done;
    if (mt_needs(n, ea)) {
        b = mt_node_saved_conj(n, pb);
        t = b && db == 1 ? mt_call(MT_OP_unsqueeze, "Ti", b, (int64_t)0) : mT(b);
        r = t ? mt_call(MT_OP_matmul, "TT", g1, t) : NULL;
        if (r && da == 1) {
            mt_tensor *s = mt_call(MT_OP_squeeze, "Ti", r, (int64_t)-2);
            mt_release(r);
            r = s;
        }
        if (!r || !(out[ea] = mt_reduce_to_edge(n, ea, r)))
            goto done;
        mt_release(t);
        t = NULL;
    }
    if (mt_needs(n, eb)) {
        a = mt_node_saved_conj(n, pa);
        t = a && da == 1 ? mt_call(MT_OP_unsqueeze, "Ti", a, (int64_t)-1) : mT(a);
        r = t ? mt_call(MT_OP_matmul, "TT", t, g1) : NULL;
        if (r && db == 1) {
            mt_tensor *s = mt_call(MT_OP_squeeze, "Ti", r, (int64_t)-1);
            mt_release(r);
            r = s;
        }
        if (!r || !(out[eb] = mt_reduce_to_edge(n, eb, r)))
            goto done;
    }
    rc = 0;
done:
    {
        mt_tensor *tmp[] = {a, b, g1, t};
        mt_release_all(4, tmp);
    }
    return rc;
}

/* t reshaped to (rows, cols); NULL passes through. */
static mt_tensor *as_matrix(mt_tensor *t, int64_t rows, int64_t cols)
{
    int64_t shape[2] = {rows, cols};
    return t ? mt_call(MT_OP_reshape, "TL", t, 2, shape) : NULL;
}

/* t reshaped to the shape m records; NULL passes through. */
static mt_tensor *as_meta(mt_tensor *t, const mt_tensor_meta *m)
{
    return t ? mt_call(MT_OP_reshape, "TL", t, m->ndim, m->sizes) : NULL;
}

/* nn.functional.linear(input, weight, bias) = input @ weight^T + bias with
 * the input's leading dims folded into rows (a 1-D weight is one output
 * column the result has no dim for): input gets g @ weight, weight g^T @
 * input, the bias g reduced to its shape. Every name torch gives linear's
 * node (AddmmBackward0, MmBackward0, ViewBackward0, ...) is this formula. */
int linear_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    int ex = mt_edge_of(n, 0), ew = mt_edge_of(n, 1), eb = mt_edge_of(n, 2);
    const mt_tensor_meta *xm = &n->edge_meta[ex], *wm = &n->edge_meta[ew];
    int64_t k = xm->sizes[xm->ndim - 1], cols = wm->ndim == 2 ? wm->sizes[0] : 1, rows = 1;
    for (int d = 0; d < xm->ndim - 1; d++)
        rows *= xm->sizes[d];
    mt_tensor *g2 = as_matrix(g[0], rows, cols), *x = NULL, *w = NULL, *t = NULL, *r = NULL;
    int rc = -1;
    if (!g2)
        goto done;
    if (mt_needs(n, ex)) {
        w = mt_node_saved_conj(n, 1);
        t = as_matrix(w, cols, k);
        r = t ? mt_call(MT_OP_mm, "TT", g2, t) : NULL;
        if (!(out[ex] = as_meta(r, xm)))
            goto done;
        mt_release(t);
        mt_release(r);
        t = r = NULL;
    }
    if (mt_needs(n, ew)) {
        x = mt_node_saved_conj(n, 0);
        mt_tensor *gt = mt_call(MT_OP_t, "T", g2);
        t = as_matrix(x, rows, k);
        r = gt && t ? mt_call(MT_OP_mm, "TT", gt, t) : NULL;
        mt_xrelease(gt);
        if (!(out[ew] = as_meta(r, wm)))
            goto done;
    }
    if (eb >= 0 && mt_needs(n, eb)) {
        mt_retain(g[0]);
        if (!(out[eb] = mt_reduce_to_edge(n, eb, g[0])))
            goto done;
    }
    rc = 0;
done:
    {
        mt_tensor *tmp[] = {g2, x, w, t, r};
        mt_release_all(5, tmp);
    }
    return rc;
}

int mm_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    if (mt_param_needs(n, 0)) {
        mt_tensor *b = mt_node_saved_conj(n, 1), *bt = b ? mt_call(MT_OP_t, "T", b) : NULL;
        out[0] = bt ? mt_call(MT_OP_mm, "TT", g[0], bt) : NULL;
        if (b)
            mt_release(b);
        if (bt)
            mt_release(bt);
        if (!out[0])
            return -1;
    }
    if (mt_param_needs(n, 1)) {
        mt_tensor *a = mt_node_saved_conj(n, 0), *at = a ? mt_call(MT_OP_t, "T", a) : NULL;
        out[1] = at ? mt_call(MT_OP_mm, "TT", at, g[0]) : NULL;
        if (a)
            mt_release(a);
        if (at)
            mt_release(at);
        if (!out[1])
            return -1;
    }
    return 0;
}
