/* Unary elementwise ops of the op table (rows in pointwise.def): their torch
 * checks and dtype rules, then the shared driver (elementwise.h). Plain C:
 * reads only typed arguments, makes tensors through the owner hooks, reports
 * through mt_error; no Python. */
#include "elementwise.h"
#include "runtime/table.h"

#include <float.h>
#include <string.h>

#include "../kernels/pointwise_unary.h"

static mt_loop_fn unary_loop_for(int op, mt_dtype d) { return mt_unary_loop((mt_unary_op)op, d); }

enum {
    U_INPLACE = 1 << 0,
    U_TO_FLOAT = 1 << 1, /* integral inputs compute in the default float dtype */
    U_NO_BOOL_NEG = 1 << 2,
    U_BOOL_SQUARE = 1 << 3, /* bool squares as int64, as pow(x, 2) */
    U_NO_BOOL_RELU = 1 << 4,
    U_NO_HALF = 1 << 5, /* float16/bfloat16 refused: torch's kernel has no entry for them */
};
/* the HALF word of the torch.special rows */
#define HALF_OK 0
#define NO_HALF U_NO_HALF

/* The kernel a row runs on complex input where it is another one: abs is
 * the modulus, of the part type. */
static mt_unary_op complex_form(mt_unary_op op) { return op == MT_UN_ABS ? MT_UN_CABS : op; }

/* One unary op on param x in either form: the in-place one (a->op->form)
 * writes into input; out= is whatever the row's signature has. */
static int unary_at(mt_args *a, mt_result *r, int x, mt_unary_op op, const char *name,
                    unsigned flags, mt_unary_ctx *ctx)
{
    if (mt_inplace_target(a))
        flags |= U_INPLACE;
    mt_operand in;
    mt_operand_from(&in, &a->v[x]);
    mt_dtype d = in.t.dtype;
    if (d == MT_BOOL && (flags & U_NO_BOOL_NEG))
        return mt_error(MT_ERR_RUNTIME,
                        "Negation, the `-` operator, on a bool tensor is not supported. If "
                        "you are trying to invert a mask, use the `~` or `logical_not()` "
                        "operator instead.");
    if (d == MT_BOOL && (flags & U_NO_BOOL_RELU))
        return mt_error(MT_ERR_RUNTIME, "Boolean inputs not supported for relu");
    if ((flags & U_TO_FLOAT) && !mt_is_inexact(d))
        d = mt_default_dtype;
    if ((flags & U_NO_HALF) && (d == MT_FLOAT16 || d == MT_BFLOAT16))
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name,
                        mt_dtype_infos[d].scalar_name);
    /* the modulus is real: torch refuses to write it over complex input */
    if (mt_is_complex(d) && op == MT_UN_ABS && (flags & U_INPLACE))
        return mt_error(MT_ERR_RUNTIME, "In-place abs is not supported for complex tensors.");
    if (mt_is_complex(d))
        op = complex_form(op);
    if ((flags & U_BOOL_SQUARE) && d == MT_BOOL)
        d = MT_INT64;
    mt_unary_ctx zero = {0};
    bool pred = mt_unary_is_predicate(op), part = mt_unary_is_part(op);
    mt_kernel_ref k = {unary_loop_for, op, ctx ? ctx : &zero, name, pred, part};
    mt_tensor *out = mt_out_target(a);
    mt_dtype result = pred ? MT_BOOL : part ? mt_complex_part(d) : d;
    return mt_result_tensor(
        r, mt_pointwise(&k, 1, &in, d, result, out, flags & U_INPLACE ? a->v[x].t : NULL));
}

static int unary(mt_args *a, mt_result *r, mt_unary_op op, const char *name, unsigned flags,
                 mt_unary_ctx *ctx)
{
    return unary_at(a, r, 0, op, name, flags, ctx);
}

/* name(input, *, out=None) and its in-place form name_(input), for each
 * MT_UNARY row of pointwise.def */
#define MT_UNARY(NAME, DERIV, KERNEL, KNAME, FLAGS, SAMPLE)     \
    int impl_##NAME(mt_args *a, mt_result *r)                   \
    {                                                           \
        return unary(a, r, MT_UN_##KERNEL, KNAME, FLAGS, NULL); \
    }
/* special_name(input, *, out=None), for each MT_SPECIAL_UNARY row */
#define MT_SPECIAL_UNARY(NAME, PARAM, DERIV, KERNEL, KNAME, HALF, SAMPLE)   \
    int impl_special_##NAME(mt_args *a, mt_result *r)                       \
    {                                                                       \
        return unary(a, r, MT_UN_##KERNEL, KNAME, U_TO_FLOAT | HALF, NULL); \
    }
#include "../ops.def"
#undef MT_UNARY
#undef MT_SPECIAL_UNARY
#undef HALF_OK
#undef NO_HALF

/* conj(input): a real tensor is its own conjugate, returned as itself */
/* conj(input): a real input itself; a complex one's view with the
 * conjugate bit flipped (ops/runtime/conj_view.h), as torch's */
int impl_conj(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    if (!mt_is_complex(t->dtype)) {
        mt_retain(t);
        return mt_result_tensor(r, t);
    }
    mt_tensor *v = mt_alias(t);
    if (v)
        v->flags ^= MT_FLAG_CONJ;
    return mt_result_tensor(r, v);
}
/* conj_physical(input, *, out=None) and conj_physical_(input): a real input
 * is returned as itself (in place: left alone), as torch's; out= gets a copy */
int impl_conj_physical(mt_args *a, mt_result *r)
{
    if (!mt_is_complex(a->v[0].t->dtype) && !mt_out_target(a)) {
        mt_retain(a->v[0].t);
        return mt_result_tensor(r, a->v[0].t);
    }
    return unary(a, r, MT_UN_CONJ, "conj_cpu", 0, NULL);
}
int impl_angle(mt_args *a, mt_result *r)
{
    bool c = mt_is_complex(a->v[0].t->dtype);
    return unary(a, r, c ? MT_UN_CANGLE : MT_UN_ANGLE, "angle", U_TO_FLOAT, NULL);
}
int impl_sgn(mt_args *a, mt_result *r)
{
    bool c = mt_is_complex(a->v[0].t->dtype);
    return unary(a, r, c ? MT_UN_SGN : MT_UN_SIGN, c ? "sgn" : "sign_cpu", 0, NULL);
}

int impl_isnan(mt_args *a, mt_result *r) { return unary(a, r, MT_UN_ISNAN, "isnan", 0, NULL); }
int impl_isinf(mt_args *a, mt_result *r) { return unary(a, r, MT_UN_ISINF, "isinf", 0, NULL); }
int impl_isfinite(mt_args *a, mt_result *r)
{
    return unary(a, r, MT_UN_ISFINITE, "isfinite", 0, NULL);
}
int impl_signbit(mt_args *a, mt_result *r)
{
    if (!mt_is_none(a, 1) && a->v[1].t->dtype != MT_BOOL)
        return mt_error(MT_ERR_RUNTIME, "signbit does not support non-boolean outputs.");
    return unary(a, r, MT_UN_SIGNBIT, "signbit_cpu", 0, NULL);
}
/* isposinf / isneginf(input, *, out=None): a bool out= only, as torch */
static int isinf_signed(mt_args *a, mt_result *r, mt_unary_op op, const char *name)
{
    if (!mt_is_none(a, 1) && a->v[1].t->dtype != MT_BOOL)
        return mt_error(MT_ERR_RUNTIME, "%s does not support non-boolean outputs.", name);
    return unary(a, r, op, name, 0, NULL);
}
int impl_isposinf(mt_args *a, mt_result *r)
{
    return isinf_signed(a, r, MT_UN_ISPOSINF, "isposinf");
}
int impl_isneginf(mt_args *a, mt_result *r)
{
    return isinf_signed(a, r, MT_UN_ISNEGINF, "isneginf");
}

/* the special functions: integral inputs compute in the default float dtype */
int impl_lgamma(mt_args *a, mt_result *r)
{
    return unary(a, r, MT_UN_LGAMMA, "lgamma_vml_cpu", U_TO_FLOAT, NULL);
}
int impl_digamma(mt_args *a, mt_result *r)
{
    return unary(a, r, MT_UN_DIGAMMA, "digamma", U_TO_FLOAT, NULL);
}
int impl_erfinv(mt_args *a, mt_result *r)
{
    return unary(a, r, MT_UN_ERFINV, "erfinv_vml_cpu", U_TO_FLOAT, NULL);
}

/* The kernel torch runs polygamma of order n on (its orders 0 and 1 are
 * digamma and trigamma), which its refusals name: the order is the first
 * param of the function rows, the second of the method's. */
const char *mt_polygamma_kernel(const mt_args *a)
{
    int64_t n = a->v[a->sig->params[0].type == MT_ARG_INT ? 0 : 1].i;
    return n == 0 ? "digamma" : n == 1 ? "trigamma" : "polygamma";
}

/* polygamma(n, input) and input.polygamma(n): the order n at param order,
 * the input at param x */
static int polygamma(mt_args *a, mt_result *r, int order, int x)
{
    int64_t n = a->v[order].i;
    if (n < 0)
        return mt_error(MT_ERR_RUNTIME, "polygamma(n, x) does not support negative n.");
    mt_unary_ctx ctx = {.decimals = n};
    return unary_at(a, r, x, MT_UN_POLYGAMMA, mt_polygamma_kernel(a), U_TO_FLOAT, &ctx);
}
int impl_polygamma(mt_args *a, mt_result *r) { return polygamma(a, r, 0, 1); }
int impl_polygamma_method(mt_args *a, mt_result *r) { return polygamma(a, r, 1, 0); }

int impl_neg_dunder(mt_args *a, mt_result *r)
{
    return unary(a, r, MT_UN_NEG, "neg_cpu", U_NO_BOOL_NEG, NULL);
}
int impl_abs_dunder(mt_args *a, mt_result *r) { return unary(a, r, MT_UN_ABS, "abs_cpu", 0, NULL); }
int impl_invert_dunder(mt_args *a, mt_result *r)
{
    if (mt_is_floating(a->v[0].t->dtype))
        return mt_error(MT_ERR_TYPE, "~ (operator.invert) is only implemented on "
                                     "integer and Boolean-type tensors");
    return unary(a, r, MT_UN_BITWISE_NOT, "bitwise_not_cpu", 0, NULL);
}

/* +x returns x itself, as torch */
int impl_pos_dunder(mt_args *a, mt_result *r)
{
    if (a->v[0].t->dtype == MT_BOOL)
        return mt_error(MT_ERR_RUNTIME, "The `+` operator, on a bool tensor is not supported.");
    mt_retain(a->v[0].t);
    return mt_result_tensor(r, a->v[0].t);
}

/* round(input, *, decimals=0, out=None) */
int impl_round(mt_args *a, mt_result *r)
{
    int64_t dec = a->v[1].i;
    if (dec == 0)
        return unary(a, r, MT_UN_ROUND, "round_vml_cpu", 0, NULL);
    mt_unary_ctx ctx = {.decimals = dec};
    return unary(a, r, MT_UN_ROUND_DECIMALS, "round_cpu", 0, &ctx);
}

/* special_round(input, *, decimals=0, out=None): round without its shortcut
 * for integers, whose decimals=0 kernel torch's special form finds no integer
 * entry in */
int impl_special_round(mt_args *a, mt_result *r)
{
    mt_dtype d = a->v[0].t->dtype;
    if (a->v[1].i == 0 && !mt_is_inexact(d))
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"round_vml_cpu\" not implemented for '%s'",
                        mt_dtype_infos[d].scalar_name);
    return impl_round(a, r);
}

/* gelu(input, approximate='none') */
int impl_gelu(mt_args *a, mt_result *r)
{
    const char *ap = mt_is_none(a, 1) ? "none" : a->v[1].str;
    mt_unary_op op;
    if (strcmp(ap, "none") == 0)
        op = MT_UN_GELU;
    else if (strcmp(ap, "tanh") == 0)
        op = MT_UN_GELU_TANH;
    else
        return mt_error(MT_ERR_RUNTIME, "approximate argument must be either none or tanh.");
    return unary(a, r, op, "GeluKernelImpl", 0, NULL);
}

/* softplus(input, beta=1, threshold=20) */
int impl_softplus(mt_args *a, mt_result *r)
{
    mt_unary_ctx ctx = {.a = a->v[1].s.f, .b = a->v[2].s.f};
    return unary(a, r, MT_UN_SOFTPLUS, "softplus_cpu", 0, &ctx);
}

/* nan_to_num(input, nan=0.0, posinf=None, neginf=None): infinities default to
 * the dtype's extremes. */
int impl_nan_to_num(mt_args *a, mt_result *r)
{
    mt_dtype d = a->v[0].t->dtype;
    double big = d == MT_FLOAT64    ? DBL_MAX
                 : d == MT_FLOAT16  ? 65504.0
                 : d == MT_BFLOAT16 ? 3.3895313892515355e38
                                    : FLT_MAX;
    mt_unary_ctx ctx = {
        .a = mt_is_none(a, 1) ? 0.0 : a->v[1].f,
        .b = mt_is_none(a, 2) ? big : a->v[2].f,
        .c = mt_is_none(a, 3) ? -big : a->v[3].f,
    };
    return unary(a, r, MT_UN_NAN_TO_NUM, "nan_to_num", 0, &ctx);
}

/* nn.functional forms: name(input) or name(input, inplace=False) */
int impl_tanh_nn(mt_args *a, mt_result *r)
{
    return unary(a, r, MT_UN_TANH, "tanh_vml_cpu", U_TO_FLOAT, NULL);
}
int impl_sigmoid_nn(mt_args *a, mt_result *r)
{
    return unary(a, r, MT_UN_SIGMOID, "sigmoid_cpu", U_TO_FLOAT, NULL);
}
int impl_relu_nn(mt_args *a, mt_result *r)
{
    return unary(a, r, MT_UN_RELU, "clamp_min_scalar_cpu",
                 U_NO_BOOL_RELU | (a->v[1].b ? U_INPLACE : 0), NULL);
}
int impl_silu_nn(mt_args *a, mt_result *r)
{
    return unary(a, r, MT_UN_SILU, "silu_cpu", a->v[1].b ? U_INPLACE : 0, NULL);
}

/* nn.functional.leaky_relu(input, negative_slope=0.01, inplace=False). In
 * place (path 1), torch's node reads the result instead of the overwritten
 * input and is named LeakyReluBackward1. */
int impl_leaky_relu(mt_args *a, mt_result *r)
{
    mt_unary_ctx ctx = {.a = a->v[1].s.f};
    bool inplace = a->v[2].b;
    a->path = inplace;
    return unary(a, r, MT_UN_LEAKY_RELU, "leaky_relu_cpu", inplace ? U_INPLACE : 0, &ctx);
}
