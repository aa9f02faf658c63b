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

/* _nll_loss(input, target, weight, reduction, ignore_index) */
int impl_nll_loss(mt_args *a, mt_result *r)
{
    mt_tensor *in = a->v[0].t, *t = a->v[1].t, *w = mt_is_none(a, 2) ? NULL : a->v[2].t;
    mt_reduction red = (mt_reduction)a->v[3].i;
    int64_t classes = in->ndim == 1 ? in->sizes[0] : in->sizes[1];
    if (!mt_is_floating(in->dtype))
        return mt_error(MT_ERR_RUNTIME, "\"nll_loss\" not implemented for '%s'",
                        mt_dtype_infos[in->dtype].scalar_name);
    if (t->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME, "expected scalar type Long but found %s",
                        mt_dtype_infos[t->dtype].scalar_name);
    if (w && (w->ndim != 1 || w->numel != classes)) {
        char shape[256];
        mt_format_shape(shape, sizeof shape, w->ndim, w->sizes);
        return mt_error(MT_ERR_RUNTIME,
                        "weight tensor should be defined either for all %lld classes or no "
                        "classes but got weight tensor of shape: %s",
                        (long long)classes, shape);
    }
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
    mt_tensor *out = mt_new(g->dtype, a->v[3].nints, a->v[3].ints, true);
    if (out && mt_nll_loss_backward(out, g, t, w, (mt_reduction)a->v[4].i, a->v[5].i) < 0) {
        mt_release(out);
        return -1;
    }
    return mt_result_tensor(r, out);
}
