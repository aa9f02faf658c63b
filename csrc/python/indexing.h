/* Shared by the indexing operators and the index ops. */
#ifndef MT_PYTHON_INDEXING_H
#define MT_PYTHON_INDEXING_H

#include "common.h"

/* [n, ndim] int64 positions of t's nonzero elements. */
PyObject *mtpy_nonzero(const mt_tensor *t);
/* "torch.FloatTensor": how torch names a tensor type in messages. */
const char *mtpy_tensor_type_name(mt_dtype d);
/* t narrowed to [start, start + len) along dim, as a stack view (no new reference). */
mt_tensor mtpy_narrowed(const mt_tensor *t, int dim, int64_t start, int64_t len);

#endif
