/* Binary and ternary elementwise ops of the op table (rows in pointwise.def):
 * their torch checks and dtype rules, then the shared driver (elementwise.h).
 * Plain C: reads only typed arguments, makes tensors through the owner hooks,
 * reports through mt_error; no Python. The operators with a NumPy operand
 * stay in the binding (csrc/python/pointwise_numpy.c). */
#include "elementwise.h"
#include "runtime/table.h"
#include "runtime/call.h"

#include <string.h>

#include "../kernels/pointwise.h"
#include "../core/hot.h"

MT_HOT static mt_loop_fn binary_loop_for(int op, mt_dtype d)
{
    return mt_binary_loop((mt_binary_op)op, d);
}

enum {
    F_INPLACE = 1 << 0,    /* write into input */
    F_REVERSED = 1 << 1,   /* reflected dunder: other (op) input */
    F_TO_FLOAT = 1 << 2,   /* integral results compute in the default float dtype */
    F_SUB = 1 << 3,        /* sub: add with -alpha, refused for bool */
    F_SAME_DTYPE = 1 << 4, /* heaviside: no promotion between the operands */
    F_NO_HALF = 1 << 5,    /* float16/bfloat16 refused: torch's kernel has no entry for them */
};

static int not_bool_sub(const mt_operand *in)
{
    if (in[0].t.dtype == MT_BOOL && in[1].t.dtype == MT_BOOL)
        return mt_error(MT_ERR_RUNTIME,
                        "Subtraction, the `-` operator, with two bool tensors is not "
                        "supported. Use the `^` or `logical_xor()` operator instead.");
    return mt_error(MT_ERR_RUNTIME,
                    "Subtraction, the `-` operator, with a bool tensor is not supported. "
                    "If you are trying to invert a mask, use the `~` or `logical_not()` "
                    "operator instead.");
}

static mt_tensor *run(mt_binary_op op, const char *name, int nin, mt_operand *in, mt_dtype compute,
                      mt_binary_ctx *ctx, mt_tensor *out, mt_tensor *self)
{
    bool pred = mt_binary_is_predicate(op);
    mt_kernel_ref k = {binary_loop_for, op, ctx, name, pred};
    mt_tensor *r = mt_pointwise(&k, nin, in, compute, pred ? MT_BOOL : compute, out, self);
    if (r && ctx->zero_div) {
        mt_release(r);
        mt_error(MT_ERR_RUNTIME, "ZeroDivisionError");
        return NULL;
    }
    return r;
}

/* The parameter after the operands is alpha when it is a Scalar (add, sub). */
static int alpha_param(const mt_signature *sig)
{
    return sig->nparams > 2 && sig->params[2].type == MT_ARG_SCALAR ? 2 : -1;
}

/* One binary operator in any of its forms (a->op->form): in place writes
 * into input, reflected computes other (op) input. */
MT_HOT static int binary(mt_args *a, mt_result *r, mt_binary_op op, const char *name,
                         unsigned flags)
{
    if (mt_inplace_target(a))
        flags |= F_INPLACE;
    if (a->op->form == MT_FORM_RDUNDER)
        flags |= F_REVERSED;
    int alpha_idx = alpha_param(a->sig);
    mt_operand in[2];
    int first = flags & F_REVERSED ? 1 : 0;
    mt_operand_from(&in[first], &a->v[0]);
    mt_operand_from(&in[1 - first], &a->v[1]);
    if ((flags & F_SAME_DTYPE) && in[0].t.dtype != in[1].t.dtype)
        return mt_error(MT_ERR_RUNTIME,
                        "heaviside is not yet implemented for tensors with different dtypes.");
    mt_dtype result;
    if (mt_operands_result_type_checked(2, in, &result) < 0)
        return -1;
    if ((flags & F_SUB) && (in[0].t.dtype == MT_BOOL || in[1].t.dtype == MT_BOOL))
        return not_bool_sub(in);
    if ((flags & F_TO_FLOAT) && !mt_is_inexact(result))
        result = mt_default_dtype;
    if ((flags & F_NO_HALF) && (result == MT_FLOAT16 || result == MT_BFLOAT16))
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name,
                        mt_dtype_infos[result].scalar_name);
    mt_binary_ctx ctx = {.alpha_f = 1.0, .alpha_i = 1};
    if (alpha_idx >= 0) {
        const mt_scalar *al = &a->v[alpha_idx].s;
        if (al->kind == MT_SCALAR_FLOAT && !mt_is_inexact(result))
            return mt_error(MT_ERR_RUNTIME,
                            "For integral input tensors, argument alpha must not be a "
                            "floating point number.");
        if (al->kind == MT_SCALAR_COMPLEX && !mt_is_complex(result))
            return mt_error(MT_ERR_RUNTIME,
                            "For non-complex input tensors, argument alpha must not be a "
                            "complex number.");
        if (al->kind == MT_SCALAR_BOOL && result != MT_BOOL)
            return mt_error(MT_ERR_RUNTIME, "Boolean alpha only supported for Boolean results.");
        ctx.alpha_f = al->f;
        ctx.alpha_i = al->i;
        ctx.alpha_im = al->im;
    }
    if (flags & F_SUB) {
        ctx.alpha_f = -ctx.alpha_f;
        ctx.alpha_im = -ctx.alpha_im;
        ctx.alpha_i = (int64_t)(0 - (uint64_t)ctx.alpha_i);
    }
    if (op == MT_BIN_POW && !mt_is_inexact(result) && in[1].kind == MT_OPERAND_WRAPPED &&
        in[1].t.dtype == MT_INT64 && in[1].num.i < 0)
        return mt_error(MT_ERR_RUNTIME, "Integers to negative integer powers are not allowed.");
    return mt_result_tensor(r, run(op, name, 2, in, result, &ctx, mt_out_target(a),
                                   flags & F_INPLACE ? a->v[0].t : NULL));
}

/* name(input, other, ...) in its forms, for each MT_BINARY_OPERATOR and
 * MT_BINARY row of pointwise.def */
#define MT_BINARY_OPERATOR(ID, STEM, FORMS, SIG, DERIV, RDERIV, KERNEL, KNAME, FLAGS) \
    int impl_##ID(mt_args *a, mt_result *r) { return binary(a, r, MT_##KERNEL, KNAME, FLAGS); }
#define MT_BINARY(ID, SIG, DERIV, KERNEL, KNAME, FLAGS) \
    MT_BINARY_OPERATOR(ID, , , SIG, DERIV, , KERNEL, KNAME, FLAGS)
/* and special_name(x, y, *, out=None), integral results in the default float */
#define HALF_OK 0
#define NO_HALF F_NO_HALF
#define MT_SPECIAL_BINARY(NAME, PARAMS, DERIV, KERNEL, KNAME, HALF) \
    MT_BINARY_OPERATOR(special_##NAME, , , , DERIV, , KERNEL, KNAME, F_TO_FLOAT | HALF)
#include "../ops.def"
#undef MT_BINARY_OPERATOR
#undef MT_BINARY
#undef MT_SPECIAL_BINARY
#undef HALF_OK
#undef NO_HALF

/* div(input, other, *, rounding_mode=None, out=None) and div_ */
int impl_div(mt_args *a, mt_result *r)
{
    const char *mode = mt_is_none(a, 2) ? NULL : a->v[2].str;
    if (!mode)
        return binary(a, r, MT_BIN_DIV, "div_true_cpu", F_TO_FLOAT);
    if (strcmp(mode, "trunc") == 0)
        return binary(a, r, MT_BIN_DIV_TRUNC, "div_trunc_cpu", 0);
    if (strcmp(mode, "floor") == 0)
        return binary(a, r, MT_BIN_DIV_FLOOR, "div_floor_cpu", 0);
    return mt_error(MT_ERR_RUNTIME,
                    "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                    "but found '%s'",
                    mode);
}

/* where(condition, input, other) with the three taken from args c, x, y; the
 * condition is read as the compute dtype. */
static int where(mt_args *a, mt_result *r, int c, int x, int y)
{
    mt_operand in[3];
    mt_operand_from(&in[0], &a->v[c]);
    mt_operand_from(&in[1], &a->v[x]);
    mt_operand_from(&in[2], &a->v[y]);
    if (in[0].t.dtype != MT_BOOL && in[0].kind != MT_OPERAND_WRAPPED)
        return mt_error(MT_ERR_RUNTIME,
                        "where expected condition to be a boolean tensor, but got a "
                        "tensor with dtype %s",
                        mt_dtype_infos[in[0].t.dtype].scalar_name);
    mt_dtype result = mt_operands_result_type(2, in + 1);
    mt_binary_ctx ctx = {0};
    return mt_result_tensor(r, run(MT_TER_WHERE, "where_cpu", 3, in, result, &ctx, NULL, NULL));
}

int impl_where(mt_args *a, mt_result *r) { return where(a, r, 0, 1, 2); }
/* x.where(condition, other): self is the input, as in torch */
int impl_where_method(mt_args *a, mt_result *r) { return where(a, r, 1, 0, 2); }

/* clamp(input, min=None, max=None), clamp_min(input, min), clamp_max(input, max):
 * the bounds are params lo and hi (-1: the op has none); an absent bound is
 * replaced by input itself and ignored by the kernel. Number bounds take
 * torch's Scalar overloads, whose checks differ: no bool, an out= of exactly
 * the result dtype, and an in-place message naming the C++ type. */
static int clamp(mt_args *a, mt_result *r, int lo, int hi)
{
    mt_operand in[3];
    int bound[2] = {lo, hi};
    mt_binary_ctx ctx = {.has_lo = lo >= 0 && !mt_is_none(a, lo),
                         .has_hi = hi >= 0 && !mt_is_none(a, hi)};
    if (!ctx.has_lo && !ctx.has_hi)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.clamp: At least one of 'min' or 'max' must not be None");
    mt_operand_from(&in[0], &a->v[0]);
    for (int i = 1; i < 3; i++) {
        int p = bound[i - 1];
        if (p < 0 || mt_is_none(a, p))
            in[i] = in[0];
        else
            mt_operand_from(&in[i], &a->v[p]);
    }
    mt_dtype result;
    if (mt_operands_result_type_checked(3, in, &result) < 0)
        return -1;
    mt_tensor *out = mt_out_target(a), *self = a->v[0].t;
    bool inplace = mt_inplace_target(a) != NULL;
    bool numbers = (!ctx.has_lo || in[1].kind == MT_OPERAND_WRAPPED) &&
                   (!ctx.has_hi || in[2].kind == MT_OPERAND_WRAPPED);
    if (numbers && result == MT_BOOL)
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for 'Bool'",
                        ctx.has_lo ? "clamp_min_scalar_cpu" : "clamp_max_scalar_cpu");
    if (numbers && out && out->dtype != result)
        return mt_error(MT_ERR_RUNTIME, "Found dtype %s but expected %s",
                        mt_dtype_infos[out->dtype].scalar_name, mt_dtype_infos[result].scalar_name);
    if (numbers && inplace && !mt_can_cast(result, self->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "result type %s can't be cast to the desired output type %s",
                        mt_dtype_infos[result].scalar_name, mt_dtype_infos[self->dtype].cpp_name);
    /* the kernel torch's dispatch names where it has no entry for the dtype:
     * its Scalar overloads', or maximum and minimum, which its Tensor ones run */
    const char *name = !numbers      ? (ctx.has_lo ? "maximum_cpu" : "minimum_cpu")
                       : !ctx.has_hi ? "clamp_min_scalar_cpu"
                       : !ctx.has_lo ? "clamp_max_scalar_cpu"
                                     : "clamp_scalar_cpu";
    return mt_result_tensor(
        r, run(MT_TER_CLAMP, name, 3, in, result, &ctx, out, inplace ? self : NULL));
}

int impl_clamp(mt_args *a, mt_result *r) { return clamp(a, r, 1, 2); }
int impl_clamp_min(mt_args *a, mt_result *r) { return clamp(a, r, 1, -1); }
int impl_clamp_max(mt_args *a, mt_result *r) { return clamp(a, r, -1, 1); }

/* deg2rad / rad2deg: input times a wrapped number, as torch's mul_out, so an
 * integral input gives the default float dtype and an integral out= or
 * in-place target is refused. */
static int angle(mt_args *a, mt_result *r, double factor)
{
    mt_operand in[2];
    mt_value c = {.is_scalar = true, .s = {MT_SCALAR_FLOAT, 0, factor}};
    mt_operand_from(&in[0], &a->v[0]);
    mt_operand_from(&in[1], &c);
    mt_binary_ctx ctx = {.alpha_f = 1.0, .alpha_i = 1};
    return mt_result_tensor(r, run(MT_BIN_MUL, "mul", 2, in, mt_operands_result_type(2, in), &ctx,
                                   mt_out_target(a), mt_inplace_target(a)));
}

#define PI_OVER_180 0.017453292519943295769236907684886127134428718885417
#define PI_UNDER_180 57.295779513082320876798154814105170332405472466564

int impl_deg2rad(mt_args *a, mt_result *r) { return angle(a, r, PI_OVER_180); }
int impl_rad2deg(mt_args *a, mt_result *r) { return angle(a, r, PI_UNDER_180); }

static int dtype_mismatch(const char *what, mt_dtype want, mt_dtype got)
{
    return mt_error(MT_ERR_RUNTIME, "expected dtype %s for `%s` but got dtype %s",
                    mt_dtype_infos[want].cpp_name, what, mt_dtype_infos[got].cpp_name);
}

/* lerp(input, end, weight): no promotion, as torch. */
int impl_lerp(mt_args *a, mt_result *r)
{
    mt_operand in[3];
    for (int i = 0; i < 3; i++)
        mt_operand_from(&in[i], &a->v[i]);
    mt_dtype d = in[0].t.dtype;
    if (in[1].t.dtype != d)
        return dtype_mismatch("end", d, in[1].t.dtype);
    if (in[2].kind != MT_OPERAND_WRAPPED && in[2].t.dtype != d)
        return dtype_mismatch("weight", d, in[2].t.dtype);
    mt_binary_ctx ctx = {0};
    const char *name =
        in[2].kind == MT_OPERAND_WRAPPED ? "lerp_kernel_scalar" : "lerp_kernel_tensor";
    return mt_result_tensor(
        r, run(MT_TER_LERP, name, 3, in, d, &ctx, mt_out_target(a), mt_inplace_target(a)));
}

/* addcmul/addcdiv(input, tensor1, tensor2, *, value=1) */
static int addc(mt_args *a, mt_result *r, mt_binary_op op)
{
    mt_operand in[3];
    for (int i = 0; i < 3; i++)
        mt_operand_from(&in[i], &a->v[i]);
    if (op == MT_TER_ADDCDIV && mt_is_integral(in[1].t.dtype, true) &&
        mt_is_integral(in[2].t.dtype, true))
        return mt_error(
            MT_ERR_RUNTIME,
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
    mt_dtype result = mt_operands_result_type(3, in);
    const mt_scalar *v = &a->v[3].s;
    mt_binary_ctx ctx = {.alpha_f = v->f,
                         .alpha_i = v->kind == MT_SCALAR_FLOAT ? (int64_t)v->f : v->i};
    const char *name = op == MT_TER_ADDCMUL ? "addcmul_cpu_out" : "addcdiv_cpu_out";
    return mt_result_tensor(
        r, run(op, name, 3, in, result, &ctx, mt_out_target(a), mt_inplace_target(a)));
}

int impl_addcmul(mt_args *a, mt_result *r) { return addc(a, r, MT_TER_ADDCMUL); }
int impl_addcdiv(mt_args *a, mt_result *r) { return addc(a, r, MT_TER_ADDCDIV); }

/* Row id of two tensors, consuming both (either NULL: NULL, the error set). */
static mt_tensor *consume2(mt_op_id id, mt_tensor *x, mt_tensor *y)
{
    mt_tensor *r = x && y ? mt_exec(id, "TT", x, y) : NULL;
    mt_xrelease(x);
    mt_xrelease(y);
    return r;
}

/* torch's isclose of complex tensors: equal, or (both NaN under equal_nan),
 * or a finite distance |x - y| within atol + |rtol * y|, the distance and the
 * allowance in the part dtype. */
static mt_tensor *isclose_complex(mt_tensor *x, mt_tensor *y, double rtol, double atol,
                                  bool equal_nan)
{
    mt_tensor *close = mt_exec(MT_OP_eq, "TT", x, y);
    if (close && equal_nan)
        close = consume2(MT_OP_logical_or, close,
                         consume2(MT_OP_logical_and, mt_exec(MT_OP_isnan, "T", x),
                                  mt_exec(MT_OP_isnan, "T", y)));
    if (!close || (rtol == 0 && atol == 0))
        return close;
    mt_tensor *diff = mt_exec(MT_OP_sub, "TT", x, y);
    mt_tensor *actual = diff ? mt_exec(MT_OP_abs, "T", diff) : NULL;
    mt_xrelease(diff);
    mt_tensor *scaled = mt_exec(MT_OP_mul, "Tf", y, rtol);
    mt_tensor *part = scaled ? mt_exec(MT_OP_abs, "T", scaled) : NULL;
    mt_xrelease(scaled);
    mt_tensor *allowed = part ? mt_exec(MT_OP_add, "Tf", part, atol) : NULL;
    mt_xrelease(part);
    mt_tensor *finite = actual ? mt_exec(MT_OP_isfinite, "T", actual) : NULL;
    mt_tensor *within = consume2(MT_OP_le, actual, allowed);
    return consume2(MT_OP_logical_or, close, consume2(MT_OP_logical_and, finite, within));
}

/* isclose(input, other, rtol, atol, equal_nan): integers compare as double. */
static mt_tensor *isclose(mt_args *a)
{
    mt_operand in[2];
    mt_operand_from(&in[0], &a->v[0]);
    mt_operand_from(&in[1], &a->v[1]);
    mt_dtype d = in[0].t.dtype;
    if (in[1].t.dtype != d) {
        mt_error(MT_ERR_RUNTIME, "%s did not match %s", mt_dtype_infos[d].scalar_name,
                 mt_dtype_infos[in[1].t.dtype].scalar_name);
        return NULL;
    }
    for (int k = 2; k <= 3; k++)
        if (a->v[k].f < 0) {
            mt_error(MT_ERR_RUNTIME, "%s must be greater than or equal to zero, but got %g",
                     k == 2 ? "rtol" : "atol", a->v[k].f);
            return NULL;
        }
    if (mt_is_complex(d))
        return isclose_complex(a->v[0].t, a->v[1].t, a->v[2].f, a->v[3].f, a->v[4].b);
    mt_binary_ctx ctx = {.alpha_f = a->v[2].f, .atol = a->v[3].f, .equal_nan = a->v[4].b};
    return run(MT_BIN_ISCLOSE, "isclose", 2, in, mt_is_floating(d) ? d : MT_FLOAT64, &ctx, NULL,
               NULL);
}

static int bool_result(mt_result *r, bool value)
{
    r->kind = MT_RESULT_BOOL;
    r->i = value;
    return 0;
}

/* Whether every element of the bool tensor t is true; consumes t. */
static int all_true(mt_result *r, mt_tensor *t)
{
    if (!t)
        return -1;
    const uint8_t *p = (const uint8_t *)mt_data(t);
    bool all = true;
    for (int64_t i = 0; i < t->numel && all; i++)
        all = p[i] != 0;
    mt_release(t);
    return bool_result(r, all);
}

int impl_isclose(mt_args *a, mt_result *r) { return mt_result_tensor(r, isclose(a)); }
int impl_allclose(mt_args *a, mt_result *r) { return all_true(r, isclose(a)); }

/* equal(input, other): same shape and equal values. */
int impl_equal(mt_args *a, mt_result *r)
{
    const mt_tensor *x = a->v[0].t, *y = a->v[1].t;
    if (x->ndim != y->ndim)
        return bool_result(r, false);
    for (int d = 0; d < x->ndim; d++)
        if (x->sizes[d] != y->sizes[d])
            return bool_result(r, false);
    mt_operand in[2];
    mt_operand_from(&in[0], &a->v[0]);
    mt_operand_from(&in[1], &a->v[1]);
    mt_binary_ctx ctx = {0};
    mt_dtype common;
    if (mt_operands_result_type_checked(2, in, &common) < 0)
        return -1;
    return all_true(r, run(MT_BIN_EQ, "eq_cpu", 2, in, common, &ctx, NULL, NULL));
}
