/* The creation rows that take Python data (nested sequences, scalars, NumPy
 * arrays, tensors): tensor, as_tensor, from_numpy and new_tensor. They stay
 * MT_PYOP rows since reading the data needs Python; the rest of the family
 * is plain C in csrc/ops/creation.c. */
#include "from_data.h"
#include "numpy_bridge.h"
#include "../autograd/autograd_bind.h"
#include "../dispatch/function.h"

#include "../../ops/creation.h"

/* t (new, or NULL with an error) consumed, marked as requiring grad when
 * asked. */
static PyObject *with_requires_grad(PyObject *t, bool requires_grad)
{
    mt_result r;
    if (!t || mt_result_made(&r, MTPy_T(t), requires_grad) < 0)
        return NULL;
    return mtpy_result_object(&r, NULL);
}

static PyObject *data_arg(const mt_args *a, int i) { return a->v[i].obj ? a->v[i].obj : Py_None; }

/* tensor(data, *, dtype, device, requires_grad, pin_memory) */
PyObject *impl_tensor(mt_args *a)
{
    return with_requires_grad(
        mtpy_from_data(data_arg(a, 0), mt_is_none(a, 1) ? NULL : &a->v[1].dtype, false), a->v[3].b);
}

/* as_tensor(data, dtype, device) */
PyObject *impl_as_tensor(mt_args *a)
{
    return mtpy_from_data(data_arg(a, 0), mt_is_none(a, 1) ? NULL : &a->v[1].dtype, true);
}

PyObject *impl_from_numpy(mt_args *a) { return mtpy_from_numpy(data_arg(a, 0)); }

/* new_tensor(self, data, *, dtype, layout, device, requires_grad, pin_memory) */
PyObject *impl_new_tensor(mt_args *a)
{
    mt_dtype d = mt_dtype_arg(a, 2, a->v[0].t->dtype);
    return with_requires_grad(mtpy_from_data(data_arg(a, 1), &d, false), a->v[5].b);
}
