/* Binary search of values in sorted rows (searchsorted, bucketize). */
#ifndef MT_KERNELS_SORT_SEARCH_H
#define MT_KERNELS_SORT_SEARCH_H

#include "../core/tensor.h"

/* out (int64 or int32, contiguous, rows * m elements) receives, for each
 * element of the contiguous values [rows, m], the first position in its row of
 * the contiguous bounds (values' dtype; [n] shared by every row, or [rows, n])
 * whose element is not below it (is above it with right); sorter, when not
 * NULL, is a permutation of bounds' shape that sorts each row. A NaN on
 * either side compares as torch's search does: the search moves right. */
void mt_searchsorted(mt_tensor *out, const mt_tensor *bounds, const mt_tensor *values,
                     const int64_t *sorter, int64_t rows, int64_t m, bool right);

#endif
