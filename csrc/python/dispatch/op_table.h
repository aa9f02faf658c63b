#ifndef MT_PYTHON_OP_TABLE_H
#define MT_PYTHON_OP_TABLE_H

#include "../types/common.h"

#include "../../ops/signature.h"

/* Fills functions (minitorch.*) and nn_functions (minitorch.nn.functional.*)
 * dicts and TensorBase's methods from the op table. */
int mt_op_table_install(PyObject *functions, PyObject *nn_functions);

/* The Python object C code's typed value stands for (new reference). */
PyObject *mtpy_object_of(const mt_param *p, const mt_value *v);

#endif
