/* Reductions: one driver reduces any set of dims of a strided tensor with one
 * of a few accumulators, and one driver runs a function along a single dim
 * (softmax, cumulative ops, sort). */
#ifndef MT_KERNELS_REDUCE_H
#define MT_KERNELS_REDUCE_H

#include "../core/tensor.h"

/* One per row of reduce.def, in its order. */
typedef enum {
#define MT_REDUCE_KERNEL(ID, ...) MT_RED_##ID,
#include "reduce.def"
#undef MT_REDUCE_KERNEL
    MT_NUM_RED
} mt_reduce_op;

/* Reduces the dims of in flagged in mask into out, whose shape is in's with
 * those dims removed (or kept as 1: out->ndim == in->ndim). indices (int64,
 * out's shape) receives positions for MT_RED_MAX/MIN/ARGMAX/ARGMIN when not
 * NULL. mean2 (out's shape, optional) receives the mean beside var/std. */
void mt_reduce(mt_tensor *out, mt_tensor *indices, const mt_tensor *in, const bool *mask,
               mt_reduce_op op, double param, mt_tensor *mean2);

/* The sums (s[0], s[1], in double) of the first and the second values of n
 * contiguous pairs of MT_FLOAT32 or MT_FLOAT64: a contiguous complex tensor's
 * real and imaginary parts. */
void mt_sum_pairs(mt_dtype d, const void *x, int64_t n, double *s);

/* out[r] = the xor of the n 64-bit words x[r * n .. r * n + n) for each of
 * rows rows (0 for n == 0): hash_tensor's reduction over its contiguous
 * upcast copy, on several threads for large inputs. */
void mt_xor_rows(uint64_t *out, const uint64_t *x, int64_t rows, int64_t n);

/* A function over one line along a dim: n elements of in (byte stride is)
 * into out (byte stride os); out and in have the same dtype. */
typedef void (*mt_line_fn)(char *out, int64_t os, const char *in, int64_t is, int64_t n, void *ctx);
/* Calls fn on every line of in along dim, with the matching line of out
 * (same shape as in), on several threads for large inputs. */
void mt_along_dim(mt_tensor *out, const mt_tensor *in, int dim, mt_line_fn fn, void *ctx);

typedef enum {
    MT_LINE_SOFTMAX,
    MT_LINE_LOG_SOFTMAX,
    MT_LINE_CUMSUM,
    MT_LINE_CUMPROD,
    MT_LINE_LOGCUMSUMEXP,
} mt_line_op;
mt_line_fn mt_line_kernel(mt_line_op op, mt_dtype dtype);

/* A line function that also writes int64 positions (idx, byte stride xs). */
typedef void (*mt_line_idx_fn)(char *out, int64_t os, char *idx, int64_t xs, const char *in,
                               int64_t is, int64_t n);
/* mt_along_dim with indices (int64, in's shape) beside out. */
void mt_along_dim_idx(mt_tensor *out, mt_tensor *indices, const mt_tensor *in, int dim,
                      mt_line_idx_fn fn);
/* The running maximum (max) or minimum of a line and where it was last reached. */
mt_line_idx_fn mt_cum_extremum_kernel(bool max, mt_dtype dtype);

#endif
