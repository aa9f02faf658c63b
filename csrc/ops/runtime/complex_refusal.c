/* The error a row not written for complex tensors raises when given one.
 * torch refuses complex inputs with wording of each op's own (sort's
 * " Sort does not support complex dtypes on CPU", clamp's NotImplementedError,
 * the name of the CPU kernel whose dispatch found no complex entry); the rows
 * listed here raise torch's, every other untagged row the generic
 * "\"<op>\" not implemented for '<dtype>'". Looked up only on the refusal
 * path, so a linear scan costs the running of no op. */
#include "complex_gate.h"

typedef struct {
    mt_op_id id;
    mt_error_kind kind;
    const char *kernel;  /* "\"<kernel>\" not implemented for '<dtype>'" */
    const char *message; /* otherwise this text as it is */
} refusal;

#define SORT " Sort does not support complex dtypes on CPU"
#define CLAMP "clamp is not supported for complex types"
static const refusal refusals[] = {
    {MT_OP_sort, MT_ERR_RUNTIME, NULL, SORT},
    {MT_OP_sort_1, MT_ERR_RUNTIME, NULL, SORT},
    {MT_OP_argsort, MT_ERR_RUNTIME, NULL, SORT},
    {MT_OP_argsort_1, MT_ERR_RUNTIME, NULL, SORT},
    {MT_OP_msort, MT_ERR_RUNTIME, NULL, SORT},
    {MT_OP_topk, MT_ERR_RUNTIME, NULL, " topk does not support complex dtypes on CPU"},
    {MT_OP_max, MT_ERR_NOT_IMPLEMENTED, "max_all", NULL},
    {MT_OP_min, MT_ERR_NOT_IMPLEMENTED, "min_all", NULL},
    {MT_OP_max_dim, MT_ERR_RUNTIME, NULL, "max(): does not support complex input"},
    {MT_OP_min_dim, MT_ERR_RUNTIME, NULL, "min(): does not support complex input"},
    {MT_OP_argmax, MT_ERR_RUNTIME, NULL, "argmax(): does not support complex input"},
    {MT_OP_argmin, MT_ERR_RUNTIME, NULL, "argmin(): does not support complex input"},
    {MT_OP_max_other, MT_ERR_RUNTIME, NULL, "maximum not implemented for complex tensors."},
    {MT_OP_min_other, MT_ERR_RUNTIME, NULL, "minimum not implemented for complex tensors."},
    {MT_OP_maximum, MT_ERR_RUNTIME, NULL, "maximum not implemented for complex tensors."},
    {MT_OP_minimum, MT_ERR_RUNTIME, NULL, "minimum not implemented for complex tensors."},
    {MT_OP_fmax, MT_ERR_RUNTIME, NULL, "fmax not implemented for complex tensors."},
    {MT_OP_fmin, MT_ERR_RUNTIME, NULL, "fmin not implemented for complex tensors."},
    {MT_OP_clamp, MT_ERR_NOT_IMPLEMENTED, NULL, CLAMP},
    {MT_OP_clip, MT_ERR_NOT_IMPLEMENTED, NULL, CLAMP},
    {MT_OP_clamp_min, MT_ERR_NOT_IMPLEMENTED, NULL, CLAMP},
    {MT_OP_clamp_max, MT_ERR_NOT_IMPLEMENTED, NULL, CLAMP},
    {MT_OP_amax, MT_ERR_NOT_IMPLEMENTED, "max_values_cpu", NULL},
    {MT_OP_amin, MT_ERR_NOT_IMPLEMENTED, "min_values_cpu", NULL},
    {MT_OP_aminmax, MT_ERR_NOT_IMPLEMENTED, "aminmax_cpu", NULL},
    {MT_OP_kthvalue, MT_ERR_NOT_IMPLEMENTED, "kthvalue_cpu", NULL},
    {MT_OP_median, MT_ERR_NOT_IMPLEMENTED, "median_cpu", NULL},
    {MT_OP_median_dim, MT_ERR_NOT_IMPLEMENTED, "median_out", NULL},
    {MT_OP_nanmedian, MT_ERR_NOT_IMPLEMENTED, "median_cpu", NULL},
    {MT_OP_nanmedian_dim, MT_ERR_NOT_IMPLEMENTED, "median_out", NULL},
    {MT_OP_mode, MT_ERR_NOT_IMPLEMENTED, "mode_cpu", NULL},
    {MT_OP_cummax, MT_ERR_NOT_IMPLEMENTED, "cummax_cpu", NULL},
    {MT_OP_cummin, MT_ERR_NOT_IMPLEMENTED, "cummin_cpu", NULL},
};

int mt_complex_refusal(const mt_op *op, const mt_args *a, mt_dtype d)
{
    const char *dname = mt_dtype_infos[d].scalar_name;
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        const refusal *f = &refusals[i];
        /* a form (clamp_, max's method) refuses as its operator */
        if (f->id != op->id && f->id != op->base)
            continue;
        if (f->kernel)
            return mt_error(f->kind, "\"%s\" not implemented for '%s'", f->kernel, dname);
        return mt_error(f->kind, "%s", f->message);
    }
    return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", a->sig->name, dname);
}
