/* Data movement by index: advanced indexing (gather and put), gather/scatter
 * along a dim, masks and triangles. Everything here moves elements without
 * arithmetic except the accumulating variants. */
#ifndef MT_KERNELS_INDEX_H
#define MT_KERNELS_INDEX_H

#include "../core/tensor.h"

/* Dims [pre, pre + k) of a tensor are indexed by k int64 arrays that share
 * one (broadcast) shape; each array is dense in C order. */
typedef struct {
    int pre, k;
    int index_ndim;
    int64_t index_sizes[MT_MAX_DIMS];
    int64_t index_numel;
    int64_t *index[MT_MAX_DIMS];
} mt_index_plan;

/* Whether every one of the n indices is in [0, size): one branch-free pass. */
bool mt_index_all_below(const int64_t *ix, int64_t n, int64_t size);
/* Wraps negative indices in place; IndexError in torch's words when one is
 * out of range (dimension counted among the indexed dims, as torch does). */
int mt_index_wrap(const mt_tensor *t, mt_index_plan *p);
/* Shape of t[plan]: t's dims before pre, the index shape, t's dims after. */
int mt_index_result_shape(const mt_tensor *t, const mt_index_plan *p, int *ndim, int64_t *sizes);
/* out <- t[plan]; out has the result shape and t's dtype. */
void mt_index_gather(const mt_tensor *t, const mt_index_plan *p, mt_tensor *out);

/* MAX and MIN (NaN winning, a tie keeping the value already there) are for
 * scatters along a dim only. */
typedef enum { MT_PUT_SET, MT_PUT_ADD, MT_PUT_MUL, MT_PUT_MAX, MT_PUT_MIN } mt_put_op;
/* t[plan] (op)= vals; vals has the result shape and t's dtype. ADD scales
 * vals by alpha (alpha_f for floating t, alpha_i otherwise). */
void mt_index_put(mt_tensor *t, const mt_index_plan *p, const mt_tensor *vals, mt_put_op op,
                  double alpha_f, int64_t alpha_i);

/* out <- init (zeros when init is NULL), then mt_index_put(out, ..., ADD):
 * index_add out of place (or index_select's backward) without a separate pass
 * that fills out first. out is fresh, init of out's shape and dtype; the plan
 * is one index array, its indices in range. */
void mt_index_add_into(mt_tensor *out, const mt_tensor *init, const mt_index_plan *p,
                       const mt_tensor *vals, double alpha_f, int64_t alpha_i);

/* torch.gather: out[..i_d..] = t[..index[..]..] along dim; index is int64. */
int mt_gather_dim(const mt_tensor *t, int dim, const mt_tensor *index, mt_tensor *out);
/* torch.scatter: t[..index[..]..] (op)= src[..] along dim over index's shape. */
int mt_scatter_dim(mt_tensor *t, int dim, const mt_tensor *index, const mt_tensor *src,
                   mt_put_op op);
/* out <- init (zeros when init is NULL), then mt_scatter_dim(out, ...): an
 * out-of-place scatter (or gather's backward) without a separate pass that
 * fills out first. out is fresh and contiguous, init of out's shape and dtype. */
int mt_scatter_dim_into(mt_tensor *out, const mt_tensor *init, int dim, const mt_tensor *index,
                        const mt_tensor *src, mt_put_op op);

/* Where mask (bool, broadcast to t) is set, t <- value (0-dim, t's dtype). */
void mt_masked_fill(mt_tensor *t, const mt_tensor *mask, const mt_tensor *value);
/* Zeroes the elements of the last two dims of contiguous t outside the band:
 * keep j - i <= diag (lower) or j - i >= diag (upper). */
void mt_triangle_zero(mt_tensor *t, int64_t diag, bool lower);
/* Positions of the set bytes of a dense bool tensor, as a [count, ndim] int64
 * array written to out; count is mt_count_set's. */
int64_t mt_count_set(const mt_tensor *dense_bool);
void mt_nonzero_positions(const mt_tensor *dense_bool, int64_t count, int64_t *out);

#endif
