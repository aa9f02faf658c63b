/* Layouts by memory format: torch's contiguous, channels_last (NHWC order of
 * a 4-d NCHW tensor) and channels_last_3d (NDHWC of a 5-d NCDHW tensor). */
#include "memory_format.h"

#include "../kernels/iter.h"

/* Dimensions from the fastest-moving to the slowest, per format. */
static const int cl2d_order[4] = {1, 3, 2, 0};
static const int cl3d_order[5] = {1, 4, 3, 2, 0};

static const int *format_order(mt_memory_format f, int *rank)
{
    *rank = f == MT_FORMAT_CHANNELS_LAST ? 4 : 5;
    return f == MT_FORMAT_CHANNELS_LAST ? cl2d_order : cl3d_order;
}

int mt_format_strides(mt_memory_format f, int ndim, const int64_t *sizes, int64_t *strides)
{
    if (f == MT_FORMAT_PRESERVE)
        return mt_error(MT_ERR_RUNTIME, "unsupported memory format Preserve");
    if (f == MT_FORMAT_CONTIGUOUS) {
        int64_t s = 1;
        for (int d = ndim - 1; d >= 0; d--) {
            strides[d] = s;
            s *= sizes[d] > 1 ? sizes[d] : 1;
        }
        return 0;
    }
    int rank;
    const int *order = format_order(f, &rank);
    if (ndim != rank)
        return mt_error(MT_ERR_RUNTIME, "required rank %d tensor to use %s format", rank,
                        rank == 4 ? "channels_last" : "channels_last_3d");
    /* torch multiplies the sizes as they are here, zeros included */
    int64_t s = 1;
    for (int k = 0; k < rank; k++) {
        strides[order[k]] = s;
        s *= sizes[order[k]];
    }
    return 0;
}

bool mt_is_contiguous_as(const mt_tensor *t, mt_memory_format f)
{
    if (f == MT_FORMAT_CONTIGUOUS || f == MT_FORMAT_PRESERVE)
        return mt_tensor_is_contiguous(t);
    int rank;
    const int *order = format_order(f, &rank);
    if (t->ndim != rank)
        return false;
    int64_t expected = 1;
    for (int k = 0; k < rank; k++) {
        int d = order[k];
        if (t->sizes[d] == 1)
            continue;
        if (t->strides[d] != expected)
            return false;
        expected *= t->sizes[d];
    }
    return true;
}

/* Strides growing along the format's order, with the ambiguous cases torch
 * resolves to contiguous (a zero channel stride, N111-like strides). */
static bool strides_like(const mt_tensor *t, mt_memory_format f)
{
    int rank;
    const int *order = format_order(f, &rank);
    if (t->ndim != rank || t->strides[1] == 0)
        return false;
    int64_t min = 0;
    for (int k = 0; k < rank; k++) {
        int d = order[k];
        if (t->sizes[d] == 0 || t->strides[d] < min)
            return false;
        if (d == 0 && min == t->strides[1])
            return false;
        min = t->strides[d];
        if (t->sizes[d] > 1)
            min *= t->sizes[d];
    }
    return true;
}

mt_memory_format mt_suggest_format(const mt_tensor *t)
{
    if (strides_like(t, MT_FORMAT_CHANNELS_LAST))
        return MT_FORMAT_CHANNELS_LAST;
    if (strides_like(t, MT_FORMAT_CHANNELS_LAST_3D))
        return MT_FORMAT_CHANNELS_LAST_3D;
    return MT_FORMAT_CONTIGUOUS;
}

mt_tensor *mt_new_in_format(const mt_tensor *src, mt_dtype dtype, mt_memory_format f)
{
    int64_t strides[MT_MAX_DIMS];
    if (f != MT_FORMAT_PRESERVE) {
        if (mt_format_strides(f, src->ndim, src->sizes, strides) < 0)
            return NULL;
        return mt_new_strided(dtype, src->ndim, src->sizes, strides);
    }
    if (mt_tensor_is_non_overlapping_and_dense(src))
        return mt_new_strided(dtype, src->ndim, src->sizes, src->strides);
    mt_output_strides_like(1, &src, src->ndim, src->sizes, strides);
    return mt_new_strided(dtype, src->ndim, src->sizes, strides);
}
