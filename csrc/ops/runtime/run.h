/* Running an op-table row below autograd: the overlap checks, the pins, the
 * impl. Callers that record (the binding, mt_call) go through mt_op_run of
 * autograd/record.h, which wraps this. */
#ifndef MT_OPS_RUN_H
#define MT_OPS_RUN_H

#include "table.h"

/* Runs op on a (whose op, sig and path it fills). On success r holds the
 * result; -1 with an mt_error set (r then holds nothing). */
int mt_op_exec(const mt_op *op, mt_args *a, mt_result *r);

#endif
