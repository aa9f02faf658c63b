/* Which rows see the dtypes most kernels were not written for. One walk over
 * a call's arguments finds both kinds, as the runner asks on every call:
 * - complex (tensors, out=, a complex dtype= or a Python complex number):
 *   a kernel table indexed by dtype has no complex entry until someone writes
 *   one, and a kernel that moves elements by their size may know no 16-byte
 *   item; so they reach only the rows tagged MT_TAG_COMPLEX, whose impls were
 *   written for them, and the rest refuse with torch's error for that op;
 * - barebones (uint16, uint32, uint64, complex32): torch holds and moves
 *   their values but computes almost nothing on them, so they reach only the
 *   rows that move elements whatever they are (MT_TAG_CONJ_VIEW: views,
 *   copies, casts, metadata) and those written for them (MT_TAG_BAREBONES);
 *   uint16/32/64 also the rows that compute them where torch does
 *   (MT_TAG_UNSIGNED), and the rest refuse with torch's NotImplementedError.
 * The refusals' texts are in complex_refusal.c. */
#ifndef MT_OPS_DTYPE_GATE_H
#define MT_OPS_DTYPE_GATE_H

#include "table.h"

/* -1 with torch's error for row op given a complex tensor of dtype d. */
int mt_complex_refusal(const mt_op *op, const mt_args *a, mt_dtype d);
/* -1 with torch's error for row op given a tensor of barebones dtype d. */
int mt_barebones_refusal(const mt_op *op, const mt_args *a, mt_dtype d);

/* The complex and barebones dtypes close the enum, so one comparison tells a
 * tensor of neither. */
static inline bool mt_dtype_needs_gate(mt_dtype d) { return d >= MT_COMPLEX64; }

typedef struct {
    bool complex;
    mt_dtype complex_dtype; /* of the first complex tensor argument */
    mt_dtype barebones;     /* the first barebones dtype, or MT_NUM_DTYPES */
} mt_gated_args;

static inline void mt_gate_note(mt_gated_args *g, mt_dtype d, bool tensor_param)
{
    if (mt_is_complex(d)) {
        if (tensor_param && !g->complex)
            g->complex_dtype = d;
        g->complex = true;
    }
    if (mt_is_barebones(d) && g->barebones == MT_NUM_DTYPES)
        g->barebones = d;
}

/* Whether a holds anything complex or barebones, described in *g. */
static inline bool mt_args_gated(const mt_args *a, mt_gated_args *g)
{
    const mt_signature *sig = a->sig;
    bool any = false;
    *g = (mt_gated_args){false, MT_COMPLEX64, MT_NUM_DTYPES};
    for (int p = 0; p < sig->nparams; p++) {
        const mt_value *v = &a->v[p];
        mt_argtype type = sig->params[p].type;
        if (type == MT_ARG_TENSOR && v->t) {
            if (mt_dtype_needs_gate(v->t->dtype)) {
                any = true;
                mt_gate_note(g, v->t->dtype, true);
            }
        } else if (type == MT_ARG_TENSOR || type == MT_ARG_SCALAR) {
            /* a Python number where a tensor or scalar goes */
            bool number = type == MT_ARG_TENSOR ? v->is_scalar : v->obj != NULL;
            if (number && v->s.kind == MT_SCALAR_COMPLEX) {
                any = true;
                g->complex = true;
            }
        } else if (type == MT_ARG_TENSOR_LIST && v->obj) {
            for (int k = 0; k < v->nints; k++)
                if (v->tensors[k] && mt_dtype_needs_gate(v->tensors[k]->dtype)) {
                    any = true;
                    mt_gate_note(g, v->tensors[k]->dtype, false);
                }
        }
    }
    int d = sig->dtype_param;
    if (d >= 0 && !mt_is_none(a, d) && mt_dtype_needs_gate(a->v[d].dtype)) {
        any = true;
        mt_gate_note(g, a->v[d].dtype, false);
    }
    return any;
}

/* 0, or -1 with torch's error when a row is given a complex or barebones
 * dtype it was not written for. */
static inline int mt_dtype_gate(const mt_op *op, const mt_args *a)
{
    const unsigned barebones_ok = MT_TAG_BAREBONES | MT_TAG_CONJ_VIEW;
    if ((op->tags & MT_TAG_COMPLEX) && (op->tags & barebones_ok))
        return 0;
    mt_gated_args g;
    if (!mt_args_gated(a, &g))
        return 0;
    if (g.complex && !(op->tags & MT_TAG_COMPLEX))
        return mt_complex_refusal(op, a, g.complex_dtype);
    unsigned ok = g.barebones == MT_COMPLEX32 ? barebones_ok : barebones_ok | MT_TAG_UNSIGNED;
    if (g.barebones != MT_NUM_DTYPES && !(op->tags & ok))
        return mt_barebones_refusal(op, a, g.barebones);
    return 0;
}

#endif
