/* Tensor geometry of the shape family that other op files share. Plain C. */
#ifndef MT_OPS_SHAPE_H
#define MT_OPS_SHAPE_H

#include "../core/tensor.h"

/* t narrowed to [start, start + len) along dim, as a stack copy of its
 * metadata over the same storage: an operand for kernels, not an owned
 * tensor (no new reference, nothing to release). */
mt_tensor mt_narrowed(const mt_tensor *t, int dim, int64_t start, int64_t len);

#endif
