/* Matrix products of the op table: each op checks its operands in torch's
 * words, describes its operands as stacks of matrices, and runs mt_gemm. */
#include "common.h"

#include <string.h>
#include "parser.h"
#include "../ops/out_param.h"
#include "autograd_bind.h"
#include "../ops/elementwise.h"

#include "../core/shape.h"
#include "../kernels/binary.h"
#include "../kernels/blas.h"
#include "../kernels/copy.h"
#include "../kernels/matmul.h"

/* Multiply-adds above which the GIL is released around the kernel: about
 * 5 us of work, below which taking the GIL back costs a visible share. */
#define NOGIL_WORK (80.0 * 80.0 * 80.0)

/* torch's C++ type names, used by some of its messages. */
static const char *cpp_name(mt_dtype d)
{
    static const char *const names[MT_NUM_DTYPES] = {
        "bool", "unsigned char", "signed char", "short int", "int", "long int",
        "c10::Half", "c10::BFloat16", "float", "double"};
    return names[d];
}

static const char *sname(mt_dtype d) { return mt_dtype_infos[d].scalar_name; }

/* NumPy's OpenBLAS, located once by minitorch._blas; the own kernel when absent. */
void mtpy_load_blas(void)
{
    static int tried;
    if (tried)
        return;
    tried = 1;
    PyObject *mod = PyImport_ImportModule("minitorch._blas");
    PyObject *path = mod ? PyObject_CallMethod(mod, "library_path", NULL) : NULL;
    if (path && PyUnicode_Check(path))
        mt_blas_load(PyUnicode_AsUTF8(path));
    if (!path)
        PyErr_Clear();
    Py_XDECREF(path);
    Py_XDECREF(mod);
}

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
static PyObject *destination(PyObject *out, mt_dtype d, int ndim, const int64_t *shape)
{
    if (!out)
        return mtpy_new_contiguous(d, ndim, shape, false);
    mt_tensor *o = MTPy_T(out);
    if (o->dtype != d)
        return PyErr_Format(PyExc_RuntimeError,
                            "Expected out tensor to have dtype %s, but got %s instead",
                            cpp_name(d), cpp_name(o->dtype));
    return mt_resize_out(MTPy_T(out), ndim, shape, NULL) < 0 ? NULL : Py_NewRef(out);
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
            if (j < 0) {
                PyErr_Format(PyExc_RuntimeError,
                             "expand(torch.FloatTensor{%s}, size=%s): the number of sizes "
                             "provided (%d) must be greater or equal to the number of "
                             "dimensions in the tensor (%d)", b, a, ndim, c->ndim);
                return -1;
            }
            PyErr_Format(PyExc_RuntimeError,
                         "The expanded size of the tensor (%lld) must match the existing "
                         "size (%lld) at non-singleton dimension %d.  Target sizes: %s.  "
                         "Tensor sizes: %s", (long long)shape[j], (long long)c->sizes[i], j,
                         a, b);
            return -1;
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
    const mt_tensor *c;         /* the beta term, broadcast to the result; or NULL */
    mt_gemm_scale alpha, beta;
} problem;

static mt_gemm_scale scale_of(const mt_scalar *s) { return (mt_gemm_scale){s->f, s->i}; }

/* A float32 copy of a half/bfloat16 stack. */
static PyObject *widened(const mt_tensor *v)
{
    PyObject *o = mtpy_new_contiguous(MT_FLOAT32, v->ndim, v->sizes, false);
    if (o)
        mt_copy(MTPy_T(o), v);
    return o;
}

static PyObject *run(const problem *p, mt_dtype d, PyObject *out)
{
    int rndim = p->nb + p->has_m + p->has_n;
    int64_t rshape[MT_MAX_DIMS];
    memcpy(rshape, p->batch, sizeof(int64_t) * p->nb);
    if (p->has_m)
        rshape[p->nb] = p->m;
    if (p->has_n)
        rshape[rndim - 1] = p->n;
    if (p->c && check_expand(p->c, rndim, rshape) < 0)
        return NULL;
    PyObject *dest = destination(out, d, rndim, rshape);
    if (!dest)
        return NULL;
    PyObject *wa = NULL, *wb = NULL, *wc = NULL;
    mt_tensor av = as_stack(p->a, p->nb, p->batch, p->has_m, p->m, true, p->k);
    mt_tensor bv = as_stack(p->b, p->nb, p->batch, true, p->k, p->has_n, p->n);
    mt_tensor *work = MTPy_T(dest);
    mt_dtype cd = d;
    if (d == MT_FLOAT16 || d == MT_BFLOAT16) {
        cd = MT_FLOAT32;
        wa = widened(&av);
        wb = widened(&bv);
        wc = mtpy_new_contiguous(cd, rndim, rshape, false);
        if (!wa || !wb || !wc)
            goto fail;
        av = *MTPy_T(wa);
        bv = *MTPy_T(wb);
        work = MTPy_T(wc);
    }
    mt_gemm_scale beta = p->beta;
    if (p->c && (mt_is_floating(d) ? beta.f != 0 : beta.i != 0))
        mt_copy(work, p->c);
    else
        beta = (mt_gemm_scale){0.0, 0};
    mt_tensor cv = as_stack(work, p->nb, p->batch, p->has_m, p->m, p->has_n, p->n);
    mt_gemm_shape s = {p->nb, {0}, p->m, p->n, p->k};
    memcpy(s.batch, p->batch, sizeof(int64_t) * p->nb);
    mt_gemm_operand ga = operand(&av), gb = operand(&bv), gc = operand(&cv);
    if (mt_is_floating(cd))
        mtpy_load_blas();
    int rc;
    if (mt_gemm_work(&s) >= NOGIL_WORK) {
        Py_BEGIN_ALLOW_THREADS
        rc = mt_gemm(cd, &s, &ga, &gb, &gc, p->alpha, beta);
        Py_END_ALLOW_THREADS
    } else {
        rc = mt_gemm(cd, &s, &ga, &gb, &gc, p->alpha, beta);
    }
    if (rc < 0) {
        mtpy_raise();
        goto fail;
    }
    if (wc)
        mt_copy(MTPy_T(dest), work);
    if (out)
        MTPy_T(dest)->storage->version++;
    Py_XDECREF(wa);
    Py_XDECREF(wb);
    Py_XDECREF(wc);
    return dest;
fail:
    Py_XDECREF(wa);
    Py_XDECREF(wb);
    Py_XDECREF(wc);
    Py_DECREF(dest);
    return NULL;
}

static PyObject *out_arg(mt_args *a, int i) { return mt_is_none(a, i) ? NULL : a->v[i].obj; }

static PyObject *not_implemented(const char *name, mt_dtype d)
{
    return PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'", name,
                        sname(d));
}

/* ---------------------------------------------------------------- mm family */

static PyObject *mm_checked(const mt_tensor *a, const mt_tensor *b, const mt_tensor *c,
                            mt_gemm_scale alpha, mt_gemm_scale beta, PyObject *out)
{
    if (a->ndim != 2)
        return PyErr_Format(PyExc_RuntimeError, "self must be a matrix");
    if (b->ndim != 2)
        return PyErr_Format(PyExc_RuntimeError, "mat2 must be a matrix");
    if (a->sizes[1] != b->sizes[0])
        return PyErr_Format(PyExc_RuntimeError,
                            "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                            (long long)a->sizes[0], (long long)a->sizes[1],
                            (long long)b->sizes[0], (long long)b->sizes[1]);
    if (c && a->dtype != b->dtype)
        return PyErr_Format(PyExc_RuntimeError,
                            "mat1 and mat2 must have the same dtype, but got %s and %s",
                            sname(a->dtype), sname(b->dtype));
    if (a->dtype != b->dtype)
        return PyErr_Format(PyExc_RuntimeError,
                            "expected m1 and m2 to have the same dtype, but got: %s != %s",
                            cpp_name(a->dtype), cpp_name(b->dtype));
    if (c && c->dtype != a->dtype)
        return PyErr_Format(PyExc_RuntimeError,
                            "self and mat2 must have the same dtype, but got %s and %s",
                            sname(c->dtype), sname(b->dtype));
    if (a->dtype == MT_BOOL)
        return not_implemented("addmm_impl_cpu_", MT_BOOL);
    problem p = {0, {0}, a->sizes[0], b->sizes[1], a->sizes[1], true, true, a, b, c, alpha,
                 beta};
    return run(&p, a->dtype, out);
}

static const mt_gemm_scale ONE = {1.0, 1};

PyObject *impl_mm(mt_args *a)
{
    return mm_checked(a->v[0].t, a->v[1].t, NULL, ONE, ONE, out_arg(a, 2));
}

PyObject *impl_addmm(mt_args *a)
{
    return mm_checked(a->v[1].t, a->v[2].t, a->v[0].t, scale_of(&a->v[4].s),
                      scale_of(&a->v[3].s), out_arg(a, 5));
}

PyObject *impl_addmm_(mt_args *a)
{
    return mm_checked(a->v[1].t, a->v[2].t, a->v[0].t, scale_of(&a->v[4].s),
                      scale_of(&a->v[3].s), a->v[0].obj);
}

/* ------------------------------------------------------------- bmm family */

static PyObject *bmm_checked(const mt_tensor *a, const mt_tensor *b, const mt_tensor *c,
                             mt_gemm_scale alpha, mt_gemm_scale beta, PyObject *out)
{
    if (a->ndim != 3)
        return PyErr_Format(PyExc_RuntimeError, "batch1 must be a 3D tensor");
    if (b->ndim != 3)
        return PyErr_Format(PyExc_RuntimeError, "batch2 must be a 3D tensor");
    if (b->sizes[0] != a->sizes[0] || b->sizes[1] != a->sizes[2])
        return PyErr_Format(PyExc_RuntimeError,
                            "Expected size for first two dimensions of batch2 tensor to be: "
                            "[%lld, %lld] but got: [%lld, %lld].",
                            (long long)a->sizes[0], (long long)a->sizes[2],
                            (long long)b->sizes[0], (long long)b->sizes[1]);
    if (a->dtype != b->dtype)
        return PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s",
                            sname(a->dtype), sname(b->dtype));
    if (c && (c->dtype != a->dtype || c->dtype != b->dtype))
        return PyErr_Format(PyExc_RuntimeError,
                            "Input dtypes must be the same, got: input %s, batch1: %s, "
                            "batch2: %s", cpp_name(c->dtype), cpp_name(a->dtype),
                            cpp_name(b->dtype));
    if (a->dtype == MT_BOOL)
        return not_implemented(c ? "baddbmm" : "bmm", MT_BOOL);
    problem p = {1, {a->sizes[0]}, a->sizes[1], b->sizes[2], a->sizes[2], true, true, a, b, c,
                 alpha, beta};
    return run(&p, a->dtype, out);
}

PyObject *impl_bmm(mt_args *a)
{
    return bmm_checked(a->v[0].t, a->v[1].t, NULL, ONE, ONE, out_arg(a, 2));
}

PyObject *impl_baddbmm(mt_args *a)
{
    return bmm_checked(a->v[1].t, a->v[2].t, a->v[0].t, scale_of(&a->v[4].s),
                       scale_of(&a->v[3].s), out_arg(a, 5));
}

PyObject *impl_baddbmm_(mt_args *a)
{
    return bmm_checked(a->v[1].t, a->v[2].t, a->v[0].t, scale_of(&a->v[4].s),
                       scale_of(&a->v[3].s), a->v[0].obj);
}

/* ------------------------------------------------------------- mv family */

/* first: the dtype torch names first (the result's). */
static PyObject *mv_checked(const mt_tensor *m, const mt_tensor *v, const mt_tensor *c,
                            mt_dtype first, mt_gemm_scale alpha, mt_gemm_scale beta,
                            PyObject *out)
{
    int in_ndim = c ? c->ndim : 1;
    if (m->ndim != 2 || v->ndim != 1 || in_ndim > 1)
        return PyErr_Format(PyExc_RuntimeError,
                            "vector + matrix @ vector expected, got %d, %d, %d", in_ndim,
                            m->ndim, v->ndim);
    int64_t isize = c && c->ndim ? c->sizes[0] : 1;
    if (m->sizes[1] != v->sizes[0] || (c && isize != m->sizes[0] && isize != 1))
        return PyErr_Format(PyExc_RuntimeError,
                            "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                            (long long)(c ? isize : m->sizes[0]), (long long)m->sizes[0],
                            (long long)m->sizes[1], (long long)v->sizes[0]);
    if (first != m->dtype || m->dtype != v->dtype)
        return PyErr_Format(PyExc_RuntimeError,
                            "addmv input tensors must have the same dtype, but got %s, %s, "
                            "and %s", sname(first), sname(m->dtype), sname(v->dtype));
    if (m->dtype == MT_BOOL)
        return not_implemented("addmv_impl_cpu", MT_BOOL);
    problem p = {0, {0}, m->sizes[0], 1, m->sizes[1], true, false, m, v, c, alpha, beta};
    return run(&p, m->dtype, out);
}

PyObject *impl_mv(mt_args *a)
{
    PyObject *out = out_arg(a, 2);
    mt_dtype first = out ? MTPy_T(out)->dtype : a->v[1].t->dtype;
    return mv_checked(a->v[0].t, a->v[1].t, NULL, first, ONE, ONE, out);
}

PyObject *impl_addmv(mt_args *a)
{
    PyObject *out = out_arg(a, 5);
    mt_dtype first = out ? MTPy_T(out)->dtype : a->v[0].t->dtype;
    return mv_checked(a->v[1].t, a->v[2].t, a->v[0].t, first, scale_of(&a->v[4].s),
                      scale_of(&a->v[3].s), out);
}

PyObject *impl_addmv_(mt_args *a)
{
    return mv_checked(a->v[1].t, a->v[2].t, a->v[0].t, a->v[0].t->dtype,
                      scale_of(&a->v[4].s), scale_of(&a->v[3].s), a->v[0].obj);
}

/* ------------------------------------------------------------ vector ops */

static PyObject *dot_checked(const mt_tensor *x, const mt_tensor *y, PyObject *out,
                             const char *name)
{
    if (x->ndim != 1 || y->ndim != 1)
        return PyErr_Format(PyExc_RuntimeError, "1D tensors expected, but got %dD and %dD tensors",
                            x->ndim, y->ndim);
    if (x->dtype != y->dtype)
        return PyErr_Format(PyExc_RuntimeError,
                            "%s : expected both vectors to have same dtype, but found %s and %s",
                            name, sname(x->dtype), sname(y->dtype));
    if (x->sizes[0] != y->sizes[0])
        return PyErr_Format(PyExc_RuntimeError,
                            "inconsistent tensor size, expected tensor [%lld] and src [%lld] to "
                            "have the same number of elements, but got %lld and %lld elements "
                            "respectively", (long long)x->sizes[0], (long long)y->sizes[0],
                            (long long)x->sizes[0], (long long)y->sizes[0]);
    if (x->dtype == MT_BOOL)
        return not_implemented(name, MT_BOOL);
    if (out && MTPy_T(out)->dtype != x->dtype)
        return PyErr_Format(PyExc_RuntimeError, "result dtype %s does not match input dtype %s",
                            sname(MTPy_T(out)->dtype), sname(x->dtype));
    problem p = {0, {0}, 1, 1, x->sizes[0], false, false, x, y, NULL, ONE, ONE};
    return run(&p, x->dtype, out);
}

PyObject *impl_dot(mt_args *a) { return dot_checked(a->v[0].t, a->v[1].t, out_arg(a, 2), "dot"); }

/* Real dtypes only, so vdot is dot. */
PyObject *impl_vdot(mt_args *a)
{
    return dot_checked(a->v[0].t, a->v[1].t, out_arg(a, 2), "dot");
}

/* outer is a broadcast multiply in torch: promotion and bool included. */
PyObject *impl_outer(mt_args *a)
{
    const mt_tensor *x = a->v[0].t, *y = a->v[1].t;
    if (x->ndim != 1)
        return PyErr_Format(PyExc_RuntimeError, "outer: Expected 1-D argument self, but got %d-D",
                            x->ndim);
    if (y->ndim != 1)
        return PyErr_Format(PyExc_RuntimeError, "outer: Expected 1-D argument vec2, but got %d-D",
                            y->ndim);
    mt_operand in[2] = {{.t = *x, .kind = MT_OPERAND_DIM}, {.t = *y, .kind = MT_OPERAND_DIM}};
    in[0].t.ndim = 2;
    in[0].t.sizes[1] = 1;
    in[0].t.strides[1] = 0;
    mt_dtype result = mt_operands_result_type(2, in);
    int64_t shape[2] = {x->sizes[0], y->sizes[0]};
    PyObject *out = out_arg(a, 2);
    if (out && mt_resize_out(MTPy_T(out), 2, shape, NULL) < 0)
        return NULL;
    mt_binary_ctx ctx = {1.0, 1};
    mt_kernel_ref k = {(mt_loop_fn(*)(int, mt_dtype))mt_binary_loop, MT_BIN_MUL, &ctx, "mul"};
    mt_tensor *r = mt_pointwise(&k, 2, in, result, result, out ? MTPy_T(out) : NULL, NULL);
    return r ? (PyObject *)mtpy_container(r) : NULL;
}

/* ----------------------------------------------------------------- matmul */

static PyObject *matmul(const mt_tensor *x, const mt_tensor *y, PyObject *out)
{
    int dx = x->ndim, dy = y->ndim;
    if (dx == 0 || dy == 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "both arguments to matmul need to be at least 1D, but they are %dD "
                            "and %dD", dx, dy);
    if (dx == 1 && dy == 1)
        return dot_checked(x, y, out, "dot");
    if (dx == 2 && dy == 1) {
        mt_dtype first = out ? MTPy_T(out)->dtype : y->dtype;
        return mv_checked(x, y, NULL, first, ONE, ONE, out);
    }
    int64_t k = x->sizes[dx - 1];
    if (dy <= 2) {
        /* (batch..., m, k) @ (k, [n]): the batch folds into m, as torch does. */
        int64_t rows = 1, ky = y->sizes[0];
        for (int i = 0; i < dx - 1; i++)
            rows *= x->sizes[i];
        if (dy == 1 && k != ky)
            return PyErr_Format(PyExc_RuntimeError,
                                "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                                (long long)rows, (long long)rows, (long long)k, (long long)ky);
        int64_t ny = dy == 2 ? y->sizes[1] : 1;
        if (k != ky)
            return PyErr_Format(PyExc_RuntimeError,
                                "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and "
                                "%lldx%lld)", (long long)rows, (long long)k, (long long)ky,
                                (long long)ny);
        if (x->dtype != y->dtype) {
            if (dy == 1)
                return PyErr_Format(PyExc_RuntimeError,
                                    "addmv input tensors must have the same dtype, but got %s, "
                                    "%s, and %s", sname(y->dtype), sname(x->dtype),
                                    sname(y->dtype));
            return PyErr_Format(PyExc_RuntimeError,
                                "expected m1 and m2 to have the same dtype, but got: %s != %s",
                                cpp_name(x->dtype), cpp_name(y->dtype));
        }
        if (x->dtype == MT_BOOL)
            return not_implemented(dy == 1 ? "addmv_impl_cpu" : "addmm_impl_cpu_", MT_BOOL);
        problem p = {dx - 2 > 0 ? dx - 2 : 0, {0}, dx > 1 ? x->sizes[dx - 2] : 1, ny, k,
                     dx > 1, dy == 2, x, y, NULL, ONE, ONE};
        memcpy(p.batch, x->sizes, sizeof(int64_t) * p.nb);
        return run(&p, x->dtype, out);
    }
    /* Batched: the batch dims broadcast; a 1-D operand is a row or column. */
    int nb = 0;
    int64_t batch[MT_MAX_DIMS];
    if (mt_broadcast_into(&nb, batch, dx > 2 ? dx - 2 : 0, x->sizes) < 0 ||
        mt_broadcast_into(&nb, batch, dy - 2, y->sizes) < 0)
        return mtpy_raise();
    int64_t ky = y->sizes[dy - 2], total = 1;
    for (int i = 0; i < nb; i++)
        total *= batch[i];
    if (k != ky)
        return PyErr_Format(PyExc_RuntimeError,
                            "Expected size for first two dimensions of batch2 tensor to be: "
                            "[%lld, %lld] but got: [%lld, %lld].",
                            (long long)total, (long long)k, (long long)total, (long long)ky);
    if (x->dtype != y->dtype)
        return PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s",
                            sname(x->dtype), sname(y->dtype));
    if (x->dtype == MT_BOOL)
        return not_implemented("bmm", MT_BOOL);
    problem p = {nb, {0}, dx > 1 ? x->sizes[dx - 2] : 1, y->sizes[dy - 1], k, dx > 1, true,
                 x, y, NULL, ONE, ONE};
    memcpy(p.batch, batch, sizeof(int64_t) * nb);
    return run(&p, x->dtype, out);
}

PyObject *impl_matmul(mt_args *a) { return matmul(a->v[0].t, a->v[1].t, out_arg(a, 2)); }
PyObject *impl_matmul_dunder(mt_args *a) { return matmul(a->v[0].t, a->v[1].t, NULL); }
PyObject *impl_rmatmul(mt_args *a) { return matmul(a->v[1].t, a->v[0].t, NULL); }
