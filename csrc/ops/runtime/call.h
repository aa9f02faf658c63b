/* Calling op-table rows from C with typed arguments: the argument builder
 * every C caller shares, and the plain call that impls composing other rows
 * use. A plain call runs below autograd and records nothing; the recording
 * call is mt_call (autograd/call.h). No Python anywhere on the path. */
#ifndef MT_OPS_CALL_H
#define MT_OPS_CALL_H

#include "run.h"

#include <stdarg.h>

/* Fills a for row op from fmt, one char per argument, in the row's
 * parameter order from the first:
 *   T mt_tensor *      N None             i int64_t        f double
 *   c double re, double im (a complex number, for Scalar parameters)
 *   b int (a bool)     D int (an mt_dtype) s const char *   L int n, const int64_t *v
 *   O void * (an object of the host's, for MT_PYOP rows that take one)
 * A 'k' before any of these makes it a keyword argument: its parameter name
 * (const char *) comes first. Numbers go where the row takes them: 'i' and
 * 'f' fill int, float, Scalar and `Tensor|Scalar` parameters.
 * Parameters not given take their defaults. 0, or -1 with an mt_error. */
int mt_args_from_format(const mt_op *op, mt_args *a, const char *fmt, va_list ap);
/* The tensor of a row's result (new reference), or NULL with an error when
 * the row returned anything else (r is cleared then). */
mt_tensor *mt_result_single(const mt_op *op, mt_result *r);
/* Runs built-in row id (one returning a tensor) with mt_op_exec: no
 * recording. The tensor (new reference), or NULL with an mt_error. */
mt_tensor *mt_exec(mt_op_id id, const char *fmt, ...);

#endif
