/* Includes the NumPy C API with one shared API table across our files. */
#ifndef MT_PYTHON_NUMPY_API_H
#define MT_PYTHON_NUMPY_API_H

#define PY_ARRAY_UNIQUE_SYMBOL MT_ARRAY_API
#ifndef MT_NUMPY_IMPORT
#define NO_IMPORT_ARRAY
#endif
#include "../types/common.h"
#include <numpy/arrayobject.h>

#endif
