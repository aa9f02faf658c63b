/* The rows of softmax.def: the gradient of softmax / log_softmax from the
 * forward's output in one fused pass (kernels/softmax.c), computed in the
 * output's dtype (float16 and bfloat16 in float32) and given in input_dtype.
 * Plain C: no Python. */
#include "runtime/args.h"
#include "reduce.h"
#include "runtime/unlock.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../kernels/softmax.h"

/* t itself when it is contiguous and of dtype, else a converted copy held
 * in *hold (NULL on failure). */
static const mt_tensor *as_work(const mt_tensor *t, mt_dtype dtype, mt_tensor **hold)
{
    if (t->dtype == dtype && mt_tensor_is_contiguous(t))
        return t;
    return *hold = mt_contiguous_as(t, dtype);
}

static int softmax_backward_data(mt_args *a, mt_result *r, bool logsm)
{
    const char *name = logsm ? "_log_softmax_backward_data" : "_softmax_backward_data";
    const mt_tensor *g = a->v[0].t, *y = a->v[1].t;
    mt_dtype in_dtype = mt_is_none(a, 3) ? y->dtype : a->v[3].dtype;
    int d = 0;
    if (!mt_is_floating(y->dtype) || !mt_is_floating(in_dtype))
        return mt_error(MT_ERR_RUNTIME, "%s: expected floating point output and input_dtype", name);
    bool same = g->ndim == y->ndim;
    for (int k = 0; same && k < y->ndim; k++)
        same = g->sizes[k] == y->sizes[k];
    if (!same) {
        char gs[256], ys[256];
        mt_format_shape(gs, sizeof gs, g->ndim, g->sizes);
        mt_format_shape(ys, sizeof ys, y->ndim, y->sizes);
        return mt_error(MT_ERR_RUNTIME, "%s: grad_output %s does not match output %s", name, gs,
                        ys);
    }
    if (mt_wrap_dim(a->v[2].i, y->ndim, &d) < 0)
        return -1;
    mt_dtype work = y->dtype == MT_FLOAT64 ? MT_FLOAT64 : MT_FLOAT32;
    mt_tensor *gc = NULL, *yc = NULL;
    const mt_tensor *gw = as_work(g, work, &gc), *yw = gw ? as_work(y, work, &yc) : NULL;
    mt_tensor *res = yw ? mt_new(work, y->ndim, y->sizes, false) : NULL;
    if (res && res->numel > 0) {
        int64_t outer = 1, inner = 1;
        for (int k = 0; k < d; k++)
            outer *= y->sizes[k];
        for (int k = d + 1; k < y->ndim; k++)
            inner *= y->sizes[k];
        mt_tensor gs = *gw, ys = *yw; /* the kernel reads copies (unlock.h) */
        void *tok = mt_unlock((double)gs.numel);
        mt_softmax_backward(res, &gs, &ys, outer, y->ndim ? y->sizes[d] : 1, inner, logsm);
        mt_relock(tok);
    }
    mt_xrelease(gc);
    mt_xrelease(yc);
    if (res && res->dtype != in_dtype) {
        mt_tensor *cast = mt_contiguous_as(res, in_dtype);
        mt_release(res);
        res = cast;
    }
    return mt_result_tensor(r, res);
}

int impl_softmax_backward_data(mt_args *a, mt_result *r)
{
    return softmax_backward_data(a, r, false);
}

int impl_log_softmax_backward_data(mt_args *a, mt_result *r)
{
    return softmax_backward_data(a, r, true);
}
