/* minitorch._C.Generator: a Philox seed and counter, plus the default one. */
#ifndef MT_PYTHON_GENERATOR_H
#define MT_PYTHON_GENERATOR_H

#include "common.h"
#include "../../core/philox.h"

typedef struct {
    PyObject_HEAD mt_generator *gen; /* own, or the core's default for default_generator */
    mt_generator own;
} MTGeneratorObject;

extern PyTypeObject MTGenerator_Type;

/* The state of a Generator object. */
static inline mt_generator *mtpy_generator(PyObject *obj)
{
    return ((MTGeneratorObject *)obj)->gen;
}
int mtpy_generator_init(PyObject *module);

#endif
