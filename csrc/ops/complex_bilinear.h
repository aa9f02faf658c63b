/* Real impls that are bilinear in their first two tensor params run on
 * complex operands by Gauss's three real products (complex_bilinear.c). */
#ifndef MT_OPS_COMPLEX_BILINEAR_H
#define MT_OPS_COMPLEX_BILINEAR_H

#include "runtime/args.h"

/* impl(x, y, the other params of a) for complex x and y of one dtype, the
 * impl run on real parts only: its result into r. 0, or -1 with an error. */
int mt_complex_bilinear(const mt_args *a, mt_result *r, mt_impl_fn impl);

#endif
