/* Which rows see the barebones dtypes (uint16, uint32, uint64, complex32).
 * torch holds and moves their values but computes almost nothing on them;
 * minitorch's kernel tables have no entries for them, so the runner lets a
 * tensor or dtype= of one reach only the rows that move elements whatever
 * they are (tagged MT_TAG_CONJ_VIEW: views, copies, casts, metadata) and
 * those written for them (MT_TAG_BAREBONES), and refuses the rest with
 * torch's NotImplementedError. */
#ifndef MT_OPS_BAREBONES_GATE_H
#define MT_OPS_BAREBONES_GATE_H

#include "table.h"

/* -1 with torch's error for row op given a tensor of barebones dtype d. */
int mt_barebones_refusal(const mt_op *op, const mt_args *a, mt_dtype d);

/* The first barebones dtype among a's tensors and dtype=, or MT_NUM_DTYPES. */
static inline mt_dtype mt_args_barebones(const mt_args *a)
{
    const mt_signature *sig = a->sig;
    for (int p = 0; p < sig->nparams; p++) {
        const mt_value *v = &a->v[p];
        if (sig->params[p].type == MT_ARG_TENSOR) {
            if (v->t && mt_is_barebones(v->t->dtype))
                return v->t->dtype;
        } else if (sig->params[p].type == MT_ARG_TENSOR_LIST && v->obj) {
            for (int k = 0; k < v->nints; k++)
                if (v->tensors[k] && mt_is_barebones(v->tensors[k]->dtype))
                    return v->tensors[k]->dtype;
        }
    }
    int d = sig->dtype_param;
    if (d >= 0 && !mt_is_none(a, d) && mt_is_barebones(a->v[d].dtype))
        return a->v[d].dtype;
    return MT_NUM_DTYPES;
}

/* 0, or -1 with torch's error when a row not written for the barebones
 * dtypes is given one. */
static inline int mt_barebones_gate(const mt_op *op, const mt_args *a)
{
    if (op->tags & (MT_TAG_BAREBONES | MT_TAG_CONJ_VIEW))
        return 0;
    mt_dtype d = mt_args_barebones(a);
    return d == MT_NUM_DTYPES ? 0 : mt_barebones_refusal(op, a, d);
}

#endif
