/* The nuclear norm over two dims of a tensor (norm(input, 'nuc', dim)) and
 * the factor its gradient is made of (nuclear_norm.c). */
#ifndef MT_OPS_NUCLEAR_NORM_H
#define MT_OPS_NUCLEAR_NORM_H

#include "../core/tensor.h"

#include <stdbool.h>

/* The sum of the singular values of t's matrices over dims d0, d1 (wrapped,
 * distinct), those dims kept as size 1 when keepdim: a new tensor of t's
 * part dtype, or NULL with an error. */
mt_tensor *mt_nuclear_norm(const mt_tensor *t, int d0, int d1, bool keepdim);
/* U Vh of the same matrices (the gradient of their nuclear norm, for real
 * and complex t alike), laid out as t: a new tensor, or NULL with an error. */
mt_tensor *mt_nuclear_norm_factor(const mt_tensor *t, int d0, int d1);

#endif
