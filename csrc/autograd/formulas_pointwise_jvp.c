/* Direct forward-mode formulas for the hot elementwise ops of the pointwise
 * family (the view ops' are in formulas_shape.c, scatter's in
 * formulas_index.c); every other kind derives its jvp from its backward
 * (forward.c). Tangents come per edge (NULL = zero); results may still
 * broadcast: mt_jvp brings them to each output's shape and dtype. */
#include "formula.h"

static mt_tensor *tangent(mt_node *n, mt_tensor **tin, int p)
{
    int e = mt_edge_of(n, p);
    return e >= 0 ? tin[e] : NULL;
}

static double number(const mt_ad_value *v) { return v->is_float ? v->f : (double)v->i; }

static mt_tensor *retained(mt_tensor *t)
{
    mt_retain(t);
    return t;
}

/* a + b where either may be NULL (zero); consumes both. */
static mt_tensor *sum2(mt_tensor *a, mt_tensor *b)
{
    if (!a || !b)
        return a ? a : b;
    mt_tensor *r = mt_call(MT_OP_add, "TT", a, b);
    mt_release(a);
    mt_release(b);
    return r;
}

/* Consumes a. */
static mt_tensor *scale(mt_tensor *a, double k)
{
    if (!a || k == 1.0)
        return a;
    mt_tensor *r = mt_call(MT_OP_mul, "Tf", a, k);
    mt_release(a);
    return r;
}

/* a * k * v for a number v, complex or not; consumes a. */
static mt_tensor *scale_by(mt_tensor *a, const mt_ad_value *v, double k)
{
    if (!a || !v->is_complex)
        return scale(a, k * number(v));
    mt_tensor *r = mt_call(MT_OP_mul, "Tc", a, k * v->f, k * v->im);
    mt_release(a);
    return r;
}

/* t * saved tensor of slot; NULL with an error when it cannot be read. */
static mt_tensor *mul_saved(mt_node *n, mt_tensor *t, int slot)
{
    mt_tensor *x = mt_node_saved(n, slot);
    if (!x)
        return NULL;
    mt_tensor *r = mt_call(MT_OP_mul, "TT", t, x);
    mt_release(x);
    return r;
}

/* Returns 0 when r is set or no tangent was needed, -1 on error. */
static int put(mt_tensor **out, mt_tensor *r, bool needed)
{
    *out = r;
    return needed && !r ? -1 : 0;
}

static int add_sub(mt_node *n, mt_tensor **tin, mt_tensor **tout, double sign)
{
    mt_tensor *t0 = tangent(n, tin, 0), *t1 = tangent(n, tin, 1);
    const mt_ad_value *alpha = n->nparams > 2 ? &n->args[2] : NULL;
    mt_tensor *x = t0 ? retained(t0) : NULL, *y = NULL;
    if (t1)
        y = alpha && !alpha->none ? scale_by(retained(t1), alpha, sign) : scale(retained(t1), sign);
    if (t1 && !y) {
        if (x)
            mt_release(x);
        return -1;
    }
    return put(&tout[0], sum2(x, y), t0 || t1);
}

int add_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout) { return add_sub(n, tin, tout, 1.0); }

int sub_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout) { return add_sub(n, tin, tout, -1.0); }

int mul_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    mt_tensor *t0 = tangent(n, tin, 0), *t1 = tangent(n, tin, 1), *a = NULL, *b = NULL;
    if (t0 && !(a = mt_tangent_by_param(n, t0, 1)))
        return -1;
    if (t1 && !(b = mt_tangent_by_param(n, t1, 0))) {
        if (a)
            mt_release(a);
        return -1;
    }
    return put(&tout[0], sum2(a, b), t0 || t1);
}

/* d(x / y) = tx / y - ty * x / y^2 */
int div_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    mt_tensor *t0 = tangent(n, tin, 0), *t1 = tangent(n, tin, 1);
    const mt_ad_value *d = &n->args[1];
    if (d->is_number && d->is_complex)
        return put(&tout[0], t0 ? mt_call(MT_OP_div, "Tc", t0, d->f, d->im) : NULL, t0);
    if (d->is_number)
        return put(&tout[0], t0 ? mt_call(MT_OP_div, "Tf", t0, number(d)) : NULL, t0);
    mt_tensor *y = mt_node_saved(n, 1), *a = NULL, *b = NULL;
    if (!y)
        return -1;
    if (t0)
        a = mt_call(MT_OP_div, "TT", t0, y);
    if (t1) {
        mt_tensor *x = mt_node_saved(n, 0);
        mt_tensor *q = x ? mt_call(MT_OP_div, "TT", x, y) : NULL;
        mt_tensor *q2 = q ? mt_call(MT_OP_div, "TT", q, y) : NULL;
        mt_tensor *p = q2 ? mt_call(MT_OP_mul, "TT", t1, q2) : NULL;
        b = p ? scale(p, -1.0) : NULL;
        mt_release_all(1, &x);
        mt_release_all(1, &q);
        mt_release_all(1, &q2);
    }
    mt_release(y);
    if ((t0 && !a) || (t1 && !b)) {
        mt_release_all(1, &a);
        mt_release_all(1, &b);
        return -1;
    }
    return put(&tout[0], sum2(a, b), true);
}

int neg_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    if (!tin[0])
        return 0;
    return put(&tout[0], mt_call(MT_OP_neg, "T", tin[0]), true);
}

/* t * f(saved) where f is an op of one tensor; slot nparams is the output. */
static int times_fn_of(mt_node *n, mt_tensor **tin, mt_tensor **tout, int slot, int fn, double k)
{
    if (!tin[0])
        return 0;
    mt_tensor *x = mt_node_saved(n, slot);
    if (!x)
        return -1;
    mt_tensor *f = fn >= 0 ? mt_call((mt_op_id)fn, "T", x) : retained(x);
    mt_release(x);
    mt_tensor *r = f ? mt_call(MT_OP_mul, "TT", tin[0], f) : NULL;
    if (f)
        mt_release(f);
    return put(&tout[0], scale(r, k), true);
}

int exp_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    return times_fn_of(n, tin, tout, n->nparams, -1, 1.0);
}

int log_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    return times_fn_of(n, tin, tout, 0, MT_OP_reciprocal, 1.0);
}

int sin_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    return times_fn_of(n, tin, tout, 0, MT_OP_cos, 1.0);
}

int cos_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    return times_fn_of(n, tin, tout, 0, MT_OP_sin, -1.0);
}

/* t * y * (1 - y) for sigmoid, t * (1 - y^2) for tanh, y the saved output */
static int output_poly(mt_node *n, mt_tensor **tin, mt_tensor **tout, bool tanh)
{
    if (!tin[0])
        return 0;
    mt_tensor *y = mt_node_saved(n, n->nparams);
    if (!y)
        return -1;
    mt_tensor *ty = mt_call(MT_OP_mul, "TT", tin[0], y);
    mt_tensor *tyy = ty ? mt_call(MT_OP_mul, "TT", ty, y) : NULL;
    mt_tensor *r =
        tyy ? (tanh ? mt_call(MT_OP_sub, "TT", tin[0], tyy) : mt_call(MT_OP_sub, "TT", ty, tyy))
            : NULL;
    mt_release_all(1, &y);
    mt_release_all(1, &ty);
    mt_release_all(1, &tyy);
    return put(&tout[0], r, true);
}

int tanh_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    return output_poly(n, tin, tout, true);
}

int sigmoid_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    return output_poly(n, tin, tout, false);
}

int relu_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    if (!tin[0])
        return 0;
    mt_tensor *y = mt_node_saved(n, n->nparams);
    if (!y)
        return -1;
    mt_tensor *pos = mt_call(MT_OP_gt, "Tf", y, 0.0);
    mt_release(y);
    mt_tensor *r = pos ? mt_call(MT_OP_mul, "TT", tin[0], pos) : NULL;
    mt_release_all(1, &pos);
    return put(&tout[0], r, true);
}

/* x ** e for a number e: t * e * x ** (e - 1) */
int pow_scalar_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    if (!tin[0])
        return 0;
    const mt_ad_value *v = &n->args[1];
    double e = v->is_complex ? v->f : number(v), ei = v->is_complex ? v->im : 0.0;
    if (e == 0.0 && ei == 0.0)
        return 0;
    mt_tensor *x = mt_node_saved(n, 0);
    if (!x)
        return -1;
    mt_tensor *p = v->is_complex ? mt_call(MT_OP_pow, "Tc", x, e - 1.0, ei)
                                 : mt_call(MT_OP_pow, "Tf", x, e - 1.0);
    mt_release(x);
    mt_tensor *r = p ? mt_call(MT_OP_mul, "TT", tin[0], p) : NULL;
    mt_release_all(1, &p);
    return put(&tout[0], scale_by(r, v, 1.0), true);
}
