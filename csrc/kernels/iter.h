/* The one strided loop: walks k operands of one broadcast shape and hands
 * the innermost run of each to a typed inner loop (NumPy ufunc style). */
#ifndef MT_KERNELS_ITER_H
#define MT_KERNELS_ITER_H

#include "../core/tensor.h"

#define MT_ITER_MAX_OPS 4

/* data[k] points at the first element of operand k, strides[k] is its byte step. */
typedef void (*mt_loop_fn)(char **data, const int64_t *strides, int64_t n, void *ctx);

typedef struct {
    int nops;
    int ndim; /* after sorting and coalescing; dim 0 is innermost */
    int64_t numel;
    int64_t shape[MT_MAX_DIMS];
    int64_t strides[MT_MAX_DIMS][MT_ITER_MAX_OPS]; /* bytes */
    char *base[MT_ITER_MAX_OPS];
} mt_iter;

/* Operands are broadcast to (ndim, shape); operand 0 is usually the output and
 * decides the traversal order. */
void mt_iter_init(mt_iter *it, int nops, const mt_tensor *const *ops, int ndim,
                  const int64_t *shape);
/* Runs fn over flat positions [begin, end) of the iteration space. */
void mt_iter_run_range(const mt_iter *it, mt_loop_fn fn, void *ctx, int64_t begin, int64_t end);
/* Runs fn over everything, on several threads when the work is large enough
 * (grain: elements below which one thread does it all). */
void mt_iter_run(const mt_iter *it, mt_loop_fn fn, void *ctx, int64_t grain);

/* Dense strides for an output that follows the memory order of the inputs,
 * as torch's TensorIterator allocates them, so a transposed input gives a
 * transposed output and both are walked in memory order. */
void mt_output_strides_like(int nin, const mt_tensor *const *inputs, int ndim, const int64_t *shape,
                            int64_t *out_strides);

#endif
