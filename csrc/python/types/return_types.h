/* Named result tuples, as torch.return_types. */
#ifndef MT_PYTHON_RETURN_TYPES_H
#define MT_PYTHON_RETURN_TYPES_H

#include "common.h"

#include "../../ops/runtime/table.h"

/* Adds the submodule `return_types` to module (and to sys.modules), with a
 * type for each name whose rows name their results. */
int mtpy_return_types_init(PyObject *module);
/* The type of the row's results when its signature names them, else NULL. */
PyTypeObject *mtpy_row_return_type(const mt_op *op);
/* return_types.<name> with the n fields (borrowed; made on first request);
 * NULL with an error when name is taken by other fields. */
PyTypeObject *mtpy_return_type(const char *name, const char *const *fields, int n);
/* minitorch._C._return_type */
extern PyMethodDef mtpy_return_type_methods[];

#endif
