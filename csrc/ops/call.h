/* Calling op-table rows from C (derivative formulas, C extensions): typed
 * arguments in, the row's full behaviour out (checks, dtype rules,
 * autograd recording), with no Python anywhere on the path. */
#ifndef MT_OPS_CALL_H
#define MT_OPS_CALL_H

#include "run.h"

#include <stdarg.h>

/* Runs row id. fmt gives one char per argument, in the row's parameter
 * order from the first:
 *   T mt_tensor *      N None             i int64_t        f double
 *   b int (a bool)     D int (an mt_dtype) s const char *   L int n, const int64_t *v
 *   O void * (an object of the host's, for MT_PYOP rows that take one)
 * A 'k' before any of these makes it a keyword argument: its parameter name
 * (const char *) comes first. Numbers go where the row takes them: 'i' and
 * 'f' fill int, float, Scalar and `Tensor|Scalar` parameters.
 * Parameters not given take their defaults. 0, or -1 with an mt_error. */
int mt_call_v(mt_op_id id, mt_result *r, const char *fmt, va_list ap);
/* The same with the arguments inline: the row's whole result (tuples too) in r. */
int mt_call_result(mt_op_id id, mt_result *r, const char *fmt, ...);
/* The same for rows returning one tensor: that tensor (new reference) or NULL. */
mt_tensor *mt_call(mt_op_id id, const char *fmt, ...);
mt_tensor *mt_call_tensor_v(mt_op_id id, const char *fmt, va_list ap);

#endif
