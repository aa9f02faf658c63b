/* Factories beyond empty/zeros/ones: full, the _like and new_ forms, ranges,
 * eye, and the in-place fills. */
#include "factory.h"
#include "from_data.h"

#include "../kernels/copy.h"
#include "../kernels/iter.h"
#include "../core/half.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

PyObject *mtpy_raisef(PyObject *exc, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    PyErr_SetString(exc, buf);
    return NULL;
}

PyObject *mtpy_with_requires_grad(PyObject *t, bool requires_grad)
{
    if (!t || !requires_grad)
        return t;
    if (!mt_is_floating(MTPy_T(t)->dtype)) {
        Py_DECREF(t);
        return PyErr_Format(PyExc_RuntimeError,
                            "Only Tensors of floating point and complex dtype can require gradients");
    }
    MTPy_T(t)->flags |= MT_FLAG_REQUIRES_GRAD;
    return t;
}

PyObject *mtpy_empty_like(const mt_tensor *src, mt_dtype dtype)
{
    if (!mt_tensor_is_non_overlapping_and_dense(src))
        return mtpy_new_contiguous(dtype, src->ndim, src->sizes, false);
    int64_t strides[MT_MAX_DIMS];
    mt_output_strides_like(1, &src, src->ndim, src->sizes, strides);
    return mtpy_new_strided(dtype, src->ndim, src->sizes, strides);
}

static void fill_scalar(mt_tensor *t, const mt_scalar *s)
{
    mt_fill(t, s->f, s->i, s->kind != MT_SCALAR_FLOAT);
}

/* torch infers full()'s dtype from the fill value. */
static mt_dtype scalar_dtype(const mt_scalar *s)
{
    return s->kind == MT_SCALAR_BOOL ? MT_BOOL
           : s->kind == MT_SCALAR_INT ? MT_INT64 : mtpy_default_dtype();
}

static PyObject *filled(PyObject *t, const mt_scalar *s, bool requires_grad)
{
    if (t && s)
        fill_scalar(MTPy_T(t), s);
    return mtpy_with_requires_grad(t, requires_grad);
}

/* full(size, fill_value, *, dtype, layout, device, requires_grad) */
PyObject *impl_full(mt_args *a)
{
    const mt_scalar *s = &a->v[1].s;
    mt_dtype d = mtpy_dtype_arg(a, 2, scalar_dtype(s));
    return filled(mtpy_new_contiguous(d, a->v[0].nints, a->v[0].ints, false), s, a->v[5].b);
}

/* full_like(input, fill_value, *, dtype, layout, device, requires_grad, memory_format) */
PyObject *impl_full_like(mt_args *a)
{
    const mt_tensor *in = a->v[0].t;
    return filled(mtpy_empty_like(in, mtpy_dtype_arg(a, 2, in->dtype)), &a->v[1].s, a->v[5].b);
}

/* zeros_like/ones_like/empty_like(input, *, dtype, layout, device, requires_grad, memory_format) */
static PyObject *like(mt_args *a, const mt_scalar *s)
{
    const mt_tensor *in = a->v[0].t;
    return filled(mtpy_empty_like(in, mtpy_dtype_arg(a, 1, in->dtype)), s, a->v[4].b);
}

static const mt_scalar zero = {MT_SCALAR_INT, 0, 0.0};
static const mt_scalar one = {MT_SCALAR_INT, 1, 1.0};

PyObject *impl_zeros_like(mt_args *a) { return like(a, &zero); }
PyObject *impl_ones_like(mt_args *a) { return like(a, &one); }
PyObject *impl_empty_like(mt_args *a) { return like(a, NULL); }

/* new_zeros/new_ones/new_empty(self, size, *, dtype, layout, device, requires_grad, pin_memory) */
static PyObject *new_like(mt_args *a, int di, int rgi, const mt_scalar *s)
{
    mt_dtype d = mtpy_dtype_arg(a, di, a->v[0].t->dtype);
    return filled(mtpy_new_contiguous(d, a->v[1].nints, a->v[1].ints, false), s, a->v[rgi].b);
}

PyObject *impl_new_zeros(mt_args *a) { return new_like(a, 2, 5, &zero); }
PyObject *impl_new_ones(mt_args *a) { return new_like(a, 2, 5, &one); }
PyObject *impl_new_empty(mt_args *a) { return new_like(a, 2, 5, NULL); }
/* new_full(self, size, fill_value, *, dtype, layout, device, requires_grad, pin_memory) */
PyObject *impl_new_full(mt_args *a) { return new_like(a, 3, 6, &a->v[2].s); }

/* new_tensor(self, data, *, dtype, layout, device, requires_grad, pin_memory) */
PyObject *impl_new_tensor(mt_args *a)
{
    mt_dtype d = mtpy_dtype_arg(a, 2, a->v[0].t->dtype);
    return mtpy_with_requires_grad(mtpy_from_data(a->v[1].obj ? a->v[1].obj : Py_None, &d, false),
                                   a->v[5].b);
}

/* fill_(input, value) */
PyObject *impl_fill_(mt_args *a)
{
    fill_scalar(a->v[0].t, &a->v[1].s);
    a->v[0].t->storage->version++;
    return Py_NewRef(a->v[0].obj);
}

/* fill_(input, value) with a tensor value: its gradient is recorded */
PyObject *impl_fill_tensor_(mt_args *a)
{
    mt_tensor *v = a->v[1].t;
    if (v->ndim != 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "fill_ only supports 0-dimension value tensor but got tensor with %d dimensions.",
                            v->ndim);
    mt_copy(a->v[0].t, v);
    a->v[0].t->storage->version++;
    return Py_NewRef(a->v[0].obj);
}

PyObject *impl_zero_(mt_args *a)
{
    fill_scalar(a->v[0].t, &zero);
    a->v[0].t->storage->version++;
    return Py_NewRef(a->v[0].obj);
}

/* ------------------------------------------------------------------ ranges */

/* Writes n values computed in double (or int64 for integral dtypes) into a
 * new 1-D tensor of dtype d. */
typedef double (*value_fn)(const double *p, int64_t i);

static PyObject *range_tensor(mt_dtype d, int64_t n, value_fn f, const double *p)
{
    PyObject *out = mtpy_new_contiguous(d, 1, &n, false);
    if (!out || d == MT_FLOAT64) {
        if (out)
            for (int64_t i = 0; i < n; i++)
                ((double *)mt_data(MTPy_T(out)))[i] = f(p, i);
        return out;
    }
    PyObject *tmp = mtpy_new_contiguous(MT_FLOAT64, 1, &n, false);
    if (!tmp) {
        Py_DECREF(out);
        return NULL;
    }
    double *td = (double *)mt_data(MTPy_T(tmp));
    for (int64_t i = 0; i < n; i++)
        td[i] = f(p, i);
    mt_copy(MTPy_T(out), MTPy_T(tmp));
    Py_DECREF(tmp);
    return out;
}

static double arange_value(const double *p, int64_t i) { return p[0] + p[2] * (double)i; }

static PyObject *arange(mt_args *a, const mt_scalar *start, const mt_scalar *end,
                        const mt_scalar *step, int di, int rgi)
{
    bool any_float = start->kind == MT_SCALAR_FLOAT || end->kind == MT_SCALAR_FLOAT ||
                     step->kind == MT_SCALAR_FLOAT;
    mt_dtype d = mtpy_dtype_arg(a, di, any_float ? mtpy_default_dtype() : MT_INT64);
    if (!isfinite(start->f) || !isfinite(end->f))
        return mtpy_raisef(PyExc_RuntimeError, "unsupported range: %g -> %g", start->f, end->f);
    if (step->f == 0)
        return PyErr_Format(PyExc_RuntimeError, "step must be nonzero");
    if (!((step->f > 0 && end->f >= start->f) || (step->f < 0 && end->f <= start->f)))
        return PyErr_Format(PyExc_RuntimeError,
                            "upper bound and lower bound inconsistent with step sign");
    double size_d;
    if (mt_is_integral(d, true) && !any_float)
        size_d = ceil((double)(end->i - start->i) / (double)step->i);
    else
        size_d = ceil((end->f - start->f) / step->f);
    if (!(size_d >= 0 && size_d <= (double)INT64_MAX))
        return PyErr_Format(PyExc_RuntimeError,
                            "invalid size, possible overflow?");
    int64_t n = (int64_t)size_d;
    PyObject *out;
    if (mt_is_integral(d, true) && !any_float) {
        out = mtpy_new_contiguous(MT_INT64, 1, &n, false);
        if (out) {
            int64_t *o = (int64_t *)mt_data(MTPy_T(out));
            for (int64_t i = 0; i < n; i++)
                o[i] = start->i + step->i * i;
            if (d != MT_INT64) {
                PyObject *cast = mtpy_new_contiguous(d, 1, &n, false);
                if (cast)
                    mt_copy(MTPy_T(cast), MTPy_T(out));
                Py_SETREF(out, cast);
            }
        }
    } else {
        double p[3] = {start->f, end->f, step->f};
        out = range_tensor(d, n, arange_value, p);
    }
    return mtpy_with_requires_grad(out, a->v[rgi].b);
}

/* arange(end, *, dtype, layout, device, requires_grad, pin_memory) */
PyObject *impl_arange_end(mt_args *a)
{
    return arange(a, &zero, &a->v[0].s, &one, 1, 4);
}

/* arange(start, end, step=1, *, dtype, layout, device, requires_grad, pin_memory) */
PyObject *impl_arange(mt_args *a)
{
    return arange(a, &a->v[0].s, &a->v[1].s, &a->v[2].s, 3, 6);
}

/* torch fills the first half forward from start and the second half backward
 * from end, so both ends are exact; it computes in the result dtype (double
 * for integers) with fused multiply-adds. p = {start, end, step, steps}. */
static double linspace_value(const double *p, int64_t i)
{
    int64_t steps = (int64_t)p[3];
    return i < steps / 2 ? fma(p[2], (double)i, p[0]) : fma(-p[2], (double)(steps - i - 1), p[1]);
}

static double linspace_value_f(const double *p, int64_t i)
{
    int64_t steps = (int64_t)p[3];
    float start = (float)p[0], end = (float)p[1];
    float step = steps > 1 ? (end - start) / (float)(steps - 1) : 0.0f;
    return i < steps / 2 ? fmaf(step, (float)i, start) : fmaf(-step, (float)(steps - i - 1), end);
}

static double logspace_value(const double *p, int64_t i)
{
    return pow(p[4], linspace_value(p, i));
}

static PyObject *spaced(mt_args *a, double base, bool log, int di, int rgi)
{
    int64_t steps = a->v[2].i;
    if (steps < 0)
        return PyErr_Format(PyExc_RuntimeError, "number of steps must be non-negative");
    mt_dtype d = mtpy_dtype_arg(a, di, mtpy_default_dtype());
    double start = a->v[0].s.f, end = a->v[1].s.f;
    if (!log && mt_is_integral(d, true)) {
        start = trunc(start);
        end = trunc(end);
    }
    double p[5] = {start, end, steps > 1 ? (end - start) / (double)(steps - 1) : 0,
                   (double)steps, base};
    value_fn f = log ? logspace_value
                 : d == MT_FLOAT32 ? linspace_value_f : linspace_value;
    if (steps == 1)
        p[1] = start;
    return mtpy_with_requires_grad(range_tensor(d, steps, f, p), a->v[rgi].b);
}

/* linspace(start, end, steps, *, dtype, layout, device, requires_grad) */
PyObject *impl_linspace(mt_args *a) { return spaced(a, 0, false, 3, 6); }
/* logspace(start, end, steps, base=10.0, *, dtype, layout, device, requires_grad) */
PyObject *impl_logspace(mt_args *a) { return spaced(a, a->v[3].f, true, 4, 7); }

static PyObject *eye(mt_args *a, int64_t n, int64_t m, int di, int rgi)
{
    if (n < 0)
        return PyErr_Format(PyExc_RuntimeError, "n must be greater or equal to 0, got %lld",
                            (long long)n);
    if (m < 0)
        return PyErr_Format(PyExc_RuntimeError, "m must be greater or equal to 0, got %lld",
                            (long long)m);
    int64_t sizes[2] = {n, m};
    PyObject *out = mtpy_new_contiguous(mtpy_dtype_arg(a, di, mtpy_default_dtype()), 2, sizes, true);
    if (!out)
        return NULL;
    mt_tensor *t = MTPy_T(out);
    /* the diagonal as a 1-D strided view, filled with ones */
    mt_tensor diag = *t;
    diag.ndim = 1;
    diag.sizes[0] = n < m ? n : m;
    diag.strides[0] = m + 1;
    diag.numel = diag.sizes[0];
    fill_scalar(&diag, &one);
    return mtpy_with_requires_grad(out, a->v[rgi].b);
}

/* eye(n, *, dtype, layout, device, requires_grad, pin_memory) */
PyObject *impl_eye(mt_args *a) { return eye(a, a->v[0].i, a->v[0].i, 1, 4); }
/* eye(n, m, *, dtype, layout, device, requires_grad, pin_memory) */
PyObject *impl_eye_m(mt_args *a) { return eye(a, a->v[0].i, a->v[1].i, 2, 5); }
