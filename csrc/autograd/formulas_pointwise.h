/* What the pointwise and activation formulas share: constants, and short
 * steps over an mt_scope (each runs a row through mt_call, keeps its result
 * in the scope, and passes a failure on), so a formula reads as torch's
 * derivatives.yaml states it. */
#ifndef MT_AUTOGRAD_FORMULAS_POINTWISE_H
#define MT_AUTOGRAD_FORMULAS_POINTWISE_H

#include "formula.h"

/* -std=c11 hides <math.h>'s M_ constants */
#define LN2 0.693147180559945309417
#define LN10 2.30258509299404568402
#define TWO_OVER_SQRTPI 1.12837916709551257390
#define SQRT2 1.41421356237309504880
#define SQRT1_2 0.70710678118654752440
#define PI 3.14159265358979323846
#define PI_OVER_180 0.017453292519943295769236907684886127134428718885417
#define PI_UNDER_180 57.295779513082320876798154814105170332405472466564

/* Hands r (owned by s) to param p's edge, reduced to its input's shape. */
static inline void give(mt_scope *s, mt_node *n, mt_tensor **out, int p, mt_tensor *r)
{
    if (!r) {
        s->failed = true;
        return;
    }
    int e = mt_edge_of(n, p);
    mt_retain(r);
    if (!(out[e] = mt_reduce_to_edge(n, e, r)))
        s->failed = true;
}

static inline int done(mt_scope *s)
{
    mt_release_all(s->n, s->t);
    return s->failed ? -1 : 0;
}

#define OP_T(fn, name)                                                           \
    static inline mt_tensor *fn(mt_scope *s, mt_tensor *a)                       \
    {                                                                            \
        return !s->failed && a ? mt_scope_keep(s, mt_call(name, "T", a)) : NULL; \
    }
#define OP_TT(fn, name)                                                                   \
    static inline mt_tensor *fn(mt_scope *s, mt_tensor *a, mt_tensor *b)                  \
    {                                                                                     \
        return !s->failed && a && b ? mt_scope_keep(s, mt_call(name, "TT", a, b)) : NULL; \
    }
#define OP_TF(fn, name)                                                              \
    static inline mt_tensor *fn(mt_scope *s, mt_tensor *a, double f)                 \
    {                                                                                \
        return !s->failed && a ? mt_scope_keep(s, mt_call(name, "Tf", a, f)) : NULL; \
    }
OP_T(sgn_, MT_OP_sgn)
OP_T(real_, MT_OP_real)
OP_T(neg, MT_OP_neg)
OP_T(exp_, MT_OP_exp)
OP_T(exp2_, MT_OP_exp2)
OP_T(log_, MT_OP_log)
OP_T(sin_, MT_OP_sin)
OP_T(cos_, MT_OP_cos)
OP_T(sinh_, MT_OP_sinh)
OP_T(cosh_, MT_OP_cosh)
OP_T(erf_, MT_OP_erf)
OP_T(rsqrt_, MT_OP_rsqrt)
OP_T(sigmoid, MT_OP_sigmoid)
OP_T(tanh_, MT_OP_tanh)
OP_T(sign, MT_OP_sign)
OP_T(isfinite_, MT_OP_isfinite)
OP_T(isnan_, MT_OP_isnan)
OP_T(zeros_like, MT_OP_zeros_like)
OP_T(reciprocal, MT_OP_reciprocal)
OP_T(trunc_, MT_OP_trunc)
OP_T(detach, MT_OP_detach)
OP_TT(add, MT_OP_add)
OP_TT(sub, MT_OP_sub)
OP_TT(mul, MT_OP_mul)
OP_TT(div, MT_OP_div)
OP_TT(floor_divide, MT_OP_floor_divide)
OP_TT(pow_, MT_OP_pow)
OP_TT(xlogy, MT_OP_xlogy)
OP_TT(eq, MT_OP_eq)
OP_TT(lt, MT_OP_lt)
OP_TT(gt, MT_OP_gt)
OP_TT(ge, MT_OP_ge)
OP_TT(le, MT_OP_le)
OP_TT(and_, MT_OP_logical_and)
OP_TT(or_, MT_OP_logical_or)
OP_TF(add_f, MT_OP_add)
OP_TF(mul_f, MT_OP_mul)
OP_TF(pow_f, MT_OP_pow)
OP_TF(gt_f, MT_OP_gt)
OP_TF(eq_f, MT_OP_eq)
OP_TF(ge_f, MT_OP_ge)
OP_TF(le_f, MT_OP_le)

/* f - a */
static inline mt_tensor *rsub_f(mt_scope *s, double f, mt_tensor *a)
{
    return !s->failed && a ? mt_scope_keep(s, mt_call(MT_OP_sub, "fT", f, a)) : NULL;
}

/* where(c, a, 0) and where(c, 0, a) */
static inline mt_tensor *where_or_0(mt_scope *s, mt_tensor *c, mt_tensor *a)
{
    return !s->failed && c && a ? mt_scope_keep(s, mt_call(MT_OP_where, "TTf", c, a, 0.0)) : NULL;
}

static inline mt_tensor *where_0_or(mt_scope *s, mt_tensor *c, mt_tensor *a)
{
    return !s->failed && c && a ? mt_scope_keep(s, mt_call(MT_OP_where, "TfT", c, 0.0, a)) : NULL;
}

static inline mt_tensor *where(mt_scope *s, mt_tensor *c, mt_tensor *a, mt_tensor *b)
{
    return !s->failed && c && a && b ? mt_scope_keep(s, mt_call(MT_OP_where, "TTT", c, a, b))
                                     : NULL;
}

static inline double number(const mt_ad_value *v) { return v->is_float ? v->f : (double)v->i; }

/* Param p as a tensor: the one saved, or a 0-dim tensor (of the result's
 * dtype, so it promotes like the number) holding the number passed for it.
 * NULL without error when p was None. */
static inline mt_tensor *operand(mt_scope *s, mt_node *n, int p)
{
    const mt_ad_value *v = &n->args[p];
    if (v->is_number) {
        mt_tensor *z = mt_scope_keep(s, mt_new(n->out_meta[0].dtype, 0, NULL, true));
        if (v->is_complex)
            return MT_SCOPE_CALL(s, MT_OP_add, "Tc", z, v->f, v->im);
        return add_f(s, z, number(v));
    }
    if (v->none)
        return NULL;
    return mt_scope_keep(s, mt_node_saved(n, p));
}

static inline mt_tensor *result(mt_scope *s, mt_node *n)
{
    return mt_scope_keep(s, mt_node_saved(n, n->nparams));
}

/* the fused backward rows of activation.def */
static inline mt_tensor *fused(mt_scope *s, int op, mt_tensor *g, mt_tensor *v)
{
    return !s->failed && g && v ? mt_scope_keep(s, mt_call(op, "TT", g, v)) : NULL;
}

/* A defaulted approximate is recorded as none, with no text. */
static inline const char *approximate_of(const mt_ad_value *v)
{
    return v->none || !v->str[0] ? "none" : v->str;
}

static inline mt_tensor *fused_gelu(mt_scope *s, mt_tensor *g, mt_tensor *x,
                                    const char *approximate)
{
    return !s->failed && g && x
               ? mt_scope_keep(s, mt_call(MT_OP__gelu_backward, "TTs", g, x, approximate))
               : NULL;
}

/* The conjugate of a complex a (kept in s); a real a itself. */
static inline mt_tensor *conj_(mt_scope *s, mt_tensor *a)
{
    if (s->failed || !a || !mt_is_complex(a->dtype))
        return a;
    return mt_scope_keep(s, mt_call(MT_OP_conj, "T", a));
}

#endif
