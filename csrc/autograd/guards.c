/* Checks the autograd floor makes before a row runs, named by the row's
 * MT_GUARD line: what torch's autograd kernels refuse about an argument
 * (an input that must not require grad), in torch's words. */
#include "derivatives.h"
#include "grad_mode.h"
#include "meta.h"

/* _nll_loss and _cross_entropy: torch's nll_loss_forward has no derivative
 * for the class weights. */
int guard_nll_weight(const mt_args *a)
{
    mt_tensor *w = mt_is_none(a, 2) ? NULL : a->v[2].t;
    if (w && mt_grad_enabled && mt_requires_grad(w))
        return mt_error(MT_ERR_RUNTIME,
                        "The function 'nll_loss_forward' is not differentiable with respect "
                        "to argument 'weight'. This input cannot have requires_grad True.");
    return 0;
}

/* resize_ and resize_as_ refuse a tensor requiring grad even under no_grad
 * (not in inference mode, which skips torch's autograd kernels), and an
 * inference tensor outside inference mode while grad mode is on. */
int guard_resize(const mt_args *a)
{
    if (!mt_inference_mode && mt_requires_grad(a->v[0].t))
        return mt_error(MT_ERR_RUNTIME, "cannot resize variables that require grad");
    /* torch's check sits where grad mode switches it off */
    return mt_grad_enabled ? mt_inference_check_write(a->v[0].t) : 0;
}
