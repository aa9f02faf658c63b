/* Shape arithmetic shared by every layer: dims, broadcasting, view strides. */
#ifndef MT_CORE_SHAPE_H
#define MT_CORE_SHAPE_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

/* Wraps a possibly negative dim into [0, ndim); IndexError in torch's words. */
int mt_wrap_dim(int64_t dim, int ndim, int *out);
/* numel with overflow and negativity checks. */
int mt_checked_numel(int ndim, const int64_t *sizes, int64_t *numel);
void mt_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides);
/* Broadcasts b into a (a has ndim_a dims in/out, grows as needed). */
int mt_broadcast_into(int *ndim_a, int64_t *a, int ndim_b, const int64_t *b);
/* Resolves one -1 in a requested shape against numel (torch's infer_size). */
int mt_infer_size(int ndim, int64_t *sizes, int64_t numel);
/* Strides for viewing (old sizes, old strides) as new sizes without a copy;
 * returns false when impossible (torch's computeStride). */
bool mt_view_strides(int old_ndim, const int64_t *old_sizes, const int64_t *old_strides,
                     int new_ndim, const int64_t *new_sizes, int64_t *new_strides);
/* Element offset of item `item` of a batch (row-major over sizes[0..n)) in
 * an operand with those dims' strides: the batched kernels' per-item start. */
int64_t mt_item_offset(int n, const int64_t *sizes, const int64_t *strides, int64_t item);
/* Writes "[2, 3]" into buf. */
void mt_format_shape(char *buf, size_t cap, int ndim, const int64_t *sizes);

#endif
