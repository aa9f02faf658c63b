/* The rows of convert.def that read or answer Python objects: type(), whose
 * dtype may be a type name ('minitorch.FloatTensor'), a legacy tensor type
 * (minitorch.LongTensor) or the Tensor class,
 * and result_type, which answers a dtype object. The conversion itself is
 * csrc/ops/convert.c's. */
#include "../autograd/autograd_bind.h"

#include "../../ops/convert.h"
#include "../../ops/elementwise.h"

#include <string.h>

/* Whether name is dtype d's legacy tensor type name: its scalar name and
 * "Tensor" (FloatTensor, ComplexDoubleTensor). */
static bool is_type_name(const char *name, mt_dtype d)
{
    const char *scalar = mt_dtype_infos[d].scalar_name;
    size_t n = strlen(scalar);
    return strncmp(name, scalar, n) == 0 && strcmp(name + n, "Tensor") == 0;
}

/* type(input, dtype=None, non_blocking=False) */
PyObject *impl_type(mt_args *a)
{
    mt_tensor *t = a->v[0].t;
    PyObject *o = a->v[1].obj;
    mt_dtype d;
    if (!o)
        return PyUnicode_FromFormat("minitorch.%sTensor", mt_dtype_infos[t->dtype].scalar_name);
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        if (!s)
            return NULL;
        const char *name = strncmp(s, "minitorch.", 10) == 0 ? s + 10
                           : strncmp(s, "torch.", 6) == 0    ? s + 6
                                                             : NULL;
        int k = MT_NUM_DTYPES;
        for (k = 0; name && k < MT_NUM_DTYPES; k++)
            if (is_type_name(name, (mt_dtype)k))
                break;
        if (!name || k == MT_NUM_DTYPES)
            return PyErr_Format(PyExc_ValueError, "invalid type: '%s'", s);
        d = (mt_dtype)k;
    } else if (PyType_Check(o) && PyType_IsSubtype((PyTypeObject *)o, &MTTensorBase_Type)) {
        d = t->dtype;
    } else if (PyType_Check(o) && PyObject_HasAttrString(o, "dtype")) {
        /* a legacy tensor type (minitorch.LongTensor) names its dtype */
        PyObject *dt = PyObject_GetAttrString(o, "dtype");
        int rc = dt ? mtpy_dtype_from(dt, &d) : -1;
        Py_XDECREF(dt);
        if (rc < 0)
            return NULL;
    } else if (mtpy_dtype_from(o, &d) < 0) {
        return NULL;
    }
    mt_tensor *out = mt_to_dtype(t, d, false);
    return out ? (PyObject *)mtpy_container(out) : NULL;
}

/* result_type(tensor, other): a dtype object, which no typed result holds */
PyObject *impl_result_type(mt_args *a)
{
    mt_operand in[2];
    mt_operand_from(&in[0], &a->v[0]);
    mt_operand_from(&in[1], &a->v[1]);
    mt_dtype d[2] = {in[0].t.dtype, in[1].t.dtype}, out;
    mt_operand_kind k[2] = {in[0].kind, in[1].kind};
    if (mt_result_type_checked(2, d, k, mt_default_dtype, &out) < 0)
        return mtpy_raise();
    return Py_NewRef(mtpy_dtype_obj(out));
}
