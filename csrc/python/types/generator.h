/* minitorch._C.Generator: a Philox seed and counter, plus the default one. */
#ifndef MT_PYTHON_GENERATOR_H
#define MT_PYTHON_GENERATOR_H

#include "common.h"
#include "../../core/philox.h"

typedef struct {
    PyObject_HEAD
    mt_generator g;
} MTGeneratorObject;

extern PyTypeObject MTGenerator_Type;

/* The generator behind a `Generator? generator` argument (NULL: the default). */
mt_generator *mtpy_generator(PyObject *obj);
int mtpy_generator_init(PyObject *module);

#endif
