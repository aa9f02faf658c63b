#include "shape.h"
#include "error.h"
#include "tensor.h"
#include "hot.h"

#include <stdio.h>
#include <string.h>

int mt_wrap_dim(int64_t dim, int ndim, int *out)
{
    int64_t n = ndim > 0 ? ndim : 1; /* a 0-dim tensor accepts dim 0 and -1 */
    if (dim < -n || dim >= n)
        return mt_error(
            MT_ERR_INDEX,
            "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
            (long long)-n, (long long)(n - 1), (long long)dim);
    *out = (int)(dim < 0 ? dim + n : dim);
    return 0;
}

MT_HOT int mt_checked_numel(int ndim, const int64_t *sizes, int64_t *numel)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0) {
            char buf[512];
            mt_format_shape(buf, sizeof buf, ndim, sizes);
            return mt_error(MT_ERR_RUNTIME,
                            "Trying to create tensor with negative dimension %lld: %s",
                            (long long)sizes[d], buf);
        }
    }
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] == 0) {
            *numel = 0;
            return 0;
        }
        if (__builtin_mul_overflow(n, sizes[d], &n))
            return mt_error(MT_ERR_RUNTIME, "numel: integer multiplication overflow");
    }
    *numel = n;
    return 0;
}

MT_HOT void mt_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides)
{
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s *= sizes[d] > 1 ? sizes[d] : 1;
    }
}

MT_HOT int mt_broadcast_into(int *ndim_a, int64_t *a, int ndim_b, const int64_t *b)
{
    int na = *ndim_a;
    int n = na > ndim_b ? na : ndim_b;
    if (n > MT_MAX_DIMS)
        return mt_error(MT_ERR_RUNTIME, "minitorch supports at most %d dimensions", MT_MAX_DIMS);
    int64_t out[MT_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        int ia = i - (n - na), ib = i - (n - ndim_b);
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return mt_error(MT_ERR_RUNTIME,
                            "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                            "non-singleton dimension %d",
                            (long long)sa, (long long)sb, i);
        out[i] = sa == 1 ? sb : sa;
    }
    memcpy(a, out, sizeof(int64_t) * n);
    *ndim_a = n;
    return 0;
}

void mt_format_shape(char *buf, size_t cap, int ndim, const int64_t *sizes)
{
    size_t len = 0;
    len += snprintf(buf + len, cap - len, "[");
    for (int d = 0; d < ndim && len < cap; d++)
        len += snprintf(buf + len, cap - len, d ? ", %lld" : "%lld", (long long)sizes[d]);
    if (len < cap)
        snprintf(buf + len, cap - len, "]");
}

int mt_infer_size(int ndim, int64_t *sizes, int64_t numel)
{
    int infer = -1;
    int64_t known = 1;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] == -1) {
            if (infer >= 0)
                return mt_error(MT_ERR_RUNTIME, "only one dimension can be inferred");
            infer = d;
        } else if (sizes[d] < 0) {
            return mt_error(MT_ERR_RUNTIME, "invalid shape dimension %lld", (long long)sizes[d]);
        } else if (__builtin_mul_overflow(known, sizes[d], &known)) {
            known = -1;
            break;
        }
    }
    if (known >= 0) {
        if (infer >= 0 && known > 0 && numel % known == 0) {
            sizes[infer] = numel / known;
            return 0;
        }
        if (infer < 0 && known == numel)
            return 0;
    }
    char buf[512];
    mt_format_shape(buf, sizeof buf, ndim, sizes);
    if (infer >= 0 && known == 0 && numel == 0)
        return mt_error(MT_ERR_RUNTIME,
                        "cannot reshape tensor of 0 elements into shape %s because the unspecified "
                        "dimension size -1 can be any value and is ambiguous",
                        buf);
    return mt_error(MT_ERR_RUNTIME, "shape '%s' is invalid for input of size %lld", buf,
                    (long long)numel);
}

bool mt_view_strides(int old_ndim, const int64_t *old_sizes, const int64_t *old_strides,
                     int new_ndim, const int64_t *new_sizes, int64_t *new_strides)
{
    int64_t numel = 1;
    for (int d = 0; d < old_ndim; d++)
        numel *= old_sizes[d];
    if (old_ndim == 0) {
        for (int d = 0; d < new_ndim; d++)
            new_strides[d] = 1;
        return true;
    }
    if (numel == 0) {
        mt_contiguous_strides(new_ndim, new_sizes, new_strides);
        return true;
    }
    /* Walk chunks of old dims that are contiguous with each other and match
     * them against runs of new dims with the same element count. */
    int view_d = new_ndim - 1;
    int64_t chunk_base_stride = old_strides[old_ndim - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int tensor_d = old_ndim - 1; tensor_d >= 0; tensor_d--) {
        tensor_numel *= old_sizes[tensor_d];
        if (tensor_d == 0 || (old_sizes[tensor_d - 1] != 1 &&
                              old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
                new_strides[view_d] = view_numel * chunk_base_stride;
                view_numel *= new_sizes[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel)
                return false;
            if (tensor_d > 0) {
                chunk_base_stride = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

int64_t mt_item_offset(int n, const int64_t *sizes, const int64_t *strides, int64_t item)
{
    int64_t off = 0;
    for (int i = n - 1; i >= 0; i--) {
        off += item % sizes[i] * strides[i];
        item /= sizes[i];
    }
    return off;
}
