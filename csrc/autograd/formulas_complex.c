/* Derivatives of complex.def's rows, in torch's convention for complex
 * values: the gradient of a real loss L with respect to z = x + iy is
 * dL/dx + i dL/dy, so a function's gradient is grad * conj(f'(z)) where f is
 * holomorphic, and both Wirtinger parts enter where it is not (sgn). Written
 * with mt_call so double backward records. */
#include "formulas_pointwise.h"

OP_T(imag_, MT_OP_imag)
OP_T(abs_, MT_OP_abs)
OP_T(contiguous_, MT_OP_contiguous)
OP_TT(complex_, MT_OP_complex)

/* i * w of a complex w: (-imag w) + i (real w) */
static mt_tensor *times_i(mt_scope *s, mt_tensor *w)
{
    return complex_(s, neg(s, imag_(s, w)), real_(s, w));
}

int view_as_real_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *c = contiguous_(&s, g[0]);
    give(&s, n, out, 0, MT_SCOPE_CALL(&s, MT_OP_view_as_complex, "T", c));
    return done(&s);
}

int view_as_complex_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    /* view_as_real refuses a conjugate view: the gradient may be one */
    mt_tensor *r = MT_SCOPE_CALL(&s, MT_OP_resolve_conj, "T", g[0]);
    give(&s, n, out, 0, r ? MT_SCOPE_CALL(&s, MT_OP_view_as_real, "T", r) : NULL);
    return done(&s);
}

/* real(z): the real gradient g is g + 0i (mt_reduce_to_edge casts it) */
int real_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    give(&s, n, out, 0, g[0]);
    return done(&s);
}

/* imag(z): 0 + i g */
int imag_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    give(&s, n, out, 0, complex_(&s, zeros_like(&s, g[0]), g[0]));
    return done(&s);
}

int conj_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    give(&s, n, out, 0, conj_(&s, g[0]));
    return done(&s);
}

/* angle(z) = atan2(y, x): i g z / |z|^2, 0 at 0; constant on real input */
int angle_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *z = operand(&s, n, 0);
    if (z && !mt_is_complex(z->dtype)) {
        give(&s, n, out, 0, zeros_like(&s, z));
        return done(&s);
    }
    mt_tensor *a = abs_(&s, z);
    mt_tensor *w = times_i(&s, div(&s, mul(&s, g[0], z), mul(&s, a, a)));
    mt_tensor *zero = MT_SCOPE_CALL(&s, MT_OP_eq, "Tf", a, 0.0);
    give(&s, n, out, 0, MT_SCOPE_CALL(&s, MT_OP_where, "TfT", zero, 0.0, w));
    return done(&s);
}

/* sgn(z) = z / |z|: (g - sgn^2 conj(g)) / (2 |z|), 0 at 0; sign() of real
 * input is piecewise constant */
int sgn_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *z = operand(&s, n, 0);
    if (z && !mt_is_complex(z->dtype)) {
        give(&s, n, out, 0, zeros_like(&s, z));
        return done(&s);
    }
    mt_tensor *sg = result(&s, n), *a = abs_(&s, z);
    mt_tensor *num = sub(&s, g[0], mul(&s, mul(&s, sg, sg), conj_(&s, g[0])));
    mt_tensor *w = div(&s, num, mul_f(&s, a, 2.0));
    mt_tensor *zero = MT_SCOPE_CALL(&s, MT_OP_eq, "Tf", a, 0.0);
    give(&s, n, out, 0, MT_SCOPE_CALL(&s, MT_OP_where, "TfT", zero, 0.0, w));
    return done(&s);
}

int complex_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, real_(&s, g[0]));
    if (mt_param_needs(n, 1))
        give(&s, n, out, 1, imag_(&s, g[0]));
    return done(&s);
}

/* r = abs e^{i angle}: d abs = real(conj(g) sgn(r)), d angle = real(conj(g) i r) */
int polar_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    mt_scope s = {0};
    mt_tensor *r = result(&s, n), *gc = conj_(&s, g[0]);
    if (mt_param_needs(n, 0))
        give(&s, n, out, 0, real_(&s, mul(&s, gc, sgn_(&s, r))));
    if (mt_param_needs(n, 1))
        give(&s, n, out, 1, real_(&s, mul(&s, gc, times_i(&s, r))));
    return done(&s);
}
