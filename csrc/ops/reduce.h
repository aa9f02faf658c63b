/* What the files of the reduce family (reduce.c, sort.c, sort_search.c) share. */
#ifndef MT_OPS_REDUCE_H
#define MT_OPS_REDUCE_H

#include "../core/owner.h"

/* A new contiguous copy of t's elements converted to dtype (t may be a
 * geometry on the stack over another tensor's storage). */
mt_tensor *mt_contiguous_as(const mt_tensor *t, mt_dtype dtype);

#endif
