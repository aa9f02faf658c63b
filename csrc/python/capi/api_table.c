/* The function table of the public C API (minitorch.h), exported as the
 * capsule minitorch._C._C_API. Each entry wraps the owner and op-layer API
 * in the header's terms: opaque handles for mt_tensor, mt_args and mt_node,
 * failures as NULL or -1 with a Python exception set. Append new entries at
 * the end of the table only, raising MINITORCH_ABI_MINOR. */
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

/* ------------------------------------------------------------ objects */

static int check(PyObject *o) { return MTPy_Check(o); }

static minitorch_tensor *unwrap(PyObject *o)
{
    if (!MTPy_Check(o)) {
        PyErr_Format(PyExc_TypeError, "expected a minitorch.Tensor, got %s", Py_TYPE(o)->tp_name);
        return NULL;
    }
    return H(MTPy_T(o));
}

static PyObject *wrap(minitorch_tensor *t) { return (PyObject *)mtpy_container(T(t)); }

static void retain(minitorch_tensor *t) { mt_retain(T(t)); }

static void release(minitorch_tensor *t) { mt_release(T(t)); }

/* ----------------------------------------------------------- creation */

static int check_shape(int ndim, const int64_t *sizes, minitorch_dtype dtype)
{
    if ((unsigned)dtype >= MT_NUM_DTYPES)
        return mt_error(MT_ERR_VALUE, "minitorch: invalid dtype %d", (int)dtype);
    if (ndim < 0 || ndim > MT_MAX_DIMS)
        return mt_error(MT_ERR_VALUE, "minitorch: ndim must be in [0, %d], got %d", MT_MAX_DIMS,
                        ndim);
    for (int d = 0; d < ndim; d++)
        if (sizes[d] < 0)
            return mt_error(
                MT_ERR_RUNTIME,
                "Trying to create tensor with negative dimension %lld: ", (long long)sizes[d]);
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
    if (h && T(h)->numel)
        memcpy(mt_data(T(h)), data, (size_t)T(h)->numel * mt_itemsize(T(h)->dtype));
    return h;
}

static minitorch_tensor *empty_like(minitorch_tensor *h)
{
    mt_tensor *t = mt_new(T(h)->dtype, T(h)->ndim, T(h)->sizes, false);
    return t ? H(t) : raised();
}

/* ----------------------------------------------------------- metadata */

static int ndim(minitorch_tensor *t) { return T(t)->ndim; }
static const int64_t *sizes(minitorch_tensor *t) { return T(t)->sizes; }
static const int64_t *strides(minitorch_tensor *t) { return T(t)->strides; }
static minitorch_dtype dtype(minitorch_tensor *t) { return (minitorch_dtype)T(t)->dtype; }
static int64_t numel(minitorch_tensor *t) { return T(t)->numel; }
static int is_contiguous(minitorch_tensor *t) { return mt_tensor_is_contiguous(T(t)); }
static void *data_ptr(minitorch_tensor *t) { return mt_data(T(t)); }
static int64_t storage_offset(minitorch_tensor *t) { return T(t)->offset; }
static int requires_grad(minitorch_tensor *t) { return mt_requires_grad(T(t)); }

static int element_size(minitorch_dtype d)
{
    return (unsigned)d < MT_NUM_DTYPES ? mt_itemsize((mt_dtype)d) : 0;
}

/* ------------------------------------------------------------- layout */

static minitorch_tensor *contiguous(minitorch_tensor *h)
{
    if (mt_tensor_is_contiguous(T(h))) {
        mt_retain(T(h));
        return h;
    }
    mt_tensor *t = mt_call(MT_OP_contiguous, "T", T(h));
    return t ? H(t) : raised();
}

static int resize_as(minitorch_tensor *out, minitorch_tensor *like)
{
    if (mt_resize_out(T(out), T(like)->ndim, T(like)->sizes, NULL) < 0)
        return mtpy_raise_int();
    return 0;
}

/* --------------------------------------------------------------- ops */

static int op_id(const char *name)
{
    int id = mt_op_find(name);
    return id < 0 ? mtpy_raise_int() : id;
}

static minitorch_tensor *call_v(int id, const char *fmt, va_list ap)
{
    mt_tensor *t = mt_call_tensor_v((mt_op_id)id, fmt, ap);
    return t ? H(t) : raised();
}

static minitorch_tensor *call(const char *name, const char *fmt, ...)
{
    int id = mt_op_find(name);
    if (id < 0)
        return raised();
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
    if (!kernel)
        return PyErr_Format(PyExc_ValueError, "register_op: '%s' needs a kernel", schema);
    int id = mt_custom_register_c(schema, (mt_custom_kernel)kernel, (mt_custom_backward)backward,
                                  (mt_custom_jvp)jvp);
    if (id < 0)
        return mtpy_raise();
    return mtpy_custom_publish(id);
}

static const mt_value *arg(const minitorch_args *h, int i)
{
    return i >= 0 && i < A(h)->sig->nparams ? &A(h)->v[i] : NULL;
}

static mt_argtype arg_type(const minitorch_args *h, int i) { return A(h)->sig->params[i].type; }

static minitorch_tensor *arg_tensor(const minitorch_args *h, int i)
{
    const mt_value *v = arg(h, i);
    return v ? H(v->t) : NULL;
}

static int arg_is_none(const minitorch_args *h, int i)
{
    const mt_value *v = arg(h, i);
    const mt_param *p = v ? &A(h)->sig->params[i] : NULL;
    return !v || (!v->obj && (!p->has_default || p->default_none));
}

static double arg_double(const minitorch_args *h, int i)
{
    const mt_value *v = arg(h, i);
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
    const mt_value *v = arg(h, i);
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
    const mt_value *v = arg(h, i);
    bool list = v && arg_type(h, i) == MT_ARG_INT_LIST && v->ints;
    *n = list ? v->nints : 0;
    return list ? v->ints : NULL;
}

static const char *arg_str(const minitorch_args *h, int i)
{
    const mt_value *v = arg(h, i);
    return v && arg_type(h, i) == MT_ARG_STR && !arg_is_none(h, i) ? v->str : NULL;
}

static minitorch_tensor *saved_input(minitorch_node *h, int p)
{
    if (p < 0 || p >= N(h)->nparams || !(N(h)->kind->save_inputs & (1u << p)))
        return PyErr_Format(PyExc_IndexError, "saved_input: parameter %d is no saved Tensor", p),
               NULL;
    mt_tensor *t = mt_node_saved(N(h), p);
    return t ? H(t) : raised();
}

static minitorch_tensor *saved_output(minitorch_node *h)
{
    mt_tensor *t = mt_node_saved(N(h), N(h)->nparams);
    return t ? H(t) : raised();
}

static const mt_ad_value *saved_arg(minitorch_node *h, int p)
{
    return p >= 0 && p < N(h)->nparams ? &N(h)->args[p] : NULL;
}

static double saved_double(minitorch_node *h, int p)
{
    const mt_ad_value *v = saved_arg(h, p);
    return !v ? 0 : v->is_float ? v->f : (double)v->i;
}

static int64_t saved_int(minitorch_node *h, int p)
{
    const mt_ad_value *v = saved_arg(h, p);
    return !v ? 0 : v->is_float ? (int64_t)v->f : v->i;
}

static int needs_grad(minitorch_node *h, int p)
{
    return p >= 0 && p < N(h)->nparams && mt_param_needs(N(h), p);
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
