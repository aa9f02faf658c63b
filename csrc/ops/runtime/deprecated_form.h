/* torch's deprecated overloads (rows tagged MT_TAG_DEPRECATED: addmm(beta,
 * input, alpha, mat1, mat2), add(input, alpha, other), ...) are the call of
 * another row of their name, their numbers moved first: they run as the row
 * that has all of their parameters, the arguments moved to it by name and
 * its other parameters at their defaults. The binding forwards a parsed call
 * before it runs (so autograd records the row it forwards to); the rows'
 * impl does the same for C callers. No Python. */
#ifndef MT_OPS_RUNTIME_DEPRECATED_FORM_H
#define MT_OPS_RUNTIME_DEPRECATED_FORM_H

#include "table.h"

/* The first row of op's name, of a kind op has, not deprecated, with all of
 * op's parameters; NULL when there is none. */
const mt_op *mt_deprecated_target(const mt_op *op);
/* to = from's arguments as target's (from and to distinct). */
void mt_deprecated_forward(const mt_op *target, const mt_args *from, mt_args *to);

#endif
