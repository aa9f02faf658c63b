/* A product bilinear in two complex operands (a convolution and its input and
 * weight gradients) from three runs of its real impl, as torch computes a
 * complex convolution: with x = p + iq and y = u + iv,
 *     p u - q v  +  i ((p + q)(u + v) - p u - q v).
 * The impl sees real parts only, with every other param as the caller gave
 * it, so its checks and kernels are the real ones. */
#include "complex_bilinear.h"
#include "runtime/call.h"

/* impl with params 0 and 1 replaced by x and y: its tensor (new reference). */
static mt_tensor *run_on(const mt_args *a, mt_impl_fn impl, mt_tensor *x, mt_tensor *y)
{
    if (!x || !y)
        return NULL;
    mt_args b = *a;
    b.v[0].t = x;
    b.v[1].t = y;
    b.host = NULL;
    mt_result r = {0};
    if (impl(&b, &r) < 0)
        return NULL;
    return mt_result_single(a->op, &r);
}

int mt_complex_bilinear(const mt_args *a, mt_result *r, mt_impl_fn impl)
{
    enum { P, Q, U, V, PQ, UV, PU, QV, S, RE, T, IM, N };
    mt_tensor *t[N] = {0};
    t[P] = mt_exec(MT_OP_real, "T", a->v[0].t);
    t[Q] = t[P] ? mt_exec(MT_OP_imag, "T", a->v[0].t) : NULL;
    t[U] = t[Q] ? mt_exec(MT_OP_real, "T", a->v[1].t) : NULL;
    t[V] = t[U] ? mt_exec(MT_OP_imag, "T", a->v[1].t) : NULL;
    t[PQ] = t[V] ? mt_exec(MT_OP_add, "TT", t[P], t[Q]) : NULL;
    t[UV] = t[PQ] ? mt_exec(MT_OP_add, "TT", t[U], t[V]) : NULL;
    t[PU] = t[UV] ? run_on(a, impl, t[P], t[U]) : NULL;
    t[QV] = t[PU] ? run_on(a, impl, t[Q], t[V]) : NULL;
    t[S] = t[QV] ? run_on(a, impl, t[PQ], t[UV]) : NULL;
    t[RE] = t[S] ? mt_exec(MT_OP_sub, "TT", t[PU], t[QV]) : NULL;
    t[T] = t[RE] ? mt_exec(MT_OP_sub, "TT", t[S], t[PU]) : NULL;
    t[IM] = t[T] ? mt_exec(MT_OP_sub, "TT", t[T], t[QV]) : NULL;
    mt_tensor *out = t[IM] ? mt_exec(MT_OP_complex, "TT", t[RE], t[IM]) : NULL;
    for (int k = 0; k < N; k++)
        mt_xrelease(t[k]);
    return mt_result_tensor(r, out);
}
