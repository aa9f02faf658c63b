/* The error a row not written for complex tensors raises when given one,
 * and the one a row not written for the barebones dtypes raises for those.
 * torch refuses complex inputs with wording of each op's own (sort's
 * " Sort does not support complex dtypes on CPU", clamp's NotImplementedError,
 * the name of the CPU kernel whose dispatch found no complex entry); the rows
 * with an MT_COMPLEX_REFUSAL line raise torch's, every other untagged row the generic
 * "\"<op>\" not implemented for '<dtype>'". The table is gathered from the
 * MT_COMPLEX_REFUSAL lines beside the rows (MT_BAREBONES_REFUSAL and
 * MT_REFUSAL_KERNEL_OF add the kernels named for the barebones dtypes and
 * those that depend on the call). Looked up only on the refusal
 * path, so a linear scan costs the running of no op. */
#include "dtype_gate.h"

typedef struct {
    mt_op_id id;
    mt_error_kind kind;
    const char *kernel;  /* "\"<kernel>\" not implemented for '<dtype>'" */
    const char *message; /* otherwise this text as it is */
} refusal;

static const refusal refusals[] = {
#define MT_COMPLEX_REFUSAL(id, kind, kernel, message) {MT_OP_##id, kind, kernel, message},
#include "../../ops.def"
#undef MT_COMPLEX_REFUSAL
};

static const struct {
    mt_op_id id, as;
} computes_as[] = {
#define MT_COMPUTES_AS(id, as) {MT_OP_##id, MT_OP_##as},
#include "../../ops.def"
#undef MT_COMPUTES_AS
};

static const struct {
    mt_op_id id;
    const char *kernel;
} barebones_kernels[] = {
#define MT_BAREBONES_REFUSAL(id, kernel) {MT_OP_##id, kernel},
#include "../../ops.def"
#undef MT_BAREBONES_REFUSAL
};

#define MT_REFUSAL_KERNEL_OF(id, fn) const char *fn(const mt_args *a);
#include "../../ops.def"
#undef MT_REFUSAL_KERNEL_OF

static const struct {
    mt_op_id id;
    const char *(*kernel)(const mt_args *a);
} kernels_of_call[] = {
#define MT_REFUSAL_KERNEL_OF(id, fn) {MT_OP_##id, fn},
#include "../../ops.def"
#undef MT_REFUSAL_KERNEL_OF
};

/* The row whose refusal op's is: its operator for a form (clamp_, max's
 * method) or an alias (special_erf). */
static mt_op_id refusing_row(const mt_op *op)
{
    for (size_t i = 0; i < sizeof computes_as / sizeof computes_as[0]; i++)
        if (computes_as[i].id == op->id)
            return computes_as[i].as;
    return op->base;
}

/* The kernel this call's refusal names where it depends on the call, else
 * NULL (also where the row's function cannot tell, for an alias row over
 * other operands). */
static const char *kernel_of_call(const mt_op *op, mt_op_id row, const mt_args *a)
{
    for (size_t i = 0; i < sizeof kernels_of_call / sizeof kernels_of_call[0]; i++)
        if (kernels_of_call[i].id == op->id || kernels_of_call[i].id == row)
            return kernels_of_call[i].kernel(a);
    return NULL;
}

int mt_complex_refusal(const mt_op *op, const mt_args *a, mt_dtype d)
{
    const char *dname = mt_dtype_infos[d].scalar_name;
    mt_op_id row = refusing_row(op);
    const char *by_call = kernel_of_call(op, row, a);
    if (by_call)
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", by_call, dname);
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        const refusal *f = &refusals[i];
        if (f->id != op->id && f->id != row)
            continue;
        if (f->kernel)
            return mt_error(f->kind, "\"%s\" not implemented for '%s'", f->kernel, dname);
        return mt_error(f->kind, "%s", f->message);
    }
    return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", a->sig->name, dname);
}

/* torch names the same CPU kernel for a barebones dtype as for a complex one
 * where its dispatch lacks the entry ("lt_cpu", "max_all"); a row that
 * computes complex values names its kernel in an MT_BAREBONES_REFUSAL line
 * ("argmax_cpu", "addmm_impl_cpu_"); other rows say their own name. */
int mt_barebones_refusal(const mt_op *op, const mt_args *a, mt_dtype d)
{
    const char *dname = mt_dtype_infos[d].scalar_name;
    const char *kernel = kernel_of_call(op, refusing_row(op), a);
    for (size_t i = 0; !kernel && i < sizeof barebones_kernels / sizeof barebones_kernels[0]; i++)
        if (barebones_kernels[i].id == op->id || barebones_kernels[i].id == op->base)
            kernel = barebones_kernels[i].kernel;
    if (kernel)
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel, dname);
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        const refusal *f = &refusals[i];
        if ((f->id == op->id || f->id == op->base) && f->kernel)
            return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", f->kernel,
                            dname);
    }
    return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", a->sig->name, dname);
}
