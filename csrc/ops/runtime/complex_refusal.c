/* The error a row not written for complex tensors raises when given one,
 * and the one a row not written for the barebones dtypes raises for those.
 * torch refuses complex inputs with wording of each op's own (sort's
 * " Sort does not support complex dtypes on CPU", clamp's NotImplementedError,
 * the name of the CPU kernel whose dispatch found no complex entry); the rows
 * with an MT_COMPLEX_REFUSAL line raise torch's, every other untagged row the generic
 * "\"<op>\" not implemented for '<dtype>'". The table is gathered from the
 * MT_COMPLEX_REFUSAL lines beside the rows. Looked up only on the refusal
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

/* The row whose refusal op's is: its operator for a form (clamp_, max's
 * method) or an alias (special_erf). */
static mt_op_id refusing_row(const mt_op *op)
{
    for (size_t i = 0; i < sizeof computes_as / sizeof computes_as[0]; i++)
        if (computes_as[i].id == op->id)
            return computes_as[i].as;
    return op->base;
}

int mt_complex_refusal(const mt_op *op, const mt_args *a, mt_dtype d)
{
    const char *dname = mt_dtype_infos[d].scalar_name;
    mt_op_id row = refusing_row(op);
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
 * where its dispatch lacks the entry ("lt_cpu", "max_all"); other rows say
 * their own name. */
int mt_barebones_refusal(const mt_op *op, const mt_args *a, mt_dtype d)
{
    const char *dname = mt_dtype_infos[d].scalar_name;
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        const refusal *f = &refusals[i];
        if ((f->id == op->id || f->id == op->base) && f->kernel)
            return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", f->kernel,
                            dname);
    }
    return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", a->sig->name, dname);
}
