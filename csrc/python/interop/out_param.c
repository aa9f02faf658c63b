/* _C._write_out(out, result): out= for functions written in Python
 * (minitorch/_out_param.py), handed over as the op rows hand theirs
 * (ops/out_param.c): out must have the result's dtype, is resized (with
 * torch's warning unless it was empty), takes the values and has its
 * version bumped. Returns out. */
#include "../types/common.h"
#include "../../ops/out_param.h"
#include "../../kernels/copy.h"

static PyObject *write_out(PyObject *m, PyObject *args)
{
    PyObject *out, *result;
    if (!PyArg_ParseTuple(args, "OO:_write_out", &out, &result))
        return NULL;
    if (!MTPy_Check(out) || !MTPy_Check(result))
        return PyErr_Format(PyExc_TypeError, "_write_out(): expected two Tensors, got %s and %s",
                            Py_TYPE(out)->tp_name, Py_TYPE(result)->tp_name);
    mt_tensor *o = MTPy_T(out), *r = MTPy_T(result);
    if (mt_check_out_dtype(MT_OUT_SAME_DTYPE, r->dtype, o) < 0 ||
        mt_resize_out(o, r->ndim, r->sizes, NULL) < 0)
        return mtpy_raise();
    mt_copy(o, r);
    mt_bump_version(o);
    return Py_NewRef(out);
}

PyMethodDef mtpy_out_param_methods[] = {
    {"_write_out", write_out, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
