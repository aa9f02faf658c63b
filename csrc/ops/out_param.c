/* out= targets: torch resizes an out tensor of the wrong shape in place. */
#include "out_param.h"

#include "../core/shape.h"
#include "../kernels/copy.h"

bool mt_same_shape(const mt_tensor *t, int ndim, const int64_t *shape)
{
    if (t->ndim != ndim)
        return false;
    for (int d = 0; d < ndim; d++)
        if (t->sizes[d] != shape[d])
            return false;
    return true;
}

static int resize_out(mt_tensor *o, int ndim, const int64_t *shape, mt_storage **old, bool warn)
{
    if (old)
        *old = NULL;
    if (mt_same_shape(o, ndim, shape))
        return 0;
    if (o->numel && warn) {
        char a[256], b[256];
        mt_format_shape(a, sizeof a, o->ndim, o->sizes);
        mt_format_shape(b, sizeof b, ndim, shape);
        if (mt_warn("An output with one or more elements was resized since it had "
                    "shape %s, which does not match the required output shape %s. "
                    "This behavior is deprecated, and in a future PyTorch release "
                    "outputs will not be resized unless they have zero elements. You "
                    "can explicitly reuse an out tensor t by resizing it, inplace, to "
                    "zero elements with t.resize_(0).",
                    a, b) < 0)
            return -1;
    }
    mt_tensor fresh;
    if (mt_tensor_keep_counter(o) < 0 ||
        mt_tensor_init_contiguous(&fresh, o->dtype, ndim, shape, false) < 0)
        return -1;
    fresh.flags = o->flags;
    fresh.counter = o->counter;
    if (old)
        *old = o->storage;
    else
        mt_storage_decref(o->storage);
    *o = fresh;
    return 0;
}

int mt_resize_out(mt_tensor *o, int ndim, const int64_t *shape, mt_storage **old)
{
    return resize_out(o, ndim, shape, old, true);
}

int mt_resize_out_quietly(mt_tensor *o, int ndim, const int64_t *shape)
{
    return resize_out(o, ndim, shape, NULL, false);
}

int mt_result_into_out(mt_result *r, mt_tensor *res, mt_tensor *out)
{
    if (!res)
        return -1;
    int rc = mt_resize_out(out, res->ndim, res->sizes, NULL);
    if (rc == 0)
        mt_copy(out, res);
    mt_release(res);
    if (rc < 0)
        return -1;
    mt_retain(out);
    return mt_result_tensor(r, out);
}
