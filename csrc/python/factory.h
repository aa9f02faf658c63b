/* Steps shared by the functions that make new tensors. */
#ifndef MT_PYTHON_FACTORY_H
#define MT_PYTHON_FACTORY_H

#include "parser.h"

/* PyErr_SetString with a printf format (PyErr_Format has no %g). */
PyObject *mtpy_raisef(PyObject *exc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Marks t as requiring grad when asked (floating dtypes only, as torch);
 * steals t, returns it or NULL. */
PyObject *mtpy_with_requires_grad(PyObject *t, bool requires_grad);
/* An uninitialised tensor shaped like src, laid out like it
 * (torch.preserve_format). */
PyObject *mtpy_empty_like(const mt_tensor *src, mt_dtype dtype);
/* The dtype argument at index i, or fallback when None. */
static inline mt_dtype mtpy_dtype_arg(const mt_args *a, int i, mt_dtype fallback)
{
    return mt_is_none(a, i) ? fallback : a->v[i].dtype;
}

#endif
