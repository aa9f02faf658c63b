/* The rows of norm.def over the kernels of kernels/norm.c: the geometry
 * checks nn.functional leaves to C, the compute dtype (float32 for the half
 * types, whose results convert back), contiguous operands, and the results.
 * nn.functional checks shapes with torch's messages; these rows are public,
 * so they refuse what would read out of bounds. */
#include "runtime/args.h"
#include "reduce.h"
#include "runtime/signature.h"

#include "../core/error.h"
#include "../kernels/norm.h"

/* t as a contiguous tensor of dtype ct: t itself when it already is one. */
static mt_tensor *operand(mt_tensor *t, mt_dtype ct)
{
    if (!t)
        return NULL;
    if (t->dtype == ct && mt_tensor_is_contiguous(t)) {
        mt_retain(t);
        return t;
    }
    return mt_contiguous_as(t, ct);
}

static mt_dtype compute_dtype(mt_dtype d) { return d == MT_FLOAT64 ? MT_FLOAT64 : MT_FLOAT32; }

/* A kernel's result in dtype d (consumes t). */
static mt_tensor *as_dtype(mt_tensor *t, mt_dtype d)
{
    if (!t || t->dtype == d)
        return t;
    mt_tensor *r = mt_contiguous_as(t, d);
    mt_release(t);
    return r;
}

static int check_floating(const mt_tensor *t, const char *what)
{
    if (!mt_is_floating(t->dtype))
        return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", what,
                        mt_dtype_infos[t->dtype].scalar_name);
    return 0;
}

typedef struct {
    int64_t rows, groups, cg, inner;
} rows_geometry;

/* input seen as rows of channels / num_groups * inner elements */
static int rows_geometry_of(const mt_args *a, int first, const mt_tensor *in, const mt_tensor *w,
                            const mt_tensor *b, rows_geometry *geo)
{
    int64_t groups = a->v[first].i, channels = a->v[first + 1].i, inner = a->v[first + 2].i;
    if (groups < 1 || channels < 0 || inner < 1 || channels % groups != 0)
        return mt_error(MT_ERR_RUNTIME, "%s: invalid num_groups, channels or inner", a->sig->name);
    int64_t d = channels / groups * inner;
    if ((d == 0 && in->numel != 0) || (d > 0 && in->numel % (d * groups) != 0))
        return mt_error(MT_ERR_RUNTIME,
                        "%s: input of %lld elements is not a whole number of "
                        "rows of %lld elements",
                        a->sig->name, (long long)in->numel, (long long)d);
    const mt_tensor *affine[2] = {w, b};
    for (int k = 0; k < 2; k++)
        if (affine[k] && affine[k]->numel != channels)
            return mt_error(MT_ERR_RUNTIME, "%s: %s should have %lld elements, not %lld",
                            a->sig->name, k ? "bias" : "weight", (long long)channels,
                            (long long)affine[k]->numel);
    geo->rows = d > 0 ? in->numel / d : 0;
    geo->groups = groups;
    geo->cg = channels / groups;
    geo->inner = inner;
    return 0;
}

/* The operands of a kernel call, converted; released together. */
typedef struct {
    mt_tensor *t[5];
} operands;

static void release_operands(operands *o)
{
    for (int i = 0; i < 5; i++)
        mt_xrelease(o->t[i]);
}

/* Converts the given tensors (NULLs stay NULL); false when one failed. */
static bool convert(operands *o, mt_dtype ct, int n, mt_tensor *const *src)
{
    bool ok = true;
    for (int i = 0; i < n; i++) {
        o->t[i] = operand(src[i], ct);
        ok = ok && (o->t[i] || !src[i]);
    }
    return ok;
}

/* _layer_norm_rows / _rms_norm_rows / _group_norm_rows(input, weight, bias,
 * num_groups, channels, inner, eps, rms) -> (out, stats) */
int impl_norm_rows(mt_args *a, mt_result *r)
{
    mt_tensor *in = a->v[0].t;
    mt_tensor *w = mt_is_none(a, 1) ? NULL : a->v[1].t, *b = mt_is_none(a, 2) ? NULL : a->v[2].t;
    rows_geometry geo = {0, 0, 0, 0};
    if (check_floating(in, a->sig->name) < 0 || rows_geometry_of(a, 3, in, w, b, &geo) < 0)
        return -1;
    mt_dtype ct = compute_dtype(in->dtype);
    operands o = {{NULL}};
    mt_tensor *src[3] = {in, w, b};
    mt_tensor *res[2] = {NULL, NULL};
    int64_t ssz[2] = {geo.rows, 2};
    if (convert(&o, ct, 3, src)) {
        res[0] = mt_new(ct, in->ndim, in->sizes, false);
        res[1] = mt_new(ct, 2, ssz, false);
        if (res[0] && res[1] &&
            mt_norm_rows(o.t[0], o.t[1], o.t[2], res[0], res[1], geo.rows, geo.groups, geo.cg,
                         geo.inner, a->v[6].f, a->v[7].b) < 0) {
            mt_release(res[0]);
            res[0] = NULL;
        }
        res[0] = as_dtype(res[0], in->dtype);
    }
    release_operands(&o);
    return mt_result_tuple(r, 2, res);
}

/* The gradient tensors of a backward row: grad_input like input, grad_weight
 * like weight (or flat when there is none), grad_bias likewise. */
static bool new_grads(mt_tensor **res, mt_dtype ct, const mt_tensor *in, const mt_tensor *w,
                      int64_t nparams)
{
    res[0] = mt_new(ct, in->ndim, in->sizes, false);
    res[1] = w ? mt_new(ct, w->ndim, w->sizes, false) : mt_new(ct, 1, &nparams, false);
    res[2] = w ? mt_new(ct, w->ndim, w->sizes, false) : mt_new(ct, 1, &nparams, false);
    return res[0] && res[1] && res[2];
}

static int check_backward_operands(const mt_args *a, const mt_tensor *g, const mt_tensor *in,
                                   const mt_tensor *stats, int64_t nstats)
{
    if (g->numel != in->numel || g->ndim != in->ndim)
        return mt_error(MT_ERR_RUNTIME, "%s: grad_output does not match input", a->sig->name);
    if (stats->numel != nstats)
        return mt_error(MT_ERR_RUNTIME, "%s: stats should have %lld elements, not %lld",
                        a->sig->name, (long long)nstats, (long long)stats->numel);
    return 0;
}

/* _norm_rows_backward(grad_output, input, weight, stats, num_groups, channels,
 * inner, rms) -> (grad_input, grad_weight, grad_bias) */
int impl_norm_rows_backward(mt_args *a, mt_result *r)
{
    mt_tensor *g = a->v[0].t, *in = a->v[1].t, *stats = a->v[3].t;
    mt_tensor *w = mt_is_none(a, 2) ? NULL : a->v[2].t;
    rows_geometry geo = {0, 0, 0, 0};
    if (check_floating(in, a->sig->name) < 0 || check_floating(g, a->sig->name) < 0 ||
        rows_geometry_of(a, 4, in, w, NULL, &geo) < 0 ||
        check_backward_operands(a, g, in, stats, 2 * geo.rows) < 0)
        return -1;
    mt_dtype ct = compute_dtype(in->dtype);
    operands o = {{NULL}};
    mt_tensor *src[4] = {g, in, w, stats};
    mt_tensor *res[3] = {NULL, NULL, NULL};
    if (convert(&o, ct, 4, src)) {
        if (new_grads(res, ct, in, w, geo.groups * geo.cg) &&
            mt_norm_rows_backward(o.t[0], o.t[1], o.t[2], o.t[3], res[0], res[1], res[2], geo.rows,
                                  geo.groups, geo.cg, geo.inner, a->v[7].b) < 0) {
            mt_release(res[0]);
            res[0] = NULL;
        }
        for (int i = 0; i < 3; i++)
            res[i] = as_dtype(res[i], in->dtype);
    }
    release_operands(&o);
    return mt_result_tuple(r, 3, res);
}

typedef struct {
    int64_t n, c, inner;
} batch_geometry;

static int batch_geometry_of(const mt_args *a, const mt_tensor *in, batch_geometry *geo)
{
    if (in->ndim < 2)
        return mt_error(MT_ERR_RUNTIME, "%s: expected input with at least 2 dimensions",
                        a->sig->name);
    geo->n = in->sizes[0];
    geo->c = in->sizes[1];
    geo->inner = geo->n * geo->c > 0 ? in->numel / (geo->n * geo->c) : 0;
    return 0;
}

static int check_channels(const mt_args *a, int first, int count, int64_t c)
{
    for (int i = first; i < first + count; i++)
        if (!mt_is_none(a, i) && a->v[i].t->numel != c)
            return mt_error(MT_ERR_RUNTIME, "%s should contain %lld elements not %lld",
                            a->sig->params[i].name, (long long)c, (long long)a->v[i].t->numel);
    return 0;
}

/* _batch_norm_train(input, weight, bias, running_mean, running_var, momentum,
 * eps) -> (out, stats) */
int impl_batch_norm_train(mt_args *a, mt_result *r)
{
    mt_tensor *in = a->v[0].t;
    mt_tensor *w = mt_is_none(a, 1) ? NULL : a->v[1].t, *b = mt_is_none(a, 2) ? NULL : a->v[2].t;
    mt_tensor *rm = mt_is_none(a, 3) ? NULL : a->v[3].t, *rv = mt_is_none(a, 4) ? NULL : a->v[4].t;
    batch_geometry geo = {0, 0, 0};
    if (check_floating(in, a->sig->name) < 0 || batch_geometry_of(a, in, &geo) < 0 ||
        check_channels(a, 1, 4, geo.c) < 0)
        return -1;
    mt_tensor *running[2] = {rm, rv};
    for (int k = 0; k < 2; k++)
        if (running[k] && (!mt_is_floating(running[k]->dtype) ||
                           (running[k]->ndim != 1 && !mt_tensor_is_contiguous(running[k]))))
            return mt_error(MT_ERR_RUNTIME,
                            "%s: running statistics must be 1-D or contiguous "
                            "floating tensors",
                            a->sig->name);
    mt_dtype ct = compute_dtype(in->dtype);
    operands o = {{NULL}};
    mt_tensor *src[3] = {in, w, b};
    mt_tensor *res[2] = {NULL, NULL};
    int64_t ssz[2] = {2, geo.c};
    if (convert(&o, ct, 3, src)) {
        res[0] = mt_new(ct, in->ndim, in->sizes, false);
        res[1] = mt_new(ct, 2, ssz, false);
        bool update = geo.n * geo.inner > 0;
        if (res[0] && res[1] &&
            mt_batch_norm(o.t[0], o.t[1], o.t[2], res[0], res[1], update ? rm : NULL,
                          update ? rv : NULL, geo.n, geo.c, geo.inner, a->v[5].f, a->v[6].f) < 0) {
            mt_release(res[0]);
            res[0] = NULL;
        }
        for (int k = 0; k < 2 && update; k++)
            if (running[k])
                mt_bump_version(running[k]);
        res[0] = as_dtype(res[0], in->dtype);
    }
    release_operands(&o);
    return mt_result_tuple(r, 2, res);
}

/* _batch_norm_backward(grad_output, input, weight, stats)
 * -> (grad_input, grad_weight, grad_bias) */
int impl_batch_norm_backward(mt_args *a, mt_result *r)
{
    mt_tensor *g = a->v[0].t, *in = a->v[1].t, *stats = a->v[3].t;
    mt_tensor *w = mt_is_none(a, 2) ? NULL : a->v[2].t;
    batch_geometry geo = {0, 0, 0};
    if (check_floating(in, a->sig->name) < 0 || check_floating(g, a->sig->name) < 0 ||
        batch_geometry_of(a, in, &geo) < 0 || check_channels(a, 2, 1, geo.c) < 0 ||
        check_backward_operands(a, g, in, stats, 2 * geo.c) < 0)
        return -1;
    mt_dtype ct = compute_dtype(in->dtype);
    operands o = {{NULL}};
    mt_tensor *src[4] = {g, in, w, stats};
    mt_tensor *res[3] = {NULL, NULL, NULL};
    if (convert(&o, ct, 4, src)) {
        if (new_grads(res, ct, in, w, geo.c) &&
            mt_batch_norm_backward(o.t[0], o.t[1], o.t[2], o.t[3], res[0], res[1], res[2], geo.n,
                                   geo.c, geo.inner) < 0) {
            mt_release(res[0]);
            res[0] = NULL;
        }
        for (int i = 0; i < 3; i++)
            res[i] = as_dtype(res[i], in->dtype);
    }
    release_operands(&o);
    return mt_result_tuple(r, 3, res);
}
