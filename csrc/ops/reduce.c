/* Reductions, softmax and cumulative ops of the op table (csrc/ops/reduce.def):
 * argument checks, result dtypes and shapes in torch's words, then the
 * kernels' drivers. Plain C: it reads only typed arguments, makes and drops
 * tensors through core/owner.h, reports through core/error.h and calls into
 * core/ and kernels/; nothing here may touch the Python binding. */
#include "runtime/args.h"
#include "runtime/call.h"
#include "out_param.h"
#include "reduce.h"
#include "complex.h"
#include "convert.h"
#include "nuclear_norm.h"
#include "runtime/unlock.h"
#include "runtime/table.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../kernels/reduce.h"
#include "../kernels/softmax.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The dims to reduce from an int[]? argument; None or [] means all. */
static int dims_mask(const mt_tensor *t, const mt_value *v, bool *mask)
{
    memset(mask, 0, sizeof(bool) * MT_MAX_DIMS);
    if (!v->obj || v->nints == 0) {
        for (int d = 0; d < t->ndim; d++)
            mask[d] = true;
        return 0;
    }
    /* a 0-d tensor has one dim to name (0 or -1), which it may name only once */
    bool named[MT_MAX_DIMS] = {false};
    for (int k = 0; k < v->nints; k++) {
        int d;
        if (mt_wrap_dim(v->ints[k], t->ndim, &d) < 0)
            return -1;
        if (named[d])
            return mt_error(MT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims", d);
        named[d] = true;
        mask[d] = t->ndim > 0;
    }
    return 0;
}

/* The same from an int? argument. */
static int dim_mask(const mt_tensor *t, const mt_value *v, bool *mask)
{
    mt_value list = *v;
    list.nints = v->obj ? 1 : 0;
    list.ints = &list.i;
    return dims_mask(t, &list, mask);
}

static mt_tensor *new_result(const mt_tensor *t, const bool *mask, bool keepdim, mt_dtype dtype)
{
    int64_t sizes[MT_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (!mask[d])
            sizes[n++] = t->sizes[d];
        else if (keepdim)
            sizes[n++] = 1;
    }
    return mt_new(dtype, n, sizes, false);
}

mt_tensor *mt_contiguous_as(const mt_tensor *t, mt_dtype dtype)
{
    mt_tensor *r = mt_new(dtype, t->ndim, t->sizes, false);
    if (r)
        mt_copy(r, t);
    return r;
}

/* in, or (torch casts before reducing) its conversion to dtype, held in
 * *hold for the caller to release. */
static const mt_tensor *as_dtype(const mt_tensor *in, mt_dtype dtype, mt_tensor **hold)
{
    *hold = NULL;
    if (in->dtype == dtype)
        return in;
    return *hold = mt_contiguous_as(in, dtype);
}

/* Reduces in into a new tensor of out_dtype; optionally also the indices or
 * the mean (returned through *second). */
static mt_tensor *reduce(const mt_tensor *in, const bool *mask, bool keepdim, mt_dtype out_dtype,
                         mt_reduce_op op, double param, mt_tensor **second)
{
    if (mt_is_complex(in->dtype) &&
        !(in->dtype == out_dtype && !second && (op == MT_RED_SUM || op == MT_RED_MEAN))) {
        mt_error(MT_ERR_NOT_IMPLEMENTED, "reduction not implemented for '%s'",
                 mt_dtype_infos[in->dtype].scalar_name);
        return NULL;
    }
    if (mt_is_complex(in->dtype) && in->ndim == MT_MAX_DIMS) {
        mt_error(MT_ERR_RUNTIME, "minitorch: a complex reduction has at most %d dims",
                 MT_MAX_DIMS - 1);
        return NULL;
    }
    mt_tensor *out = new_result(in, mask, keepdim, out_dtype);
    if (!out)
        return NULL;
    bool all = true;
    for (int d = 0; d < in->ndim; d++)
        all &= mask[d];
    if (mt_is_complex(in->dtype) && all && mt_tensor_is_contiguous(in)) {
        /* the whole of a contiguous tensor: its parts as one run of pairs */
        double sums[2];
        mt_dtype part = mt_complex_part(in->dtype);
        void *tok = mt_unlock(2.0 * (double)in->numel);
        mt_sum_pairs(part, mt_data(in), in->numel, sums);
        mt_relock(tok);
        double k = op == MT_RED_MEAN ? 1.0 / (double)in->numel : 1.0;
        char *o = mt_data(out);
        for (int i = 0; i < 2; i++) {
            if (part == MT_FLOAT32)
                ((float *)o)[i] = (float)(sums[i] * k);
            else
                ((double *)o)[i] = sums[i] * k;
        }
        return out;
    }
    if (mt_is_complex(in->dtype)) {
        /* sums and means of complex numbers are those of their parts, each
         * pair's two parts kept apart by an unreduced last dim */
        bool pair_mask[MT_MAX_DIMS];
        memcpy(pair_mask, mask, sizeof(bool) * (size_t)in->ndim);
        pair_mask[in->ndim] = false;
        mt_tensor src = mt_complex_pairs(in), dst = mt_complex_pairs(out);
        void *tok = mt_unlock((double)src.numel);
        mt_reduce(&dst, NULL, &src, pair_mask, op, param, NULL);
        mt_relock(tok);
        return out;
    }
    bool idx = op == MT_RED_MAX || op == MT_RED_MIN;
    mt_tensor *extra = NULL;
    if (second) {
        extra = new_result(in, mask, keepdim, idx ? MT_INT64 : out_dtype);
        if (!extra) {
            mt_release(out);
            return NULL;
        }
        *second = extra;
    }
    mt_tensor src = *in; /* in's metadata may change while unlocked */
    void *tok = mt_unlock((double)src.numel);
    mt_reduce(out, extra && idx ? extra : NULL, &src, mask, op, param,
              extra && !idx ? extra : NULL);
    mt_relock(tok);
    return out;
}

static mt_tensor *reduce_cast(const mt_tensor *in, mt_dtype compute, const bool *mask, bool keepdim,
                              mt_reduce_op op, double param)
{
    mt_tensor *hold;
    const mt_tensor *src = as_dtype(in, compute, &hold);
    if (!src)
        return NULL;
    mt_tensor *r = reduce(src, mask, keepdim, compute, op, param, NULL);
    mt_xrelease(hold);
    return r;
}

/* The out= tensor of the dim forms of sum, prod and mean (param 4; the forms
 * without a dim have none): its dtype must be dtype='s when both are given. */
static int reduction_out(mt_args *a, mt_tensor **out)
{
    *out = a->sig->nparams > 4 && !mt_is_none(a, 4) ? a->v[4].t : NULL;
    if (*out && !mt_is_none(a, 3) && a->v[3].dtype != (*out)->dtype)
        return mt_error(MT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                        mt_dtype_infos[a->v[3].dtype].cpp_name,
                        mt_dtype_infos[(*out)->dtype].cpp_name);
    return 0;
}

static int reduced(mt_result *r, mt_tensor *res, mt_tensor *out)
{
    return out ? mt_result_into_out(r, res, out) : mt_result_tensor(r, res);
}

/* sum and prod: integers accumulate to int64 unless dtype= (or out='s
 * dtype) says otherwise. */
static int sum_like(mt_args *a, mt_result *r, bool single, mt_reduce_op op)
{
    mt_tensor *t = a->v[0].t, *o;
    bool mask[MT_MAX_DIMS];
    if ((single ? dim_mask(t, &a->v[1], mask) : dims_mask(t, &a->v[1], mask)) < 0 ||
        reduction_out(a, &o) < 0)
        return -1;
    mt_dtype out = mt_is_inexact(t->dtype) ? t->dtype : MT_INT64;
    if (!mt_is_none(a, 3))
        out = a->v[3].dtype;
    else if (o)
        out = o->dtype;
    /* uint16/32/64 sum in int64 only: torch's kernels have no entry for them */
    if (mt_is_barebones(out) && !mt_is_complex(out))
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'",
                        op == MT_RED_PROD ? "prod_out_cpu" : "sum_cpu",
                        mt_dtype_infos[out].scalar_name);
    return reduced(r, reduce_cast(t, out, mask, a->v[2].b, op, 0), o);
}

static mt_tensor *along(const mt_tensor *t, int dim, mt_line_op op, const char *kernel_name);

/* The product of complex numbers (in dtype, complex): the last of their
 * running product along dim, or over the flattened tensor when dim is None,
 * since the parts do not multiply apart; an empty product is 1. */
static mt_tensor *complex_prod(const mt_tensor *t, const mt_value *dimv, bool keepdim,
                               mt_dtype dtype)
{
    mt_tensor *hold;
    const mt_tensor *src = as_dtype(t, dtype, &hold);
    if (!src)
        return NULL;
    int d = 0;
    mt_tensor *line = NULL;
    if (!dimv->obj || src->ndim == 0) {
        int64_t all = -1;
        line = mt_exec(MT_OP_reshape, "TL", src, 1, &all);
    } else if (mt_wrap_dim(dimv->i, src->ndim, &d) == 0) {
        line = (mt_tensor *)src; /* a reference of our own, released below */
        mt_retain(line);
    }
    mt_xrelease(hold);
    if (!line)
        return NULL;
    mt_tensor *res;
    if (line->sizes[d] == 0) {
        int64_t sizes[MT_MAX_DIMS];
        for (int k = 0; k < line->ndim; k++)
            sizes[k] = k == d ? 1 : line->sizes[k];
        mt_tensor *ones = mt_new(dtype, line->ndim, sizes, false);
        if (ones)
            mt_fill_complex(ones, 1.0, 0.0);
        res = ones ? mt_exec(MT_OP_select, "Tii", ones, (int64_t)d, (int64_t)0) : NULL;
        mt_xrelease(ones);
    } else {
        mt_tensor *run = along(line, d, MT_LINE_CUMPROD, "");
        res = run ? mt_exec(MT_OP_select, "Tii", run, (int64_t)d, line->sizes[d] - 1) : NULL;
        mt_xrelease(run);
    }
    mt_release(line);
    if (res && keepdim && dimv->obj && t->ndim > 0) {
        mt_tensor *kept = mt_exec(MT_OP_unsqueeze, "Ti", res, (int64_t)d);
        mt_release(res);
        res = kept;
    }
    return res;
}

int impl_sum(mt_args *a, mt_result *r) { return sum_like(a, r, false, MT_RED_SUM); }
int impl_prod(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t, *o;
    if (reduction_out(a, &o) < 0)
        return -1;
    mt_dtype out = !mt_is_none(a, 3) ? a->v[3].dtype : o ? o->dtype : t->dtype;
    /* a complex input asked for a real product is cast first, as torch */
    if (!mt_is_complex(out))
        return sum_like(a, r, true, MT_RED_PROD);
    return reduced(r, complex_prod(t, &a->v[1], a->v[2].b, out), o);
}

int impl_mean(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t, *o;
    bool mask[MT_MAX_DIMS];
    mt_dtype out = mt_is_none(a, 3) ? t->dtype : a->v[3].dtype;
    if (!mt_is_inexact(out))
        return mt_error(MT_ERR_RUNTIME,
                        "mean(): could not infer output dtype. %s dtype must be either a "
                        "floating point or complex dtype. Got: %s",
                        mt_is_none(a, 3) ? "Input" : "Optional", mt_dtype_infos[out].scalar_name);
    if (dims_mask(t, &a->v[1], mask) < 0 || reduction_out(a, &o) < 0)
        return -1;
    if (o && !mt_is_inexact(o->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "result type %s can't be cast to the desired output type %s",
                        mt_dtype_infos[out].scalar_name, mt_dtype_infos[o->dtype].scalar_name);
    if (o)
        out = o->dtype;
    return reduced(r, reduce_cast(t, out, mask, a->v[2].b, MT_RED_MEAN, 0), o);
}

/* max/min/amax/amin/argmax/argmin need a non-empty reduction. amax and amin
 * name the first empty dim of their list as their caller wrote it (-1), the
 * others the wrapped dim: given_dims is amax's list (already checked by
 * dims_mask), or NULL. */
static int check_nonempty(const char *name, const mt_tensor *t, const bool *mask, bool dim_given,
                          const mt_value *given_dims)
{
    if (t->numel != 0)
        return 0;
    if (!dim_given) {
        if (strncmp(name, "arg", 3) == 0)
            return mt_error(MT_ERR_INDEX,
                            "%s(): Expected reduction dim to be specified for input.numel() == 0.",
                            name);
        return mt_error(MT_ERR_RUNTIME,
                        "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                        "Specify the reduction dim with the 'dim' argument.",
                        name);
    }
    for (int k = 0; given_dims && k < given_dims->nints; k++) {
        int64_t w = given_dims->ints[k];
        if (t->sizes[w < 0 ? w + t->ndim : w] == 0)
            return mt_error(MT_ERR_INDEX,
                            "%s(): Expected reduction dim %lld to have non-zero size.", name,
                            (long long)w);
    }
    for (int d = 0; d < t->ndim; d++)
        if (mask[d] && t->sizes[d] == 0)
            return mt_error(MT_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size.",
                            name, d);
    return 0;
}

/* amax/amin: an out= tensor must have the input's dtype (no cast, unlike sum's). */
static int amax_like(mt_args *a, mt_result *r, const char *name, mt_reduce_op op)
{
    mt_tensor *t = a->v[0].t;
    mt_tensor *o = mt_is_none(a, 3) ? NULL : a->v[3].t;
    bool mask[MT_MAX_DIMS];
    if (dims_mask(t, &a->v[1], mask) < 0 ||
        check_nonempty(name, t, mask, a->v[1].nints > 0, &a->v[1]) < 0)
        return -1;
    if (o && o->dtype != t->dtype)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected the dtype for input and out to match, but got %s for input's "
                        "dtype and %s for out's dtype.",
                        mt_dtype_infos[t->dtype].scalar_name, mt_dtype_infos[o->dtype].scalar_name);
    return reduced(r, reduce(t, mask, a->v[2].b, t->dtype, op, 0, NULL), o);
}

int impl_amax(mt_args *a, mt_result *r) { return amax_like(a, r, "amax", MT_RED_MAX); }
int impl_amin(mt_args *a, mt_result *r) { return amax_like(a, r, "amin", MT_RED_MIN); }

/* hash_tensor(input, dim=None, *, keepdim, mode, out): the xor of the
 * elements' 64-bit bits, each upcast to float64 (the floats) or int64 (the
 * integers and bool) first. The upcast is one copy into the reduced dims
 * moved last, so each output element is the xor of a contiguous run. */
int impl_hash_tensor(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    mt_tensor *o = mt_is_none(a, 4) ? NULL : a->v[4].t;
    bool mask[MT_MAX_DIMS];
    if (a->v[3].i != 0)
        return mt_error(MT_ERR_RUNTIME, "Unknown hash_tensor mode: %lld", (long long)a->v[3].i);
    /* torch's xor_sum_cpu knows the dtypes up to float64 only */
    if (mt_is_barebones(t->dtype))
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"xor_sum_cpu\" not implemented for '%s'",
                        mt_dtype_infos[t->dtype].scalar_name);
    if (dims_mask(t, &a->v[1], mask) < 0)
        return -1;
    if (t->numel == 0 && a->v[1].nints == 0)
        return mt_error(MT_ERR_RUNTIME,
                        "hash_tensor: Expected reduction dim to be specified for input.numel() == "
                        "0. Specify the reduction dim with the 'dim' argument.");
    for (int d = 0; d < t->ndim; d++)
        if (mask[d] && t->sizes[d] == 0)
            return mt_error(MT_ERR_INDEX,
                            "hash_tensor: Expected reduction dim %d to have non-zero size.", d);
    if (o && o->dtype != MT_UINT64)
        return mt_error(MT_ERR_RUNTIME, "Expected result to be of dtype uint64, but got %s",
                        mt_dtype_infos[o->dtype].scalar_name);
    bool keepdim = a->v[2].b;
    mt_tensor moved = *t;
    int64_t out_sizes[MT_MAX_DIMS], rows = 1, n = 1;
    int k = 0, out_ndim = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < t->ndim; d++)
            if (mask[d] == (pass == 1)) {
                moved.sizes[k] = t->sizes[d];
                moved.strides[k++] = t->strides[d];
            }
    for (int d = 0; d < t->ndim; d++) {
        if (mask[d])
            n *= t->sizes[d];
        else
            rows *= t->sizes[d];
        if (!mask[d] || keepdim)
            out_sizes[out_ndim++] = mask[d] ? 1 : t->sizes[d];
    }
    mt_tensor *wide =
        mt_new(mt_is_inexact(t->dtype) ? MT_FLOAT64 : MT_INT64, t->ndim, moved.sizes, false);
    mt_tensor *res = wide ? mt_new(MT_UINT64, out_ndim, out_sizes, false) : NULL;
    if (res) {
        mt_copy(wide, &moved);
        mt_xor_rows((uint64_t *)mt_data(res), (const uint64_t *)mt_data(wide), rows, n);
    }
    mt_xrelease(wide);
    return reduced(r, res, o);
}

/* aminmax(input, *, dim=None, keepdim) -> (min, max); torch words its empty
 * errors unlike amin's. */
int impl_aminmax(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    if (dim_mask(t, &a->v[1], mask) < 0)
        return -1;
    if (t->numel == 0) {
        if (mt_is_none(a, 1))
            return mt_error(MT_ERR_RUNTIME,
                            "aminmax(): cannot compute aminmax over an empty dimension as the "
                            "operation has no identity.");
        for (int d = 0; d < t->ndim; d++)
            if (mask[d] && t->sizes[d] == 0)
                return mt_error(MT_ERR_INDEX,
                                "aminmax: Expected reduction dim %d to have non-zero size.", d);
    }
    mt_tensor *lo = reduce(t, mask, a->v[2].b, t->dtype, MT_RED_MIN, 0, NULL);
    if (!lo)
        return -1;
    mt_tensor *hi = reduce(t, mask, a->v[2].b, t->dtype, MT_RED_MAX, 0, NULL);
    return mt_result_pair(r, lo, hi);
}

/* max(input) -> value; max(input, dim, keepdim) -> (values, indices). */
static int max_like(mt_args *a, mt_result *r, const char *name, mt_reduce_op op, bool with_dim)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    if ((with_dim ? dim_mask(t, &a->v[1], mask) : dims_mask(t, &(mt_value){0}, mask)) < 0 ||
        check_nonempty(name, t, mask, with_dim, NULL) < 0)
        return -1;
    if (!with_dim)
        return mt_result_tensor(r, reduce(t, mask, false, t->dtype, op, 0, NULL));
    mt_tensor *indices;
    mt_tensor *values = reduce(t, mask, a->v[2].b, t->dtype, op, 0, &indices);
    if (!values)
        return -1;
    return mt_result_pair(r, values, indices);
}

int impl_max(mt_args *a, mt_result *r)
{
    return max_like(a, r, "max", MT_RED_MAX, a->op->id == MT_OP_max_dim);
}

int impl_min(mt_args *a, mt_result *r)
{
    return max_like(a, r, "min", MT_RED_MIN, a->op->id == MT_OP_min_dim);
}

static int argmax_like(mt_args *a, mt_result *r, const char *name, mt_reduce_op op)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    if (t->dtype == MT_BOOL)
        return mt_error(MT_ERR_RUNTIME, "%s(): does not support bool input", name);
    if (dim_mask(t, &a->v[1], mask) < 0 ||
        check_nonempty(name, t, mask, !mt_is_none(a, 1), NULL) < 0)
        return -1;
    /* Without a dim the position is into the flattened input; keepdim keeps every dim. */
    return mt_result_tensor(r, reduce(t, mask, a->v[2].b, MT_INT64, op, 0, NULL));
}

int impl_argmax(mt_args *a, mt_result *r) { return argmax_like(a, r, "argmax", MT_RED_ARGMAX); }
int impl_argmin(mt_args *a, mt_result *r) { return argmax_like(a, r, "argmin", MT_RED_ARGMIN); }

/* all, any and count_nonzero ask only whether each element is nonzero: a
 * complex input is reduced as its truth values */
static mt_tensor *reduce_truth(const mt_tensor *t, const bool *mask, bool keepdim, mt_dtype out,
                               mt_reduce_op op)
{
    /* complex and unsigned elements are tested as bools, the reduction's
     * tables having no entry for them */
    if (!mt_is_complex(t->dtype) && !mt_is_barebones(t->dtype))
        return reduce(t, mask, keepdim, out, op, 0, NULL);
    mt_tensor *hold;
    const mt_tensor *b = as_dtype(t, MT_BOOL, &hold);
    mt_tensor *res = b ? reduce(b, mask, keepdim, out, op, 0, NULL) : NULL;
    mt_xrelease(hold);
    return res;
}

static int logical(mt_args *a, mt_result *r, mt_reduce_op op)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    if (dims_mask(t, &a->v[1], mask) < 0)
        return -1;
    mt_dtype out = t->dtype == MT_UINT8 ? MT_UINT8 : MT_BOOL;
    return mt_result_tensor(r, reduce_truth(t, mask, a->v[2].b, out, op));
}

int impl_all(mt_args *a, mt_result *r) { return logical(a, r, MT_RED_ALL); }
int impl_any(mt_args *a, mt_result *r) { return logical(a, r, MT_RED_ANY); }

int impl_count_nonzero(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    /* torch counts over every dim with nonzero's kernel, which has no
     * unsigned entry; over given dims it sums the elements' truth */
    if (mt_is_barebones(t->dtype) && mt_is_none(a, 1))
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"nonzero_count_cpu\" not implemented for '%s'",
                        mt_dtype_infos[t->dtype].scalar_name);
    if (dims_mask(t, &a->v[1], mask) < 0)
        return -1;
    return mt_result_tensor(r, reduce_truth(t, mask, false, MT_INT64, MT_RED_COUNT_NZ));
}

/* Reduces the last dim of t (a complex tensor's pairs) with op and param,
 * releasing t. */
static mt_tensor *fold_pairs(mt_tensor *t, mt_reduce_op op, double param)
{
    if (!t)
        return NULL;
    bool last[MT_MAX_DIMS] = {0};
    last[t->ndim - 1] = true;
    mt_tensor *r = reduce(t, last, false, t->dtype, op, param, NULL);
    mt_release(t);
    return r;
}

/* |z| of each element of complex t, of the part dtype: the 2-norm of its pair */
static mt_tensor *complex_abs(const mt_tensor *t)
{
    if (t->ndim == MT_MAX_DIMS) {
        mt_error(MT_ERR_RUNTIME, "minitorch: a complex reduction has at most %d dims",
                 MT_MAX_DIMS - 1);
        return NULL;
    }
    mt_tensor pairs = mt_complex_pairs(t);
    bool last[MT_MAX_DIMS] = {0};
    last[t->ndim] = true;
    return reduce(&pairs, last, false, pairs.dtype, MT_RED_NORM, 2, NULL);
}

/* The variance of complex numbers is the sum of their parts' (their
 * squared distances from the mean), a real number; the standard deviation
 * its root, the 2-norm of the parts' deviations. */
static mt_tensor *complex_spread(const mt_tensor *t, const bool *mask, bool keepdim,
                                 mt_reduce_op op, double correction)
{
    if (t->ndim == MT_MAX_DIMS) {
        mt_error(MT_ERR_RUNTIME, "minitorch: a complex reduction has at most %d dims",
                 MT_MAX_DIMS - 1);
        return NULL;
    }
    mt_tensor pairs = mt_complex_pairs(t);
    bool pair_mask[MT_MAX_DIMS];
    memcpy(pair_mask, mask, sizeof(bool) * (size_t)t->ndim);
    pair_mask[t->ndim] = false;
    mt_tensor *parts = reduce(&pairs, pair_mask, keepdim, pairs.dtype, op, correction, NULL);
    return op == MT_RED_STD ? fold_pairs(parts, MT_RED_NORM, 2) : fold_pairs(parts, MT_RED_SUM, 0);
}

/* var/std and var_mean/std_mean share three overloads:
 * 0: (input, unbiased), 1: (input, dim, unbiased, keepdim),
 * 2: (input, dim, *, correction, keepdim). */
static int moments(mt_args *a, mt_result *r, mt_reduce_op op, bool with_mean)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    double correction = 1;
    bool keepdim = false;
    mt_value none = {0};
    if (!mt_is_inexact(t->dtype))
        return mt_error(MT_ERR_RUNTIME, "%s only support floating point and complex dtypes",
                        !with_mean         ? "std and var"
                        : op == MT_RED_STD ? "std_mean"
                                           : "var_mean");
    switch (a->overload) {
    case 0:
        correction = a->v[1].b;
        break;
    case 1:
        correction = a->v[2].b;
        keepdim = a->v[3].b;
        break;
    default:
        correction = mt_is_none(a, 2) ? 1 : a->v[2].s.f;
        keepdim = a->v[3].b;
        break;
    }
    if (dims_mask(t, a->overload == 0 ? &none : &a->v[1], mask) < 0)
        return -1;
    if (mt_is_complex(t->dtype)) {
        mt_tensor *spread = complex_spread(t, mask, keepdim, op, correction);
        if (!spread || !with_mean)
            return mt_result_tensor(r, spread);
        mt_tensor *mean = reduce(t, mask, keepdim, t->dtype, MT_RED_MEAN, 0, NULL);
        if (!mean) {
            mt_release(spread);
            return -1;
        }
        return mt_result_pair(r, spread, mean);
    }
    if (!with_mean)
        return mt_result_tensor(r, reduce(t, mask, keepdim, t->dtype, op, correction, NULL));
    mt_tensor *mean = NULL;
    mt_tensor *spread = reduce(t, mask, keepdim, t->dtype, op, correction, &mean);
    if (!spread)
        return -1;
    /* torch gives var_mean and std_mean a plain tuple, no return_types name */
    return mt_result_pair(r, spread, mean);
}

int impl_var(mt_args *a, mt_result *r) { return moments(a, r, MT_RED_VAR, false); }
int impl_std(mt_args *a, mt_result *r) { return moments(a, r, MT_RED_STD, false); }
int impl_var_mean(mt_args *a, mt_result *r) { return moments(a, r, MT_RED_VAR, true); }
int impl_std_mean(mt_args *a, mt_result *r) { return moments(a, r, MT_RED_STD, true); }

/* A norm without an identity (p < 0 or inf) of an empty tensor: refused over
 * the whole tensor (dim None or empty) or over an empty dim, as torch words it
 * (the dim as given, run into "because"); p printed as torch prints a Scalar. */
static int empty_norm_dim(const mt_tensor *t, const mt_value *dims, double p)
{
    if (!dims->obj || dims->nints == 0)
        return mt_error(MT_ERR_RUNTIME,
                        "linalg.vector_norm cannot compute the %g norm on an empty tensor "
                        "because the operation does not have an identity",
                        p);
    for (int k = 0; k < dims->nints; k++) {
        int d;
        if (mt_wrap_dim(dims->ints[k], t->ndim, &d) < 0)
            return -1;
        if (t->sizes[d] == 0)
            return mt_error(MT_ERR_RUNTIME,
                            "linalg.vector_norm cannot compute the %g norm on the dimension "
                            "%lldbecause this dimension is empty and the operation does not "
                            "have an identity",
                            p, (long long)dims->ints[k]);
    }
    return 0;
}

/* norm(input, 'nuc', dim, keepdim, *, dtype): over the two dims in dim (both
 * of a matrix when None), with torch's matrix_norm checks. */
static int nuclear(mt_args *a, mt_result *r, mt_tensor *t)
{
    const mt_value *dims = &a->v[2];
    if (!mt_is_inexact(t->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "linalg.matrix_norm: Expected a floating point or complex tensor as "
                        "input. Got %s",
                        mt_dtype_infos[t->dtype].scalar_name);
    if (t->ndim < 2)
        return mt_error(MT_ERR_RUNTIME,
                        "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
    int n = dims->obj ? dims->nints : t->ndim, d[2];
    if (n != 2) {
        char shown[MT_MAX_DIMS * 24] = "";
        for (int k = 0, at = 0; k < n && at < (int)sizeof shown; k++)
            at += snprintf(shown + at, sizeof shown - at, "%s%lld", k ? " " : "",
                           (long long)(dims->obj ? dims->ints[k] : k));
        return mt_error(MT_ERR_RUNTIME, "linalg.matrix_norm: dim must be a 2-tuple. Got %s", shown);
    }
    for (int k = 0; k < 2; k++)
        if (mt_wrap_dim(dims->obj ? dims->ints[k] : k, t->ndim, &d[k]) < 0)
            return -1;
    if (d[0] == d[1])
        return mt_error(MT_ERR_RUNTIME,
                        "linalg.matrix_norm: dims must be different. Got (%lld, %lld)",
                        (long long)dims->ints[0], (long long)dims->ints[1]);
    mt_tensor *hold;
    const mt_tensor *src = as_dtype(t, mt_is_none(a, 4) ? t->dtype : a->v[4].dtype, &hold);
    mt_tensor *res = src ? mt_nuclear_norm(src, d[0], d[1], a->v[3].b) : NULL;
    mt_xrelease(hold);
    return mt_result_tensor(r, res);
}

/* norm(input, p, dim, keepdim, *, dtype): p a number, 'fro' (the 2-norm) or
 * 'nuc' (the nuclear norm of matrices). */
int impl_norm(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    double p = 2;
    if (a->op->id == MT_OP_norm) {
        if (!mt_is_none(a, 1))
            p = a->v[1].s.f;
    } else if (strcmp(a->v[1].str, "nuc") == 0) {
        return nuclear(a, r, t);
    } else if (strcmp(a->v[1].str, "fro") != 0) {
        return mt_error(MT_ERR_RUNTIME, "linalg.matrix_norm: Order %s not supported.", a->v[1].str);
    }
    if (!mt_is_inexact(t->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "linalg.vector_norm: Expected a floating point or complex tensor as "
                        "input. Got %s",
                        mt_dtype_infos[t->dtype].scalar_name);
    if ((p < 0 || p == INFINITY) && t->numel == 0 && empty_norm_dim(t, &a->v[2], p) < 0)
        return -1;
    if (dims_mask(t, &a->v[2], mask) < 0)
        return -1;
    mt_dtype out = mt_is_none(a, 4) ? t->dtype : a->v[4].dtype;
    if (!mt_is_complex(t->dtype))
        return mt_result_tensor(r, reduce_cast(t, out, mask, a->v[3].b, MT_RED_NORM, p));
    /* a complex tensor's norm is that of its elements' magnitudes */
    mt_tensor *mag = complex_abs(t);
    if (!mag)
        return -1;
    mt_tensor *res = reduce_cast(mag, mt_is_complex(out) ? mt_complex_part(out) : out, mask,
                                 a->v[3].b, MT_RED_NORM, p);
    mt_release(mag);
    return mt_result_tensor(r, res);
}

/* The largest real part over dims (kept as size 1 when keep), 0 where it is
 * infinite: the shift of a complex logsumexp. */
static mt_tensor *real_shift(const mt_tensor *re, int nd, const int64_t *dims, bool keep)
{
    mt_tensor *m = mt_exec(MT_OP_amax, "TLb", re, nd, dims, (int)keep);
    mt_tensor *inf = m ? mt_exec(MT_OP_isinf, "T", m) : NULL;
    mt_tensor *r = inf ? mt_exec(MT_OP_masked_fill, "TTf", m, inf, 0.0) : NULL;
    mt_xrelease(m);
    mt_xrelease(inf);
    return r;
}

/* torch's logsumexp of complex values: log(sum(exp(x - shift))) + shift over
 * the dims, the shift from the real parts (real_shift); without elements, the
 * plain log of the sum. */
static mt_tensor *logsumexp_complex(mt_tensor *t, const bool *mask, bool keepdim)
{
    int64_t dims[MT_MAX_DIMS];
    int nd = 0;
    for (int k = 0; k < t->ndim; k++)
        if (mask[k])
            dims[nd++] = k;
    mt_tensor *tmp[7] = {0}, *res = NULL;
    if (t->numel == 0) {
        tmp[0] = mt_exec(MT_OP_exp, "T", t);
        tmp[1] = tmp[0] ? mt_exec(MT_OP_sum_dim, "TLb", tmp[0], nd, dims, (int)keepdim) : NULL;
        res = tmp[1] ? mt_exec(MT_OP_log, "T", tmp[1]) : NULL;
    } else {
        mt_tensor *re = tmp[0] = mt_exec(MT_OP_real, "T", t);
        mt_tensor *kept = tmp[1] = re ? real_shift(re, nd, dims, true) : NULL;
        mt_tensor *shift = tmp[2] = kept ? real_shift(re, nd, dims, keepdim) : NULL;
        mt_tensor *d = tmp[3] = shift ? mt_exec(MT_OP_sub, "TT", t, kept) : NULL;
        mt_tensor *e = tmp[4] = d ? mt_exec(MT_OP_exp, "T", d) : NULL;
        mt_tensor *sum = tmp[5] =
            e ? mt_exec(MT_OP_sum_dim, "TLb", e, nd, dims, (int)keepdim) : NULL;
        mt_tensor *l = tmp[6] = sum ? mt_exec(MT_OP_log, "T", sum) : NULL;
        res = l ? mt_exec(MT_OP_add, "TT", l, shift) : NULL;
    }
    for (int k = 0; k < 7; k++)
        mt_xrelease(tmp[k]);
    return res;
}

int impl_logsumexp(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    if (dims_mask(t, &a->v[1], mask) < 0)
        return -1;
    if (mt_is_complex(t->dtype))
        return mt_result_tensor(r, logsumexp_complex(t, mask, a->v[2].b));
    mt_dtype out = mt_is_floating(t->dtype) ? t->dtype : mt_default_dtype;
    return mt_result_tensor(r, reduce(t, mask, a->v[2].b, out, MT_RED_LOGSUMEXP, 0, NULL));
}

/* ------------------------------------------------------------ along a dim */

static mt_tensor *along(const mt_tensor *t, int dim, mt_line_op op, const char *kernel_name)
{
    /* a running sum of complex numbers is that of each part apart, the
     * pairs' last dim left alone (a 0-d input is its own sum) */
    bool parts = mt_is_complex(t->dtype) && op == MT_LINE_CUMSUM && t->ndim < MT_MAX_DIMS;
    mt_line_fn fn = mt_line_kernel(op, parts ? mt_complex_part(t->dtype) : t->dtype);
    if (!fn) {
        mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel_name,
                 mt_dtype_infos[t->dtype].scalar_name);
        return NULL;
    }
    mt_tensor *out = mt_new(t->dtype, t->ndim, t->sizes, false);
    if (!out)
        return NULL;
    if (parts && t->ndim == 0) {
        mt_copy(out, t);
        return out;
    }
    mt_tensor src = parts ? mt_complex_pairs(t) : *t;
    mt_tensor dst = parts ? mt_complex_pairs(out) : *out;
    void *tok = mt_unlock((double)src.numel);
    mt_along_dim(&dst, &src, dim, fn, NULL);
    mt_relock(tok);
    return out;
}

/* softmax of a contiguous float32/float64 tensor along any dim: vector lanes
 * along its rows or across the inner dims (kernels/softmax.c). */
static mt_tensor *softmax_contiguous(const mt_tensor *t, int dim, bool is_log)
{
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < dim; k++)
        outer *= t->sizes[k];
    for (int k = dim + 1; k < t->ndim; k++)
        inner *= t->sizes[k];
    mt_tensor *out = mt_new(t->dtype, t->ndim, t->sizes, false);
    if (!out)
        return NULL;
    mt_tensor src = *t;
    void *tok = mt_unlock((double)src.numel);
    mt_softmax_forward(out, &src, outer, t->ndim ? t->sizes[dim] : 1, inner, is_log);
    mt_relock(tok);
    return out;
}

/* The dim nn.functional's softmax takes when given None (torch's legacy choice). */
static int64_t implicit_softmax_dim(int ndim)
{
    return ndim == 0 || ndim == 1 || ndim == 3 ? 0 : 1;
}

/* The CPU kernel torch's softmax runs, which its refusals name: the last
 * dim (or a 0-d input) has a kernel of its own. */
static const char *softmax_kernel(bool is_log, bool last)
{
    if (is_log)
        return last ? "log_softmax_lastdim_kernel_impl" : "log_softmax_kernel_impl";
    return last ? "softmax_lastdim_kernel_impl" : "softmax_kernel_impl";
}

/* The kernel a softmax row's call refuses a dtype in (its dim is param 1). */
const char *mt_softmax_kernel(const mt_args *a)
{
    int ndim = a->v[0].t->ndim;
    int64_t dim = a->v[1].obj ? a->v[1].i : implicit_softmax_dim(ndim);
    return softmax_kernel(strcmp(a->sig->name, "log_softmax") == 0,
                          ndim == 0 || dim == ndim - 1 || dim == -1);
}

/* softmax(input, dim, dtype) and the nn.functional form whose dim may be None. */
static int softmax_like(mt_args *a, mt_result *r, const mt_value *dimv, const mt_value *dtypev,
                        bool is_log)
{
    mt_tensor *t = a->v[0].t;
    int64_t dim;
    int d;
    if (dimv->obj) {
        dim = dimv->i;
    } else {
        if (mt_warn("Implicit dimension choice for %s has been deprecated. Change the call to "
                    "include dim=X as an argument.",
                    is_log ? "log_softmax" : "softmax") < 0)
            return -1;
        dim = implicit_softmax_dim(t->ndim);
    }
    if (mt_wrap_dim(dim, t->ndim, &d) < 0)
        return -1;
    mt_dtype compute = dtypev->obj ? dtypev->dtype : t->dtype;
    if (mt_warn_complex_to_real(t->dtype, compute) < 0)
        return -1;
    mt_tensor *hold;
    const mt_tensor *src = as_dtype(t, compute, &hold);
    if (!src)
        return -1;
    bool last = t->ndim == 0 || d == t->ndim - 1;
    const char *kname = softmax_kernel(is_log, last);
    bool fused = src->numel > 0 && mt_tensor_is_contiguous(src) &&
                 (src->dtype == MT_FLOAT32 || src->dtype == MT_FLOAT64);
    mt_tensor *out = fused ? softmax_contiguous(src, d, is_log)
                           : along(src, d, is_log ? MT_LINE_LOG_SOFTMAX : MT_LINE_SOFTMAX, kname);
    mt_xrelease(hold);
    return mt_result_tensor(r, out);
}

int impl_softmax(mt_args *a, mt_result *r) { return softmax_like(a, r, &a->v[1], &a->v[2], false); }

int impl_log_softmax(mt_args *a, mt_result *r)
{
    return softmax_like(a, r, &a->v[1], &a->v[2], true);
}

int impl_nn_softmax(mt_args *a, mt_result *r)
{
    return softmax_like(a, r, &a->v[1], &a->v[3], false);
}

int impl_nn_log_softmax(mt_args *a, mt_result *r)
{
    return softmax_like(a, r, &a->v[1], &a->v[3], true);
}

static int cumulative(mt_args *a, mt_result *r, mt_line_op op)
{
    mt_tensor *t = a->v[0].t;
    int d;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d) < 0)
        return -1;
    mt_dtype out = mt_is_inexact(t->dtype) ? t->dtype : MT_INT64;
    if (!mt_is_none(a, 2))
        out = a->v[2].dtype;
    if (out == MT_BOOL || mt_is_barebones(out))
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s_out_cpu\" not implemented for '%s'",
                        op == MT_LINE_CUMSUM ? "cumsum" : "cumprod",
                        mt_dtype_infos[out].scalar_name);
    mt_tensor *hold;
    const mt_tensor *src = as_dtype(t, out, &hold);
    if (!src)
        return -1;
    mt_tensor *res = along(src, d, op, "");
    mt_xrelease(hold);
    return mt_result_tensor(r, res);
}

int impl_cumsum(mt_args *a, mt_result *r) { return cumulative(a, r, MT_LINE_CUMSUM); }
int impl_cumprod(mt_args *a, mt_result *r) { return cumulative(a, r, MT_LINE_CUMPROD); }

/* logcumsumexp(input, dim, *, out): out= takes the result by copy, so that
 * out may be input itself. */
int impl_logcumsumexp(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    mt_tensor *o = mt_is_none(a, 2) ? NULL : a->v[2].t;
    int d;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d) < 0)
        return -1;
    if (o && o->dtype != t->dtype)
        return mt_error(MT_ERR_RUNTIME, "expected scalar_type %s but found %s",
                        mt_dtype_infos[t->dtype].scalar_name, mt_dtype_infos[o->dtype].scalar_name);
    return reduced(r, along(t, d, MT_LINE_LOGCUMSUMEXP, "logcumsumexp_out_cpu"), o);
}

/* cummax/cummin(input, dim) -> (values, indices) */
static int cum_extremum(mt_args *a, mt_result *r, const char *name, bool max)
{
    mt_tensor *t = a->v[0].t;
    int d;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d) < 0)
        return -1;
    mt_tensor *v = mt_new(t->dtype, t->ndim, t->sizes, false);
    mt_tensor *i = mt_new(MT_INT64, t->ndim, t->sizes, false);
    if (v && i && t->numel) {
        mt_tensor src = *t;
        void *tok = mt_unlock((double)src.numel);
        mt_along_dim_idx(v, i, &src, d, mt_cum_extremum_kernel(max, t->dtype));
        mt_relock(tok);
    }
    return mt_result_pair(r, v, i);
}

int impl_cummax(mt_args *a, mt_result *r) { return cum_extremum(a, r, "cummax", true); }
int impl_cummin(mt_args *a, mt_result *r) { return cum_extremum(a, r, "cummin", false); }
