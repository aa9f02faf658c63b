/* Reading one element of a tensor as a number, for the metadata rows of
 * tensor.c and the binding's conversions to Python values (item, tolist). */
#ifndef MT_OPS_TENSOR_H
#define MT_OPS_TENSOR_H

#include "runtime/args.h"

/* The element at p (inside t's storage) as a bool, an int or a float, by
 * t's dtype; f is set for every kind. */
mt_scalar mt_scalar_at(const mt_tensor *t, const void *p);

#endif
