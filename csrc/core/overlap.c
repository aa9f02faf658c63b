/* Memory overlap tests (see overlap.h): decided from sizes, strides and the
 * storage a tensor views, never by reading its data. */
#include "overlap.h"

#include "error.h"

bool mt_has_internal_overlap(const mt_tensor *t)
{
    if (mt_tensor_is_non_overlapping_and_dense(t))
        return false;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] > 1 && t->strides[d] == 0)
            return true;
    return false;
}

mt_overlap mt_overlap_between(const mt_tensor *a, const mt_tensor *b)
{
    if (a == b)
        return MT_OVERLAP_FULL;
    if (a->numel == 0 || b->numel == 0)
        return MT_OVERLAP_NO;
    if (!mt_tensor_is_non_overlapping_and_dense(a) || !mt_tensor_is_non_overlapping_and_dense(b))
        return MT_OVERLAP_TOO_HARD;
    if (a->storage != b->storage)
        return MT_OVERLAP_NO;
    const char *a0 = mt_data(a), *a1 = a0 + a->numel * mt_itemsize(a->dtype);
    const char *b0 = mt_data(b), *b1 = b0 + b->numel * mt_itemsize(b->dtype);
    if (a0 == b0 && a1 == b1) {
        bool same = a->ndim == b->ndim;
        for (int d = 0; same && d < a->ndim; d++)
            same = a->strides[d] == b->strides[d];
        return same ? MT_OVERLAP_FULL : MT_OVERLAP_PARTIAL;
    }
    return a0 < b1 && b0 < a1 ? MT_OVERLAP_PARTIAL : MT_OVERLAP_NO;
}

int mt_check_internal_overlap(const mt_tensor *written)
{
    if (!mt_has_internal_overlap(written))
        return 0;
    return mt_error(MT_ERR_RUNTIME,
                    "unsupported operation: more than one element of the written-to tensor "
                    "refers to a single memory location. Please clone() the tensor before "
                    "performing the operation.");
}

int mt_check_overlap(const mt_tensor *written, const mt_tensor *input, bool full)
{
    mt_overlap o = mt_overlap_between(written, input);
    if (o != MT_OVERLAP_PARTIAL && !(full && o == MT_OVERLAP_FULL))
        return 0;
    return mt_error(MT_ERR_RUNTIME,
                    "unsupported operation: some elements of the input tensor and the "
                    "written-to tensor refer to a single memory location. Please clone() the "
                    "tensor before performing the operation.");
}
