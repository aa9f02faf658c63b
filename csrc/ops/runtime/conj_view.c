/* The conjugate bit at the op boundary (see conj_view.h): the resolving
 * run of a row not tagged MT_TAG_CONJ_VIEW given a conjugate view. Plain
 * C: makes tensors through the owner hooks. */
#include "conj_view.h"

#include "../memory_format.h"
#include "../out_param.h"
#include "../../kernels/copy.h"

#include <stdlib.h>

mt_tensor *mt_resolved_conj(const mt_tensor *t)
{
    mt_tensor *out = mt_new_in_format(t, t->dtype, MT_FORMAT_PRESERVE);
    if (out)
        mt_copy(out, t);
    return out;
}

/* t, or a resolved copy of it put in *made (NULL when none was needed). */
static int resolve_one(mt_tensor **slot, mt_tensor **made)
{
    *made = NULL;
    if (!*slot || !mt_is_conj(*slot))
        return 0;
    if (!(*made = mt_resolved_conj(*slot)))
        return -1;
    *slot = *made;
    return 0;
}

/* Puts the target's new values (in copy) back into it, conjugated by
 * mt_copy since the target carries the bit. */
static int write_back(mt_tensor *target, const mt_tensor *copy)
{
    if (!mt_same_shape(target, copy->ndim, copy->sizes) &&
        mt_resize_out_quietly(target, copy->ndim, copy->sizes) < 0)
        return -1;
    mt_copy(target, copy);
    mt_bump_version(target);
    return 0;
}

int mt_exec_resolving_conj(const mt_op *op, mt_args *a, mt_result *r, mt_tensor *target,
                           int (*run)(const mt_op *, mt_args *, mt_result *))
{
    const mt_signature *sig = a->sig;
    mt_tensor *orig[MT_MAX_PARAMS] = {0}, *made[MT_MAX_PARAMS] = {0};
    mt_tensor **lists[MT_MAX_PARAMS] = {0};
    mt_tensor *target_copy = NULL;
    int rc = -1;
    int tp = !target ? -1 : mt_writes_inplace(op, a) ? 0 : sig->out_param;
    for (int p = 0; p < sig->nparams; p++) {
        mt_value *v = &a->v[p];
        if (sig->params[p].type == MT_ARG_TENSOR && v->t) {
            orig[p] = v->t;
            if (resolve_one(&v->t, &made[p]) < 0)
                goto restore;
            if (p == tp)
                target_copy = made[p];
        } else if (sig->params[p].type == MT_ARG_TENSOR_LIST && v->obj && v->nints) {
            mt_tensor **copy = calloc((size_t)v->nints * 2, sizeof(mt_tensor *));
            if (!copy) {
                mt_error(MT_ERR_MEMORY, "out of memory");
                goto restore;
            }
            /* the resolved list, then the copies it made */
            for (int k = 0; k < v->nints; k++)
                copy[k] = v->tensors[k];
            lists[p] = v->tensors;
            v->tensors = copy;
            for (int k = 0; k < v->nints; k++)
                if (resolve_one(&copy[k], &copy[v->nints + k]) < 0)
                    goto restore;
        }
    }
    rc = run(op, a, r);
    if (rc == 0 && target_copy) {
        /* the impl answered with the copy it wrote: the target stands there */
        for (int i = 0; i < r->n; i++)
            if (r->t[i] == target_copy) {
                mt_retain(target);
                mt_release(target_copy);
                r->t[i] = target;
            }
        if (write_back(target, target_copy) < 0) {
            mt_result_clear(r);
            r->kind = MT_RESULT_NONE;
            rc = -1;
        }
    }
restore:
    for (int p = 0; p < sig->nparams; p++) {
        mt_value *v = &a->v[p];
        if (orig[p])
            v->t = orig[p];
        mt_xrelease(made[p]);
        if (lists[p]) {
            for (int k = 0; k < v->nints; k++)
                mt_xrelease(v->tensors[v->nints + k]);
            free(v->tensors);
            v->tensors = lists[p];
        }
    }
    return rc;
}
