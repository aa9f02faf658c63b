/* Steps shared by the rows that make new tensors: those of creation.c and
 * random.c, and tensor() from Python data in the binding. */
#ifndef MT_OPS_CREATION_H
#define MT_OPS_CREATION_H

#include "runtime/args.h"

/* Marks t as requiring grad when asked (floating dtypes only, as torch);
 * -1 with an error otherwise, t left as it was. */
int mt_set_requires_grad_arg(mt_tensor *t, bool requires_grad);
/* The result of a factory: t (consumed), marked as requiring grad when
 * asked; -1 when t is NULL or cannot require grad. */
int mt_result_made(mt_result *r, mt_tensor *t, bool requires_grad);
/* Whether s converts to dtype d as torch converts a fill value or an alpha:
 * -1 with torch's "value cannot be converted" error when it does not fit. */
int mt_check_scalar_fits(const mt_scalar *s, mt_dtype d);
/* Every element of t set to s, converted to t's dtype. */
void mt_fill_scalar(mt_tensor *t, const mt_scalar *s);
/* An uninitialised tensor shaped like src, laid out like it
 * (torch.preserve_format). */
mt_tensor *mt_empty_like(const mt_tensor *src, mt_dtype dtype);
/* The dtype argument at index i, or fallback when None. */
static inline mt_dtype mt_dtype_arg(const mt_args *a, int i, mt_dtype fallback)
{
    return mt_is_none(a, i) ? fallback : a->v[i].dtype;
}

#endif
