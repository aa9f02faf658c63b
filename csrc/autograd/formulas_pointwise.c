/* Formulas of the elementwise ops, written as torch's derivatives.yaml states
 * them so gradients (and their own gradients) agree with torch. */
#include "formulas_pointwise.h"
#include "grad_mode.h"

#include <string.h>

/* ------------------------------------------------------------ arithmetic */

/* sub(input, other, alpha): input - alpha * other */
int sub_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    const mt_ad_value *al = n->nparams > 2 && !n->args[2].none ? &n->args[2] : NULL;
    double alpha = al ? number(al) : 1.0;
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, g[0]);
    if (mt_param_needs(n, 1) && al && al->is_complex)
        give(&s, n, out, 1, MT_SCOPE_CALL(&s, MT_OP_mul, "Tc", g[0], -al->f, al->im));
    else if (mt_param_needs(n, 1))
        give(&s, n, out, 1, mul_f(&s, g[0], -alpha));
    return done(&s);
}

/* __rsub__(input, other): other - input */
int rsub_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, neg(&s, g[0]));
    if (mt_param_needs(n, 1))
        give(&s, n, out, 1, g[0]);
    return done(&s);
}

int div_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *other = conj_(&s, operand(&s, n, 1));
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, div(&s, g[0], other));
    if (mt_param_needs(n, 1)) {
        mt_tensor *q = div(&s, div(&s, conj_(&s, operand(&s, n, 0)), other), other);
        give(&s, n, out, 1, mul(&s, neg(&s, g[0]), q));
    }
    return done(&s);
}

/* Rounded quotients are piecewise constant. */
int zero_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    for (int p = 0; p < n->nparams; p++)
        if (mt_param_needs(n, p))
            give(&s, n, out, p, zeros_like(&s, g[0]));
    return done(&s);
}

/* __rtruediv__(input, other): other * input.reciprocal(), as torch computes it */
int rdiv_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0), *c = conj_(&s, operand(&s, n, 1));
    mt_tensor *r = conj_(&s, reciprocal(&s, x));
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, mul(&s, neg(&s, mul(&s, g[0], c)), mul(&s, r, r)));
    if (mt_param_needs(n, 1))
        give(&s, n, out, 1, mul(&s, g[0], r));
    return done(&s);
}

/* remainder and fmod: x - y * q for the dividend x (param xp) and the
 * divisor y (param yp), with q the rounded quotient, as torch's div(...,
 * rounding_mode=...): piecewise constant, so its own derivative is zeros
 * (not None) */
static int mod_backward(mt_node *n, mt_tensor **g, mt_tensor **out, bool floor, int xp, int yp)
{
    mt_scope s = {0};
    if (mt_param_needs(n, xp))
        give(&s, n, out, xp, g[0]);
    if (mt_param_needs(n, yp)) {
        mt_tensor *x = operand(&s, n, xp), *y = operand(&s, n, yp);
        mt_tensor *q = !s.failed && x && y
                           ? mt_scope_keep(&s, mt_call(MT_OP_div, "TTks", x, y, "rounding_mode",
                                                       floor ? "floor" : "trunc"))
                           : NULL;
        give(&s, n, out, yp, mul(&s, neg(&s, g[0]), q));
    }
    return done(&s);
}

int remainder_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mod_backward(n, g, out, true, 0, 1);
}

/* input.__rmod__(other): remainder(other, input) */
int rremainder_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mod_backward(n, g, out, true, 1, 0);
}

int fmod_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mod_backward(n, g, out, false, 0, 1);
}

/* base ** exponent with the base in param bp and the exponent in param ep */
static int pow_grads(mt_node *n, mt_tensor **g, mt_tensor **out, int bp, int ep)
{
    mt_scope s = {0};
    mt_tensor *base = operand(&s, n, bp);
    if (mt_param_needs(n, bp)) {
        const mt_ad_value *e = &n->args[ep];
        mt_tensor *r;
        if (e->is_number && !e->is_complex)
            r = number(e) == 0.0
                    ? zeros_like(&s, g[0])
                    : mul(&s, g[0],
                          conj_(&s, mul_f(&s, pow_f(&s, base, number(e) - 1.0), number(e))));
        else {
            mt_tensor *ex = operand(&s, n, ep);
            mt_tensor *d =
                mul(&s, g[0], conj_(&s, mul(&s, ex, pow_(&s, base, add_f(&s, ex, -1.0)))));
            r = where_0_or(&s, eq_f(&s, ex, 0.0), d);
        }
        give(&s, n, out, bp, r);
    }
    if (mt_param_needs(n, ep)) {
        mt_tensor *ex = operand(&s, n, ep);
        /* a complex exponent is judged by its real part, as torch's */
        mt_tensor *ex_re = ex && mt_is_complex(ex->dtype) ? real_(&s, ex) : ex;
        mt_tensor *cond = and_(&s, eq_f(&s, base, 0.0), ge_f(&s, ex_re, 0.0));
        mt_tensor *res = result(&s, n);
        /* a real base under a complex result takes the complex log, as torch's (a
         * negative base has no real one) */
        mt_tensor *lb = base && res && base->dtype != res->dtype
                            ? MT_SCOPE_CALL(&s, MT_OP_to, "TD", base, (int)res->dtype)
                            : base;
        mt_tensor *d = where_0_or(&s, cond, conj_(&s, mul(&s, res, log_(&s, lb))));
        give(&s, n, out, ep, mul(&s, g[0], d));
    }
    return done(&s);
}

int pow_backward(mt_node *n, mt_tensor **g, mt_tensor **out) { return pow_grads(n, g, out, 0, 1); }

/* __rpow__(input, other): other ** input */
int rpow_backward(mt_node *n, mt_tensor **g, mt_tensor **out) { return pow_grads(n, g, out, 1, 0); }

/* maximum / minimum: ties split the gradient evenly */
static int extremum_backward(mt_node *n, mt_tensor **g, mt_tensor **out, bool is_max)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0), *y = operand(&s, n, 1);
    mt_tensor *split = where(&s, eq(&s, x, y), mul_f(&s, g[0], 0.5), g[0]);
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, where_0_or(&s, is_max ? lt(&s, x, y) : gt(&s, x, y), split));
    if (mt_param_needs(n, 1))
        give(&s, n, out, 1, where_0_or(&s, is_max ? gt(&s, x, y) : lt(&s, x, y), split));
    return done(&s);
}

int maximum_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return extremum_backward(n, g, out, true);
}

int minimum_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return extremum_backward(n, g, out, false);
}

/* fmax / fmin: input wins ties and a NaN other, as torch's masked_fill */
static int nan_ignoring_extremum_backward(mt_node *n, mt_tensor **g, mt_tensor **out, bool is_max)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0), *y = operand(&s, n, 1);
    mt_tensor *picks_x = or_(&s, is_max ? ge(&s, x, y) : le(&s, x, y), isnan_(&s, y));
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, where_or_0(&s, picks_x, g[0]));
    if (mt_param_needs(n, 1))
        give(&s, n, out, 1, where_0_or(&s, picks_x, g[0]));
    return done(&s);
}

int fmax_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return nan_ignoring_extremum_backward(n, g, out, true);
}

int fmin_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return nan_ignoring_extremum_backward(n, g, out, false);
}

int atan2_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0), *y = operand(&s, n, 1);
    mt_tensor *recip = reciprocal(&s, add(&s, mul(&s, x, x), mul(&s, y, y)));
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, mul(&s, mul(&s, g[0], y), recip));
    if (mt_param_needs(n, 1))
        give(&s, n, out, 1, mul(&s, mul(&s, g[0], neg(&s, x)), recip));
    return done(&s);
}

int hypot_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *r = result(&s, n);
    for (int p = 0; p < 2; p++)
        if (mt_param_needs(n, p))
            give(&s, n, out, p, div(&s, mul(&s, g[0], operand(&s, n, p)), r));
    return done(&s);
}

/* input's magnitude with other's sign: the gradient flows through the
 * magnitude only (zero where input is zero), and other gets zeros, as in
 * torch */
int copysign_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    if (mt_param_needs(n, 0)) {
        mt_tensor *x = operand(&s, n, 0);
        mt_tensor *ratio = where_0_or(&s, eq_f(&s, x, 0.0), div(&s, result(&s, n), x));
        give(&s, n, out, 0, mul(&s, g[0], ratio));
    }
    if (mt_param_needs(n, 1)) {
        const mt_tensor_meta *m = &n->edge_meta[mt_edge_of(n, 1)];
        give(&s, n, out, 1, mt_scope_keep(&s, mt_new(m->dtype, m->ndim, m->sizes, true)));
    }
    return done(&s);
}

/* where(condition, input, other) */
/* where with the condition, input and other at params c, x, y */
static int where_params_backward(mt_node *n, mt_tensor **g, mt_tensor **out, int c, int x, int y)
{
    mt_scope s = {0};
    mt_tensor *cond = operand(&s, n, c);
    if (mt_param_needs(n, x))
        give(&s, n, out, x, where_or_0(&s, cond, g[0]));
    if (mt_param_needs(n, y))
        give(&s, n, out, y, where_0_or(&s, cond, g[0]));
    return done(&s);
}

int where_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return where_params_backward(n, g, out, 0, 1, 2);
}

/* x.where(condition, other) */
int where_self_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return where_params_backward(n, g, out, 1, 0, 2);
}

/* clamp(input, min, max) with the bounds at params lo and hi (-1: the op has
 * none, as clamp_min has no max); a bound above the other hands the gradient
 * to max */
static int clamp_grads(mt_node *n, mt_tensor **g, mt_tensor **out, int lo_p, int hi_p)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0);
    bool has_lo = lo_p >= 0 && !n->args[lo_p].none, has_hi = hi_p >= 0 && !n->args[hi_p].none;
    mt_tensor *lo = has_lo ? operand(&s, n, lo_p) : NULL;
    mt_tensor *hi = has_hi ? operand(&s, n, hi_p) : NULL;
    if (mt_param_needs(n, 0)) {
        mt_tensor *in = has_lo && has_hi ? and_(&s, ge(&s, x, lo), le(&s, x, hi))
                        : has_lo         ? ge(&s, x, lo)
                                         : le(&s, x, hi);
        give(&s, n, out, 0, where_or_0(&s, in, g[0]));
    }
    if (has_lo && mt_param_needs(n, lo_p)) {
        mt_tensor *below = lt(&s, x, lo);
        if (has_hi)
            below = and_(&s, below, lt(&s, lo, hi));
        give(&s, n, out, lo_p, where_or_0(&s, below, g[0]));
    }
    if (has_hi && mt_param_needs(n, hi_p)) {
        mt_tensor *above = gt(&s, x, hi);
        if (has_lo)
            above = or_(&s, above, lt(&s, hi, lo));
        give(&s, n, out, hi_p, where_or_0(&s, above, g[0]));
    }
    return done(&s);
}

int clamp_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return clamp_grads(n, g, out, 1, 2);
}

int clamp_min_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return clamp_grads(n, g, out, 1, -1);
}

int clamp_max_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return clamp_grads(n, g, out, -1, 1);
}

/* xlogy(input, other) = input * log(other): torch masks the input's gradient
 * to 0 where input is 0 and other <= 0, where log(other) is not finite */
int xlogy_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0), *y = operand(&s, n, 1);
    if (mt_param_needs(n, 0)) {
        mt_tensor *masked = and_(&s, eq_f(&s, x, 0.0), le_f(&s, y, 0.0));
        give(&s, n, out, 0, where_0_or(&s, masked, xlogy(&s, g[0], y)));
    }
    if (mt_param_needs(n, 1))
        give(&s, n, out, 1, div(&s, mul(&s, g[0], x), y));
    return done(&s);
}

/* logaddexp(input, other) and its base-2 form: each input's share is
 * grad / (1 + base ** (the other - it)), the divisor conjugated when complex */
static int log_add_exp_grads(mt_node *n, mt_tensor **g, mt_tensor **out, bool base2)
{
    mt_scope s = {0};
    mt_tensor *v[2] = {operand(&s, n, 0), operand(&s, n, 1)};
    for (int p = 0; p < 2; p++)
        if (mt_param_needs(n, p)) {
            mt_tensor *d = sub(&s, v[1 - p], v[p]);
            mt_tensor *e = base2 ? exp2_(&s, d) : exp_(&s, d);
            give(&s, n, out, p, div(&s, g[0], conj_(&s, add_f(&s, e, 1.0))));
        }
    return done(&s);
}

int logaddexp_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return log_add_exp_grads(n, g, out, false);
}

int logaddexp2_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return log_add_exp_grads(n, g, out, true);
}

/* lerp(input, end, weight): input + weight * (end - input) */
int lerp_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *w = operand(&s, n, 2);
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, mul(&s, g[0], conj_(&s, rsub_f(&s, 1.0, w))));
    if (mt_param_needs(n, 1))
        give(&s, n, out, 1, mul(&s, g[0], conj_(&s, w)));
    if (mt_param_needs(n, 2))
        give(&s, n, out, 2,
             mul(&s, g[0], conj_(&s, sub(&s, operand(&s, n, 1), operand(&s, n, 0)))));
    return done(&s);
}

/* addcmul(input, tensor1, tensor2, value): input + value * tensor1 * tensor2;
 * here and in lerp and addcdiv a complex factor enters conjugated */
int addcmul_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    double v = number(&n->args[3]);
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, g[0]);
    for (int p = 1; p < 3; p++)
        if (mt_param_needs(n, p))
            give(&s, n, out, p, mul(&s, g[0], conj_(&s, mul_f(&s, operand(&s, n, 3 - p), v))));
    return done(&s);
}

/* addcdiv(input, tensor1, tensor2, value): input + value * tensor1 / tensor2 */
int addcdiv_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    double v = number(&n->args[3]);
    mt_tensor *t2 = operand(&s, n, 2);
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, g[0]);
    if (mt_param_needs(n, 1))
        give(&s, n, out, 1, mul(&s, g[0], conj_(&s, mul_f(&s, reciprocal(&s, t2), v))));
    if (mt_param_needs(n, 2)) {
        mt_tensor *t1 = operand(&s, n, 1);
        mt_tensor *d = div(&s, mul_f(&s, t1, -v), mul(&s, t2, t2));
        give(&s, n, out, 2, mul(&s, g[0], conj_(&s, d)));
    }
    return done(&s);
}

/* ----------------------------------------------------------------- unary */

/* |z| is no holomorphic function: its gradient is grad * sgn(z) itself */
int abs_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    give(&s, n, out, 0, mul(&s, g[0], sgn_(&s, operand(&s, n, 0))));
    return done(&s);
}

int neg_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    give(&s, n, out, 0, neg(&s, g[0]));
    return done(&s);
}

/* grad * f(x) (or grad / f(x)) for f of the saved input x or result y; a
 * complex f'(x) enters conjugated, as torch's convention has it */
#define UNARY(fn, combine, operand_expr, expr)                   \
    int fn(mt_node *n, mt_tensor **g, mt_tensor **out)           \
    {                                                            \
        mt_scope s = {0};                                        \
        mt_tensor *v = (operand_expr);                           \
        give(&s, n, out, 0, combine(&s, g[0], conj_(&s, expr))); \
        return done(&s);                                         \
    }
#define X operand(&s, n, 0)
#define Y result(&s, n)
#define S (&s)
UNARY(exp_backward, mul, Y, v)
UNARY(exp2_backward, mul, Y, mul_f(S, v, LN2))
UNARY(expm1_backward, mul, Y, add_f(S, v, 1.0))
UNARY(sqrt_backward, div, Y, mul_f(S, v, 2.0))
UNARY(rsqrt_backward, mul, Y, mul_f(S, pow_f(S, v, 3.0), -0.5))
UNARY(tan_backward, mul, Y, add_f(S, mul(S, v, v), 1.0))
UNARY(reciprocal_backward, mul, Y, neg(S, mul(S, v, v)))
UNARY(log_backward, div, X, v)
UNARY(log2_backward, div, X, mul_f(S, v, LN2))
UNARY(log10_backward, div, X, mul_f(S, v, LN10))
UNARY(log1p_backward, div, X, add_f(S, v, 1.0))
UNARY(sin_backward, mul, X, cos_(S, v))
UNARY(cos_backward, mul, X, neg(S, sin_(S, v)))
UNARY(asin_backward, mul, X, rsqrt_(S, rsub_f(S, 1.0, mul(S, v, v))))
UNARY(acos_backward, mul, X, neg(S, rsqrt_(S, rsub_f(S, 1.0, mul(S, v, v)))))
UNARY(atan_backward, div, X, add_f(S, mul(S, v, v), 1.0))
UNARY(asinh_backward, mul, X, rsqrt_(S, add_f(S, mul(S, v, v), 1.0)))
UNARY(acosh_backward, mul, X, rsqrt_(S, add_f(S, mul(S, v, v), -1.0)))
UNARY(atanh_backward, div, X, rsub_f(S, 1.0, mul(S, v, v)))
UNARY(sinh_backward, mul, X, cosh_(S, v))
UNARY(cosh_backward, mul, X, sinh_(S, v))
UNARY(erf_backward, mul, X, mul_f(S, exp_(S, neg(S, mul(S, v, v))), TWO_OVER_SQRTPI))
UNARY(erfc_backward, mul, X, mul_f(S, exp_(S, neg(S, mul(S, v, v))), -TWO_OVER_SQRTPI))
UNARY(nan_to_num_backward, mul, X, isfinite_(S, v))
UNARY(square_backward, mul, X, mul_f(S, v, 2.0))
#undef X
#undef Y
#undef S

/* sinc: grad conj((pi x cos(pi x) - sin(pi x)) / (pi x^2)), 0 where pi x^2
 * is 0, in torch's order of operations */
int sinc_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0);
    mt_tensor *px = mul_f(&s, x, PI);
    mt_tensor *pxx = mul_f(&s, mul(&s, x, x), PI);
    mt_tensor *d = sub(&s, mul(&s, px, cos_(&s, px)), sin_(&s, px));
    give(&s, n, out, 0,
         where_0_or(&s, eq_f(&s, pxx, 0.0), mul(&s, g[0], conj_(&s, div(&s, d, pxx)))));
    return done(&s);
}

/* deg2rad and rad2deg scale by a constant */
int deg2rad_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    give(&s, n, out, 0, mul_f(&s, g[0], PI_OVER_180));
    return done(&s);
}

int rad2deg_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    give(&s, n, out, 0, mul_f(&s, g[0], PI_UNDER_180));
    return done(&s);
}

/* torch's leaky_relu_backward: the gradient where v (the input, or in place
 * the result) is positive, negative_slope times it elsewhere */
static int leaky_relu_grads(mt_node *n, mt_tensor **g, mt_tensor **out, bool from_result)
{
    mt_scope s = {0};
    double slope = number(&n->args[1]);
    mt_tensor *v = from_result ? result(&s, n) : operand(&s, n, 0);
    give(&s, n, out, 0, where(&s, gt_f(&s, v, 0.0), g[0], mul_f(&s, g[0], slope)));
    return done(&s);
}

/* threshold(x, t, v) and threshold_ (whose x is the input before it): the
 * gradient where x is above t, through the _threshold_backward row as torch's */
int threshold_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0);
    give(&s, n, out, 0,
         x ? MT_SCOPE_CALL(&s, MT_OP__threshold_backward, "TTf", g[0], x, number(&n->args[1]))
           : NULL);
    return done(&s);
}

/* _threshold_backward(grad_output, input, t): linear in grad_output, and
 * piecewise constant in input, whose gradient is zeros (not none: torch
 * keeps input connected) */
int threshold_backward_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    if (mt_needs(n, 0)) {
        mt_tensor *x = operand(&s, n, 1);
        give(&s, n, out, 0,
             x ? MT_SCOPE_CALL(&s, MT_OP__threshold_backward, "TTf", g[0], x, number(&n->args[2]))
               : NULL);
    }
    if (mt_needs(n, 1))
        give(&s, n, out, 1, zeros_like(&s, g[0]));
    return done(&s);
}

int leaky_relu_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return leaky_relu_grads(n, g, out, false);
}

/* In place the input is gone, and the result's sign is the input's only for
 * a slope that is not negative. */
int leaky_relu_inplace_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    if (number(&n->args[1]) < 0)
        return mt_error(MT_ERR_RUNTIME,
                        "In-place leakyReLu backward calculation is triggered with a negative "
                        "slope which is not supported. This is caused by calling in-place "
                        "forward function with a negative slope, please call out-of-place "
                        "version instead. File an issue at "
                        "https://github.com/pytorch/pytorch if you do require supporting "
                        "in-place leakRelu backward calculation with negative slope");
    return leaky_relu_grads(n, g, out, true);
}

/* torch's threshold_backward: 0 where the result is <= 0, else the gradient.
 * The zeros are sign(result) (exactly 0 there), so the gradient stays
 * connected to the input with a zero derivative, as torch's is. */
/* torch's: the threshold gradient of the result at 0 */
int relu_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *r = result(&s, n);
    give(&s, n, out, 0,
         r ? MT_SCOPE_CALL(&s, MT_OP__threshold_backward, "TTf", g[0], r, 0.0) : NULL);
    return done(&s);
}

/* softplus(x, beta, threshold) = log1p(exp(beta x)) / beta, linear above threshold */
int softplus_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *bx = mul_f(&s, operand(&s, n, 0), number(&n->args[1]));
    mt_tensor *smooth = mul(&s, g[0], sigmoid(&s, bx));
    give(&s, n, out, 0, where(&s, gt_f(&s, bx, number(&n->args[2])), g[0], smooth));
    return done(&s);
}

/* ------------------------------------------------------------ activations */

/* gelu, silu, tanh and sigmoid run their fused backward rows (activation.def);
 * those rows' own derivatives (formulas_activation.c) are composites, so
 * double backward works. */
int gelu_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    give(&s, n, out, 0, fused_gelu(&s, g[0], operand(&s, n, 0), approximate_of(&n->args[1])));
    return done(&s);
}

/* torch's silu_backward is a composite when recorded (create_graph), so the
 * graph then holds its ops: g s (1 + x (1 - s)), s = sigmoid x */
int silu_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0), *r;
    if (mt_grad_enabled) {
        mt_tensor *sg = sigmoid(&s, x);
        r = mul(&s, g[0], mul(&s, sg, add_f(&s, mul(&s, x, rsub_f(&s, 1.0, sg)), 1.0)));
    } else {
        r = fused(&s, MT_OP__silu_backward, g[0], x);
    }
    give(&s, n, out, 0, r);
    return done(&s);
}

/* The fused backward kernels are real: a complex result y takes
 * grad * conj(f'), f' being 1 - y^2 for tanh and y (1 - y) for sigmoid. */
int tanh_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *y = result(&s, n);
    if (y && mt_is_complex(y->dtype))
        give(&s, n, out, 0, mul(&s, g[0], conj_(&s, rsub_f(&s, 1.0, mul(&s, y, y)))));
    else
        give(&s, n, out, 0, fused(&s, MT_OP__tanh_backward, g[0], y));
    return done(&s);
}

int sigmoid_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *y = result(&s, n);
    if (y && mt_is_complex(y->dtype))
        give(&s, n, out, 0, mul(&s, g[0], conj_(&s, mul(&s, y, rsub_f(&s, 1.0, y)))));
    else
        give(&s, n, out, 0, fused(&s, MT_OP__sigmoid_backward, g[0], y));
    return done(&s);
}

/* add(input, other, alpha): d/dinput = g, d/dother = alpha * g */
int add_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    if (mt_param_needs(n, 0)) {
        mt_retain(g[0]);
        if (!(out[mt_edge_of(n, 0)] = mt_reduce_to_edge(n, mt_edge_of(n, 0), g[0])))
            return -1;
    }
    if (mt_param_needs(n, 1)) {
        const mt_ad_value *alpha = n->nparams > 2 ? &n->args[2] : NULL;
        mt_tensor *ga;
        if (alpha && !alpha->none && alpha->is_complex)
            ga = mt_call(MT_OP_mul, "Tc", g[0], alpha->f, -alpha->im);
        else if (alpha && !alpha->none && (alpha->is_float ? alpha->f != 1.0 : alpha->i != 1))
            ga = alpha->is_float ? mt_call(MT_OP_mul, "Tf", g[0], alpha->f)
                                 : mt_call(MT_OP_mul, "Ti", g[0], alpha->i);
        else
            ga = (mt_retain(g[0]), g[0]);
        if (!ga || !(out[mt_edge_of(n, 1)] = mt_reduce_to_edge(n, mt_edge_of(n, 1), ga)))
            return -1;
    }
    return 0;
}

int mul_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    for (int p = 0; p < 2; p++) {
        if (!mt_param_needs(n, p))
            continue;
        mt_tensor *r = mt_mul_by_param(n, g[0], 1 - p);
        if (!r || !(out[mt_edge_of(n, p)] = mt_reduce_to_edge(n, mt_edge_of(n, p), r)))
            return -1;
    }
    return 0;
}

/* nextafter: the gradient passes to input unchanged, other gets zeros, as
 * torch */
int nextafter_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, g[0]);
    if (mt_param_needs(n, 1))
        give(&s, n, out, 1, zeros_like(&s, g[0]));
    return done(&s);
}

OP_T(lgamma_, MT_OP_lgamma)
OP_T(digamma_, MT_OP_digamma)
OP_T(i0_, MT_OP_i0)
OP_T(i1_, MT_OP_special_i1)
OP_T(i1e_, MT_OP_special_i1e)
OP_T(log1p_, MT_OP_log1p)
OP_TT(zeta_, MT_OP_special_zeta)

/* polygamma(n, x), a row call like the others */
static inline mt_tensor *polygamma_(mt_scope *s, int64_t order, mt_tensor *x)
{
    return !s->failed && x ? mt_scope_keep(s, mt_call(MT_OP_polygamma, "iT", order, x)) : NULL;
}

/* igamma(a, x) and igammac(a, x): torch has no derivative in a; in x
 * +-e^-x x^(a-1) / Gamma(a), in logs */
static int incomplete_gamma_backward(mt_node *n, mt_tensor **g, mt_tensor **out, double sign,
                                     const char *name)
{
    if (mt_param_needs(n, 0))
        return mt_error(MT_ERR_NOT_IMPLEMENTED,
                        "the derivative for '%s: input' is not implemented.", name);
    mt_scope s = {0};
    if (mt_param_needs(n, 1)) {
        mt_tensor *a = operand(&s, n, 0), *x = operand(&s, n, 1);
        mt_tensor *e =
            sub(&s, sub(&s, mul(&s, add_f(&s, a, -1.0), log_(&s, x)), x), lgamma_(&s, a));
        give(&s, n, out, 1, mul(&s, g[0], mul_f(&s, exp_(&s, e), sign)));
    }
    return done(&s);
}

int igamma_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return incomplete_gamma_backward(n, g, out, 1.0, "igamma");
}

int igammac_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return incomplete_gamma_backward(n, g, out, -1.0, "igammac");
}

/* lgamma' = digamma, digamma' = polygamma(1, .), polygamma(n)' = polygamma(n + 1) */
int lgamma_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    give(&s, n, out, 0, mul(&s, g[0], digamma_(&s, operand(&s, n, 0))));
    return done(&s);
}

int digamma_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    give(&s, n, out, 0, mul(&s, g[0], polygamma_(&s, 1, operand(&s, n, 0))));
    return done(&s);
}

/* the order at param order, the input at param x */
static int polygamma_grads(mt_node *n, mt_tensor **g, mt_tensor **out, int order, int x)
{
    mt_scope s = {0};
    int64_t next = (int64_t)number(&n->args[order]) + 1;
    give(&s, n, out, x, mul(&s, g[0], polygamma_(&s, next, operand(&s, n, x))));
    return done(&s);
}

int polygamma_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return polygamma_grads(n, g, out, 0, 1);
}

int polygamma_method_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return polygamma_grads(n, g, out, 1, 0);
}

/* erfinv' = sqrt(pi) / 2 e^(erfinv(x)^2), from the result */
int erfinv_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *y = result(&s, n);
    give(&s, n, out, 0, mul(&s, g[0], mul_f(&s, exp_(&s, mul(&s, y, y)), 0.88622692545275801365)));
    return done(&s);
}

/* i0' = i1; i1' = i0 - i1 / x, 1/2 at 0 */
int i0_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    give(&s, n, out, 0, mul(&s, g[0], i1_(&s, operand(&s, n, 0))));
    return done(&s);
}

int i1_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0);
    mt_tensor *d = sub(&s, i0_(&s, x), div(&s, result(&s, n), x));
    mt_tensor *half = add_f(&s, zeros_like(&s, d), 0.5);
    give(&s, n, out, 0, mul(&s, g[0], where(&s, eq_f(&s, x, 0.0), half, d)));
    return done(&s);
}

/* i0e' = i1e - sgn(x) i0e; i1e' = i0e - i1e (sgn(x) + 1 / x), 1/2 at 0 */
int i0e_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0);
    mt_tensor *d = sub(&s, i1e_(&s, x), mul(&s, sign(&s, x), result(&s, n)));
    give(&s, n, out, 0, mul(&s, g[0], d));
    return done(&s);
}

int i1e_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0);
    mt_tensor *d = sub(&s, mt_scope_keep(&s, mt_call(MT_OP_special_i0e, "T", x)),
                       mul(&s, result(&s, n), add(&s, sign(&s, x), reciprocal(&s, x))));
    mt_tensor *half = add_f(&s, zeros_like(&s, d), 0.5);
    give(&s, n, out, 0, mul(&s, g[0], where(&s, eq_f(&s, x, 0.0), half, d)));
    return done(&s);
}

/* erfcx' = 2 x erfcx(x) - 2 / sqrt(pi) */
int erfcx_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *d =
        add_f(&s, mul_f(&s, mul(&s, operand(&s, n, 0), result(&s, n)), 2.0), -TWO_OVER_SQRTPI);
    give(&s, n, out, 0, mul(&s, g[0], d));
    return done(&s);
}

/* log_ndtr' = e^(-(log_ndtr(x) + x^2 / 2)) / sqrt(2 pi), from the result */
int log_ndtr_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0);
    mt_tensor *e = neg(&s, add(&s, result(&s, n), mul_f(&s, mul(&s, x, x), 0.5)));
    give(&s, n, out, 0, mul(&s, g[0], mul_f(&s, exp_(&s, e), 0.39894228040143267794)));
    return done(&s);
}

/* ndtri' = sqrt(2 pi) e^(ndtri(p)^2 / 2), from the result */
int ndtri_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *y = result(&s, n);
    mt_tensor *d = mul_f(&s, exp_(&s, mul_f(&s, mul(&s, y, y), 0.5)), 2.50662827463100050242);
    give(&s, n, out, 0, mul(&s, g[0], d));
    return done(&s);
}

/* entr' = -(1 + log x) */
int entr_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *d = neg(&s, add_f(&s, log_(&s, operand(&s, n, 0)), 1.0));
    give(&s, n, out, 0, mul(&s, g[0], d));
    return done(&s);
}

/* xlog1py(input, other) = input * log1p(other): the input's gradient is 0
 * where input is 0 and other <= -1, as torch masks it */
int xlog1py_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0), *y = operand(&s, n, 1);
    if (mt_param_needs(n, 0)) {
        mt_tensor *masked = and_(&s, eq_f(&s, x, 0.0), le_f(&s, y, -1.0));
        give(&s, n, out, 0, where_0_or(&s, masked, mul(&s, g[0], log1p_(&s, y))));
    }
    if (mt_param_needs(n, 1))
        give(&s, n, out, 1, div(&s, mul(&s, g[0], x), add_f(&s, y, 1.0)));
    return done(&s);
}

/* zeta(x, q): torch has no derivative in x; in q, -x zeta(x + 1, q) */
int zeta_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    if (mt_param_needs(n, 0))
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "the derivative for 'zeta' is not implemented.");
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 0), *q = operand(&s, n, 1);
    mt_tensor *d = mul(&s, neg(&s, x), zeta_(&s, add_f(&s, x, 1.0), q));
    give(&s, n, out, 1, mul(&s, g[0], d));
    return done(&s);
}
