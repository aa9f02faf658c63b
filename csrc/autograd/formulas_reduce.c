/* Formulas of the reductions, softmax and cumulative ops, written as torch
 * writes them (FunctionsManual.cpp) so that first and second derivatives agree. */
#include "formula.h"
#include "formulas_reduce.h"
#include "grad_mode.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define S(call) (sc.failed ? NULL : mt_scope_keep(&sc, (call)))

/* Stores the gradient of the input (param 0), cast back to its dtype. */
static int set_input_grad(mt_node *n, mt_tensor **out, mt_tensor *r)
{
    if (!r)
        return -1;
    return (out[0] = mt_reduce_to_edge(n, 0, r)) ? 0 : -1;
}

/* The dims a reduction over the int[] argument `dim` removed; NULL, None or
 * an empty list mean all of them. Returns how many. */
static int reduced_dims(const mt_tensor_meta *m, const mt_ad_value *dim, bool *red)
{
    bool all = !dim || dim->none || dim->nints == 0;
    memset(red, 0, sizeof(bool) * MT_MAX_DIMS);
    for (int k = 0; !all && k < dim->nints; k++)
        red[mt_wrapped_dim(dim->ints[k], m->ndim)] = true;
    int count = 0;
    for (int d = 0; d < m->ndim; d++)
        count += red[d] |= all;
    return count;
}

static int one_dim(const mt_tensor_meta *m, int64_t dim, bool *red)
{
    memset(red, 0, sizeof(bool) * MT_MAX_DIMS);
    if (m->ndim)
        red[mt_wrapped_dim(dim, m->ndim)] = true;
    return m->ndim > 0;
}

static int dim_list(const mt_tensor_meta *m, const bool *red, int64_t *dims)
{
    int nd = 0;
    for (int d = 0; d < m->ndim; d++)
        if (red[d])
            dims[nd++] = d;
    return nd;
}

static double reduced_numel(const mt_tensor_meta *m, const bool *red)
{
    double count = 1;
    for (int d = 0; d < m->ndim; d++)
        if (red[d])
            count *= (double)m->sizes[d];
    return count;
}

/* t (a reduction's result or its gradient) with the reduced dims back as size 1. */
static mt_tensor *unsqueeze_reduced(mt_scope *s, const mt_tensor_meta *m, mt_tensor *t,
                                    const bool *red, bool keepdim)
{
    if (s->failed)
        return NULL;
    if (keepdim || m->ndim == 0)
        return t;
    int64_t shape[MT_MAX_DIMS];
    for (int d = 0; d < m->ndim; d++)
        shape[d] = red[d] ? 1 : m->sizes[d];
    return mt_scope_keep(s, mt_call(MT_OP_reshape, "TL", t, m->ndim, shape));
}

/* The saved output, shaped like a keepdim result. */
static mt_tensor *saved_result(mt_scope *s, mt_node *n, const bool *red, bool keepdim)
{
    return unsqueeze_reduced(s, &n->edge_meta[0], mt_scope_saved(s, n, n->nparams), red, keepdim);
}

/* ------------------------------------------------------------ sum, mean */

int sum_dim_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    bool red[MT_MAX_DIMS];
    reduced_dims(m, &n->args[1], red);
    mt_scope sc = {0};
    mt_tensor *gu = unsqueeze_reduced(&sc, m, g[0], red, n->args[2].i);
    mt_tensor *r = S(mt_call(MT_OP_expand, "TL", gu, m->ndim, m->sizes));
    return set_input_grad(n, out, mt_scope_finish(&sc, r));
}

/* The gradient of mean for a keepdim-shaped upstream gradient gu. */
static mt_tensor *mean_grad(mt_scope *s, const mt_tensor_meta *m, mt_tensor *gu, const bool *red)
{
    mt_scope sc = *s;
    mt_tensor *e = S(mt_call(MT_OP_expand, "TL", gu, m->ndim, m->sizes));
    mt_tensor *r = S(mt_call(MT_OP_div, "Tf", e, reduced_numel(m, red)));
    *s = sc;
    return r;
}

int mean_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    bool red[MT_MAX_DIMS];
    reduced_dims(m, n->nparams > 1 ? &n->args[1] : NULL, red);
    mt_scope sc = {0};
    mt_tensor *gu = unsqueeze_reduced(&sc, m, g[0], red, n->args[2].i);
    return set_input_grad(n, out, mt_scope_finish(&sc, mean_grad(&sc, m, gu, red)));
}

/* ------------------------------------------------------------ prod, cumprod */

/* Reversed cumulative sum (log: logcumsumexp) along d: over positions >= i. */
static mt_tensor *reversed_scan(mt_scope *s, mt_tensor *t, int64_t d, bool log)
{
    mt_scope sc = *s;
    mt_tensor *f = S(mt_call(MT_OP_flip, "TL", t, 1, &d));
    mt_tensor *c =
        log ? S(mt_call(MT_OP_logcumsumexp, "Ti", f, d)) : S(mt_call(MT_OP_cumsum, "Ti", f, d));
    mt_tensor *r = S(mt_call(MT_OP_flip, "TL", c, 1, &d));
    *s = sc;
    return r;
}

static mt_tensor *reversed_cumsum(mt_scope *s, mt_tensor *t, int64_t d)
{
    return reversed_scan(s, t, d, false);
}

/* Does x hold a zero? The formulas branch on it as torch's do: without zeros
 * result / x is exact, with zeros the products that skip one factor are
 * built explicitly so that they stay differentiable. */
static int has_zero(mt_scope *s, mt_tensor *x)
{
    mt_scope sc = *s;
    mt_tensor *is_zero = S(mt_call(MT_OP_eq, "Ti", x, (int64_t)0));
    mt_tensor *any = S(mt_call(MT_OP_any, "T", is_zero));
    *s = sc;
    return s->failed ? -1 : *(bool *)mt_data(any);
}

/* 1 at position 0 (last = false) or n - 1 (last = true) along d of a tensor
 * shaped like x, else 0, as a bool mask. */
static mt_tensor *end_mask(mt_scope *s, mt_tensor *x, int64_t d, bool last)
{
    mt_scope sc = *s;
    mt_tensor *ones = S(mt_call(MT_OP_ones_like, "T", x));
    /* reversed_cumsum keeps its result in the mt_scope itself */
    mt_tensor *pos = last ? reversed_cumsum(&sc, ones, d) : S(mt_call(MT_OP_cumsum, "Ti", ones, d));
    mt_tensor *m = S(mt_call(MT_OP_eq, "Ti", pos, (int64_t)1));
    *s = sc;
    return m;
}

/* prod_{j < k} x_j along d (reverse: prod_{j > k} x_j), from a cumulative
 * product shifted by one, so that it holds for zeros and differentiates. */
static mt_tensor *exclusive_cumprod(mt_scope *s, mt_tensor *x, int64_t d, bool reverse)
{
    mt_scope sc = *s;
    int64_t shift = reverse ? -1 : 1;
    mt_tensor *c = reverse ? S(mt_call(MT_OP_flip, "TL", x, 1, &d)) : x;
    c = S(mt_call(MT_OP_cumprod, "Ti", c, d));
    if (reverse)
        c = S(mt_call(MT_OP_flip, "TL", c, 1, &d));
    mt_tensor *rolled = S(mt_call(MT_OP_roll, "TLL", c, 1, &shift, 1, &d));
    mt_tensor *edge = end_mask(&sc, x, d, reverse);
    mt_tensor *r = S(mt_call(MT_OP_where, "TiT", edge, (int64_t)1, rolled));
    *s = sc;
    return r;
}

/* d prod / d x_k = prod_{j != k} x_j along d. */
static mt_tensor *prod_grad(mt_scope *s, mt_tensor *x, mt_tensor *gu, mt_tensor *ru, int64_t d)
{
    mt_scope sc = *s;
    mt_tensor *q;
    int zero = has_zero(&sc, x);
    if (zero == 0)
        q = S(mt_call(MT_OP_div, "TT", ru, x));
    else
        q = S(mt_call(MT_OP_mul, "TT", exclusive_cumprod(&sc, x, d, false),
                      exclusive_cumprod(&sc, x, d, true)));
    /* torch's convention for complex values: the conjugate factor */
    if (q && mt_is_complex(q->dtype))
        q = S(mt_call(MT_OP_conj, "T", q));
    mt_tensor *r = S(mt_call(MT_OP_mul, "TT", gu, q));
    *s = sc;
    return r;
}
int prod_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    mt_scope sc = {0};
    mt_tensor *x, *r;
    int64_t numel = 1, one = 1;
    for (int d = 0; d < m->ndim; d++)
        numel *= m->sizes[d];
    bool by_dim = !n->args[1].none && m->ndim > 0;
    if (by_dim ? m->sizes[mt_wrapped_dim(n->args[1].i, m->ndim)] == 1 : numel == 1) {
        /* a product of one factor: the gradient passes through, as in torch */
        r = g[0];
        if (by_dim && !n->args[2].i)
            r = S(mt_call(MT_OP_unsqueeze, "Ti", g[0],
                          (int64_t)mt_wrapped_dim(n->args[1].i, m->ndim)));
        else if (!by_dim)
            r = S(mt_call(MT_OP_reshape, "TL", g[0], m->ndim, m->sizes));
        return set_input_grad(n, out, mt_scope_finish(&sc, r));
    }
    if (by_dim) {
        bool red[MT_MAX_DIMS];
        one_dim(m, n->args[1].i, red);
        bool keepdim = n->args[2].i;
        mt_tensor *gu = unsqueeze_reduced(&sc, m, g[0], red, keepdim);
        mt_tensor *ru = saved_result(&sc, n, red, keepdim);
        x = mt_scope_saved(&sc, n, 0);
        r = prod_grad(&sc, x, gu, ru, mt_wrapped_dim(n->args[1].i, m->ndim));
    } else {
        /* over all elements: as a line of numel elements */
        x = mt_scope_saved(&sc, n, 0);
        mt_tensor *xf = S(mt_call(MT_OP_reshape, "TL", x, 1, &numel));
        mt_tensor *gu = S(mt_call(MT_OP_reshape, "TL", g[0], 1, &one));
        mt_tensor *ru = mt_scope_saved(&sc, n, n->nparams);
        ru = S(mt_call(MT_OP_reshape, "TL", ru, 1, &one));
        mt_tensor *rf = prod_grad(&sc, xf, gu, ru, 0);
        r = S(mt_call(MT_OP_reshape, "TL", rf, m->ndim, m->sizes));
    }
    return set_input_grad(n, out, mt_scope_finish(&sc, r));
}

/* Marks the first zero of each line along d, and yields x with only that
 * zero replaced by one (*x1). */
static mt_tensor *first_zero(mt_scope *s, mt_tensor *x, int64_t d, mt_tensor **x1)
{
    mt_scope sc = *s;
    mt_tensor *is_zero = S(mt_call(MT_OP_eq, "Ti", x, (int64_t)0));
    mt_tensor *count = S(mt_call(MT_OP_cumsum, "Ti", is_zero, d));
    mt_tensor *once = S(mt_call(MT_OP_eq, "Ti", count, (int64_t)1));
    mt_tensor *first = S(mt_call(MT_OP_logical_and, "TT", is_zero, once));
    *x1 = S(mt_call(MT_OP_where, "TiT", first, (int64_t)1, x));
    *s = sc;
    return first;
}

/* First derivative through zeros in O(n): before the first zero of a line
 * the zero-free formula holds; at it, the same sum over the cumprod with that
 * zero replaced by one; after it 0. Not differentiable (masks). */
static mt_tensor *cumprod_grad_masked(mt_scope *s, mt_tensor *x, mt_tensor *y, mt_tensor *g,
                                      int64_t d)
{
    mt_scope sc = *s;
    mt_tensor *x1 = NULL;
    mt_tensor *first = first_zero(&sc, x, d, &x1);
    mt_tensor *before = S(mt_call(
        MT_OP_eq, "Ti",
        S(mt_call(MT_OP_cumsum, "Ti", S(mt_call(MT_OP_eq, "Ti", x, (int64_t)0)), d)), (int64_t)0));
    mt_tensor *safe = S(mt_call(MT_OP_where, "TTi", before, x, (int64_t)1));
    mt_tensor *w = S(mt_call(MT_OP_mul, "TT", g, y));
    mt_tensor *a0 = S(mt_call(MT_OP_div, "TT", reversed_cumsum(&sc, w, d), safe));
    mt_tensor *a = S(mt_call(MT_OP_mul, "TT", a0, before));
    mt_tensor *y1 = S(mt_call(MT_OP_cumprod, "Ti", x1, d));
    mt_tensor *w1 = S(mt_call(MT_OP_mul, "TT", g, y1));
    mt_tensor *b = S(mt_call(MT_OP_mul, "TT", reversed_cumsum(&sc, w1, d), first));
    mt_tensor *r = S(mt_call(MT_OP_add, "TT", a, b));
    *s = sc;
    return r;
}

/* Through zeros, differentiably (for create_graph), in O(n^2) as torch does:
 * grad_k = prod_{j<k} x_j * sum_{i>=k} g_i prod_{k<j<=i} x_j, the inner
 * products from a cumprod over rows k of an (n, n) matrix holding 1 up to
 * column k and x_i after it. */
static mt_tensor *cumprod_grad_quadratic(mt_scope *s, mt_tensor *x, mt_tensor *g, int64_t d)
{
    mt_scope sc = *s;
    int nd = x->ndim;
    int64_t last = -1, n = x->sizes[d], shape[MT_MAX_DIMS + 1];
    mt_tensor *xt = S(mt_call(MT_OP_movedim, "Tii", x, d, last));
    mt_tensor *gt = S(mt_call(MT_OP_movedim, "Tii", g, d, last));
    for (int k = 0, j = 0; k < nd; k++)
        if (k != d)
            shape[j++] = x->sizes[k];
    shape[nd - 1] = shape[nd] = n;
    mt_tensor *xe = S(mt_call(MT_OP_expand, "TL",
                              S(mt_call(MT_OP_unsqueeze, "Ti", xt, (int64_t)-2)), nd + 1, shape));
    mt_tensor *ones = S(mt_call(MT_OP_ones_like, "T", xe));
    mt_tensor *after_k =
        S(mt_call(MT_OP_ne, "Ti", S(mt_call(MT_OP_triu, "Ti", ones, (int64_t)1)), (int64_t)0));
    mt_tensor *c = S(mt_call(MT_OP_cumprod, "Ti",
                             S(mt_call(MT_OP_where, "TTi", after_k, xe, (int64_t)1)), last));
    mt_tensor *from_k = S(mt_call(MT_OP_triu, "Ti", ones, (int64_t)0));
    mt_tensor *w = S(mt_call(MT_OP_mul, "TT", S(mt_call(MT_OP_mul, "TT", c, from_k)),
                             S(mt_call(MT_OP_unsqueeze, "Ti", gt, (int64_t)-2))));
    mt_tensor *inner = S(mt_call(MT_OP_sum_dim, "TL", w, 1, &last));
    mt_tensor *p = exclusive_cumprod(&sc, xt, nd - 1, false);
    mt_tensor *r = S(mt_call(MT_OP_movedim, "Tii", S(mt_call(MT_OP_mul, "TT", p, inner)), last, d));
    *s = sc;
    return r;
}

/* d/dx_k of sum_i g_i y_i, y = cumprod(x): sum_{i>=k} g_i y_i / x_k without
 * zeros; through zeros see the two functions above. Each is linear in g with
 * factors analytic in x, so a complex gradient, g times the conjugate
 * factors, is conj(formula(conj(g))). */
int cumprod_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    int64_t d = mt_wrapped_dim(n->args[1].i, m->ndim);
    if (m->ndim == 0 || m->sizes[d] <= 1) {
        mt_retain(g[0]);
        return set_input_grad(n, out, g[0]);
    }
    mt_scope sc = {0};
    mt_tensor *x = mt_scope_saved(&sc, n, 0), *y = mt_scope_saved(&sc, n, n->nparams), *r;
    bool cx = mt_is_complex(g[0]->dtype);
    mt_tensor *gc = cx ? S(mt_call(MT_OP_conj, "T", g[0])) : g[0];
    int zero = has_zero(&sc, x);
    if (zero == 0) {
        mt_tensor *w = S(mt_call(MT_OP_mul, "TT", gc, y));
        r = S(mt_call(MT_OP_div, "TT", reversed_cumsum(&sc, w, d), x));
    } else if (!mt_grad_enabled) {
        r = cumprod_grad_masked(&sc, x, y, gc, d);
    } else {
        r = cumprod_grad_quadratic(&sc, x, gc, d);
    }
    if (cx)
        r = S(mt_call(MT_OP_conj, "T", r));
    return set_input_grad(n, out, mt_scope_finish(&sc, r));
}

int cumsum_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    int64_t d = mt_wrapped_dim(n->args[1].i, m->ndim);
    if (m->ndim == 0 || m->sizes[d] <= 1) {
        mt_retain(g[0]);
        return set_input_grad(n, out, g[0]);
    }
    mt_scope sc = {0};
    return set_input_grad(n, out, mt_scope_finish(&sc, reversed_cumsum(&sc, g[0], d)));
}

/* ------------------------------------------------------------ amax, max */

/* The keepdim-shaped gradient gu shared evenly by the elements of x equal to
 * the keepdim-shaped result ru. */
static mt_tensor *even_share(mt_scope *s, const mt_tensor_meta *m, const bool *red, mt_tensor *x,
                             mt_tensor *ru, mt_tensor *gu)
{
    int64_t dims[MT_MAX_DIMS];
    int nd = dim_list(m, red, dims);
    mt_scope sc = *s;
    mt_tensor *mask = S(mt_call(MT_OP_eq, "TT", x, ru));
    mt_tensor *count = S(mt_call(MT_OP_sum_dim, "TLb", mask, nd, dims, 1));
    mt_tensor *share = S(mt_call(MT_OP_div, "TT", gu, count));
    mt_tensor *r = S(mt_call(MT_OP_mul, "TT", share, mask));
    *s = sc;
    return r;
}

/* amax/amin, max()/min(), median() and nanmedian(). */
int amax_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    bool red[MT_MAX_DIMS];
    reduced_dims(m, n->nparams > 1 ? &n->args[1] : NULL, red);
    bool keepdim = n->nparams > 2 && n->args[2].i;
    mt_scope sc = {0};
    mt_tensor *x = mt_scope_saved(&sc, n, 0);
    mt_tensor *ru = saved_result(&sc, n, red, keepdim);
    mt_tensor *gu = unsqueeze_reduced(&sc, m, g[0], red, keepdim);
    return set_input_grad(n, out, mt_scope_finish(&sc, even_share(&sc, m, red, x, ru, gu)));
}

/* aminmax(input, *, dim=None, keepdim): each output's gradient as amin's and
 * amax's, the results recomputed from the input (a node keeps one output). */
int aminmax_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    bool red[MT_MAX_DIMS];
    int64_t dims[MT_MAX_DIMS];
    if (n->args[1].none)
        reduced_dims(m, NULL, red);
    else
        one_dim(m, n->args[1].i, red);
    int nd = dim_list(m, red, dims);
    bool keepdim = n->args[2].i;
    mt_scope sc = {0};
    mt_tensor *x = mt_scope_saved(&sc, n, 0), *r = NULL;
    for (int k = 0; k < 2; k++) {
        if (!g[k])
            continue;
        mt_tensor *ru = k ? S(mt_call(MT_OP_amax, "TLb", x, nd, dims, 1))
                          : S(mt_call(MT_OP_amin, "TLb", x, nd, dims, 1));
        mt_tensor *gu = unsqueeze_reduced(&sc, m, g[k], red, keepdim);
        mt_tensor *part = even_share(&sc, m, red, x, ru, gu);
        r = r ? S(mt_call(MT_OP_add, "TT", r, part)) : part;
    }
    if (!r && !sc.failed)
        return 0;
    return set_input_grad(n, out, mt_scope_finish(&sc, r));
}

/* ------------------------------------------------------------ selections */

/* Ops that pick elements along dim (max, min, median, nanmedian, mode and
 * kthvalue along a dim, sort, topk, cummax, cummin): the gradient goes back to
 * the picked positions idx, added up where a position was picked more than
 * once (cummax and cummin), as torch's scatter_add. keepdim: the picks keep
 * dim (sort, topk and the scans always do). A 0-d input was its own pick.
 * The positions are the saved indices (output 1), or for msort, which
 * returns none, argsort of the saved input (the same stable order). */
int mt_indices_backward(mt_node *n, mt_tensor **g, mt_tensor **out, int64_t dim, bool keepdim)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    if (!g[0])
        return 0;
    if (m->ndim == 0) {
        mt_retain(g[0]);
        return set_input_grad(n, out, g[0]);
    }
    int64_t d = mt_wrapped_dim(dim, m->ndim);
    mt_scope sc = {0};
    mt_tensor *idx = n->kind->save_output
                         ? mt_scope_saved(&sc, n, n->nparams)
                         : S(mt_call(MT_OP_argsort_1, "Ti", mt_scope_saved(&sc, n, 0), d));
    mt_tensor *gv = g[0];
    if (!keepdim) {
        idx = S(mt_call(MT_OP_unsqueeze, "Ti", idx, d));
        gv = S(mt_call(MT_OP_unsqueeze, "Ti", gv, d));
    }
    mt_tensor *zero = S(mt_new(g[0]->dtype, m->ndim, m->sizes, true));
    mt_tensor *r = S(mt_call(MT_OP_scatter_add, "TiTT", zero, d, idx, gv));
    return set_input_grad(n, out, mt_scope_finish(&sc, r));
}

/* max, min, median, nanmedian, mode (input, dim, keepdim) */
int dim_select_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mt_indices_backward(n, g, out, n->args[1].i, n->args[2].i);
}

/* cummax, cummin (input, dim) */
int cum_extremum_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mt_indices_backward(n, g, out, n->args[1].i, true);
}

/* ------------------------------------------------------------ var, std */

typedef struct {
    bool red[MT_MAX_DIMS];
    bool keepdim;
    double correction;
} moments_args;

/* The three signatures: (input, unbiased), (input, dim, unbiased, keepdim) and
 * (input, dim, *, correction, keepdim); unbiased is the correction 1 or 0. */
static void moments_of(const mt_node *n, moments_args *a)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    const mt_ad_value *c = &n->args[n->nparams == 2 ? 1 : 2];
    reduced_dims(m, n->nparams == 2 ? NULL : &n->args[1], a->red);
    a->keepdim = n->nparams > 2 && n->args[3].i;
    a->correction = c->none ? 1.0 : c->is_float ? c->f : (double)c->i;
}

/* d var / dx for a keepdim-shaped gu: 2 / (N - correction) * gu * (x - mean(x)). */
static mt_tensor *var_grad(mt_scope *s, mt_node *n, const moments_args *a, mt_tensor *gu)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    int64_t dims[MT_MAX_DIMS];
    int nd = dim_list(m, a->red, dims);
    mt_scope sc = *s;
    mt_tensor *x = mt_scope_saved(&sc, n, 0);
    mt_tensor *mean = S(mt_call(MT_OP_mean_dim, "TLb", x, nd, dims, 1));
    mt_tensor *centered = S(mt_call(MT_OP_sub, "TT", x, mean));
    mt_tensor *scaled =
        S(mt_call(MT_OP_mul, "Tf", gu, 2.0 / (reduced_numel(m, a->red) - a->correction)));
    mt_tensor *r = S(mt_call(MT_OP_mul, "TT", scaled, centered));
    *s = sc;
    return r;
}

/* num / den, and 0 where base (whose zeros den shares) is 0. The quotient is
 * taken over den with those elements made 1, so that its derivatives
 * (forward mode differentiates this formula) never meet 0 * inf there. */
static mt_tensor *div_or_zero(mt_scope *s, mt_tensor *num, mt_tensor *den, mt_tensor *base)
{
    mt_scope sc = *s;
    mt_tensor *zero = S(mt_call(MT_OP_eq, "Ti", base, (int64_t)0));
    mt_tensor *safe = S(mt_call(MT_OP_masked_fill, "TTi", den, zero, (int64_t)1));
    mt_tensor *q = S(mt_call(MT_OP_div, "TT", num, safe));
    mt_tensor *r = S(mt_call(MT_OP_masked_fill, "TTi", q, zero, (int64_t)0));
    *s = sc;
    return r;
}

/* d std = d var / (2 std), and 0 where std is 0. */
static mt_tensor *std_grad(mt_scope *s, mt_node *n, const moments_args *a, mt_tensor *gu)
{
    mt_scope sc = *s;
    mt_tensor *std = saved_result(&sc, n, a->red, a->keepdim);
    mt_tensor *twice = S(mt_call(MT_OP_mul, "Ti", std, (int64_t)2));
    mt_tensor *gv = div_or_zero(&sc, gu, twice, std);
    *s = sc;
    return var_grad(s, n, a, gv);
}

static int moments_backward(mt_node *n, mt_tensor **g, mt_tensor **out, bool is_std)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    moments_args a;
    moments_of(n, &a);
    mt_scope sc = {0};
    mt_tensor *r = NULL;
    if (g[0]) {
        mt_tensor *gu = unsqueeze_reduced(&sc, m, g[0], a.red, a.keepdim);
        r = is_std ? std_grad(&sc, n, &a, gu) : var_grad(&sc, n, &a, gu);
    }
    if (n->nout > 1 && g[1]) { /* var_mean / std_mean: plus the mean's gradient */
        mt_tensor *gu = unsqueeze_reduced(&sc, m, g[1], a.red, a.keepdim);
        mt_tensor *gm = mean_grad(&sc, m, gu, a.red);
        r = r ? S(mt_call(MT_OP_add, "TT", r, gm)) : gm;
    }
    if (!r && !sc.failed)
        return 0;
    return set_input_grad(n, out, mt_scope_finish(&sc, r));
}

int var_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return moments_backward(n, g, out, false);
}

int std_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return moments_backward(n, g, out, true);
}

int var_mean_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return moments_backward(n, g, out, false);
}

int std_mean_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return moments_backward(n, g, out, true);
}

/* ------------------------------------------------------------ norm */

/* gu / norm^(p-1), and 0 where the norm is 0. */
static mt_tensor *scale_by_norm(mt_scope *s, mt_tensor *gu, mt_tensor *ru, double p)
{
    mt_scope sc = *s;
    mt_tensor *den = p == 2 ? ru : S(mt_call(MT_OP_pow, "Tf", ru, p - 1));
    mt_tensor *r = div_or_zero(&sc, gu, den, ru);
    *s = sc;
    return r;
}

int norm_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    const mt_ad_value *pv = &n->args[1];
    double p = pv->str[0] || pv->none ? 2.0 : pv->is_float ? pv->f : (double)pv->i;
    bool red[MT_MAX_DIMS];
    int64_t dims[MT_MAX_DIMS];
    reduced_dims(m, &n->args[2], red);
    int nd = dim_list(m, red, dims);
    bool keepdim = n->args[3].i;
    if (p == 0) /* a count: no gradient flows, as in torch */
        return 0;
    mt_scope sc = {0};
    mt_tensor *x = mt_scope_saved(&sc, n, 0), *r;
    if (strcmp(pv->str, "nuc") == 0) {
        /* U Vh of the two dims' matrices, scaled by g (torch's svd backward for
         * a gradient of the singular values only). The factor's row has no
         * derivative: a graph of this gradient (create_graph) is right in g,
         * which forward AD's double backward needs, and raises where a second
         * derivative would go through the factor */
        mt_tensor *gu = unsqueeze_reduced(&sc, m, g[0], red, keepdim);
        mt_tensor *f =
            x ? S(mt_call(MT_OP__nuclear_norm_factor, "Tii", x, dims[0], dims[1])) : NULL;
        return set_input_grad(n, out, mt_scope_finish(&sc, S(mt_call(MT_OP_mul, "TT", gu, f))));
    }
    /* a complex element's sign is z / |z| */
    mt_op_id sign_op = x && mt_is_complex(x->dtype) ? MT_OP_sgn : MT_OP_sign;
    mt_tensor *gu = unsqueeze_reduced(&sc, m, g[0], red, keepdim);
    mt_tensor *ru = saved_result(&sc, n, red, keepdim);
    if (p == 1) {
        r = S(mt_call(MT_OP_mul, "TT", S(mt_call(sign_op, "T", x)), gu));
    } else if (p == 2) {
        r = S(mt_call(MT_OP_mul, "TT", x, scale_by_norm(&sc, gu, ru, p)));
    } else if (isinf(p)) {
        /* shared evenly by the elements of largest (smallest) magnitude; a
         * complex input's extreme is taken again over abs()'s magnitudes,
         * which may differ in the last place from the forward's */
        mt_tensor *mag = S(mt_call(MT_OP_abs, "T", x)), *top = ru;
        if (x && mt_is_complex(x->dtype))
            top = S(mt_call(p > 0 ? MT_OP_amax : MT_OP_amin, "TLb", mag, nd, dims, 1));
        mt_tensor *mask = S(mt_call(MT_OP_eq, "TT", mag, top));
        mt_tensor *count = S(mt_call(MT_OP_sum_dim, "TLb", mask, nd, dims, 1));
        mt_tensor *share =
            S(mt_call(MT_OP_mul, "TT", S(mt_call(MT_OP_div, "TT", gu, count)), mask));
        r = S(mt_call(MT_OP_mul, "TT", S(mt_call(sign_op, "T", x)), share));
    } else if (p < 1) {
        mt_tensor *pw = S(mt_call(MT_OP_pow, "Tf", S(mt_call(MT_OP_abs, "T", x)), p - 1));
        pw = S(mt_call(MT_OP_masked_fill, "TTi", pw, S(mt_call(MT_OP_eq, "Ti", x, (int64_t)0)),
                       (int64_t)0));
        mt_tensor *scaled = S(mt_call(MT_OP_mul, "TT", S(mt_call(sign_op, "T", x)), pw));
        mt_tensor *np = S(mt_call(MT_OP_pow, "Tf", ru, 1 - p));
        r = S(mt_call(MT_OP_mul, "TT", S(mt_call(MT_OP_mul, "TT", scaled, gu)), np));
    } else if (p < 2) {
        mt_tensor *pw = S(mt_call(MT_OP_pow, "Tf", S(mt_call(MT_OP_abs, "T", x)), p - 1));
        mt_tensor *scaled = S(mt_call(MT_OP_mul, "TT", S(mt_call(sign_op, "T", x)), pw));
        r = S(mt_call(MT_OP_mul, "TT", scaled, scale_by_norm(&sc, gu, ru, p)));
    } else {
        mt_tensor *pw = S(mt_call(MT_OP_pow, "Tf", S(mt_call(MT_OP_abs, "T", x)), p - 2));
        mt_tensor *scaled = S(mt_call(MT_OP_mul, "TT", x, pw));
        r = S(mt_call(MT_OP_mul, "TT", scaled, scale_by_norm(&sc, gu, ru, p)));
    }
    return set_input_grad(n, out, mt_scope_finish(&sc, r));
}

/* ------------------------------------------------------------ logsumexp, softmax */

int logsumexp_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    bool red[MT_MAX_DIMS];
    reduced_dims(m, &n->args[1], red);
    bool keepdim = n->args[2].i;
    mt_scope sc = {0};
    mt_tensor *x = mt_scope_saved(&sc, n, 0);
    mt_tensor *gu = unsqueeze_reduced(&sc, m, g[0], red, keepdim);
    mt_tensor *ru = saved_result(&sc, n, red, keepdim);
    mt_tensor *p = S(mt_call(MT_OP_exp, "T", S(mt_call(MT_OP_sub, "TT", x, ru))));
    if (p && mt_is_complex(p->dtype))
        p = S(mt_call(MT_OP_conj, "T", p));
    return set_input_grad(n, out, mt_scope_finish(&sc, S(mt_call(MT_OP_mul, "TT", gu, p))));
}

/* sum_{i>=k} g_i exp(x_k - y_i), as torch's: the positive and the negative
 * parts of g in log space, where g's other sign holds the dtype's lowest
 * finite value (exp of it is 0, and unlike -inf it never meets -inf - -inf). */
int logcumsumexp_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    if (m->ndim == 0 || g[0]->numel == 0) {
        mt_retain(g[0]);
        return set_input_grad(n, out, g[0]);
    }
    int64_t d = mt_wrapped_dim(n->args[1].i, m->ndim);
    double lowest = g[0]->dtype == MT_FLOAT64 ? -DBL_MAX : -FLT_MAX;
    mt_scope sc = {0};
    mt_tensor *x = mt_scope_saved(&sc, n, 0), *y = mt_scope_saved(&sc, n, n->nparams);
    if (mt_is_complex(g[0]->dtype)) {
        /* a complex log takes g whole, no split by sign: torch's
         * conj(exp(reversed logcumsumexp(log(conj g) - y) + x)) */
        mt_tensor *log_g = S(mt_call(MT_OP_log, "T", S(mt_call(MT_OP_conj, "T", g[0]))));
        mt_tensor *lse = reversed_scan(&sc, S(mt_call(MT_OP_sub, "TT", log_g, y)), d, true);
        mt_tensor *e = S(mt_call(MT_OP_exp, "T", S(mt_call(MT_OP_add, "TT", lse, x))));
        return set_input_grad(n, out, mt_scope_finish(&sc, S(mt_call(MT_OP_conj, "T", e))));
    }
    mt_tensor *log_abs = S(mt_call(MT_OP_log, "T", S(mt_call(MT_OP_abs, "T", g[0]))));
    mt_tensor *pos = S(mt_call(MT_OP_masked_fill, "TTf", log_abs,
                               S(mt_call(MT_OP_le, "Ti", g[0], (int64_t)0)), lowest));
    mt_tensor *neg = S(mt_call(MT_OP_masked_fill, "TTf", log_abs,
                               S(mt_call(MT_OP_ge, "Ti", g[0], (int64_t)0)), lowest));
    mt_tensor *lse_pos = reversed_scan(&sc, S(mt_call(MT_OP_sub, "TT", pos, y)), d, true);
    mt_tensor *lse_neg = reversed_scan(&sc, S(mt_call(MT_OP_sub, "TT", neg, y)), d, true);
    mt_tensor *out_pos = S(mt_call(MT_OP_exp, "T", S(mt_call(MT_OP_add, "TT", lse_pos, x))));
    mt_tensor *out_neg = S(mt_call(MT_OP_exp, "T", S(mt_call(MT_OP_add, "TT", lse_neg, x))));
    return set_input_grad(n, out,
                          mt_scope_finish(&sc, S(mt_call(MT_OP_sub, "TT", out_pos, out_neg))));
}

/* d y_i = sum_{k<=i} t_k exp(x_k - y_i), as torch's logcumsumexp_jvp: with
 * e = exp(x - max x) that is cumsum(e t) / (cumsum(e) + 1e-13), the epsilon
 * keeping lines whose scale underflows finite. (The jvp cannot come from the
 * backward: its log |g| is infinite at the g = 0 the transpose trick uses.) */
int logcumsumexp_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    if (!tin[0] || m->ndim == 0) {
        if (tin[0])
            mt_retain(tin[0]);
        tout[0] = tin[0];
        return 0;
    }
    int64_t d = mt_wrapped_dim(n->args[1].i, m->ndim);
    mt_scope sc = {0};
    mt_tensor *x = mt_scope_saved(&sc, n, 0);
    mt_tensor *top = S(mt_call(MT_OP_amax, "TLb", x, 1, &d, 1));
    mt_tensor *e = S(mt_call(MT_OP_exp, "T", S(mt_call(MT_OP_sub, "TT", x, top))));
    mt_tensor *num = S(mt_call(MT_OP_cumsum, "Ti", S(mt_call(MT_OP_mul, "TT", e, tin[0])), d));
    mt_tensor *den = S(mt_call(MT_OP_add, "Tf", S(mt_call(MT_OP_cumsum, "Ti", e, d)), 1e-13));
    tout[0] = mt_scope_finish(&sc, S(mt_call(MT_OP_div, "TT", num, den)));
    return tout[0] ? 0 : -1;
}

/* The softmax dim; nn.functional's dim=None picks one as torch's _get_softmax_dim. */
static int64_t softmax_dim(const mt_node *n)
{
    int ndim = n->edge_meta[0].ndim;
    if (n->args[1].none)
        return ndim == 0 || ndim == 1 || ndim == 3 ? 0 : 1;
    return mt_wrapped_dim(n->args[1].i, ndim);
}

/* Both run the fused row (softmax.def) on the saved output y; its dtype
 * argument is the output's, and the edge casts to the input's. */
static int softmax_like_backward(mt_node *n, mt_tensor **g, mt_tensor **out, int op)
{
    int64_t d = softmax_dim(n);
    mt_scope sc = {0};
    mt_tensor *y = mt_scope_saved(&sc, n, n->nparams);
    mt_tensor *r = y ? S(mt_call(op, "TTiD", g[0], y, d, (int)y->dtype)) : NULL;
    return set_input_grad(n, out, mt_scope_finish(&sc, r));
}

int softmax_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return softmax_like_backward(n, g, out, MT_OP__softmax_backward_data);
}

int log_softmax_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return softmax_like_backward(n, g, out, MT_OP__log_softmax_backward_data);
}

/* sum(input, dim, keepdim): the gradient spreads back over the reduced dims. */
int sum_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[0];
    const mt_ad_value *dim = &n->args[1], *keepdim = &n->args[2];
    mt_tensor *gg = g[0];
    mt_retain(gg);
    if (!dim->none && !keepdim->i && m->ndim > 0) {
        /* put the reduced dims back as size 1 before expanding */
        int64_t shape[MT_MAX_DIMS];
        bool reduced[MT_MAX_DIMS] = {false};
        for (int k = 0; k < dim->nints; k++)
            reduced[(dim->ints[k] % m->ndim + m->ndim) % m->ndim] = true;
        for (int d = 0; d < m->ndim; d++)
            shape[d] = reduced[d] ? 1 : m->sizes[d];
        mt_tensor *v = mt_call(MT_OP_reshape, "TL", gg, m->ndim, shape);
        mt_release(gg);
        if (!(gg = v))
            return -1;
    }
    /* a full reduction's 0-dim gradient expands to any shape directly */
    out[0] = mt_call(MT_OP_expand, "TL", gg, m->ndim, m->sizes);
    mt_release(gg);
    return out[0] ? 0 : -1;
}
