/* The rows of loss.def: the checks of nll_loss and cross_entropy that
 * nn.functional leaves to C (classes, weights, dtypes) and the kernels of
 * kernels/loss.c and kernels/loss_cross_entropy.c. Plain C:
 * impls read typed mt_args, the grad mode and whether the weight requires
 * grad, make tensors through the owner hooks (core/owner.h) and report
 * failures with mt_error; nothing here may touch Python. */
#include "runtime/args.h"

#include "../core/shape.h"
#include "../kernels/loss_cross_entropy.h"
#include "../kernels/loss.h"

#include <string.h>

/* The kernels read input (and write its gradient) as [n, c, h, w] at the
 * target's classes: the row is public, so the shapes nn.functional makes
 * are checked here too. */
static int check_nll(int ndim, const int64_t *sizes, const mt_tensor *t, const mt_tensor *w,
                     int64_t reduction)
{
    char is[256], ts[256];
    if (ndim != 1 && ndim != 2 && ndim != 4)
        return mt_error(MT_ERR_RUNTIME, "_nll_loss: expected 1-, 2- or 4-D input, got %d-D", ndim);
    if (t->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME, "expected scalar type Long but found %s",
                        mt_dtype_infos[t->dtype].scalar_name);
    bool match = ndim == 1 ? t->numel == 1 && t->ndim <= 1 : t->ndim == ndim - 1;
    for (int d = 0; match && ndim > 1 && d < t->ndim; d++)
        match = t->sizes[d] == sizes[d == 0 ? 0 : d + 1];
    if (!match) {
        mt_format_shape(is, sizeof is, ndim, sizes);
        mt_format_shape(ts, sizeof ts, t->ndim, t->sizes);
        return mt_error(MT_ERR_RUNTIME, "_nll_loss: target %s does not match input %s", ts, is);
    }
    int64_t classes = ndim == 1 ? sizes[0] : sizes[1];
    if (w && (w->ndim != 1 || w->numel != classes)) {
        mt_format_shape(ts, sizeof ts, w->ndim, w->sizes);
        return mt_error(MT_ERR_RUNTIME,
                        "weight tensor should be defined either for all %lld classes or no "
                        "classes but got weight tensor of shape: %s",
                        (long long)classes, ts);
    }
    if (reduction < MT_REDUCTION_NONE || reduction > MT_REDUCTION_SUM)
        return mt_error(MT_ERR_RUNTIME, "_nll_loss: %lld is not a valid reduction",
                        (long long)reduction);
    return 0;
}

/* _nll_loss(input, target, weight, reduction, ignore_index) */
int impl_nll_loss(mt_args *a, mt_result *r)
{
    mt_tensor *in = a->v[0].t, *t = a->v[1].t, *w = mt_is_none(a, 2) ? NULL : a->v[2].t;
    mt_reduction red = (mt_reduction)a->v[3].i;
    if (!mt_is_floating(in->dtype))
        return mt_error(MT_ERR_RUNTIME, "\"nll_loss\" not implemented for '%s'",
                        mt_dtype_infos[in->dtype].scalar_name);
    if (check_nll(in->ndim, in->sizes, t, w, a->v[3].i) < 0)
        return -1;
    if (w && w->dtype != in->dtype)
        return mt_error(MT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        mt_dtype_infos[in->dtype].scalar_name,
                        mt_dtype_infos[w->dtype].scalar_name);
    bool none = red == MT_REDUCTION_NONE;
    /* ignored positions of an unreduced loss are never written: zeros */
    mt_tensor *out = mt_new(in->dtype, none ? t->ndim : 0, t->sizes, none);
    if (out && mt_nll_loss(out, in, t, w, red, a->v[4].i) < 0) {
        mt_release(out);
        return -1;
    }
    return mt_result_tensor(r, out);
}

/* _nll_loss_backward(grad_output, target, weight, input_size, reduction, ignore_index) */
int impl_nll_loss_backward(mt_args *a, mt_result *r)
{
    mt_tensor *g = a->v[0].t, *t = a->v[1].t, *w = mt_is_none(a, 2) ? NULL : a->v[2].t;
    const int64_t *sizes = a->v[3].ints;
    if (check_nll(a->v[3].nints, sizes, t, w, a->v[4].i) < 0)
        return -1;
    for (int d = 0; d < a->v[3].nints; d++)
        if (sizes[d] < 0)
            return mt_error(MT_ERR_RUNTIME, "_nll_loss_backward: negative input size");
    if (!mt_is_floating(g->dtype) || (w && w->dtype != g->dtype))
        return mt_error(MT_ERR_RUNTIME, "_nll_loss_backward: expected grad_output and weight "
                                        "of one floating dtype");
    bool per_position = a->v[4].i == MT_REDUCTION_NONE;
    if (per_position ? g->ndim != t->ndim || memcmp(g->sizes, t->sizes, sizeof(int64_t) * t->ndim)
                     : g->numel != 1)
        return mt_error(MT_ERR_RUNTIME, "_nll_loss_backward: grad_output does not match the "
                                        "reduction and target");
    mt_tensor *out = mt_new(g->dtype, a->v[3].nints, sizes, true);
    if (out && mt_nll_loss_backward(out, g, t, w, (mt_reduction)a->v[4].i, a->v[5].i) < 0) {
        mt_release(out);
        return -1;
    }
    return mt_result_tensor(r, out);
}

/* The fused cross_entropy rows see input [C] (target 0-d) or [N, C, *]
 * (target [N, *]) as [n, c, inner]; every operand contiguous, the floats of
 * one dtype. */
static int check_cross_entropy(const mt_tensor *in, const mt_tensor *t, const mt_tensor *w,
                               int64_t reduction, int64_t *n, int64_t *c, int64_t *inner)
{
    if (in->dtype != MT_FLOAT32 && in->dtype != MT_FLOAT64)
        return mt_error(MT_ERR_RUNTIME,
                        "_cross_entropy: expected float32 or float64 input, "
                        "got %s",
                        mt_dtype_infos[in->dtype].scalar_name);
    if (in->ndim < 1)
        return mt_error(MT_ERR_RUNTIME, "_cross_entropy: expected input of 1 or more "
                                        "dimensions");
    if (t->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME, "expected scalar type Long but found %s",
                        mt_dtype_infos[t->dtype].scalar_name);
    bool match = t->ndim == (in->ndim == 1 ? 0 : in->ndim - 1);
    for (int d = 0; match && d < t->ndim; d++)
        match = t->sizes[d] == in->sizes[d == 0 ? 0 : d + 1];
    if (!match) {
        char is[256], ts[256];
        mt_format_shape(is, sizeof is, in->ndim, in->sizes);
        mt_format_shape(ts, sizeof ts, t->ndim, t->sizes);
        return mt_error(MT_ERR_RUNTIME, "_cross_entropy: target %s does not match input %s", ts,
                        is);
    }
    *n = in->ndim == 1 ? 1 : in->sizes[0];
    *c = in->ndim == 1 ? in->sizes[0] : in->sizes[1];
    *inner = 1;
    for (int d = 2; d < in->ndim; d++)
        *inner *= in->sizes[d];
    if (w && (w->ndim != 1 || w->numel != *c)) {
        char ws[256];
        mt_format_shape(ws, sizeof ws, w->ndim, w->sizes);
        return mt_error(MT_ERR_RUNTIME,
                        "weight tensor should be defined either for all %lld classes or no "
                        "classes but got weight tensor of shape: %s",
                        (long long)*c, ws);
    }
    if (w && w->dtype != in->dtype)
        return mt_error(MT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        mt_dtype_infos[in->dtype].scalar_name,
                        mt_dtype_infos[w->dtype].scalar_name);
    if (!mt_tensor_is_contiguous(in) || !mt_tensor_is_contiguous(t) ||
        (w && !mt_tensor_is_contiguous(w)))
        return mt_error(MT_ERR_RUNTIME, "_cross_entropy: expected contiguous input, target "
                                        "and weight");
    if (reduction < MT_REDUCTION_NONE || reduction > MT_REDUCTION_SUM)
        return mt_error(MT_ERR_RUNTIME, "_cross_entropy: %lld is not a valid reduction",
                        (long long)reduction);
    return 0;
}

static int check_smoothing(double s)
{
    if (!(s >= 0.0 && s <= 1.0))
        return mt_error(MT_ERR_RUNTIME, "label_smoothing must be between 0.0 and 1.0. Got: %g", s);
    return 0;
}

/* _cross_entropy(input, target, weight, reduction, ignore_index, label_smoothing) */
int impl_cross_entropy(mt_args *a, mt_result *r)
{
    mt_tensor *in = a->v[0].t, *t = a->v[1].t, *w = mt_is_none(a, 2) ? NULL : a->v[2].t;
    int64_t n, c, inner;
    if (check_cross_entropy(in, t, w, a->v[3].i, &n, &c, &inner) < 0 ||
        check_smoothing(a->v[5].f) < 0)
        return -1;
    mt_ce_options o = {(mt_reduction)a->v[3].i, a->v[4].i, a->v[5].f};
    bool none = o.reduction == MT_REDUCTION_NONE;
    mt_tensor *out = mt_new(in->dtype, none ? t->ndim : 0, t->sizes, false);
    mt_tensor *lse = mt_new(in->dtype, t->ndim, t->sizes, false);
    if (out && lse && mt_cross_entropy(out, lse, in, t, w, n, c, inner, &o) == 0 &&
        mt_result_alloc(r, MT_RESULT_TUPLE, 2) == 0) {
        r->t[0] = out;
        r->t[1] = lse;
        return 0;
    }
    mt_xrelease(out);
    mt_xrelease(lse);
    return -1;
}

/* _cross_entropy_backward(grad_output, input, target, weight, lse, reduction,
 * ignore_index, label_smoothing) */
int impl_cross_entropy_backward(mt_args *a, mt_result *r)
{
    mt_tensor *g = a->v[0].t, *in = a->v[1].t, *t = a->v[2].t;
    mt_tensor *w = mt_is_none(a, 3) ? NULL : a->v[3].t, *lse = mt_is_none(a, 4) ? NULL : a->v[4].t;
    int64_t n, c, inner;
    if (check_cross_entropy(in, t, w, a->v[5].i, &n, &c, &inner) < 0 ||
        check_smoothing(a->v[7].f) < 0)
        return -1;
    mt_ce_options o = {(mt_reduction)a->v[5].i, a->v[6].i, a->v[7].f};
    bool per_position = o.reduction == MT_REDUCTION_NONE;
    if (g->dtype != in->dtype || !mt_tensor_is_contiguous(g) ||
        (per_position ? g->ndim != t->ndim || memcmp(g->sizes, t->sizes, sizeof(int64_t) * t->ndim)
                      : g->numel != 1))
        return mt_error(MT_ERR_RUNTIME, "_cross_entropy_backward: grad_output does not match "
                                        "the reduction, target and input dtype");
    if (lse && (lse->dtype != in->dtype || !mt_tensor_is_contiguous(lse) || lse->numel != t->numel))
        return mt_error(MT_ERR_RUNTIME, "_cross_entropy_backward: lse does not match target "
                                        "and input dtype");
    mt_tensor *out = mt_new(in->dtype, in->ndim, in->sizes, false);
    if (out && mt_cross_entropy_backward(out, g, in, t, w, lse, n, c, inner, &o) < 0) {
        mt_release(out);
        return -1;
    }
    return mt_result_tensor(r, out);
}
