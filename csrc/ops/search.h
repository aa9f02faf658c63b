/* searchsorted and bucketize once their operands are known to be tensors
 * where they must be. Their rows stay MT_PYOP: refusing a Python number in
 * any other operand names its Python type, which only the binding can read
 * (csrc/python/search_operands.c); everything past that check is here. */
#ifndef MT_OPS_SEARCH_H
#define MT_OPS_SEARCH_H

#include "args.h"

int mt_searchsorted_impl(mt_args *a, mt_result *r);
int mt_bucketize_impl(mt_args *a, mt_result *r);

#endif
