/* The row of nn_adaptive_pool.def: adaptive max pooling of the last two or
 * three dims, giving the values and the flat indices of the maxima within
 * each plane (torch's indices). float16 and bfloat16 pool through float32,
 * exact for a maximum. The grad_fn is AdaptiveMaxPool2DBackward0 or
 * AdaptiveMaxPool3DBackward0 by the number of pooled dims, as torch's. */
#include "runtime/args.h"
#include "runtime/unlock.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../kernels/nn_adaptive_pool.h"

#include <string.h>

/* in, or a contiguous copy of it in float32/float64 (a new reference) */
static mt_tensor *float_source(mt_tensor *in, mt_dtype work)
{
    if (in->dtype == work && mt_tensor_is_contiguous(in)) {
        mt_retain(in);
        return in;
    }
    mt_tensor *t = mt_new(work, in->ndim, in->sizes, false);
    if (t)
        mt_copy(t, in);
    return t;
}

int impl_adaptive_max_pool(mt_args *a, mt_result *r)
{
    mt_tensor *in = a->v[0].t;
    int k = a->v[1].nints;
    const int64_t *osz = a->v[1].ints;
    const char *op = k == 3 ? "adaptive_max_pool3d" : "adaptive_max_pool2d";
    char shape[MT_MAX_DIMS * 22 + 3];
    if (k != 2 && k != 3)
        return mt_error(MT_ERR_RUNTIME, "adaptive_max_pool2d(): internal error: "
                                        "output_size.size() must be 2");
    mt_format_shape(shape, sizeof shape, in->ndim, in->sizes);
    if (in->ndim != k + 1 && in->ndim != k + 2)
        return mt_error(MT_ERR_RUNTIME, "%s(): Expected %dD or %dD tensor, but got: %s", op, k + 1,
                        k + 2, shape);
    for (int d = 1; d < in->ndim; d++)
        if (in->sizes[d] == 0)
            return mt_error(MT_ERR_RUNTIME,
                            "%s(): Expected input to have non-zero size for non-batch "
                            "dimensions, but input has sizes %s with dimension %d being empty",
                            op, shape, d);
    if (!mt_is_floating(in->dtype))
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", op,
                        mt_dtype_infos[in->dtype].scalar_name);
    int lead = in->ndim - k;
    int64_t sizes[MT_MAX_DIMS], planes = 1, insz[3] = {1, 1, 1}, o3[3] = {1, 1, 1};
    for (int d = 0; d < lead; d++) {
        sizes[d] = in->sizes[d];
        planes *= in->sizes[d];
    }
    for (int i = 0; i < k; i++) {
        sizes[lead + i] = osz[i];
        insz[3 - k + i] = in->sizes[lead + i];
        o3[3 - k + i] = osz[i];
    }
    mt_tensor *out = mt_new(in->dtype, in->ndim, sizes, false);
    mt_tensor *idx = out ? mt_new(MT_INT64, in->ndim, sizes, false) : NULL;
    mt_tensor *src = NULL, *work_out = NULL;
    if (!idx)
        goto fail;
    if (out->numel > 0) {
        mt_dtype work = in->dtype == MT_FLOAT64 ? MT_FLOAT64 : MT_FLOAT32;
        src = float_source(in, work);
        work_out = !src                 ? NULL
                   : work == out->dtype ? (mt_retain(out), out)
                                        : mt_new(work, in->ndim, sizes, false);
        if (!work_out)
            goto fail;
        void *tok = mt_unlock((double)in->numel);
        mt_adaptive_max_pool_forward(src, planes, insz, o3, work_out, idx);
        mt_relock(tok);
        if (work_out != out)
            mt_copy(out, work_out);
        mt_release(src);
        mt_release(work_out);
    }
    if (mt_result_alloc(r, MT_RESULT_TUPLE, 2) < 0)
        goto fail;
    r->t[0] = out;
    r->t[1] = idx;
    /* path 1: three pooled dims (the 3-d node, nn_adaptive_pool.def) */
    a->path = k == 3;
    return 0;
fail:
    mt_xrelease(out);
    mt_xrelease(idx);
    mt_xrelease(src);
    return -1;
}
