/* Publication of the op table's rows as Python callables, and the rows
 * listed for tests and transforms (minitorch._C._op_rows()). */
#ifndef MT_PYTHON_OP_TABLE_H
#define MT_PYTHON_OP_TABLE_H

#include "../types/common.h"

#include "../../ops/runtime/signature.h"

/* Fills functions (minitorch.*) and nn_functions (minitorch.nn.functional.*)
 * dicts and TensorBase's methods from the op table. */
int mt_op_table_install(PyObject *functions, PyObject *nn_functions);

/* The Python object C code's typed value stands for (new reference). */
PyObject *mtpy_object_of(const mt_param *p, const mt_value *v);
/* minitorch._C._op_rows(): per row of the table, (C id, name, kinds,
 * signature, runs), kinds a string of 'f' (function), 'm' (method) and 'n'
 * (nn.functional), empty for a form nobody publishes. Read-only; the fuzz
 * sweep (tests/test_fuzz_sweep.py) enumerates the table with it. */
PyObject *mt_op_rows(PyObject *module, PyObject *unused);

#endif
