/* Zero-copy exchange with NumPy arrays. */
#ifndef MT_PYTHON_NUMPY_BRIDGE_H
#define MT_PYTHON_NUMPY_BRIDGE_H

#include "../types/common.h"

int mtpy_numpy_init(void);
/* An ndarray viewing t's memory (base keeps the tensor alive). */
PyObject *mtpy_to_numpy(PyObject *tensor);
/* A tensor sharing the array's memory; TypeError for unsupported dtypes. */
PyObject *mtpy_from_numpy(PyObject *array);
bool mtpy_is_ndarray(PyObject *o);
/* The dtype of a NumPy array or scalar, or -1 (no exception) if unsupported. */
int mtpy_numpy_dtype_of(PyObject *o);

/* Which kind of NumPy scalar o is (np.generic instances only, never arrays). */
typedef enum {
    MTPY_NP_NONE,
    MTPY_NP_BOOL,
    MTPY_NP_INTEGER,
    MTPY_NP_FLOATING,
    MTPY_NP_COMPLEX,
} mtpy_np_scalar_kind;
mtpy_np_scalar_kind mtpy_numpy_scalar_kind(PyObject *o);

#endif
