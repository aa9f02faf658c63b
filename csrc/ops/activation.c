/* The rows of activation.def: grad_output and the saved tensor broadcast and
 * promote as a binary elementwise op (elementwise.h), then one fused kernel
 * (kernels/activation.c). Plain C: no Python. */
#include "elementwise.h"

#include <string.h>

#include "../kernels/activation.h"

static mt_loop_fn backward_loop_for(int op, mt_dtype d)
{
    return mt_activation_backward_loop((mt_activation_backward_op)op, d);
}

static int activation_backward(mt_args *a, mt_result *r, mt_activation_backward_op op,
                               const char *name)
{
    mt_operand in[2];
    mt_operand_from(&in[0], &a->v[0]);
    mt_operand_from(&in[1], &a->v[1]);
    mt_dtype d = mt_operands_result_type(2, in);
    mt_kernel_ref k = {backward_loop_for, op, NULL, name, false};
    return mt_result_tensor(r, mt_pointwise(&k, 2, in, d, d, NULL, NULL));
}

/* _gelu_backward(grad_output, input, approximate='none') */
int impl_gelu_backward(mt_args *a, mt_result *r)
{
    const char *ap = mt_is_none(a, 2) ? "none" : a->v[2].str;
    if (strcmp(ap, "none") == 0)
        return activation_backward(a, r, MT_ACTB_GELU, "GeluBackwardKernelImpl");
    if (strcmp(ap, "tanh") == 0)
        return activation_backward(a, r, MT_ACTB_GELU_TANH, "GeluBackwardKernelImpl");
    return mt_error(MT_ERR_RUNTIME, "approximate argument must be either none or tanh.");
}

int impl_silu_backward(mt_args *a, mt_result *r)
{
    return activation_backward(a, r, MT_ACTB_SILU, "silu_backward_cpu");
}

int impl_tanh_backward(mt_args *a, mt_result *r)
{
    return activation_backward(a, r, MT_ACTB_TANH, "tanh_backward_cpu");
}

int impl_sigmoid_backward(mt_args *a, mt_result *r)
{
    return activation_backward(a, r, MT_ACTB_SIGMOID, "sigmoid_backward_cpu");
}
