/* Matrix products of the op table (mm, bmm, matmul, mv, dot, addmm, addmv,
 * baddbmm and their in-place forms, outer/ger, nn.functional.linear), in
 * plain C: each op checks its operands in torch's words, describes them as
 * stacks of matrices and runs mt_gemm. It touches tensors only through core/owner.h and the kernels. The
 * BLAS that mt_gemm may use is located through the host's hook
 * (mt_blas_prepare) before the first floating product, since finding it asks
 * NumPy. */
#include "runtime/args.h"
#include "runtime/call.h"
#include "runtime/table.h"
#include "runtime/unlock.h"
#include "elementwise.h"
#include "out_param.h"
#include "complex.h"

#include "../core/shape.h"
#include "../kernels/pointwise.h"
#include "../kernels/gemm/blas.h"
#include "../kernels/copy.h"
#include "../kernels/gemm/gemm.h"

#include <string.h>

/* torch's C++ type names, used by some of its messages. */
static const char *cpp_name(mt_dtype d) { return mt_dtype_infos[d].cpp_name; }

static const char *sname(mt_dtype d) { return mt_dtype_infos[d].scalar_name; }

/* t seen as a (batch..., rows, cols) stack: its last dims hold rows (when
 * has_rows) and cols (when has_cols); its leading dims broadcast to batch. */
static mt_tensor as_stack(const mt_tensor *t, int nb, const int64_t *batch, bool has_rows,
                          int64_t rows, bool has_cols, int64_t cols)
{
    mt_tensor v = *t;
    int own = t->ndim - has_rows - has_cols;
    v.ndim = nb + 2;
    v.numel = rows * cols;
    for (int i = 0; i < nb; i++) {
        int td = own - nb + i;
        v.sizes[i] = batch[i];
        v.strides[i] = td >= 0 && t->sizes[td] != 1 ? t->strides[td] : 0;
        v.numel *= batch[i];
    }
    v.sizes[nb] = rows;
    v.strides[nb] = has_rows ? t->strides[own] : 0;
    v.sizes[nb + 1] = cols;
    v.strides[nb + 1] = has_cols ? t->strides[t->ndim - 1] : 0;
    return v;
}

static mt_gemm_operand operand(const mt_tensor *v)
{
    mt_gemm_operand o = {mt_data(v), v->strides[v->ndim - 2], v->strides[v->ndim - 1], {0}};
    memcpy(o.bs, v->strides, sizeof(int64_t) * (v->ndim - 2));
    return o;
}

/* The destination: a fresh tensor, or out= checked and resized as torch does. */
static mt_tensor *destination(mt_tensor *out, mt_dtype d, int ndim, const int64_t *shape)
{
    if (!out)
        return mt_new(d, ndim, shape, false);
    if (out->dtype != d) {
        mt_error(MT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s instead",
                 cpp_name(d), cpp_name(out->dtype));
        return NULL;
    }
    if (mt_resize_out(out, ndim, shape, NULL) < 0)
        return NULL;
    mt_retain(out);
    return out;
}

/* "The expanded size of the tensor ..." when c does not broadcast to shape. */
static int check_expand(const mt_tensor *c, int ndim, const int64_t *shape)
{
    char a[256], b[256];
    for (int i = 0; i < c->ndim; i++) {
        int j = ndim - c->ndim + i;
        if (j < 0 || (c->sizes[i] != 1 && c->sizes[i] != shape[j])) {
            mt_format_shape(a, sizeof a, ndim, shape);
            mt_format_shape(b, sizeof b, c->ndim, c->sizes);
            if (j < 0)
                return mt_error(MT_ERR_RUNTIME,
                                "expand(torch.FloatTensor{%s}, size=%s): the number of sizes "
                                "provided (%d) must be greater or equal to the number of "
                                "dimensions in the tensor (%d)",
                                b, a, ndim, c->ndim);
            return mt_error(MT_ERR_RUNTIME,
                            "The expanded size of the tensor (%lld) must match the existing "
                            "size (%lld) at non-singleton dimension %d.  Target sizes: %s.  "
                            "Tensor sizes: %s",
                            (long long)shape[j], (long long)c->sizes[i], j, a, b);
        }
    }
    return 0;
}

/* A problem in the kernel's terms: the result is (batch..., [m], [n]) with
 * the m/n dims present when has_m/has_n; A is (batch..., [m], k), B is
 * (batch..., k, [n]), each with its own (broadcasting) batch dims. */
typedef struct {
    int nb;
    int64_t batch[MT_MAX_DIMS];
    int64_t m, n, k;
    bool has_m, has_n;
    const mt_tensor *a, *b;
    const mt_tensor *c; /* the beta term, broadcast to the result; or NULL */
    mt_gemm_scale alpha, beta;
    bool conj_a; /* a read conjugated (vdot): complex only, with the BLAS's cgemm */
} problem;

static mt_gemm_scale scale_of(const mt_scalar *s) { return (mt_gemm_scale){s->f, s->i, s->im}; }

/* A float32 copy of a half/bfloat16 stack. */
static mt_tensor *widened(const mt_tensor *v)
{
    mt_tensor *o = mt_new(MT_FLOAT32, v->ndim, v->sizes, false);
    if (o)
        mt_copy(o, v);
    return o;
}

/* A complex product as four real ones over the parts, each through the
 * real kernels' whole machinery, where the BLAS has no cgemm/zgemm:
 * (ar + i ai)(br + i bi) = (ar br - ai bi) + i (ar bi + ai br). Real
 * scales only (a complex one would mix the parts). */
static int complex_gemm(const mt_gemm_shape *s, const mt_tensor *a, const mt_tensor *b,
                        const mt_tensor *c, mt_gemm_scale alpha, mt_gemm_scale beta)
{
    if (alpha.im != 0 || beta.im != 0)
        return mt_error(MT_ERR_NOT_IMPLEMENTED,
                        "minitorch: a complex alpha or beta needs a BLAS with cgemm/zgemm");
    mt_dtype part = mt_complex_part(a->dtype);
    mt_tensor ar = mt_complex_part_of(a, 0), ai = mt_complex_part_of(a, 1);
    mt_tensor br = mt_complex_part_of(b, 0), bi = mt_complex_part_of(b, 1);
    mt_tensor cr = mt_complex_part_of(c, 0), ci = mt_complex_part_of(c, 1);
    mt_gemm_operand gar = operand(&ar), gai = operand(&ai), gbr = operand(&br), gbi = operand(&bi),
                    gcr = operand(&cr), gci = operand(&ci);
    mt_gemm_scale minus = {-alpha.f, -alpha.i}, one = {1.0, 1};
    if (mt_gemm(part, s, &gar, &gbr, &gcr, alpha, beta) < 0 ||
        mt_gemm(part, s, &gai, &gbi, &gcr, minus, one) < 0 ||
        mt_gemm(part, s, &gar, &gbi, &gci, alpha, beta) < 0 ||
        mt_gemm(part, s, &gai, &gbr, &gci, alpha, one) < 0)
        return -1;
    return 0;
}

static int run(const problem *p, mt_dtype d, mt_tensor *out, mt_result *r)
{
    int rndim = p->nb + p->has_m + p->has_n;
    int64_t rshape[MT_MAX_DIMS];
    memcpy(rshape, p->batch, sizeof(int64_t) * p->nb);
    if (p->has_m)
        rshape[p->nb] = p->m;
    if (p->has_n)
        rshape[rndim - 1] = p->n;
    if (p->c && check_expand(p->c, rndim, rshape) < 0)
        return -1;
    mt_tensor *dest = destination(out, d, rndim, rshape);
    if (!dest)
        return -1;
    mt_tensor *wa = NULL, *wb = NULL, *wc = NULL;
    mt_tensor av = as_stack(p->a, p->nb, p->batch, p->has_m, p->m, true, p->k);
    mt_tensor bv = as_stack(p->b, p->nb, p->batch, true, p->k, p->has_n, p->n);
    mt_tensor *work = dest;
    mt_dtype cd = d;
    if (d == MT_FLOAT16 || d == MT_BFLOAT16) {
        cd = MT_FLOAT32;
        wa = widened(&av);
        wb = widened(&bv);
        wc = mt_new(cd, rndim, rshape, false);
        if (!wa || !wb || !wc)
            goto fail;
        av = *wa;
        bv = *wb;
        work = wc;
    }
    /* the product reads a and b while it writes: a target sharing their
     * memory, or whose elements alias, gets the result through a copy */
    if (!wc && (dest->storage == av.storage || dest->storage == bv.storage ||
                !mt_tensor_is_non_overlapping_and_dense(dest))) {
        if (!(wc = mt_new(cd, rndim, rshape, false)))
            goto fail;
        work = wc;
    }
    mt_gemm_scale beta = p->beta;
    if (p->c && (mt_is_inexact(d) ? beta.f != 0 || beta.im != 0 : beta.i != 0))
        mt_copy(work, p->c);
    else
        beta = (mt_gemm_scale){0.0, 0};
    mt_tensor cv = as_stack(work, p->nb, p->batch, p->has_m, p->m, p->has_n, p->n);
    mt_gemm_shape s = {p->nb, {0}, p->m, p->n, p->k};
    memcpy(s.batch, p->batch, sizeof(int64_t) * p->nb);
    mt_gemm_operand ga = operand(&av), gb = operand(&bv), gc = operand(&cv);
    int rc;
    if (mt_is_inexact(cd))
        mt_blas_prepare();
    void *tok = mt_unlock(mt_gemm_work(&s) / MT_MULADDS_PER_STEP);
    if (!mt_is_complex(cd))
        rc = mt_gemm(cd, &s, &ga, &gb, &gc, p->alpha, beta);
    else if (mt_blas_complex_available())
        rc = mt_gemm_complex(cd, &s, &ga, &gb, &gc, p->conj_a, false, p->alpha, beta);
    else
        rc = complex_gemm(&s, &av, &bv, &cv, p->alpha, beta);
    mt_relock(tok);
    if (rc < 0)
        goto fail;
    if (wc)
        mt_copy(dest, work);
    if (out)
        mt_bump_version(dest);
    mt_xrelease(wa);
    mt_xrelease(wb);
    mt_xrelease(wc);
    return mt_result_tensor(r, dest);
fail:
    mt_xrelease(wa);
    mt_xrelease(wb);
    mt_xrelease(wc);
    mt_release(dest);
    return -1;
}

/* Where an input-plus-product op writes: into input in the in-place form,
 * else its out= (or a new tensor when NULL). */
static mt_tensor *target(const mt_args *a)
{
    mt_tensor *self = mt_inplace_target(a);
    return self ? self : mt_out_target(a);
}

/* torch makes a bool product that has no multiply-adds (an empty dim), and
 * refuses any other. */
static bool bool_refused(mt_dtype d, int64_t m, int64_t n, int64_t k)
{
    return d == MT_BOOL && m > 0 && n > 0 && k > 0;
}

static int not_implemented(const char *name, mt_dtype d)
{
    return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", name, sname(d));
}

/* ---------------------------------------------------------------- mm family */

/* addmm's (c given) or mm's checks of a @ b, in torch's words. */
static int mm_check(const mt_tensor *a, const mt_tensor *b, const mt_tensor *c)
{
    if (c && a->ndim != 2)
        return mt_error(MT_ERR_RUNTIME, "mat1 must be a matrix, got %d-D tensor", a->ndim);
    if (c && b->ndim != 2)
        return mt_error(MT_ERR_RUNTIME, "mat2 must be a matrix, got %d-D tensor", b->ndim);
    if (a->ndim != 2)
        return mt_error(MT_ERR_RUNTIME, "self must be a matrix");
    if (b->ndim != 2)
        return mt_error(MT_ERR_RUNTIME, "mat2 must be a matrix");
    if (a->sizes[1] != b->sizes[0])
        return mt_error(MT_ERR_RUNTIME,
                        "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                        (long long)a->sizes[0], (long long)a->sizes[1], (long long)b->sizes[0],
                        (long long)b->sizes[1]);
    if (c && a->dtype != b->dtype)
        return mt_error(MT_ERR_RUNTIME, "mat1 and mat2 must have the same dtype, but got %s and %s",
                        sname(a->dtype), sname(b->dtype));
    if (a->dtype != b->dtype)
        return mt_error(MT_ERR_RUNTIME,
                        "expected m1 and m2 to have the same dtype, but got: %s != %s",
                        cpp_name(a->dtype), cpp_name(b->dtype));
    if (c && c->dtype != a->dtype)
        return mt_error(MT_ERR_RUNTIME, "self and mat2 must have the same dtype, but got %s and %s",
                        sname(c->dtype), sname(b->dtype));
    if (bool_refused(a->dtype, a->sizes[0], b->sizes[1], a->sizes[1]))
        return not_implemented("addmm_impl_cpu_", MT_BOOL);
    return 0;
}

static int mm_checked(const mt_tensor *a, const mt_tensor *b, const mt_tensor *c,
                      mt_gemm_scale alpha, mt_gemm_scale beta, mt_tensor *out, mt_result *r)
{
    if (mm_check(a, b, c) < 0)
        return -1;
    problem p = {0, {0}, a->sizes[0], b->sizes[1], a->sizes[1], true, true, a, b, c, alpha, beta};
    return run(&p, a->dtype, out, r);
}

static const mt_gemm_scale ONE = {1.0, 1};

int impl_mm(mt_args *a, mt_result *r)
{
    return mm_checked(a->v[0].t, a->v[1].t, NULL, ONE, ONE, mt_out_target(a), r);
}

/* mm(..., out_dtype), bmm, addmm, baddbmm: torch declares them and its CPU
 * backend refuses them; so does minitorch, in its words. */
int impl_out_dtype_unsupported(mt_args *a, mt_result *r)
{
    const char *overload = mt_out_target(a) ? "dtype_out" : "dtype";
    return mt_error(MT_ERR_NOT_IMPLEMENTED,
                    "Could not run 'aten::%s.%s' with arguments from the 'CPU' backend. This "
                    "could be because the operator doesn't exist for this backend, or was "
                    "omitted during the selective/custom build process (if using custom "
                    "build).",
                    a->sig->name, overload);
}

int impl_addmm(mt_args *a, mt_result *r)
{
    return mm_checked(a->v[1].t, a->v[2].t, a->v[0].t, scale_of(&a->v[4].s), scale_of(&a->v[3].s),
                      target(a), r);
}

/* ------------------------------------------------------------- bmm family */

static int bmm_checked(const mt_tensor *a, const mt_tensor *b, const mt_tensor *c,
                       mt_gemm_scale alpha, mt_gemm_scale beta, mt_tensor *out, mt_result *r)
{
    if (a->ndim != 3)
        return mt_error(MT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    if (b->ndim != 3)
        return mt_error(MT_ERR_RUNTIME, "batch2 must be a 3D tensor");
    if (b->sizes[0] != a->sizes[0] || b->sizes[1] != a->sizes[2])
        return mt_error(MT_ERR_RUNTIME,
                        "Expected size for first two dimensions of batch2 tensor to be: "
                        "[%lld, %lld] but got: [%lld, %lld].",
                        (long long)a->sizes[0], (long long)a->sizes[2], (long long)b->sizes[0],
                        (long long)b->sizes[1]);
    if (a->dtype != b->dtype)
        return mt_error(MT_ERR_RUNTIME, "expected scalar type %s but found %s", sname(a->dtype),
                        sname(b->dtype));
    if (c && (c->dtype != a->dtype || c->dtype != b->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "Input dtypes must be the same, got: input %s, batch1: %s, "
                        "batch2: %s",
                        cpp_name(c->dtype), cpp_name(a->dtype), cpp_name(b->dtype));
    if (bool_refused(a->dtype, a->sizes[0] * a->sizes[1], b->sizes[2], a->sizes[2]))
        return not_implemented(c ? "baddbmm" : "bmm", MT_BOOL);
    problem p = {1, {a->sizes[0]}, a->sizes[1], b->sizes[2], a->sizes[2], true, true, a, b,
                 c, alpha,         beta};
    return run(&p, a->dtype, out, r);
}

int impl_bmm(mt_args *a, mt_result *r)
{
    return bmm_checked(a->v[0].t, a->v[1].t, NULL, ONE, ONE, mt_out_target(a), r);
}

int impl_baddbmm(mt_args *a, mt_result *r)
{
    return bmm_checked(a->v[1].t, a->v[2].t, a->v[0].t, scale_of(&a->v[4].s), scale_of(&a->v[3].s),
                       target(a), r);
}

/* ------------------------------------------------------------- mv family */

/* first: the dtype torch names first (the result's). */
static int mv_checked(const mt_tensor *m, const mt_tensor *v, const mt_tensor *c, mt_dtype first,
                      mt_gemm_scale alpha, mt_gemm_scale beta, mt_tensor *out, mt_result *r)
{
    int in_ndim = c ? c->ndim : 1;
    if (m->ndim != 2 || v->ndim != 1 || in_ndim > 1)
        return mt_error(MT_ERR_RUNTIME, "vector + matrix @ vector expected, got %d, %d, %d",
                        in_ndim, m->ndim, v->ndim);
    int64_t isize = c && c->ndim ? c->sizes[0] : 1;
    if (m->sizes[1] != v->sizes[0] || (c && isize != m->sizes[0] && isize != 1))
        return mt_error(MT_ERR_RUNTIME,
                        "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                        (long long)(c ? isize : m->sizes[0]), (long long)m->sizes[0],
                        (long long)m->sizes[1], (long long)v->sizes[0]);
    if (first != m->dtype || m->dtype != v->dtype)
        return mt_error(MT_ERR_RUNTIME,
                        "addmv input tensors must have the same dtype, but got %s, %s, "
                        "and %s",
                        sname(first), sname(m->dtype), sname(v->dtype));
    if (m->dtype == MT_BOOL)
        return not_implemented("addmv_impl_cpu", MT_BOOL);
    problem p = {0, {0}, m->sizes[0], 1, m->sizes[1], true, false, m, v, c, alpha, beta};
    return run(&p, m->dtype, out, r);
}

int impl_mv(mt_args *a, mt_result *r)
{
    mt_tensor *out = mt_out_target(a);
    mt_dtype first = out ? out->dtype : a->v[1].t->dtype;
    return mv_checked(a->v[0].t, a->v[1].t, NULL, first, ONE, ONE, out, r);
}

int impl_addmv(mt_args *a, mt_result *r)
{
    mt_tensor *out = target(a);
    mt_dtype first = out ? out->dtype : a->v[0].t->dtype;
    return mv_checked(a->v[1].t, a->v[2].t, a->v[0].t, first, scale_of(&a->v[4].s),
                      scale_of(&a->v[3].s), out, r);
}

/* ------------------------------------------------------------ vector ops */

/* x . y, or conj(x) . y when conj_x */
static int dot_checked(const mt_tensor *x, const mt_tensor *y, bool conj_x, mt_tensor *out,
                       const char *name, mt_result *r)
{
    if (x->ndim != 1 || y->ndim != 1)
        return mt_error(MT_ERR_RUNTIME, "1D tensors expected, but got %dD and %dD tensors", x->ndim,
                        y->ndim);
    if (x->dtype != y->dtype)
        return mt_error(MT_ERR_RUNTIME,
                        "%s : expected both vectors to have same dtype, but found %s and %s", name,
                        sname(x->dtype), sname(y->dtype));
    if (x->sizes[0] != y->sizes[0])
        return mt_error(MT_ERR_RUNTIME,
                        "inconsistent tensor size, expected tensor [%lld] and src [%lld] to "
                        "have the same number of elements, but got %lld and %lld elements "
                        "respectively",
                        (long long)x->sizes[0], (long long)y->sizes[0], (long long)x->sizes[0],
                        (long long)y->sizes[0]);
    if (x->dtype == MT_BOOL)
        return not_implemented(name, MT_BOOL);
    if (out && out->dtype != x->dtype)
        return mt_error(MT_ERR_RUNTIME, "result dtype %s does not match input dtype %s",
                        sname(out->dtype), sname(x->dtype));
    problem p = {0, {0}, 1, 1, x->sizes[0], false, false, x, y, NULL, ONE, ONE, conj_x};
    return run(&p, x->dtype, out, r);
}

int impl_dot(mt_args *a, mt_result *r)
{
    return dot_checked(a->v[0].t, a->v[1].t, false, mt_out_target(a), "dot", r);
}

/* dot of conj(x) and y (cgemm's 'C' flag reads x conjugated); a real x is
 * its own conjugate */
int impl_vdot(mt_args *a, mt_result *r)
{
    mt_tensor *x = a->v[0].t;
    if (!mt_is_complex(x->dtype))
        return dot_checked(x, a->v[1].t, false, mt_out_target(a), "dot", r);
    mt_blas_prepare();
    if (mt_blas_complex_available())
        return dot_checked(x, a->v[1].t, true, mt_out_target(a), "dot", r);
    mt_tensor *c = mt_exec(MT_OP_conj, "T", x);
    if (!c)
        return -1;
    int rc = dot_checked(c, a->v[1].t, false, mt_out_target(a), "dot", r);
    mt_release(c);
    return rc;
}

/* ----------------------------------------------------------------- matmul */

/* The CPU kernel torch's matmul of an x of dx dims and a y of dy dims runs
 * (its refusals name it): dot, mv (a batch folded into rows), mm, bmm. */
static const char *matmul_kernel(int dx, int dy)
{
    if (dx == 1 && dy == 1)
        return "dot";
    if (dy == 1)
        return "addmv_impl_cpu";
    return dy == 2 ? "addmm_impl_cpu_" : "bmm";
}

/* The kernel a matmul row's call refuses a dtype in, or NULL where an
 * operand is no tensor (a row over NumPy operands); __rmatmul__ multiplies
 * its operands the other way round. */
const char *mt_matmul_kernel(const mt_args *a)
{
    for (int p = 0; p < 2; p++)
        if (a->sig->params[p].type != MT_ARG_TENSOR || !a->v[p].t)
            return NULL;
    bool reflected = strcmp(a->sig->name, "__rmatmul__") == 0;
    const mt_tensor *x = a->v[reflected].t, *y = a->v[!reflected].t;
    return matmul_kernel(x->ndim, y->ndim);
}

static int matmul(const mt_tensor *x, const mt_tensor *y, mt_tensor *out, mt_result *r)
{
    int dx = x->ndim, dy = y->ndim;
    if (dx == 0 || dy == 0)
        return mt_error(MT_ERR_RUNTIME,
                        "both arguments to matmul need to be at least 1D, but they are %dD "
                        "and %dD",
                        dx, dy);
    if (dx == 1 && dy == 1)
        return dot_checked(x, y, false, out, "dot", r);
    if (dx == 2 && dy == 1) {
        mt_dtype first = out ? out->dtype : y->dtype;
        return mv_checked(x, y, NULL, first, ONE, ONE, out, r);
    }
    int64_t k = x->sizes[dx - 1];
    if (dy <= 2) {
        /* (batch..., m, k) @ (k, [n]): the batch folds into m, as torch does. */
        int64_t rows = 1, ky = y->sizes[0];
        for (int i = 0; i < dx - 1; i++)
            rows *= x->sizes[i];
        if (dy == 1 && k != ky)
            return mt_error(MT_ERR_RUNTIME,
                            "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                            (long long)rows, (long long)rows, (long long)k, (long long)ky);
        int64_t ny = dy == 2 ? y->sizes[1] : 1;
        if (k != ky)
            return mt_error(MT_ERR_RUNTIME,
                            "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and "
                            "%lldx%lld)",
                            (long long)rows, (long long)k, (long long)ky, (long long)ny);
        if (x->dtype != y->dtype) {
            if (dy == 1)
                return mt_error(MT_ERR_RUNTIME,
                                "addmv input tensors must have the same dtype, but got %s, "
                                "%s, and %s",
                                sname(y->dtype), sname(x->dtype), sname(y->dtype));
            return mt_error(MT_ERR_RUNTIME,
                            "expected m1 and m2 to have the same dtype, but got: %s != %s",
                            cpp_name(x->dtype), cpp_name(y->dtype));
        }
        if (bool_refused(x->dtype, x->numel, y->numel, 1))
            return not_implemented(matmul_kernel(dx, dy), MT_BOOL);
        problem p = {dx - 2 > 0 ? dx - 2 : 0,
                     {0},
                     dx > 1 ? x->sizes[dx - 2] : 1,
                     ny,
                     k,
                     dx > 1,
                     dy == 2,
                     x,
                     y,
                     NULL,
                     ONE,
                     ONE};
        memcpy(p.batch, x->sizes, sizeof(int64_t) * p.nb);
        return run(&p, x->dtype, out, r);
    }
    /* Batched: the batch dims broadcast; a 1-D operand is a row or column. */
    int nb = 0;
    int64_t batch[MT_MAX_DIMS];
    if (mt_broadcast_into(&nb, batch, dx > 2 ? dx - 2 : 0, x->sizes) < 0 ||
        mt_broadcast_into(&nb, batch, dy - 2, y->sizes) < 0)
        return -1;
    int64_t ky = y->sizes[dy - 2], total = 1;
    for (int i = 0; i < nb; i++)
        total *= batch[i];
    if (k != ky)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected size for first two dimensions of batch2 tensor to be: "
                        "[%lld, %lld] but got: [%lld, %lld].",
                        (long long)total, (long long)k, (long long)total, (long long)ky);
    if (x->dtype != y->dtype)
        return mt_error(MT_ERR_RUNTIME, "expected scalar type %s but found %s", sname(x->dtype),
                        sname(y->dtype));
    if (x->dtype == MT_BOOL)
        return not_implemented(matmul_kernel(dx, dy), MT_BOOL);
    problem p = {
        nb,  {0}, dx > 1 ? x->sizes[dx - 2] : 1, y->sizes[dy - 1], k, dx > 1, true, x, y, NULL,
        ONE, ONE};
    memcpy(p.batch, batch, sizeof(int64_t) * nb);
    return run(&p, x->dtype, out, r);
}

int impl_matmul(mt_args *a, mt_result *r)
{
    return matmul(a->v[0].t, a->v[1].t, mt_out_target(a), r);
}

int impl_matmul_dunder(mt_args *a, mt_result *r) { return matmul(a->v[0].t, a->v[1].t, NULL, r); }

int impl_rmatmul(mt_args *a, mt_result *r) { return matmul(a->v[1].t, a->v[0].t, NULL, r); }

/* outer is a broadcast multiply in torch, promotion and bool included */
int impl_outer(mt_args *a, mt_result *r)
{
    const mt_tensor *x = a->v[0].t, *y = a->v[1].t;
    if (x->ndim != 1)
        return mt_error(MT_ERR_RUNTIME, "outer: Expected 1-D argument self, but got %d-D", x->ndim);
    if (y->ndim != 1)
        return mt_error(MT_ERR_RUNTIME, "outer: Expected 1-D argument vec2, but got %d-D", y->ndim);
    mt_operand in[2] = {{.t = *x, .kind = MT_OPERAND_DIM}, {.t = *y, .kind = MT_OPERAND_DIM}};
    in[0].t.ndim = 2;
    in[0].t.sizes[1] = 1;
    in[0].t.strides[1] = 0;
    mt_dtype result = mt_operands_result_type(2, in);
    int64_t shape[2] = {x->sizes[0], y->sizes[0]};
    mt_tensor *out = mt_is_none(a, 2) ? NULL : a->v[2].t;
    if (out && mt_resize_out(out, 2, shape, NULL) < 0)
        return -1;
    mt_binary_ctx ctx = {1.0, 1};
    mt_kernel_ref k = {(mt_loop_fn (*)(int, mt_dtype))mt_binary_loop, MT_BIN_MUL, &ctx, "mul"};
    return mt_result_tensor(r, mt_pointwise(&k, 2, in, result, result, out, NULL));
}

/* ----------------------------------------------------------------- linear */

/* The names torch gives linear's node: that of the op its graph ends in. */
/* The ways linear runs; the call's path, which linalg.def's variant rows
 * name a derivative for (MT_PATH(k) is path k). */
typedef enum {
    LIN_ADDMM,       /* 2-D input with a bias: addmm(bias, input, weight.t()) */
    LIN_VIEW,        /* other inputs with a bias, folded into addmm, then viewed */
    LIN_ADD,         /* matmul(input, weight.t()), then the bias added */
    LIN_MM,          /* no bias: matmul's mm (2-D input), */
    LIN_SQUEEZE,     /* its squeezed mm (1-D input), */
    LIN_UNSAFE_VIEW, /* its folded mm or mv (input of 3 dims or more), */
    LIN_MV,          /* mv (1-D weight) */
    LIN_DOT,         /* or dot (both 1-D) */
} linear_path;

/* nn.functional.linear(input, weight, bias=None) as torch computes it: with a
 * bias, addmm of the input folded into a matrix when the input is 2-D, or
 * contiguous and 3-D or with a 1-D bias (torch's _flatten_nd_linear); else
 * matmul(input, weight.t()) with the bias added in place. So the checks, the
 * messages and the result dtype are those of the ops torch runs. */
int impl_linear(mt_args *a, mt_result *r)
{
    const mt_tensor *x = a->v[0].t, *w = a->v[1].t;
    mt_tensor *bias = mt_is_none(a, 2) ? NULL : a->v[2].t;
    int dx = x->ndim;
    if (dx == 0 || w->ndim == 0)
        return mt_error(MT_ERR_RUNTIME,
                        "both arguments to linear need to be at least 1D, but they are %dD "
                        "and %dD",
                        dx, w->ndim);
    if (w->ndim > 2)
        return mt_error(MT_ERR_RUNTIME,
                        "t() expects a tensor with <= 2 dimensions, but self is %dD", w->ndim);
    mt_tensor wt = *w;
    if (w->ndim == 2) {
        wt.sizes[0] = w->sizes[1];
        wt.sizes[1] = w->sizes[0];
        wt.strides[0] = w->strides[1];
        wt.strides[1] = w->strides[0];
    }
    int64_t k = x->sizes[dx - 1], rows = 1;
    for (int d = 0; d < dx - 1; d++)
        rows *= x->sizes[d];
    bool contiguous = mt_tensor_is_contiguous(x);
    linear_path which;
    if (bias && (dx == 2 || (contiguous && (dx == 3 || bias->ndim == 1)))) {
        /* addmm on the folded input: the checks are addmm's on the matrix,
         * the product runs on the input's own dims */
        mt_tensor x2 = *x;
        x2.ndim = 2;
        x2.sizes[0] = rows;
        x2.sizes[1] = k;
        x2.strides[0] = k;
        x2.strides[1] = 1;
        if (mm_check(dx == 2 ? x : &x2, &wt, bias) < 0)
            return -1;
        int64_t mat[2] = {rows, wt.sizes[1]};
        if (check_expand(bias, 2, mat) < 0)
            return -1;
        problem p = {dx > 2 ? dx - 2 : 0,
                     {0},
                     dx > 1 ? x->sizes[dx - 2] : 1,
                     wt.sizes[1],
                     k,
                     dx > 1,
                     true,
                     x,
                     &wt,
                     bias,
                     ONE,
                     ONE};
        memcpy(p.batch, x->sizes, sizeof(int64_t) * p.nb);
        if (run(&p, x->dtype, NULL, r) < 0)
            return -1;
        which = dx == 2 ? LIN_ADDMM : LIN_VIEW;
    } else {
        if (matmul(x, &wt, NULL, r) < 0)
            return -1;
        if (bias) {
            mt_operand in[2];
            mt_value vo = {.t = r->t[0]}, vb = {.t = bias};
            mt_operand_from(&in[0], &vo);
            mt_operand_from(&in[1], &vb);
            mt_dtype d = mt_operands_result_type(2, in);
            mt_binary_ctx ctx = {1.0, 1};
            mt_kernel_ref kr = {(mt_loop_fn (*)(int, mt_dtype))mt_binary_loop, MT_BIN_ADD, &ctx,
                                "add"};
            mt_tensor *sum = mt_pointwise(&kr, 2, in, d, d, NULL, r->t[0]);
            if (!sum) {
                mt_result_clear(r);
                return -1;
            }
            mt_release(sum);
            which = LIN_ADD;
        } else if (w->ndim == 1) {
            which = dx == 1 ? LIN_DOT : dx == 2 ? LIN_MV : LIN_UNSAFE_VIEW;
        } else {
            which = dx == 1 ? LIN_SQUEEZE : dx == 2 ? LIN_MM : LIN_UNSAFE_VIEW;
        }
    }
    a->path = which;
    return 0;
}
