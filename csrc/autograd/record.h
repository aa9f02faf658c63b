/* Running an op-table row with autograd: the entry every recorded call takes
 * (the binding's calls, mt_call). It wraps the op layer's plain runner. */
#ifndef MT_AUTOGRAD_RECORD_H
#define MT_AUTOGRAD_RECORD_H

#include "../ops/runtime/run.h"

/* Runs op on a and records it. On success r holds the result; -1 with an
 * mt_error set (r then holds nothing). */
int mt_op_run(const mt_op *op, mt_args *a, mt_result *r);

#endif
