/* The elementwise driver (elementwise.h). Plain C: it may touch tensors,
 * storages and kernels, makes and drops tensors only through the owner hooks
 * (core/owner.h) and reports through mt_error; no Python. */
#include "elementwise.h"
#include "runtime/unlock.h"
#include "out_param.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../core/hot.h"

/* Elements per thread chunk. */
#define MT_POINTWISE_GRAIN 32768

MT_HOT void mt_operand_from(mt_operand *op, const mt_value *v)
{
    if (!v->is_scalar) {
        op->t = *v->t;
        op->kind = v->t->ndim == 0 ? MT_OPERAND_ZERO_DIM : MT_OPERAND_DIM;
        return;
    }
    op->kind = MT_OPERAND_WRAPPED;
    op->st = (mt_storage){.refcount = 1, .data = &op->num};
    op->t = (mt_tensor){.storage = &op->st, .numel = 1, .ndim = 0};
    switch (v->s.kind) {
    case MT_SCALAR_BOOL:
        op->num.b = (uint8_t)v->s.i;
        op->t.dtype = MT_BOOL;
        break;
    case MT_SCALAR_INT:
        op->num.i = v->s.i;
        op->t.dtype = MT_INT64;
        break;
    case MT_SCALAR_FLOAT:
        op->num.f = v->s.f;
        op->t.dtype = MT_FLOAT64;
        break;
    case MT_SCALAR_COMPLEX:
        op->num.c[0] = v->s.f;
        op->num.c[1] = v->s.im;
        op->t.dtype = MT_COMPLEX128;
        break;
    }
}

static inline void operand_dtypes(int n, const mt_operand *ops, mt_dtype *d, mt_operand_kind *k)
{
    for (int i = 0; i < n; i++) {
        d[i] = ops[i].t.dtype;
        k[i] = ops[i].kind;
    }
}

MT_HOT mt_dtype mt_operands_result_type(int n, const mt_operand *ops)
{
    mt_dtype d[MT_ITER_MAX_OPS];
    mt_operand_kind k[MT_ITER_MAX_OPS];
    operand_dtypes(n, ops, d, k);
    return mt_result_type(n, d, k, mt_default_dtype);
}

MT_HOT int mt_operands_result_type_checked(int n, const mt_operand *ops, mt_dtype *out)
{
    mt_dtype d[MT_ITER_MAX_OPS];
    mt_operand_kind k[MT_ITER_MAX_OPS];
    operand_dtypes(n, ops, d, k);
    return mt_result_type_checked(n, d, k, mt_default_dtype, out);
}

static int shape_mismatch(const char *what, const mt_tensor *o, int ndim, const int64_t *shape)
{
    char a[256], b[256];
    mt_format_shape(a, sizeof a, o->ndim, o->sizes);
    mt_format_shape(b, sizeof b, ndim, shape);
    return mt_error(MT_ERR_RUNTIME, "%s with shape %s doesn't match the broadcast shape %s", what,
                    a, b);
}

/* Checks an out= or in-place target against the result; an out= tensor of
 * another shape is resized, its old storage handed back in *old. */
static int check_target(mt_tensor *o, bool inplace, mt_dtype result, int ndim, const int64_t *shape,
                        mt_storage **old)
{
    if (!mt_can_cast(result, o->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "result type %s can't be cast to the desired output type %s",
                        mt_dtype_infos[result].scalar_name, mt_dtype_infos[o->dtype].scalar_name);
    if (mt_same_shape(o, ndim, shape))
        return 0;
    if (inplace)
        return shape_mismatch("output", o, ndim, shape);
    return mt_resize_out(o, ndim, shape, old);
}

MT_HOT mt_tensor *mt_pointwise(const mt_kernel_ref *k, int nin, mt_operand *in, mt_dtype compute,
                               mt_dtype result, mt_tensor *out, mt_tensor *inplace_self)
{
    int ndim = 0;
    int64_t shape[MT_MAX_DIMS];
    mt_tensor *tmp[MT_ITER_MAX_OPS] = {NULL};
    mt_tensor *ret = NULL, *dest, *scratch = NULL;
    mt_storage *old_storage = NULL;
    mt_loop_fn loop = k->loop_for(k->op, compute);
    mt_dtype kout = k->out_bool ? MT_BOOL : k->out_part ? mt_complex_part(compute) : compute;
    if (!loop) {
        mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", k->name,
                 mt_dtype_infos[compute].scalar_name);
        return NULL;
    }
    for (int i = 0; i < nin; i++)
        if (mt_broadcast_into(&ndim, shape, in[i].t.ndim, in[i].t.sizes) < 0)
            return NULL;
    mt_tensor *target = inplace_self ? inplace_self : out;
    if (target) {
        if (check_target(target, inplace_self != NULL, result, ndim, shape, &old_storage) < 0)
            return NULL;
        mt_retain(target);
        dest = target;
    } else {
        int64_t strides[MT_MAX_DIMS];
        const mt_tensor *ins[MT_ITER_MAX_OPS];
        int nt = 0;
        for (int i = 0; i < nin; i++)
            if (in[i].kind != MT_OPERAND_WRAPPED)
                ins[nt++] = &in[i].t;
        mt_output_strides_like(nt, ins, ndim, shape, strides);
        dest = mt_new_strided(result, ndim, shape, strides);
        if (!dest)
            return NULL;
    }
    /* Inputs not of the compute dtype are converted first; numbers in place,
     * so a tensor-and-number op allocates nothing but its result. */
    const mt_tensor *ops[MT_ITER_MAX_OPS];
    mt_tensor num_t[MT_ITER_MAX_OPS];
    mt_storage num_st[MT_ITER_MAX_OPS];
    /* room for the widest number, a complex128 */
    _Alignas(16) double num[MT_ITER_MAX_OPS][2];
    for (int i = 0; i < nin; i++) {
        if (in[i].t.dtype == compute) {
            ops[i + 1] = &in[i].t;
            continue;
        }
        if (in[i].kind == MT_OPERAND_WRAPPED) {
            num_st[i] = (mt_storage){.refcount = 1, .data = &num[i]};
            num_t[i] = (mt_tensor){.storage = &num_st[i], .numel = 1, .dtype = compute};
            char *d[2] = {(char *)&num[i], mt_data(&in[i].t)};
            int64_t s[2] = {0, 0};
            mt_cast_loop(compute, in[i].t.dtype)(d, s, 1, NULL);
            ops[i + 1] = &num_t[i];
            continue;
        }
        tmp[i] = mt_new(compute, in[i].t.ndim, in[i].t.sizes, false);
        if (!tmp[i])
            goto done;
        mt_copy(tmp[i], &in[i].t);
        ops[i + 1] = tmp[i];
    }
    mt_tensor *o = dest;
    if (o->dtype != kout) {
        scratch = mt_new(kout, ndim, shape, false);
        if (!scratch)
            goto done;
        o = scratch;
    }
    ops[0] = o;
    if (o->numel) {
        mt_iter it;
        mt_iter_init(&it, nin + 1, ops, ndim, shape);
        void *tok = mt_unlock((double)o->numel);
        mt_iter_run(&it, loop, k->ctx, MT_POINTWISE_GRAIN);
        mt_relock(tok);
    }
    if (scratch)
        mt_copy(dest, o);
    if (target)
        mt_bump_version(dest);
    ret = dest;
    dest = NULL;
done:
    for (int i = 0; i < nin; i++)
        mt_xrelease(tmp[i]);
    mt_xrelease(scratch);
    mt_xrelease(dest);
    if (old_storage)
        mt_storage_decref(old_storage);
    return ret;
}
