/* The rows of loss.def: the checks of nll_loss that nn.functional leaves to
 * C (classes, weights, dtypes) and the kernels of kernels/loss.c. Plain C:
 * impls read typed mt_args, the grad mode and whether the weight requires
 * grad, make tensors through the owner hooks (core/owner.h) and report
 * failures with mt_error; nothing here may touch Python. */
#include "args.h"

#include "../autograd/grad_mode.h"
#include "../autograd/meta.h"
#include "../core/shape.h"
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
        return mt_error(MT_ERR_RUNTIME, "_nll_loss: expected 1-, 2- or 4-D input, got %d-D",
                        ndim);
    if (t->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME, "expected scalar type Long but found %s",
                        mt_dtype_infos[t->dtype].scalar_name);
    bool match = ndim == 1 ? t->numel == 1 && t->ndim <= 1 : t->ndim == ndim - 1;
    for (int d = 0; match && ndim > 1 && d < t->ndim; d++)
        match = t->sizes[d] == sizes[d == 0 ? 0 : d + 1];
    if (!match) {
        mt_format_shape(is, sizeof is, ndim, sizes);
        mt_format_shape(ts, sizeof ts, t->ndim, t->sizes);
        return mt_error(MT_ERR_RUNTIME, "_nll_loss: target %s does not match input %s", ts,
                        is);
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
    if (w && mt_grad_enabled && mt_requires_grad(w))
        return mt_error(MT_ERR_RUNTIME,
                        "The function 'nll_loss_forward' is not differentiable with respect "
                        "to argument 'weight'. This input cannot have requires_grad True.");
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
