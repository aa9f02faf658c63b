/* The overlap rules of the rows that write (see write_overlap.h). Most rows
 * run like torch's TensorIterator ops: the target may not have elements that
 * alias each other, and no input may share part of its memory (the target
 * itself is fine: x.add_(x)). The exceptions are the rows whose torch kernel
 * checks less or more; mt_op_run applies the rule, so no impl checks. */
#include "write_overlap.h"

#include "../../core/overlap.h"

#include <string.h>

static const struct {
    const char *name;
    unsigned rule;
} exceptions[] = {
    /* filling writes one value wherever the elements are */
    {"fill_", 0},
    {"zero_", 0},
    {"masked_fill_", MT_WRITE_PARTIAL},
    {"empty", 0},
    {"zeros", 0},
    {"ones", 0},
    /* torch's matrix products check only what copying their bias into the
     * result checks, and read their matrices before writing */
    {"mm", MT_WRITE_INTERNAL},
    {"matmul", MT_WRITE_INTERNAL},
    {"addmm_", MT_WRITE_INTERNAL},
    {"addmm", MT_WRITE_INTERNAL | MT_WRITE_PARTIAL | MT_WRITE_FIRST},
    {"addmv", MT_WRITE_INTERNAL | MT_WRITE_PARTIAL | MT_WRITE_FIRST},
    {"baddbmm", MT_WRITE_INTERNAL | MT_WRITE_PARTIAL | MT_WRITE_FIRST},
    {"dot", 0},
    {"vdot", 0},
    {"mv", 0},
    {"addmv_", 0},
    {"bmm", 0},
    {"baddbmm_", 0},
    /* scattering reads its source while writing anywhere in the target */
    {"index_add_", MT_WRITE_INTERNAL | MT_WRITE_PARTIAL | MT_WRITE_DISJOINT},
    {"scatter_", MT_WRITE_INTERNAL | MT_WRITE_PARTIAL | MT_WRITE_DISJOINT},
    {"scatter_add_", MT_WRITE_INTERNAL | MT_WRITE_PARTIAL | MT_WRITE_DISJOINT},
    /* torch's reductions into out= check no partial overlap (mean checks
     * internal overlap); the result reaches out by a copy here */
    {"sum", 0},
    {"prod", 0},
    {"mean", MT_WRITE_INTERNAL},
    {"amax", MT_WRITE_INTERNAL},
    {"amin", MT_WRITE_INTERNAL},

    /* x[key] = v checks the indexed view, not x (interop/indexing.c) */
    {"__setitem__", 0},
};

unsigned mt_write_overlap_rule(const char *name)
{
    for (size_t i = 0; i < sizeof exceptions / sizeof exceptions[0]; i++)
        if (strcmp(exceptions[i].name, name) == 0)
            return exceptions[i].rule;
    return MT_WRITE_INTERNAL | MT_WRITE_PARTIAL;
}

int mt_check_write_overlap(const mt_op *op, const mt_args *a, const mt_tensor *target)
{
    unsigned rule = op->write_overlap;
    if ((rule & MT_WRITE_INTERNAL) && mt_check_internal_overlap(target) < 0)
        return -1;
    if (!(rule & MT_WRITE_PARTIAL))
        return 0;
    bool full = rule & MT_WRITE_DISJOINT;
    const mt_signature *s = a->sig;
    for (int p = 0; p < s->nparams; p++) {
        mt_argtype ty = s->params[p].type;
        if (p == s->out_param || (ty == MT_ARG_TENSOR && (!a->v[p].t || a->v[p].is_scalar)))
            continue;
        if (ty == MT_ARG_TENSOR) {
            /* an in-place row's self is its target, whatever the rule;
             * an out= that is input 0 is refused where inputs must be
             * disjoint, unless the rule lets it be */
            bool self = p == 0 && a->v[p].t == target &&
                        (!full || (rule & MT_WRITE_OUT_SELF) || mt_writes_inplace(op, a));
            if (!self && mt_check_overlap(target, a->v[p].t, full) < 0)
                return -1;
            if (rule & MT_WRITE_FIRST)
                return 0;
        } else if (ty == MT_ARG_TENSOR_LIST && a->v[p].obj) {
            for (int k = 0; k < a->v[p].nints; k++)
                if (mt_check_overlap(target, a->v[p].tensors[k], full) < 0)
                    return -1;
        }
    }
    return 0;
}
