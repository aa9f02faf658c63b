/* Tensor creation through the owner hooks: the host makes the object, the
 * core gives it storage and geometry. */
#include "owner.h"
#include "error.h"
#include "hot.h"

#include <string.h>

mt_owner_hooks mt_owner;

static mt_tensor *blank(void)
{
    if (!mt_owner.make) {
        mt_error(MT_ERR_RUNTIME, "minitorch: no tensor owner installed");
        return NULL;
    }
    return mt_owner.make();
}

MT_HOT mt_tensor *mt_new(mt_dtype dtype, int ndim, const int64_t *sizes, bool zeroed)
{
    mt_tensor *t = blank();
    if (t && mt_tensor_init_contiguous(t, dtype, ndim, sizes, zeroed) < 0) {
        mt_release(t);
        return NULL;
    }
    return t;
}

MT_HOT mt_tensor *mt_new_strided(mt_dtype dtype, int ndim, const int64_t *sizes,
                                 const int64_t *strides)
{
    mt_tensor *t = mt_new(dtype, ndim, sizes, false);
    if (t && ndim)
        memcpy(t->strides, strides, sizeof(int64_t) * ndim);
    return t;
}

mt_tensor *mt_new_view(const mt_tensor *base, int ndim, const int64_t *sizes,
                       const int64_t *strides, int64_t offset)
{
    mt_tensor *t = blank();
    if (t && mt_tensor_init_view(t, base, ndim, sizes, strides, offset) < 0) {
        mt_release(t);
        return NULL;
    }
    return t;
}

mt_tensor *mt_alias(const mt_tensor *t)
{
    return mt_new_view(t, t->ndim, t->sizes, t->strides, t->offset);
}
