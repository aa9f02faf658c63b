#include "tensor.h"
#include "error.h"
#include "shape.h"
#include "hot.h"

#include <string.h>

MT_HOT int mt_tensor_init_contiguous(mt_tensor *t, mt_dtype dtype, int ndim, const int64_t *sizes,
                                     bool zeroed)
{
    int64_t numel;
    if (ndim > MT_MAX_DIMS)
        return mt_error(MT_ERR_RUNTIME, "minitorch supports at most %d dimensions, got %d",
                        MT_MAX_DIMS, ndim);
    if (mt_checked_numel(ndim, sizes, &numel) < 0)
        return -1;
    if (numel > (INT64_MAX / 8))
        return mt_error(MT_ERR_RUNTIME, "numel: integer multiplication overflow");
    t->storage = mt_storage_new((size_t)numel * mt_itemsize(dtype), zeroed);
    t->counter = NULL;
    if (!t->storage)
        return -1;
    t->offset = 0;
    t->numel = numel;
    t->ndim = ndim;
    t->dtype = dtype;
    if (ndim)
        memcpy(t->sizes, sizes, sizeof(int64_t) * ndim);
    mt_contiguous_strides(ndim, sizes, t->strides);
    return 0;
}

MT_HOT int mt_tensor_init_view(mt_tensor *t, const mt_tensor *src, int ndim, const int64_t *sizes,
                               const int64_t *strides, int64_t offset)
{
    int64_t numel;
    if (ndim > MT_MAX_DIMS)
        return mt_error(MT_ERR_RUNTIME, "minitorch supports at most %d dimensions, got %d",
                        MT_MAX_DIMS, ndim);
    if (mt_checked_numel(ndim, sizes, &numel) < 0)
        return -1;
    mt_storage_incref(src->storage);
    t->storage = src->storage;
    t->offset = offset;
    t->numel = numel;
    t->ndim = ndim;
    t->dtype = src->dtype;
    t->flags = (t->flags & ~MT_FLAG_CONJ) | (src->flags & MT_FLAG_CONJ);
    t->counter = mt_version_counter_incref(src->counter);
    if (ndim) {
        memcpy(t->sizes, sizes, sizeof(int64_t) * ndim);
        memcpy(t->strides, strides, sizeof(int64_t) * ndim);
    }
    return 0;
}

MT_HOT void mt_tensor_release(mt_tensor *t)
{
    if (t->storage) {
        mt_storage_decref(t->storage);
        t->storage = NULL;
    }
    mt_version_counter_decref(t->counter);
    t->counter = NULL;
}

int mt_tensor_own_counter(mt_tensor *t, int64_t value)
{
    mt_version_counter *c = mt_version_counter_new(value);
    if (!c)
        return -1;
    mt_version_counter_decref(t->counter);
    t->counter = c;
    return 0;
}

int mt_tensor_keep_counter(mt_tensor *t)
{
    if (t->counter)
        return 0;
    mt_storage *s = t->storage;
    if (!s->counter && !(s->counter = mt_version_counter_new(s->version)))
        return -1;
    t->counter = mt_version_counter_incref(s->counter);
    return 0;
}

bool mt_tensor_is_contiguous(const mt_tensor *t)
{
    if (t->numel < 2)
        return true;
    int64_t expected = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->sizes[d] == 1)
            continue;
        if (t->strides[d] != expected)
            return false;
        expected *= t->sizes[d];
    }
    return true;
}

bool mt_tensor_is_non_overlapping_and_dense(const mt_tensor *t)
{
    if (t->numel < 2)
        return true;
    int perm[MT_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] != 1)
            perm[n++] = d;
    /* insertion sort by stride, smallest first */
    for (int i = 1; i < n; i++) {
        int v = perm[i], j = i - 1;
        while (j >= 0 && t->strides[perm[j]] > t->strides[v]) {
            perm[j + 1] = perm[j];
            j--;
        }
        perm[j + 1] = v;
    }
    int64_t expected = 1;
    for (int i = 0; i < n; i++) {
        if (t->strides[perm[i]] != expected)
            return false;
        expected *= t->sizes[perm[i]];
    }
    return true;
}
