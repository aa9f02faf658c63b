/* Calling op-table rows from C with autograd (derivative formulas, forward
 * AD, the engine, C extensions): typed arguments in, the row's full
 * behaviour out (checks, dtype rules, recording, so double backward works),
 * with no Python anywhere on the path. */
#ifndef MT_AUTOGRAD_CALL_H
#define MT_AUTOGRAD_CALL_H

#include "record.h"
#include "../ops/runtime/call.h"

/* Runs row id with the arguments fmt gives (mt_args_from_format's format)
 * through mt_op_run: the row's whole result (tuples too) in r. 0, or -1
 * with an mt_error. */
int mt_call_v(mt_op_id id, mt_result *r, const char *fmt, va_list ap);
int mt_call_result(mt_op_id id, mt_result *r, const char *fmt, ...);
/* The same for rows returning one tensor: that tensor (new reference) or NULL. */
mt_tensor *mt_call(mt_op_id id, const char *fmt, ...);
mt_tensor *mt_call_tensor_v(mt_op_id id, const char *fmt, va_list ap);

#endif
