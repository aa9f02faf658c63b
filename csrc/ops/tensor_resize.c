/* The rows of tensor.def that change a tensor's shape in place, resize_ and
 * resize_as_. The tensor takes contiguous strides (or the memory format's) at
 * its storage offset and its storage grows to hold them, keeping its bytes; a
 * storage never shrinks, and asking for the shape the tensor has changes
 * nothing. A tensor requiring grad is refused even under no_grad, as torch
 * refuses it (the rows' guard, autograd/guards.c). */
#include "runtime/args.h"
#include "memory_format.h"

#include <string.h>

static int resize(mt_tensor *t, int ndim, const int64_t *sizes, const mt_args *a, int mf,
                  mt_memory_format preserve_as)
{
    if (ndim > MT_MAX_DIMS)
        return mt_error(MT_ERR_RUNTIME, "minitorch supports at most %d dimensions, got %d",
                        MT_MAX_DIMS, ndim);
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0 || (sizes[d] && numel > INT64_MAX / sizes[d]))
            return mt_error(MT_ERR_RUNTIME, "numel: integer multiplication overflow");
        numel *= sizes[d];
    }
    bool given = !mt_is_none(a, mf);
    mt_memory_format f = mt_format_arg(a, mf, MT_FORMAT_CONTIGUOUS);
    if (given && f == MT_FORMAT_PRESERVE) {
        if (preserve_as == MT_FORMAT_PRESERVE)
            return mt_error(MT_ERR_RUNTIME, "Unsupported memory formatPreserve");
        f = preserve_as;
    }
    int64_t strides[MT_MAX_DIMS];
    bool same = t->ndim == ndim && memcmp(t->sizes, sizes, sizeof(int64_t) * ndim) == 0;
    if (same && !given)
        return 0;
    if (mt_format_strides(f, ndim, sizes, strides) < 0)
        return -1;
    size_t item = mt_itemsize(t->dtype);
    if (numel > 0 && (t->offset + numel) > (int64_t)(INT64_MAX / (int64_t)item))
        return mt_error(MT_ERR_RUNTIME, "numel: integer multiplication overflow");
    if (numel > 0 && mt_storage_grow(t->storage, (size_t)(t->offset + numel) * item) < 0)
        return -1;
    t->ndim = ndim;
    t->numel = numel;
    memcpy(t->sizes, sizes, sizeof(int64_t) * ndim);
    memcpy(t->strides, strides, sizeof(int64_t) * ndim);
    mt_bump_version(t);
    return 0;
}

static int self_result(mt_args *a, mt_result *r)
{
    mt_retain(a->v[0].t);
    return mt_result_tensor(r, a->v[0].t);
}

/* resize_(input, size, *, memory_format) */
int impl_resize_(mt_args *a, mt_result *r)
{
    if (resize(a->v[0].t, a->v[1].nints, a->v[1].ints, a, 2, MT_FORMAT_PRESERVE) < 0)
        return -1;
    return self_result(a, r);
}

/* resize_as_(input, the_template, *, memory_format): preserve_format takes
 * the template's layout */
int impl_resize_as_(mt_args *a, mt_result *r)
{
    const mt_tensor *tp = a->v[1].t;
    if (resize(a->v[0].t, tp->ndim, tp->sizes, a, 2, mt_suggest_format(tp)) < 0)
        return -1;
    return self_result(a, r);
}
