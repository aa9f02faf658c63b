/* The rows of tensor.def that answer with a number: metadata (dim, numel,
 * element_size, storage_offset, ...) and the conversions of one element to
 * bool, float and index. Plain C: they only read the tensor. The rows that build Python
 * objects (size, stride, item, tolist, numpy, __int__) stay in
 * csrc/python/tensor_values.c. */
#include "tensor.h"
#include "memory_format.h"

#include "../core/half.h"

#include <stdint.h>

mt_scalar mt_scalar_at(const mt_tensor *t, const void *p)
{
    mt_scalar s = {MT_SCALAR_INT, 0, 0.0};
    switch (t->dtype) {
    case MT_BOOL:
        s.kind = MT_SCALAR_BOOL;
        s.i = *(const uint8_t *)p != 0;
        break;
    case MT_UINT8:
        s.i = *(const uint8_t *)p;
        break;
    case MT_INT8:
        s.i = *(const int8_t *)p;
        break;
    case MT_INT16:
        s.i = *(const int16_t *)p;
        break;
    case MT_INT32:
        s.i = *(const int32_t *)p;
        break;
    case MT_INT64:
        s.i = *(const int64_t *)p;
        break;
    case MT_FLOAT16:
        s.f = mt_f16_to_float(*(const mt_f16 *)p);
        break;
    case MT_BFLOAT16:
        s.f = mt_bf16_to_float(*(const mt_bf16 *)p);
        break;
    case MT_FLOAT32:
        s.f = *(const float *)p;
        break;
    case MT_COMPLEX64:
        s.f = ((const float *)p)[0];
        s.im = ((const float *)p)[1];
        break;
    case MT_COMPLEX128:
        s.f = ((const double *)p)[0];
        s.im = ((const double *)p)[1];
        break;
    case MT_COMPLEX32:
        s.f = mt_f16_to_float(((const mt_f16 *)p)[0]);
        s.im = mt_f16_to_float(((const mt_f16 *)p)[1]);
        break;
    case MT_UINT16:
        s.i = *(const uint16_t *)p;
        break;
    case MT_UINT32:
        s.i = *(const uint32_t *)p;
        break;
    case MT_UINT64:
        /* the bits as int64 (the host reads them back unsigned), the value
         * as double */
        s.i = (int64_t)*(const uint64_t *)p;
        break;
    default:
        s.f = *(const double *)p;
        break;
    }
    if (mt_is_floating(t->dtype))
        s.kind = MT_SCALAR_FLOAT;
    else if (mt_is_complex(t->dtype))
        s.kind = MT_SCALAR_COMPLEX;
    else
        s.f = t->dtype == MT_UINT64 ? (double)(uint64_t)s.i : (double)s.i;
    return s;
}

static int int_result(mt_result *r, int64_t v)
{
    r->kind = MT_RESULT_INT;
    r->i = v;
    return 0;
}

static int bool_result(mt_result *r, bool v)
{
    r->kind = MT_RESULT_BOOL;
    r->i = v;
    return 0;
}

int impl_dim(mt_args *a, mt_result *r) { return int_result(r, a->v[0].t->ndim); }
int impl_numel(mt_args *a, mt_result *r) { return int_result(r, a->v[0].t->numel); }
int impl_element_size(mt_args *a, mt_result *r)
{
    return int_result(r, mt_itemsize(a->v[0].t->dtype));
}
int impl_storage_offset(mt_args *a, mt_result *r) { return int_result(r, a->v[0].t->offset); }
/* Python shows the address unsigned; user-space addresses fit in int64. */
int impl_data_ptr(mt_args *a, mt_result *r)
{
    return int_result(r, (int64_t)(uintptr_t)mt_data(a->v[0].t));
}
int impl_is_contiguous(mt_args *a, mt_result *r)
{
    return bool_result(r,
                       mt_is_contiguous_as(a->v[0].t, mt_format_arg(a, 1, MT_FORMAT_CONTIGUOUS)));
}
int impl_is_floating_point(mt_args *a, mt_result *r)
{
    return bool_result(r, mt_is_floating(a->v[0].t->dtype));
}
int impl_is_complex(mt_args *a, mt_result *r)
{
    return bool_result(r, mt_is_complex(a->v[0].t->dtype));
}
int impl_is_inference(mt_args *a, mt_result *r)
{
    return bool_result(r, a->v[0].t->storage->inference);
}

int impl_len(mt_args *a, mt_result *r)
{
    if (a->v[0].t->ndim == 0)
        return mt_error(MT_ERR_TYPE, "len() of a 0-d tensor");
    return int_result(r, a->v[0].t->sizes[0]);
}

/* Python's truth of the element: NaN is true, as it is for a float. */
int impl_bool(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    if (t->numel == 0)
        return mt_error(MT_ERR_RUNTIME, "Boolean value of Tensor with no values is ambiguous");
    if (t->numel > 1)
        return mt_error(MT_ERR_RUNTIME,
                        "Boolean value of Tensor with more than one value is ambiguous");
    mt_scalar s = mt_scalar_at(t, mt_data(t));
    if (s.kind == MT_SCALAR_COMPLEX)
        return bool_result(r, s.f != 0.0 || s.im != 0.0);
    return bool_result(r, s.kind == MT_SCALAR_FLOAT ? s.f != 0.0 : s.i != 0);
}

int impl_float(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    if (t->numel != 1)
        return mt_error(MT_ERR_TYPE, "only one element tensors can be converted to Python scalars");
    r->kind = MT_RESULT_FLOAT;
    r->f = mt_scalar_at(t, mt_data(t)).f;
    return 0;
}

int impl_index(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    if (t->numel != 1 || !mt_is_integral(t->dtype, true))
        return mt_error(MT_ERR_TYPE,
                        "only integer tensors of a single element can be converted to an index");
    return int_result(r, mt_scalar_at(t, mt_data(t)).i);
}
