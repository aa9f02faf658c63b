/* Python's operator slots on TensorBase: each forwards to the op-table method
 * of the same dunder name, so operators parse and dispatch like methods. */
#ifndef MT_PYTHON_OPERATORS_H
#define MT_PYTHON_OPERATORS_H

#include "common.h"

extern PyNumberMethods mt_tensor_as_number;
extern PyMappingMethods mt_tensor_as_mapping;

PyObject *mt_tensor_richcompare(PyObject *a, PyObject *b, int op);

/* Looks the dunder methods up once the op table is installed. */
int mt_operators_init(void);

#endif
