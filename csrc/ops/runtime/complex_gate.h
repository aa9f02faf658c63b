/* Which rows see complex tensors. A kernel table indexed by dtype has no
 * complex entry until someone writes one, and a kernel that moves elements
 * by their size may know no 16-byte item: rather than trust every impl to
 * check, the runner lets complex tensors (as inputs, out=, or a complex
 * dtype= asked for) and complex numbers reach only the rows tagged MT_TAG_COMPLEX, whose impls
 * were written for them, and refuses the rest with torch's error for that
 * op (complex_refusal.c). */
#ifndef MT_OPS_COMPLEX_GATE_H
#define MT_OPS_COMPLEX_GATE_H

#include "table.h"

/* -1 with torch's error for row op given a complex tensor of dtype d. */
int mt_complex_refusal(const mt_op *op, const mt_args *a, mt_dtype d);

static inline bool mt_args_hold_complex(const mt_args *a)
{
    const mt_signature *sig = a->sig;
    for (int p = 0; p < sig->nparams; p++) {
        const mt_value *v = &a->v[p];
        if (sig->params[p].type == MT_ARG_TENSOR) {
            if (v->t ? mt_is_complex(v->t->dtype) : v->is_scalar && v->s.kind == MT_SCALAR_COMPLEX)
                return true;
        } else if (sig->params[p].type == MT_ARG_SCALAR) {
            if (v->obj && v->s.kind == MT_SCALAR_COMPLEX)
                return true;
        } else if (sig->params[p].type == MT_ARG_TENSOR_LIST && v->obj) {
            for (int k = 0; k < v->nints; k++)
                if (v->tensors[k] && mt_is_complex(v->tensors[k]->dtype))
                    return true;
        }
    }
    int d = sig->dtype_param;
    return d >= 0 && !mt_is_none(a, d) && mt_is_complex(a->v[d].dtype);
}

/* 0, or -1 with torch's error when a row not written for complex tensors
 * is given one. */
static inline int mt_complex_gate(const mt_op *op, const mt_args *a)
{
    if ((op->tags & MT_TAG_COMPLEX) || !mt_args_hold_complex(a))
        return 0;
    mt_dtype d = MT_COMPLEX64;
    for (int p = 0; p < a->sig->nparams; p++)
        if (a->sig->params[p].type == MT_ARG_TENSOR && a->v[p].t &&
            mt_is_complex(a->v[p].t->dtype)) {
            d = a->v[p].t->dtype;
            break;
        }
    return mt_complex_refusal(op, a, d);
}

#endif
