/* The binding side of the creation rows that stay MT_PYOP: those reading
 * Python data (data_factories.c) or a Generator object (random_sampling.c).
 * The steps they share with the plain-C rows are in csrc/ops/creation.h. */
#ifndef MT_PYTHON_FACTORY_H
#define MT_PYTHON_FACTORY_H

#include "../autograd/autograd_bind.h"

#include "../../ops/creation.h"

/* The Python tensor of a new t (consumed), marked as requiring grad when
 * asked; NULL with the mt_error pending when t is NULL or cannot require
 * grad. */
static inline PyObject *mtpy_made(mt_tensor *t, bool requires_grad)
{
    if (t && mt_set_requires_grad_arg(t, requires_grad) < 0) {
        mt_release(t);
        return NULL;
    }
    return t ? (PyObject *)mtpy_container(t) : NULL;
}

#endif
