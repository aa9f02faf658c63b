#ifndef MT_PYTHON_OP_TABLE_H
#define MT_PYTHON_OP_TABLE_H

#include "../types/common.h"

/* Fills functions (minitorch.*) and nn_functions (minitorch.nn.functional.*)
 * dicts and TensorBase's methods from the op table. */
int mt_op_table_install(PyObject *functions, PyObject *nn_functions);

#endif
