/* Tensors from Python data: nested sequences, scalars, arrays, tensors. */
#ifndef MT_PYTHON_FROM_DATA_H
#define MT_PYTHON_FROM_DATA_H

#include "../types/common.h"

/* dtype NULL infers it as torch.tensor does. share: return data itself (or a
 * NumPy-sharing tensor) when no conversion is needed, as as_tensor does. */
PyObject *mtpy_from_data(PyObject *data, const mt_dtype *dtype, bool share);

#endif
