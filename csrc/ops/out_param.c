/* out= targets: torch resizes an out tensor of the wrong shape in place. */
#include "out_param.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "convert.h"
#include "runtime/signature.h"
#include "runtime/table.h"

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
    if (rc == 0) {
        mt_copy(out, res);
        mt_bump_version(out);
    }
    mt_release(res);
    if (rc < 0)
        return -1;
    mt_retain(out);
    return mt_result_tensor(r, out);
}

int mt_check_out_dtype(mt_out_rule rule, mt_dtype result, const mt_tensor *out)
{
    if (rule == MT_OUT_SAME_DTYPE && result != out->dtype)
        return mt_error(MT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                        mt_dtype_infos[result].cpp_name, mt_dtype_infos[out->dtype].cpp_name);
    if (!mt_can_cast(result, out->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "result type %s can't be cast to the desired output type %s",
                        mt_dtype_infos[result].scalar_name, mt_dtype_infos[out->dtype].scalar_name);
    return 0;
}

/* The results of a tuple-returning row handed over into its out= tensors
 * (max(x, dim, out=(values, indices))): each must have its result's dtype. */
static int tuple_into_outs(mt_result *r, const mt_value *outs)
{
    if (r->kind != MT_RESULT_TUPLE || r->n != outs->nints) {
        int n = r->n;
        mt_result_clear(r);
        return mt_error(MT_ERR_TYPE, "expected tuple of %d elements but got %d", n, outs->nints);
    }
    for (int k = 0; k < r->n; k++) {
        mt_tensor *res = r->t[k], *out = outs->tensors[k];
        if (mt_check_out_dtype(MT_OUT_SAME_DTYPE, res->dtype, out) < 0 ||
            mt_resize_out(out, res->ndim, res->sizes, NULL) < 0) {
            mt_result_clear(r);
            return -1;
        }
        mt_copy(out, res);
        mt_bump_version(out);
        mt_release(res);
        mt_retain(out);
        r->t[k] = out;
    }
    return 0;
}

int mt_exec_out_by_copy(const mt_op *op, mt_args *a, mt_result *r)
{
    int p = a->sig->out_param, d = a->sig->dtype_param;
    mt_value given = a->v[p];
    mt_tensor *out = given.t;
    bool take_dtype = op->out_rule == MT_OUT_TAKES_DTYPE && d >= 0 && mt_is_none(a, d);
    a->v[p].obj = NULL;
    a->v[p].t = NULL;
    a->v[p].tensors = NULL;
    a->v[p].nints = 0;
    if (take_dtype) {
        a->v[d].obj = MT_GIVEN;
        a->v[d].dtype = out->dtype;
    }
    mt_tensor *input = a->v[0].t, *widened = NULL;
    if (op->out_rule == MT_OUT_REDUCES_IN_ITS_DTYPE && mt_is_floating(input->dtype) &&
        mt_is_floating(out->dtype) && input->dtype != out->dtype) {
        if (!(widened = mt_to_dtype(input, out->dtype, false)))
            return -1;
        a->v[0].t = widened;
    }
    int rc = op->impl(a, r);
    a->v[0].t = input;
    mt_xrelease(widened);
    a->v[p] = given;
    if (take_dtype)
        a->v[d].obj = NULL;
    if (rc < 0)
        return -1;
    if (a->sig->params[p].type == MT_ARG_TENSOR_LIST)
        return tuple_into_outs(r, &given);
    if (r->kind != MT_RESULT_TENSOR || r->n != 1) {
        mt_result_clear(r);
        return mt_error(MT_ERR_RUNTIME, "%s(): out= is given one tensor, but the call returns %d",
                        a->sig->name, r->n);
    }
    mt_tensor *res = r->t[0];
    r->t[0] = NULL;
    mt_result_clear(r);
    if (mt_check_out_dtype(op->out_rule, res->dtype, out) < 0) {
        mt_release(res);
        return -1;
    }
    return mt_result_into_out(r, res, out);
}
