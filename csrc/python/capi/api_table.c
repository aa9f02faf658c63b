/* The function table of the public C API (minitorch.h), exported as the
 * capsule minitorch._C._C_API. Each entry wraps the owner and op-layer API
 * in the header's terms: opaque handles for mt_tensor, mt_args and mt_node,
 * failures as NULL or -1 with a Python exception set. Every entry checks
 * what an extension hands it (NULL handles and names, dtype codes, ndim and
 * sizes, format letters, op ids, parameter indices and kinds) before
 * anything reads it, so a wrong argument is an exception and never a crash.
 * Append new entries at the end of the table only, raising
 * MINITORCH_ABI_MINOR. */
#include "capi.h"

#include "../autograd/autograd_bind.h"

#include "../../autograd/formula.h"
#include "../../autograd/custom_kind.h"
#include "../../ops/out_param.h"

#define MINITORCH_INTERNAL
#include "../../../minitorch/include/minitorch/minitorch.h"

#include <string.h>

_Static_assert(MINITORCH_BOOL == (int)MT_BOOL && MINITORCH_UINT8 == (int)MT_UINT8 &&
                   MINITORCH_INT8 == (int)MT_INT8 && MINITORCH_INT16 == (int)MT_INT16 &&
                   MINITORCH_INT32 == (int)MT_INT32 && MINITORCH_INT64 == (int)MT_INT64 &&
                   MINITORCH_FLOAT16 == (int)MT_FLOAT16 && MINITORCH_BFLOAT16 == (int)MT_BFLOAT16 &&
                   MINITORCH_FLOAT32 == (int)MT_FLOAT32 && MINITORCH_FLOAT64 == (int)MT_FLOAT64,
               "minitorch.h numbers dtypes as csrc/core/dtype.h does");

#define T(h) ((mt_tensor *)(h))
#define H(t) ((minitorch_tensor *)(t))
#define A(h) ((const mt_args *)(h))
#define N(h) ((mt_node *)(h))

static minitorch_tensor *raised(void)
{
    mtpy_raise();
    return NULL;
}

/* The error of a NULL handle given to entry fn: -1, with torch's wording
 * for an undefined tensor. */
static int undefined(const char *fn, const char *what)
{
    PyErr_Format(PyExc_RuntimeError,
                 "%s(): expected a proper %s but got NULL (an undefined %s in C++)", fn, what,
                 what);
    return -1;
}

#define NEED_TENSOR(h, fail)               \
    do {                                   \
        if (!(h)) {                        \
            undefined(__func__, "Tensor"); \
            return fail;                   \
        }                                  \
    } while (0)

static int need_text(const char *fn, const char *what, const char *text)
{
    if (text)
        return 0;
    PyErr_Format(PyExc_ValueError, "%s(): %s must be a string, got NULL", fn, what);
    return -1;
}

/* ------------------------------------------------------------ objects */

static int check(PyObject *o) { return o && MTPy_Check(o); }

static minitorch_tensor *unwrap(PyObject *o)
{
    if (!o || !MTPy_Check(o)) {
        PyErr_Format(PyExc_TypeError, "expected a minitorch.Tensor, got %s",
                     o ? Py_TYPE(o)->tp_name : "NULL");
        return NULL;
    }
    return H(MTPy_T(o));
}

static PyObject *wrap(minitorch_tensor *t)
{
    NEED_TENSOR(t, NULL);
    return (PyObject *)mtpy_container(T(t));
}

/* NULL is accepted and ignored, as by Py_XINCREF and Py_XDECREF */
static void retain(minitorch_tensor *t)
{
    if (t)
        mt_retain(T(t));
}

static void release(minitorch_tensor *t)
{
    if (t)
        mt_release(T(t));
}

/* ----------------------------------------------------------- creation */

static int check_dtype(minitorch_dtype dtype)
{
    if ((unsigned)dtype >= MT_NUM_DTYPES)
        return mt_error(MT_ERR_VALUE, "minitorch: invalid dtype %d", (int)dtype);
    return 0;
}

/* What mt_new trusts: the dtype code, ndim and the sizes pointer (negative
 * sizes and overflowing products it refuses itself, in torch's words). */
static int check_shape(int ndim, const int64_t *sizes, minitorch_dtype dtype)
{
    if (check_dtype(dtype) < 0)
        return -1;
    if (ndim < 0 || ndim > MT_MAX_DIMS)
        return mt_error(MT_ERR_VALUE, "minitorch: ndim must be in [0, %d], got %d", MT_MAX_DIMS,
                        ndim);
    if (ndim && !sizes)
        return mt_error(MT_ERR_VALUE, "minitorch: sizes is NULL for a tensor of %d dimensions",
                        ndim);
    return 0;
}

static minitorch_tensor *create(int ndim, const int64_t *sizes, minitorch_dtype dtype, bool zeroed)
{
    if (check_shape(ndim, sizes, dtype) < 0)
        return raised();
    mt_tensor *t = mt_new((mt_dtype)dtype, ndim, sizes, zeroed);
    return t ? H(t) : raised();
}

static minitorch_tensor *empty(int ndim, const int64_t *sizes, minitorch_dtype dtype)
{
    return create(ndim, sizes, dtype, false);
}

static minitorch_tensor *zeros(int ndim, const int64_t *sizes, minitorch_dtype dtype)
{
    return create(ndim, sizes, dtype, true);
}

static minitorch_tensor *from_data(const void *data, int ndim, const int64_t *sizes,
                                   minitorch_dtype dtype)
{
    minitorch_tensor *h = create(ndim, sizes, dtype, false);
    if (h && T(h)->numel && !data) {
        release(h);
        PyErr_SetString(PyExc_ValueError, "from_data(): data is NULL for a non-empty tensor");
        return NULL;
    }
    if (h && T(h)->numel)
        memcpy(mt_data(T(h)), data, (size_t)T(h)->numel * mt_itemsize(T(h)->dtype));
    return h;
}

static minitorch_tensor *empty_like(minitorch_tensor *h)
{
    NEED_TENSOR(h, NULL);
    mt_tensor *t = mt_new(T(h)->dtype, T(h)->ndim, T(h)->sizes, false);
    return t ? H(t) : raised();
}

/* ----------------------------------------------------------- metadata */

/* A NULL handle is the only failure: -1 or NULL with a RuntimeError. */
#define METADATA(type, name, fail, expr)  \
    static type name(minitorch_tensor *t) \
    {                                     \
        NEED_TENSOR(t, fail);             \
        return expr;                      \
    }

METADATA(int, ndim, -1, T(t)->ndim)
METADATA(const int64_t *, sizes, NULL, T(t)->sizes)
METADATA(const int64_t *, strides, NULL, T(t)->strides)
METADATA(minitorch_dtype, dtype, (minitorch_dtype)-1, (minitorch_dtype)T(t)->dtype)
METADATA(int64_t, numel, -1, T(t)->numel)
METADATA(int, is_contiguous, -1, mt_tensor_is_contiguous(T(t)))
METADATA(void *, data_ptr, NULL, mt_data(T(t)))
METADATA(int64_t, storage_offset, -1, T(t)->offset)
METADATA(int, requires_grad, -1, mt_requires_grad(T(t)))

static int element_size(minitorch_dtype d)
{
    return check_dtype(d) < 0 ? mtpy_raise_int() : mt_itemsize((mt_dtype)d);
}

/* ------------------------------------------------------------- layout */

static minitorch_tensor *contiguous(minitorch_tensor *h)
{
    NEED_TENSOR(h, NULL);
    if (mt_tensor_is_contiguous(T(h))) {
        mt_retain(T(h));
        return h;
    }
    mt_tensor *t = mt_call(MT_OP_contiguous, "T", T(h));
    return t ? H(t) : raised();
}

static int resize_as(minitorch_tensor *out, minitorch_tensor *like)
{
    NEED_TENSOR(out, -1);
    NEED_TENSOR(like, -1);
    if (mt_resize_out(T(out), T(like)->ndim, T(like)->sizes, NULL) < 0)
        return mtpy_raise_int();
    return 0;
}

/* --------------------------------------------------------------- ops */

static int op_id(const char *name)
{
    if (need_text(__func__, "the op name", name) < 0)
        return -1;
    int id = mt_op_find(name);
    return id < 0 ? mtpy_raise_int() : id;
}

/* The letters the header documents: a value letter, each optionally after
 * 'k'. Checked whole before any argument is read, so a wrong format never
 * reads a vararg as the wrong type. */
static int check_format(const char *name, const char *fmt)
{
    if (need_text(name, "the format", fmt) < 0)
        return -1;
    for (const char *c = fmt; *c; c++) {
        bool keyword = *c == 'k';
        if (keyword && !*++c) {
            PyErr_Format(PyExc_ValueError,
                         "%s(): format \"%s\" ends with 'k', which must precede a value letter",
                         name, fmt);
            return -1;
        }
        if (!*c || !strchr("TNifbDsL", *c)) {
            PyErr_Format(PyExc_ValueError,
                         "%s(): unknown format character '%c' at position %d of \"%s\" (one of "
                         "T N i f b D s L, each optionally after k)",
                         name, *c, (int)(c - fmt), fmt);
            return -1;
        }
    }
    return 0;
}

static minitorch_tensor *call_v(int id, const char *fmt, va_list ap)
{
    const mt_op *row = mt_op_row(id);
    /* rows without kinds are a form no public name reaches: op_id never
     * returns them */
    if (!row || !row->kinds) {
        PyErr_Format(PyExc_ValueError, "minitorch: no op with id %d", id);
        return NULL;
    }
    if (check_format(row->sig->name, fmt) < 0)
        return NULL;
    mt_tensor *t = mt_call_tensor_v((mt_op_id)id, fmt, ap);
    return t ? H(t) : raised();
}

static minitorch_tensor *call(const char *name, const char *fmt, ...)
{
    int id = op_id(name);
    if (id < 0)
        return NULL;
    va_list ap;
    va_start(ap, fmt);
    minitorch_tensor *t = call_v(id, fmt, ap);
    va_end(ap);
    return t;
}

static minitorch_tensor *call_id(int id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    minitorch_tensor *t = call_v(id, fmt, ap);
    va_end(ap);
    return t;
}

/* -------------------------------------------------------- custom ops */

static PyObject *register_op(const char *schema, minitorch_kernel kernel,
                             minitorch_backward backward, minitorch_jvp jvp)
{
    if (need_text(__func__, "the schema", schema) < 0)
        return NULL;
    if (!kernel)
        return PyErr_Format(PyExc_ValueError, "register_op: '%s' needs a kernel", schema);
    int id = mt_custom_register_c(schema, (mt_custom_kernel)kernel, (mt_custom_backward)backward,
                                  (mt_custom_jvp)jvp);
    if (id < 0)
        return mtpy_raise();
    return mtpy_custom_publish(id);
}

/* Parameter i of a kernel's arguments, or NULL with an exception: a NULL
 * handle, an index outside the schema, or (kinds non-zero) a parameter
 * whose kind is not among the bits of kinds, 1 << mt_argtype. */
static const mt_value *arg_of(const char *fn, const minitorch_args *h, int i, unsigned kinds)
{
    if (!h) {
        undefined(fn, "minitorch_args");
        return NULL;
    }
    const mt_signature *s = A(h)->sig;
    if (i < 0 || i >= s->nparams) {
        PyErr_Format(PyExc_IndexError,
                     "%s(): parameter index %d is out of range for %s, which "
                     "has %d parameters",
                     fn, i, s->name, s->nparams);
        return NULL;
    }
    mt_argtype type = s->params[i].type;
    if (kinds && !(kinds & (1u << type))) {
        PyErr_Format(PyExc_TypeError, "%s(): parameter %d ('%s') of %s is of type %s", fn, i,
                     s->params[i].name, s->name, s->params[i].type_text);
        return NULL;
    }
    return &A(h)->v[i];
}

#define KIND(k) (1u << (k))

static mt_argtype arg_type(const minitorch_args *h, int i) { return A(h)->sig->params[i].type; }

static minitorch_tensor *arg_tensor(const minitorch_args *h, int i)
{
    const mt_value *v = arg_of(__func__, h, i, KIND(MT_ARG_TENSOR));
    return v ? H(v->t) : NULL;
}

static int arg_is_none(const minitorch_args *h, int i)
{
    const mt_value *v = arg_of(__func__, h, i, 0);
    if (!v)
        return -1;
    const mt_param *p = &A(h)->sig->params[i];
    return !v->obj && (!p->has_default || p->default_none);
}

#define NUMBER_KINDS                                                                   \
    (KIND(MT_ARG_FLOAT) | KIND(MT_ARG_INT) | KIND(MT_ARG_BOOL) | KIND(MT_ARG_SCALAR) | \
     KIND(MT_ARG_TENSOR))

static double arg_double(const minitorch_args *h, int i)
{
    const mt_value *v = arg_of(__func__, h, i, NUMBER_KINDS);
    if (!v)
        return 0;
    switch (arg_type(h, i)) {
    case MT_ARG_FLOAT:
        return v->f;
    case MT_ARG_INT:
        return (double)v->i;
    case MT_ARG_BOOL:
        return v->b;
    case MT_ARG_SCALAR:
        return v->s.f;
    case MT_ARG_TENSOR:
        return v->is_scalar ? v->s.f : 0;
    default:
        return 0;
    }
}

static int64_t arg_int(const minitorch_args *h, int i)
{
    const mt_value *v =
        arg_of(__func__, h, i,
               KIND(MT_ARG_INT) | KIND(MT_ARG_BOOL) | KIND(MT_ARG_SCALAR) | KIND(MT_ARG_TENSOR));
    if (!v)
        return 0;
    switch (arg_type(h, i)) {
    case MT_ARG_INT:
        return v->i;
    case MT_ARG_BOOL:
        return v->b;
    case MT_ARG_SCALAR:
    case MT_ARG_TENSOR:
        return v->s.kind == MT_SCALAR_FLOAT ? (int64_t)v->s.f : v->s.i;
    default:
        return 0;
    }
}

static const int64_t *arg_int_list(const minitorch_args *h, int i, int *n)
{
    const mt_value *v = arg_of(__func__, h, i, KIND(MT_ARG_INT_LIST));
    if (!n) {
        PyErr_SetString(PyExc_ValueError, "arg_int_list(): n is NULL");
        return NULL;
    }
    bool list = v && v->ints;
    *n = list ? v->nints : 0;
    return list ? v->ints : NULL;
}

static const char *arg_str(const minitorch_args *h, int i)
{
    const mt_value *v = arg_of(__func__, h, i, KIND(MT_ARG_STR));
    return v && !arg_is_none(h, i) ? v->str : NULL;
}

static minitorch_tensor *saved_input(minitorch_node *h, int p)
{
    if (!h) {
        undefined(__func__, "minitorch_node");
        return NULL;
    }
    if (p < 0 || p >= N(h)->nparams || !(N(h)->kind->save_inputs & (1u << p)))
        return PyErr_Format(PyExc_IndexError, "saved_input: parameter %d is no saved Tensor", p),
               NULL;
    mt_tensor *t = mt_node_saved(N(h), p);
    return t ? H(t) : raised();
}

static minitorch_tensor *saved_output(minitorch_node *h)
{
    if (!h) {
        undefined(__func__, "minitorch_node");
        return NULL;
    }
    mt_tensor *t = mt_node_saved(N(h), N(h)->nparams);
    return t ? H(t) : raised();
}

/* 0 when node h has a parameter p, else -1 with an exception */
static int node_param(const char *fn, minitorch_node *h, int p)
{
    if (!h)
        return undefined(fn, "minitorch_node");
    if (p < 0 || p >= N(h)->nparams) {
        PyErr_Format(PyExc_IndexError,
                     "%s(): parameter index %d is out of range for a node of %d parameters", fn, p,
                     N(h)->nparams);
        return -1;
    }
    return 0;
}

static double saved_double(minitorch_node *h, int p)
{
    if (node_param(__func__, h, p) < 0)
        return 0;
    const mt_ad_value *v = &N(h)->args[p];
    return v->is_float ? v->f : (double)v->i;
}

static int64_t saved_int(minitorch_node *h, int p)
{
    if (node_param(__func__, h, p) < 0)
        return 0;
    const mt_ad_value *v = &N(h)->args[p];
    return v->is_float ? (int64_t)v->f : v->i;
}

static int needs_grad(minitorch_node *h, int p)
{
    if (node_param(__func__, h, p) < 0)
        return -1;
    return mt_param_needs(N(h), p);
}

static const minitorch_api table = {
    MINITORCH_ABI_MAJOR,
    MINITORCH_ABI_MINOR,
    check,
    unwrap,
    wrap,
    retain,
    release,
    empty,
    zeros,
    from_data,
    empty_like,
    ndim,
    sizes,
    strides,
    dtype,
    numel,
    is_contiguous,
    data_ptr,
    storage_offset,
    element_size,
    requires_grad,
    contiguous,
    resize_as,
    op_id,
    call,
    call_id,
    register_op,
    arg_tensor,
    arg_is_none,
    arg_double,
    arg_int,
    arg_int_list,
    arg_str,
    saved_input,
    saved_output,
    saved_double,
    saved_int,
    needs_grad,
};

int mtpy_capi_init(PyObject *module)
{
    PyObject *capsule = PyCapsule_New((void *)&table, "minitorch._C._C_API", NULL);
    if (!capsule)
        return -1;
    int rc = PyModule_AddObjectRef(module, "_C_API", capsule);
    Py_DECREF(capsule);
    return rc;
}
