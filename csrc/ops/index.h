/* What the index ops share with Python-key indexing (csrc/python/indexing.c)
 * and other op files. Plain C. */
#ifndef MT_OPS_INDEX_H
#define MT_OPS_INDEX_H

#include "../core/tensor.h"

/* [n, ndim] int64 positions of t's nonzero elements (new reference), or NULL
 * with an mt_error. */
mt_tensor *mt_nonzero_indices(const mt_tensor *t);

#endif
