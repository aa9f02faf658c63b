/* Reductions, softmax and cumulative ops of the op table: argument checks,
 * result dtypes and shapes in torch's words, then the kernels' drivers. */
#include "../ops/out_param.h"
#include "parser.h"
#include "return_types.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../kernels/reduce.h"

#include <math.h>
#include <string.h>

/* The dims to reduce from an int[]? argument; None or [] means all. */
static int dims_mask(const mt_tensor *t, const mt_value *v, bool *mask)
{
    memset(mask, 0, sizeof(bool) * MT_MAX_DIMS);
    if (!v->obj || v->nints == 0) {
        for (int d = 0; d < t->ndim; d++)
            mask[d] = true;
        return 0;
    }
    for (int k = 0; k < v->nints; k++) {
        int d;
        if (mt_wrap_dim(v->ints[k], t->ndim, &d) < 0)
            return mtpy_raise_int();
        if (t->ndim == 0)
            continue;
        if (mask[d]) {
            PyErr_Format(PyExc_RuntimeError, "dim %d appears multiple times in the list of dims",
                         d);
            return -1;
        }
        mask[d] = true;
    }
    return 0;
}

/* The same from an int? argument. */
static int dim_mask(const mt_tensor *t, const mt_value *v, bool *mask)
{
    mt_value list = *v;
    list.nints = v->obj ? 1 : 0;
    list.ints = &list.i;
    return dims_mask(t, &list, mask);
}

static PyObject *new_result(const mt_tensor *t, const bool *mask, bool keepdim, mt_dtype dtype)
{
    int64_t sizes[MT_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (!mask[d])
            sizes[n++] = t->sizes[d];
        else if (keepdim)
            sizes[n++] = 1;
    }
    return mtpy_new_contiguous(dtype, n, sizes, false);
}

/* A contiguous copy of t converted to dtype (torch casts before reducing). */
static PyObject *converted(const mt_tensor *t, mt_dtype dtype)
{
    PyObject *c = mtpy_new_contiguous(dtype, t->ndim, t->sizes, false);
    if (c)
        mt_copy(MTPy_T(c), t);
    return c;
}

/* in, or its conversion to dtype held in *hold. */
static const mt_tensor *as_dtype(const mt_tensor *in, mt_dtype dtype, PyObject **hold)
{
    *hold = NULL;
    if (in->dtype == dtype)
        return in;
    *hold = converted(in, dtype);
    return *hold ? MTPy_T(*hold) : NULL;
}

/* Reduces in into a new tensor of out_dtype; optionally also the indices or
 * the mean (returned through *second). */
static PyObject *reduce(const mt_tensor *in, const bool *mask, bool keepdim, mt_dtype out_dtype,
                        mt_reduce_op op, double param, PyObject **second)
{
    PyObject *out = new_result(in, mask, keepdim, out_dtype);
    if (!out)
        return NULL;
    PyObject *extra = NULL;
    if (second) {
        bool idx = op == MT_RED_MAX || op == MT_RED_MIN;
        extra = new_result(in, mask, keepdim, idx ? MT_INT64 : out_dtype);
        if (!extra) {
            Py_DECREF(out);
            return NULL;
        }
        *second = extra;
    }
    bool idx = extra && (op == MT_RED_MAX || op == MT_RED_MIN);
    Py_BEGIN_ALLOW_THREADS
    mt_reduce(MTPy_T(out), idx ? MTPy_T(extra) : NULL, in, mask, op, param,
              extra && !idx ? MTPy_T(extra) : NULL);
    Py_END_ALLOW_THREADS
    return out;
}

static PyObject *reduce_cast(const mt_tensor *in, mt_dtype compute, const bool *mask,
                             bool keepdim, mt_reduce_op op, double param)
{
    PyObject *hold;
    const mt_tensor *src = as_dtype(in, compute, &hold);
    if (!src)
        return NULL;
    PyObject *r = reduce(src, mask, keepdim, compute, op, param, NULL);
    Py_XDECREF(hold);
    return r;
}

/* sum and prod: integers accumulate to int64 unless dtype= says otherwise. */
static PyObject *sum_like(mt_args *a, const mt_value *dim, bool single, mt_reduce_op op)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    if ((single ? dim_mask(t, dim, mask) : dims_mask(t, dim, mask)) < 0)
        return NULL;
    mt_dtype out = mt_is_floating(t->dtype) ? t->dtype : MT_INT64;
    if (!mt_is_none(a, 3))
        out = a->v[3].dtype;
    return reduce_cast(t, out, mask, a->v[2].b, op, 0);
}

PyObject *impl_sum(mt_args *a) { return sum_like(a, &a->v[1], false, MT_RED_SUM); }
PyObject *impl_prod(mt_args *a) { return sum_like(a, &a->v[1], true, MT_RED_PROD); }

PyObject *impl_mean(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    mt_dtype out = mt_is_none(a, 3) ? t->dtype : a->v[3].dtype;
    if (!mt_is_floating(out))
        return PyErr_Format(PyExc_RuntimeError,
                            "mean(): could not infer output dtype. %s dtype must be either a "
                            "floating point or complex dtype. Got: %s",
                            mt_is_none(a, 3) ? "Input" : "Optional",
                            mt_dtype_infos[out].scalar_name);
    if (dims_mask(t, &a->v[1], mask) < 0)
        return NULL;
    return reduce_cast(t, out, mask, a->v[2].b, MT_RED_MEAN, 0);
}

/* max/min/amax/amin/argmax/argmin need a non-empty reduction. */
static int check_nonempty(const char *name, const mt_tensor *t, const bool *mask, bool dim_given)
{
    if (t->numel != 0)
        return 0;
    bool arg = strncmp(name, "arg", 3) == 0;
    if (!dim_given) {
        if (arg)
            PyErr_Format(PyExc_IndexError,
                         "%s(): Expected reduction dim to be specified for input.numel() == 0.",
                         name);
        else
            PyErr_Format(PyExc_RuntimeError,
                         "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                         "Specify the reduction dim with the 'dim' argument.", name);
        return -1;
    }
    for (int d = 0; d < t->ndim; d++)
        if (mask[d] && t->sizes[d] == 0) {
            PyErr_Format(PyExc_IndexError,
                         "%s(): Expected reduction dim %d to have non-zero size.", name, d);
            return -1;
        }
    return 0;
}

static PyObject *amax_like(mt_args *a, const char *name, mt_reduce_op op)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    if (dims_mask(t, &a->v[1], mask) < 0 ||
        check_nonempty(name, t, mask, a->v[1].nints > 0) < 0)
        return NULL;
    return reduce(t, mask, a->v[2].b, t->dtype, op, 0, NULL);
}

PyObject *impl_amax(mt_args *a) { return amax_like(a, "amax", MT_RED_MAX); }
PyObject *impl_amin(mt_args *a) { return amax_like(a, "amin", MT_RED_MIN); }

/* aminmax(input, *, dim=None, keepdim) -> (min, max); torch words its empty
 * errors unlike amin's. */
PyObject *impl_aminmax(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    if (dim_mask(t, &a->v[1], mask) < 0)
        return NULL;
    if (t->numel == 0) {
        if (!a->v[1].obj)
            return PyErr_Format(PyExc_RuntimeError,
                                "aminmax(): cannot compute aminmax over an empty dimension as "
                                "the operation has no identity.");
        for (int d = 0; d < t->ndim; d++)
            if (mask[d] && t->sizes[d] == 0)
                return PyErr_Format(PyExc_IndexError,
                                    "aminmax: Expected reduction dim %d to have non-zero size.", d);
    }
    PyObject *lo = reduce(t, mask, a->v[2].b, t->dtype, MT_RED_MIN, 0, NULL);
    if (!lo)
        return NULL;
    PyObject *hi = reduce(t, mask, a->v[2].b, t->dtype, MT_RED_MAX, 0, NULL);
    return mtpy_return_pair("aminmax", lo, hi);
}

/* max(input) -> value; max(input, dim, keepdim) -> (values, indices). */
static PyObject *max_like(mt_args *a, const char *name, mt_reduce_op op)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    bool with_dim = a->overload == 1;
    if ((with_dim ? dim_mask(t, &a->v[1], mask) : dims_mask(t, &(mt_value){0}, mask)) < 0 ||
        check_nonempty(name, t, mask, with_dim) < 0)
        return NULL;
    if (!with_dim)
        return reduce(t, mask, false, t->dtype, op, 0, NULL);
    PyObject *indices;
    PyObject *values = reduce(t, mask, a->v[2].b, t->dtype, op, 0, &indices);
    if (!values)
        return NULL;
    return mtpy_return_pair(name, values, indices);
}

PyObject *impl_max(mt_args *a) { return max_like(a, "max", MT_RED_MAX); }
PyObject *impl_min(mt_args *a) { return max_like(a, "min", MT_RED_MIN); }

static PyObject *argmax_like(mt_args *a, const char *name, mt_reduce_op op)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    if (t->dtype == MT_BOOL)
        return PyErr_Format(PyExc_RuntimeError, "%s(): does not support bool input", name);
    if (dim_mask(t, &a->v[1], mask) < 0 || check_nonempty(name, t, mask, a->v[1].obj) < 0)
        return NULL;
    /* Without a dim the position is into the flattened input; keepdim keeps every dim. */
    return reduce(t, mask, a->v[2].b, MT_INT64, op, 0, NULL);
}

PyObject *impl_argmax(mt_args *a) { return argmax_like(a, "argmax", MT_RED_ARGMAX); }
PyObject *impl_argmin(mt_args *a) { return argmax_like(a, "argmin", MT_RED_ARGMIN); }

static PyObject *logical(mt_args *a, mt_reduce_op op)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    if (dims_mask(t, &a->v[1], mask) < 0)
        return NULL;
    return reduce(t, mask, a->v[2].b, t->dtype == MT_UINT8 ? MT_UINT8 : MT_BOOL, op, 0, NULL);
}

PyObject *impl_all(mt_args *a) { return logical(a, MT_RED_ALL); }
PyObject *impl_any(mt_args *a) { return logical(a, MT_RED_ANY); }

PyObject *impl_count_nonzero(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    if (dims_mask(t, &a->v[1], mask) < 0)
        return NULL;
    return reduce(t, mask, false, MT_INT64, MT_RED_COUNT_NZ, 0, NULL);
}

/* var/std and var_mean/std_mean share three overloads:
 * 0: (input, unbiased), 1: (input, dim, unbiased, keepdim),
 * 2: (input, dim, *, correction, keepdim). */
static PyObject *moments(mt_args *a, mt_reduce_op op, bool with_mean)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    double correction = 1;
    bool keepdim = false;
    mt_value none = {0};
    if (!mt_is_floating(t->dtype))
        return PyErr_Format(PyExc_RuntimeError,
                            "std and var only support floating point and complex dtypes");
    switch (a->overload) {
    case 0:
        correction = a->v[1].b;
        break;
    case 1:
        correction = a->v[2].b;
        keepdim = a->v[3].b;
        break;
    default:
        correction = mt_is_none(a, 2) ? 1 : a->v[2].s.f;
        keepdim = a->v[3].b;
        break;
    }
    if (dims_mask(t, a->overload == 0 ? &none : &a->v[1], mask) < 0)
        return NULL;
    PyObject *mean = NULL;
    PyObject *r = reduce(t, mask, keepdim, t->dtype, op, correction, with_mean ? &mean : NULL);
    if (!r || !with_mean)
        return r;
    return Py_BuildValue("(NN)", r, mean);
}

PyObject *impl_var(mt_args *a) { return moments(a, MT_RED_VAR, false); }
PyObject *impl_std(mt_args *a) { return moments(a, MT_RED_STD, false); }
PyObject *impl_var_mean(mt_args *a) { return moments(a, MT_RED_VAR, true); }
PyObject *impl_std_mean(mt_args *a) { return moments(a, MT_RED_STD, true); }

/* norm(input, p, dim, keepdim, *, dtype): p a number, or 'fro' (the 2-norm). */
PyObject *impl_norm(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    double p = 2;
    if (a->overload == 0) {
        if (!mt_is_none(a, 1))
            p = a->v[1].s.f;
    } else if (strcmp(a->v[1].str, "fro") != 0) {
        return PyErr_Format(PyExc_RuntimeError, "linalg.matrix_norm: Order %s not supported.",
                            a->v[1].str);
    }
    if (!mt_is_floating(t->dtype))
        return PyErr_Format(PyExc_RuntimeError,
                            "linalg.vector_norm: Expected a floating point or complex tensor as "
                            "input. Got %s", mt_dtype_infos[t->dtype].scalar_name);
    if (dims_mask(t, &a->v[2], mask) < 0)
        return NULL;
    if (p < 0 && t->numel == 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "linalg.vector_norm cannot compute the %s norm on an empty tensor "
                            "because the operation does not have an identity",
                            isinf(p) ? "-inf" : "negative");
    mt_dtype out = mt_is_none(a, 4) ? t->dtype : a->v[4].dtype;
    return reduce_cast(t, out, mask, a->v[3].b, MT_RED_NORM, p);
}

PyObject *impl_logsumexp(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    bool mask[MT_MAX_DIMS];
    if (dims_mask(t, &a->v[1], mask) < 0)
        return NULL;
    mt_dtype out = mt_is_floating(t->dtype) ? t->dtype : mtpy_default_dtype();
    return reduce(t, mask, a->v[2].b, out, MT_RED_LOGSUMEXP, 0, NULL);
}

/* ------------------------------------------------------------ along a dim */

static PyObject *along(const mt_tensor *t, int dim, mt_line_op op, const char *kernel_name)
{
    mt_line_fn fn = mt_line_kernel(op, t->dtype);
    if (!fn)
        return PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'",
                            kernel_name, mt_dtype_infos[t->dtype].scalar_name);
    PyObject *out = mtpy_new_contiguous(t->dtype, t->ndim, t->sizes, false);
    if (!out)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    mt_along_dim(MTPy_T(out), t, dim, fn, NULL);
    Py_END_ALLOW_THREADS
    return out;
}

/* softmax(input, dim, dtype) and the nn.functional form whose dim may be None. */
static PyObject *softmax_like(mt_args *a, mt_value *dimv, mt_value *dtypev, bool is_log)
{
    mt_tensor *t = a->v[0].t;
    int64_t dim;
    int d;
    if (dimv->obj) {
        dim = dimv->i;
    } else {
        const char *name = is_log ? "log_softmax" : "softmax";
        if (PyErr_WarnFormat(PyExc_UserWarning, 1,
                             "Implicit dimension choice for %s has been deprecated. Change the "
                             "call to include dim=X as an argument.", name) < 0)
            return NULL;
        dim = t->ndim == 0 || t->ndim == 1 || t->ndim == 3 ? 0 : 1;
    }
    if (mt_wrap_dim(dim, t->ndim, &d) < 0)
        return mtpy_raise();
    PyObject *hold;
    const mt_tensor *src = as_dtype(t, dtypev->obj ? dtypev->dtype : t->dtype, &hold);
    if (!src)
        return NULL;
    bool last = t->ndim == 0 || d == t->ndim - 1;
    char kname[64];
    snprintf(kname, sizeof kname, "%ssoftmax_%skernel_impl", is_log ? "log_" : "",
             last ? "lastdim_" : "");
    PyObject *r = along(src, d, is_log ? MT_LINE_LOG_SOFTMAX : MT_LINE_SOFTMAX, kname);
    Py_XDECREF(hold);
    return r;
}

PyObject *impl_softmax(mt_args *a) { return softmax_like(a, &a->v[1], &a->v[2], false); }
PyObject *impl_log_softmax(mt_args *a) { return softmax_like(a, &a->v[1], &a->v[2], true); }
PyObject *impl_nn_softmax(mt_args *a) { return softmax_like(a, &a->v[1], &a->v[3], false); }
PyObject *impl_nn_log_softmax(mt_args *a) { return softmax_like(a, &a->v[1], &a->v[3], true); }

static PyObject *cumulative(mt_args *a, mt_line_op op)
{
    mt_tensor *t = a->v[0].t;
    int d;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d) < 0)
        return mtpy_raise();
    mt_dtype out = mt_is_floating(t->dtype) ? t->dtype : MT_INT64;
    if (!mt_is_none(a, 2))
        out = a->v[2].dtype;
    if (out == MT_BOOL)
        return PyErr_Format(PyExc_NotImplementedError, "\"%s_out_cpu\" not implemented for 'Bool'",
                            op == MT_LINE_CUMSUM ? "cumsum" : "cumprod");
    PyObject *hold;
    const mt_tensor *src = as_dtype(t, out, &hold);
    if (!src)
        return NULL;
    PyObject *r = along(src, d, op, "");
    Py_XDECREF(hold);
    return r;
}

PyObject *impl_cumsum(mt_args *a) { return cumulative(a, MT_LINE_CUMSUM); }
PyObject *impl_cumprod(mt_args *a) { return cumulative(a, MT_LINE_CUMPROD); }

/* logcumsumexp(input, dim, *, out): out= takes the result by copy, so that
 * out may be input itself. */
PyObject *impl_logcumsumexp(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    mt_tensor *o = a->v[2].obj ? MTPy_T(a->v[2].obj) : NULL;
    int d;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d) < 0)
        return mtpy_raise();
    if (o && o->dtype != t->dtype)
        return PyErr_Format(PyExc_RuntimeError, "expected scalar_type %s but found %s",
                            mt_dtype_infos[t->dtype].scalar_name,
                            mt_dtype_infos[o->dtype].scalar_name);
    PyObject *r = along(t, d, MT_LINE_LOGCUMSUMEXP, "logcumsumexp_out_cpu");
    if (!r || !o)
        return r;
    int rc = mt_resize_out(o, t->ndim, t->sizes, NULL);
    if (rc == 0)
        mt_copy(o, MTPy_T(r));
    Py_DECREF(r);
    return rc < 0 ? NULL : Py_NewRef(a->v[2].obj);
}

/* cummax/cummin(input, dim) -> (values, indices) */
static PyObject *cum_extremum(mt_args *a, const char *name, bool max)
{
    mt_tensor *t = a->v[0].t;
    int d;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d) < 0)
        return mtpy_raise();
    PyObject *v = mtpy_new_contiguous(t->dtype, t->ndim, t->sizes, false);
    PyObject *i = mtpy_new_contiguous(MT_INT64, t->ndim, t->sizes, false);
    if (v && i && t->numel) {
        Py_BEGIN_ALLOW_THREADS
        mt_along_dim_idx(MTPy_T(v), MTPy_T(i), t, d, mt_cum_extremum_kernel(max, t->dtype));
        Py_END_ALLOW_THREADS
    }
    return mtpy_return_pair(name, v, i);
}

PyObject *impl_cummax(mt_args *a) { return cum_extremum(a, "cummax", true); }
PyObject *impl_cummin(mt_args *a) { return cum_extremum(a, "cummin", false); }
