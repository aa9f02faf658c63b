/* Formulas of the activation family (ops/activation.def): the derivatives
 * of the fused backward rows, as composites of differentiable ops so that
 * double backward works and records what torch records. */
#include "formulas_pointwise.h"

#include <string.h>

/* A backward row r = go * f'(v): linear in go, whose gradient is the same
 * row of the incoming gradient; the gradient for v is gg * go * f''(v). */
static int activation_double_backward(mt_scope *s, mt_node *n, mt_tensor **g, mt_tensor **out,
                                      mt_tensor *d_go, mt_tensor *f2)
{
    if (mt_param_needs(n, 0))
        give(s, n, out, 0, d_go);
    if (mt_param_needs(n, 1))
        give(s, n, out, 1, mul(s, mul(s, g[0], operand(s, n, 0)), f2));
    return done(s);
}

/* gelu'' = pdf(x) (2 - x^2); with the tanh form, u = beta (x + kappa x^3),
 * t = tanh u: (1 - t^2) (u' + x (u'' - 2 t u'^2) / 2) */
int gelu_backward_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    const char *ap = approximate_of(&n->args[2]);
    mt_tensor *x = operand(&s, n, 1), *f2 = NULL, *d_go = NULL;
    if (mt_param_needs(n, 0))
        d_go = fused_gelu(&s, g[0], x, ap);
    if (mt_param_needs(n, 1)) {
        mt_tensor *x2 = mul(&s, x, x);
        if (strcmp(ap, "tanh") == 0) {
            const double beta = SQRT2 * TWO_OVER_SQRTPI * 0.5, kappa = 0.044715;
            mt_tensor *t = tanh_(&s, mul_f(&s, add(&s, x, mul_f(&s, mul(&s, x2, x), kappa)), beta));
            mt_tensor *du = mul_f(&s, add_f(&s, mul_f(&s, x2, 3.0 * kappa), 1.0), beta);
            mt_tensor *ddu = mul_f(&s, x, 6.0 * beta * kappa);
            mt_tensor *curv = add(&s, ddu, mul_f(&s, mul(&s, t, mul(&s, du, du)), -2.0));
            mt_tensor *inner = add(&s, du, mul_f(&s, mul(&s, x, curv), 0.5));
            f2 = mul(&s, rsub_f(&s, 1.0, mul(&s, t, t)), inner);
        } else {
            mt_tensor *pdf =
                mul_f(&s, exp_(&s, mul_f(&s, x2, -0.5)), TWO_OVER_SQRTPI * SQRT1_2 * 0.5);
            f2 = mul(&s, pdf, rsub_f(&s, 2.0, x2));
        }
    }
    return activation_double_backward(&s, n, g, out, d_go, f2);
}

/* silu'' = s (1 - s) (2 + x (1 - 2 s)), s = sigmoid x */
int silu_backward_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *x = operand(&s, n, 1), *f2 = NULL, *d_go = NULL;
    if (mt_param_needs(n, 0))
        d_go = fused(&s, MT_OP__silu_backward, g[0], x);
    if (mt_param_needs(n, 1)) {
        mt_tensor *sg = sigmoid(&s, x);
        mt_tensor *ds = mul(&s, sg, rsub_f(&s, 1.0, sg));
        mt_tensor *k = add_f(&s, mul(&s, x, rsub_f(&s, 1.0, mul_f(&s, sg, 2.0))), 2.0);
        f2 = mul(&s, ds, k);
    }
    return activation_double_backward(&s, n, g, out, d_go, f2);
}

/* in terms of the output y: d(1 - y^2)/dy = -2y */
int tanh_backward_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *y = operand(&s, n, 1), *f2 = NULL, *d_go = NULL;
    if (mt_param_needs(n, 0))
        d_go = fused(&s, MT_OP__tanh_backward, g[0], y);
    if (mt_param_needs(n, 1))
        f2 = mul_f(&s, y, -2.0);
    return activation_double_backward(&s, n, g, out, d_go, f2);
}

/* d((1 - y) y)/dy = 1 - 2y */
int sigmoid_backward_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *y = operand(&s, n, 1), *f2 = NULL, *d_go = NULL;
    if (mt_param_needs(n, 0))
        d_go = fused(&s, MT_OP__sigmoid_backward, g[0], y);
    if (mt_param_needs(n, 1))
        f2 = rsub_f(&s, 1.0, mul_f(&s, y, 2.0));
    return activation_double_backward(&s, n, g, out, d_go, f2);
}
