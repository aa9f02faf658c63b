/* Normalization kernels: layer, RMS and group norm as per-row statistics of
 * a [rows, D] block, batch norm as per-channel statistics of [n, c, inner].
 * float32 and float64 only (callers convert half types to float32); every
 * tensor contiguous and of the input's dtype, except running stats. */
#ifndef MT_KERNELS_NORM_H
#define MT_KERNELS_NORM_H

#include "../core/tensor.h"

#include <stdbool.h>

/* rows of D = cg * inner elements, row r in group r % groups: element j of
 * the row has affine parameter (r % groups) * cg + j / inner. weight and bias
 * (groups * cg elements) may be NULL. stats gets [rows, 2]: mean and
 * 1 / sqrt(var + eps) (for rms, mean 0 and 1 / sqrt(mean of squares + eps)). */
int mt_norm_rows(const mt_tensor *x, const mt_tensor *weight, const mt_tensor *bias, mt_tensor *out,
                 mt_tensor *stats, int64_t rows, int64_t groups, int64_t cg, int64_t inner,
                 double eps, bool rms);
/* The gradients of mt_norm_rows for grad g; gw, gb (groups * cg) may be NULL. */
int mt_norm_rows_backward(const mt_tensor *g, const mt_tensor *x, const mt_tensor *weight,
                          const mt_tensor *stats, mt_tensor *gx, mt_tensor *gw, mt_tensor *gb,
                          int64_t rows, int64_t groups, int64_t cg, int64_t inner, bool rms);
/* Batch statistics of each channel of x [n, c, inner] and the normalized out;
 * stats gets [2, c]: mean and 1 / sqrt(biased var + eps). running_mean and
 * running_var (1-D, any float dtype, may be NULL) move towards the batch mean
 * and the unbiased variance by momentum. */
int mt_batch_norm(const mt_tensor *x, const mt_tensor *weight, const mt_tensor *bias,
                  mt_tensor *out, mt_tensor *stats, mt_tensor *running_mean, mt_tensor *running_var,
                  int64_t n, int64_t c, int64_t inner, double momentum, double eps);
int mt_batch_norm_backward(const mt_tensor *g, const mt_tensor *x, const mt_tensor *weight,
                           const mt_tensor *stats, mt_tensor *gx, mt_tensor *gw, mt_tensor *gb,
                           int64_t n, int64_t c, int64_t inner);

#endif
