/* torch's lazy conjugation (x.conj() of a complex tensor is a view of x's
 * memory with the conjugate bit, MT_FLAG_CONJ, set). Kernels read memory,
 * not the bit, so the runner settles it at the op boundary, in one place:
 * a row not tagged MT_TAG_CONJ_VIEW (taking conjugate views as they are) gets each
 * conjugate input as a resolved copy, and a conjugate write target (the
 * self of an in-place op, an out= tensor) as a resolved copy whose values
 * go back into the target's memory conjugated after the impl, as torch's
 * conjugate fallback writes through the view. The tagged rows (views,
 * which inherit the bit through mt_tensor_init_view; the conjugation rows;
 * copies made with mt_copy, which reads the bits; indexing, which handles
 * them) see the bit and keep it where torch does. */
#ifndef MT_OPS_CONJ_VIEW_H
#define MT_OPS_CONJ_VIEW_H

#include "table.h"

/* A new tensor holding t's values with the bit resolved (t's layout kept
 * where dense); NULL with an mt_error. */
mt_tensor *mt_resolved_conj(const mt_tensor *t);

/* Runs op's impl (run) on a with its conjugate tensors resolved as above;
 * target is the call's write target or NULL. The result and its
 * references are those of the impl, the target in place of its copy. */
int mt_exec_resolving_conj(const mt_op *op, mt_args *a, mt_result *r, mt_tensor *target,
                           int (*run)(const mt_op *, mt_args *, mt_result *));

#endif
