/* Named (values, indices) result tuples, as torch.return_types. */
#ifndef MT_PYTHON_RETURN_TYPES_H
#define MT_PYTHON_RETURN_TYPES_H

#include "common.h"

/* Adds the submodule `return_types` to module. */
int mtpy_return_types_init(PyObject *module);
/* A return_types.<name>(values, indices); steals both references. */
PyObject *mtpy_return_pair(const char *name, PyObject *values, PyObject *indices);

#endif
