/* Which operands of searchsorted and bucketize may be Python numbers: only
 * the searched values. Refusing one elsewhere names its Python type, so
 * this check is the binding's and the two rows stay MT_PYOP; the search
 * itself is plain C in csrc/ops/search.c. */
#include "../dispatch/function.h"
#include "../dispatch/parser.h"

#include "../../ops/search.h"

static PyObject *tensor_only(const mt_value *v, const char *fn, const char *name, int pos)
{
    return PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %d) must be Tensor, not %s",
                        fn, name, pos, Py_TYPE(v->obj)->tp_name);
}

/* NULL on failure leaves the op layer's error pending, for the row to report. */
static PyObject *run(mt_impl_fn impl, mt_args *a)
{
    mt_result r = {.kind = MT_RESULT_NONE};
    if (impl(a, &r) < 0)
        return NULL;
    return mtpy_result_object(&r);
}

PyObject *impl_searchsorted(mt_args *a)
{
    if (a->v[0].is_scalar)
        return tensor_only(&a->v[0], "searchsorted", "sorted_sequence", 1);
    if (a->v[5].is_scalar)
        return tensor_only(&a->v[5], "searchsorted", "sorter", 6);
    return run(mt_searchsorted_impl, a);
}

PyObject *impl_bucketize(mt_args *a)
{
    if (a->v[1].is_scalar)
        return tensor_only(&a->v[1], "bucketize", "boundaries", 2);
    return run(mt_bucketize_impl, a);
}
