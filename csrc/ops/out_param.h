/* out= arguments: torch resizes an out tensor of the wrong shape in place. */
#ifndef MT_OPS_OUT_PARAM_H
#define MT_OPS_OUT_PARAM_H

#include "../core/error.h"
#include "../core/tensor.h"
#include "runtime/args.h"
#include "runtime/table.h"

#include <stdbool.h>

bool mt_same_shape(const mt_tensor *t, int ndim, const int64_t *shape);
/* Unless it already has that shape, gives o fresh memory of the given shape (warning as torch does unless it
 * was empty). When old is not NULL, the previous storage is handed back for
 * the caller to release after the kernel, since an input may still read it. */
int mt_resize_out(mt_tensor *o, int ndim, const int64_t *shape, mt_storage **old);
/* The same without the warning: torch's factories (zeros(size, out=o), ...)
 * give o the size asked for whatever it held. */
int mt_resize_out_quietly(mt_tensor *o, int ndim, const int64_t *shape);
/* A call's result handed over through its out= tensor: out resized (as
 * mt_resize_out) and given res's values (its version bumped), res
 * released; r holds out. res
 * NULL (its computation failed, the error set) returns -1. Copying lets
 * out be one of the inputs. */
int mt_result_into_out(mt_result *r, mt_tensor *res, mt_tensor *out);
/* Refuses, by rule, an out= tensor that cannot take a result of dtype result. */
int mt_check_out_dtype(mt_out_rule rule, mt_dtype result, const mt_tensor *out);
/* Runs an MT_OUT_BY_COPY row called with out=: its impl makes a new result
 * (in out's dtype when dtype= is None and the rule says so), which then goes
 * into out by the row's rule (mt_out_rule): resized, cast where allowed,
 * its version bumped. r holds out. */
int mt_exec_out_by_copy(const struct mt_op *op, mt_args *a, mt_result *r);

#endif
