/* The C API for extensions (minitorch/include/minitorch/minitorch.h): the
 * function table exported as the capsule minitorch._C._C_API, and the
 * publication of custom ops as Python callables. */
#ifndef MT_PYTHON_CAPI_H
#define MT_PYTHON_CAPI_H

#include "../types/common.h"

/* The function object of custom row id, also stored in _C._custom_ops
 * (new reference), or NULL with an exception. */
PyObject *mtpy_custom_publish(int id);

/* Adds _custom_ops and _define_custom_op to the module. */
int mtpy_custom_ops_init(PyObject *module);
/* Adds the _C_API capsule to the module. */
int mtpy_capi_init(PyObject *module);

#endif
