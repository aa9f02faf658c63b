/* The rows of attention.def over kernels/attention.c: shape and dtype checks
 * (nn.functional checks with torch's messages before choosing this path;
 * these rows are public, so they refuse what would read out of bounds), the
 * operands as strided views with no copies, and contiguous results. The
 * products may use the host's BLAS, located (mt_blas_prepare) first. */
#include "runtime/args.h"
#include "reduce.h"
#include "runtime/signature.h"

#include "../core/error.h"
#include "../kernels/attention.h"
#include "../kernels/gemm/blas.h"

#include <string.h>

static int check_operands(const mt_args *a, mt_tensor *const *t, int n)
{
    for (int i = 0; i < n; i++) {
        if (t[i]->dtype != MT_FLOAT32 && t[i]->dtype != MT_FLOAT64)
            return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", a->sig->name,
                            mt_dtype_infos[t[i]->dtype].scalar_name);
        if (t[i]->dtype != t[0]->dtype)
            return mt_error(MT_ERR_RUNTIME, "%s: expected %s to have the dtype of %s", a->sig->name,
                            a->sig->params[i].name, a->sig->params[0].name);
        if (t[i]->ndim < 2 || t[i]->ndim != t[0]->ndim ||
            memcmp(t[i]->sizes, t[0]->sizes, sizeof(int64_t) * (t[0]->ndim - 2)) != 0)
            return mt_error(MT_ERR_RUNTIME, "%s: expected %s with the batch dimensions of %s",
                            a->sig->name, a->sig->params[i].name, a->sig->params[0].name);
    }
    return 0;
}

/* Param p's size at dim (counted from the end) is want. */
static int check_size(const mt_args *a, int p, int dim, int64_t want)
{
    const mt_tensor *t = a->v[p].t;
    if (t->sizes[t->ndim + dim] != want)
        return mt_error(MT_ERR_RUNTIME, "%s: %s has size %lld at dimension %d, expected %lld",
                        a->sig->name, a->sig->params[p].name, (long long)t->sizes[t->ndim + dim],
                        t->ndim + dim, (long long)want);
    return 0;
}

static mt_attn_operand operand(const mt_tensor *t)
{
    mt_attn_operand o = {
        .data = mt_data(t), .rs = t->strides[t->ndim - 2], .cs = t->strides[t->ndim - 1]};
    memcpy(o.bs, t->strides, sizeof(int64_t) * (t->ndim - 2));
    return o;
}

static mt_attn_shape shape_of(const mt_tensor *q, const mt_tensor *k, const mt_tensor *v,
                              double scale, bool causal)
{
    mt_attn_shape s = {.d = q->dtype,
                       .nbatch = q->ndim - 2,
                       .l = q->sizes[q->ndim - 2],
                       .s = k->sizes[k->ndim - 2],
                       .e = q->sizes[q->ndim - 1],
                       .ev = v->sizes[v->ndim - 1],
                       .scale = scale,
                       .causal = causal};
    memcpy(s.batch, q->sizes, sizeof(int64_t) * (q->ndim - 2));
    return s;
}

/* t's batch dims then rows, cols */
static mt_tensor *new_like_batch(const mt_tensor *t, int64_t rows, int64_t cols)
{
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof(int64_t) * (t->ndim - 2));
    sizes[t->ndim - 2] = rows;
    sizes[t->ndim - 1] = cols;
    return mt_new(t->dtype, t->ndim, sizes, false);
}

/* _fused_attention(query, key, value, scale, is_causal) -> (out, weights) */
int impl_fused_attention(mt_args *a, mt_result *r)
{
    mt_tensor *t[3] = {a->v[0].t, a->v[1].t, a->v[2].t};
    if (check_operands(a, t, 3) < 0 || check_size(a, 1, -1, t[0]->sizes[t[0]->ndim - 1]) < 0 ||
        check_size(a, 2, -2, t[1]->sizes[t[1]->ndim - 2]) < 0)
        return -1;
    mt_attn_shape s = shape_of(t[0], t[1], t[2], a->v[3].f, a->v[4].b);
    mt_tensor *res[2] = {new_like_batch(t[0], s.l, s.ev), new_like_batch(t[0], s.l, s.s)};
    if (res[0] && res[1]) {
        mt_attn_operand q = operand(t[0]), k = operand(t[1]), v = operand(t[2]);
        mt_attn_operand o = operand(res[0]), w = operand(res[1]);
        mt_blas_prepare();
        if (mt_attention_forward(&s, &q, &k, &v, &w, &o) < 0) {
            mt_release(res[0]);
            res[0] = NULL;
        }
    }
    return mt_result_tuple(r, 2, res);
}

/* _fused_attention_backward(grad_output, query, key, value, weights, scale,
 * is_causal) -> (grad_query, grad_key, grad_value) */
int impl_fused_attention_backward(mt_args *a, mt_result *r)
{
    mt_tensor *t[5] = {a->v[0].t, a->v[1].t, a->v[2].t, a->v[3].t, a->v[4].t};
    mt_tensor *g = t[0], *qt = t[1], *kt = t[2], *vt = t[3], *wt = t[4];
    int nd = qt->ndim;
    if (check_operands(a, t, 5) < 0 || check_size(a, 2, -1, qt->sizes[nd - 1]) < 0 ||
        check_size(a, 3, -2, kt->sizes[nd - 2]) < 0 ||
        check_size(a, 0, -2, qt->sizes[nd - 2]) < 0 ||
        check_size(a, 0, -1, vt->sizes[nd - 1]) < 0 ||
        check_size(a, 4, -2, qt->sizes[nd - 2]) < 0 || check_size(a, 4, -1, kt->sizes[nd - 2]) < 0)
        return -1;
    mt_attn_shape s = shape_of(qt, kt, vt, a->v[5].f, a->v[6].b);
    mt_tensor *w = wt, *res[3] = {new_like_batch(qt, s.l, s.e), new_like_batch(qt, s.s, s.e),
                                  new_like_batch(qt, s.s, s.ev)};
    /* the kernel reads the weights' rows as contiguous */
    if (wt->strides[nd - 1] != 1 && s.s > 1)
        w = mt_contiguous_as(wt, wt->dtype);
    else
        mt_retain(wt);
    if (w && res[0] && res[1] && res[2]) {
        mt_attn_operand go = operand(g), q = operand(qt), k = operand(kt), v = operand(vt);
        mt_attn_operand wo = operand(w), dq = operand(res[0]), dk = operand(res[1]),
                        dv = operand(res[2]);
        mt_blas_prepare();
        if (mt_attention_backward(&s, &go, &q, &k, &v, &wo, &dq, &dk, &dv) < 0) {
            mt_release(res[0]);
            res[0] = NULL;
        }
    }
    if (!w) {
        mt_xrelease(res[0]);
        res[0] = NULL;
    }
    mt_xrelease(w);
    return mt_result_tuple(r, 3, res);
}
