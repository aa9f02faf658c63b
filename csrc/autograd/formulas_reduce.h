/* What the reduce formulas share with the sort family's (formulas_sort.c). */
#ifndef MT_AUTOGRAD_FORMULAS_REDUCE_H
#define MT_AUTOGRAD_FORMULAS_REDUCE_H

#include "node.h"

#include <stdbool.h>
#include <stdint.h>

/* The gradient of an op that picked elements of input 0 along dim: g goes
 * back to the picked positions (the saved indices, or for msort argsort of
 * the saved input), added up where one was picked more than once. keepdim:
 * the picks keep dim. */
int mt_indices_backward(mt_node *n, mt_tensor **g, mt_tensor **out, int64_t dim, bool keepdim);

#endif
