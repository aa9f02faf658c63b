/* The rows of convert.def that change dtypes and copy between tensors: to()
 * in its forms, float()/double()/... and copy_. Plain C: they read the typed
 * arguments and write only the tensors they make, and copy_'s destination.
 * type() (its dtype is a type name or class) and result_type (it answers a
 * dtype object) stay in csrc/python/convert_objects.c, the DLPack rows in
 * csrc/python/dlpack.c. */
#include "convert.h"
#include "memory_format.h"

#include "../core/shape.h"
#include "../kernels/copy.h"

#include <string.h>

int mt_warn_complex_to_real(mt_dtype from, mt_dtype to)
{
    if (mt_is_complex(from) && !mt_is_complex(to))
        return mt_warn("Casting complex values to real discards the imaginary part");
    return 0;
}

/* A copy of t converted to dtype, laid out in format f. */
static mt_tensor *converted(const mt_tensor *t, mt_dtype dtype, mt_memory_format f)
{
    if (mt_warn_complex_to_real(t->dtype, dtype) < 0)
        return NULL;
    mt_tensor *out = mt_new_in_format(t, dtype, f);
    if (out)
        mt_copy(out, t);
    return out;
}

mt_tensor *mt_to_dtype(mt_tensor *t, mt_dtype dtype, bool copy)
{
    if (!copy && t->dtype == dtype) {
        mt_retain(t);
        return t;
    }
    return converted(t, dtype, MT_FORMAT_PRESERVE);
}

/* torch's to(): self when nothing changes (the dtype, and the layout asked
 * for by memory_format, at parameter mf, judged as torch judges it: by the
 * layout suggested by the strides), else a converted copy */
static int to_dtype(mt_args *a, mt_result *r, mt_dtype dtype, bool copy, int mf)
{
    mt_tensor *t = a->v[0].t;
    mt_memory_format f = mt_format_arg(a, mf, MT_FORMAT_PRESERVE);
    if (!copy && t->dtype == dtype && (f == MT_FORMAT_PRESERVE || mt_suggest_format(t) == f)) {
        mt_retain(t);
        return mt_result_tensor(r, t);
    }
    return mt_result_tensor(r, converted(t, dtype, f));
}

/* to(input, dtype, non_blocking, copy, *, memory_format) */
int impl_to_dtype(mt_args *a, mt_result *r) { return to_dtype(a, r, a->v[1].dtype, a->v[3].b, 4); }
/* to(input, other, non_blocking, copy, *, memory_format) */
int impl_to_other(mt_args *a, mt_result *r)
{
    return to_dtype(a, r, a->v[1].t->dtype, a->v[3].b, 4);
}
/* to(input, device, dtype, non_blocking, copy, *, memory_format) */
int impl_to_device(mt_args *a, mt_result *r)
{
    return to_dtype(a, r, mt_is_none(a, 2) ? a->v[0].t->dtype : a->v[2].dtype, a->v[4].b, 5);
}

/* float(), double(), ...: the dtype is named by the method. */
#define CAST(name, dtype) \
    int impl_cast_##name(mt_args *a, mt_result *r) { return to_dtype(a, r, dtype, false, 1); }
CAST(float, MT_FLOAT32)
CAST(double, MT_FLOAT64)
CAST(half, MT_FLOAT16)
CAST(bfloat16, MT_BFLOAT16)
CAST(long, MT_INT64)
CAST(int, MT_INT32)
CAST(short, MT_INT16)
CAST(char, MT_INT8)
CAST(byte, MT_UINT8)
CAST(bool, MT_BOOL)
CAST(cfloat, MT_COMPLEX64)
CAST(cdouble, MT_COMPLEX128)
CAST(chalf, MT_COMPLEX32)
#undef CAST

static bool overlaps(const mt_tensor *x, const mt_tensor *y) { return x->storage == y->storage; }

/* copy_(input, src, non_blocking) */
int impl_copy_(mt_args *a, mt_result *r)
{
    mt_tensor *dst = a->v[0].t, *src = a->v[1].t;
    int n = dst->ndim;
    int64_t shape[MT_MAX_DIMS];
    memcpy(shape, dst->sizes, sizeof(int64_t) * n);
    if (mt_broadcast_into(&n, shape, src->ndim, src->sizes) < 0)
        return -1;
    if (n != dst->ndim || memcmp(shape, dst->sizes, sizeof(int64_t) * n) != 0) {
        char want[256], got[256];
        mt_format_shape(want, sizeof want, dst->ndim, dst->sizes);
        mt_format_shape(got, sizeof got, n, shape);
        return mt_error(MT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        want, got);
    }
    if (mt_warn_complex_to_real(src->dtype, dst->dtype) < 0)
        return -1;
    mt_tensor *tmp = NULL;
    if (overlaps(dst, src) && dst != src) {
        /* read everything before writing when the memory is shared */
        if (!(tmp = converted(src, src->dtype, MT_FORMAT_PRESERVE)))
            return -1;
        src = tmp;
    }
    mt_copy(dst, src);
    mt_xrelease(tmp);
    mt_bump_version(dst);
    mt_retain(dst);
    return mt_result_tensor(r, dst);
}
