/* What the index ops share with Python-key indexing (csrc/python/indexing.c)
 * and other op files. Plain C. */
#ifndef MT_OPS_INDEX_H
#define MT_OPS_INDEX_H

#include "../core/tensor.h"

/* [n, ndim] int64 positions of t's nonzero elements (new reference), or NULL
 * with an mt_error. */
mt_tensor *mt_nonzero_indices(const mt_tensor *t);

/* index_select's backward without a graph: zeros of (ndim, sizes) and g's
 * dtype with g's slices added at index (1-d or 0-d, int32 or int64, in range)
 * along dim, in index order (new reference), or NULL with an mt_error. */
mt_tensor *mt_index_select_backward(const mt_tensor *g, int ndim, const int64_t *sizes, int dim,
                                    const mt_tensor *index);
/* gather's backward without a graph: zeros of (ndim, sizes) and g's dtype
 * with g scatter-added at index (int64, g's shape) along dim (new
 * reference), or NULL with an mt_error. */
mt_tensor *mt_gather_backward(const mt_tensor *g, int ndim, const int64_t *sizes, int dim,
                              const mt_tensor *index);

#endif
