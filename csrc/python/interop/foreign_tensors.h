/* Tensors of other libraries (torch, JAX, CuPy, ...): any object that is no
 * minitorch tensor, NumPy array or NumPy scalar and whose type has
 * __dlpack__ or __array_interface__. minitorch takes one as data
 * (tensor(), as_tensor(), from_dlpack()) but never as an operand: a
 * foreign type's __torch_function__ belongs to its own library, which would
 * call the minitorch function back, so it is not dispatched on. */
#ifndef MT_PYTHON_FOREIGN_TENSORS_H
#define MT_PYTHON_FOREIGN_TENSORS_H

#include "../types/common.h"

/* Interns the names looked up and adds _C._refuse_foreign. */
int mtpy_foreign_init(PyObject *module);
bool mtpy_is_foreign_tensor(PyObject *o);
/* A tensor viewing o's memory (by DLPack, else NumPy's array interface),
 * detached from any graph of o's library. */
PyObject *mtpy_from_foreign(PyObject *o);
/* The TypeError for a foreign tensor given where a minitorch tensor goes:
 * what: "argument 'other' (position 2)" or "operand". */
void mtpy_raise_foreign(const char *fname, const char *what, PyObject *o);

#endif
