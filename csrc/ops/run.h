/* Running an op-table row: the one path every op call takes, whoever the
 * caller. It decides whether the call records, runs the impl, computes
 * forward-mode tangents and attaches the autograd node to the outputs. */
#ifndef MT_OPS_RUN_H
#define MT_OPS_RUN_H

#include "table.h"

/* Runs op on a (whose op, sig and overload it fills). On success r holds the
 * result; -1 with an mt_error set (r then holds nothing). */
int mt_op_run(const mt_op *op, mt_args *a, mt_result *r);

#endif
