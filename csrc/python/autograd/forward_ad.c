/* Python entry points of forward-mode AD (minitorch.autograd.forward_ad). */
#include "autograd_bind.h"

#include "../../autograd/forward.h"
#include "../../core/shape.h"

static PyObject *enter_dual_level(PyObject *m, PyObject *unused)
{
    if (mt_fw_enter_level() < 0)
        return mtpy_raise();
    return PyLong_FromLong(0);
}

static PyObject *exit_dual_level(PyObject *m, PyObject *unused)
{
    mt_fw_exit_level();
    Py_RETURN_NONE;
}

static PyObject *fw_grad(PyObject *m, PyObject *t)
{
    if (!MTPy_Check(t))
        return PyErr_Format(PyExc_TypeError, "expected a Tensor, got %s", Py_TYPE(t)->tp_name);
    mt_tensor *g = mt_fw_grad(MTPy_T(t));
    return g ? Py_NewRef((PyObject *)mtpy_container(g)) : Py_NewRef(Py_None);
}

static PyObject *size_list(const mt_tensor *t)
{
    char buf[MT_MAX_DIMS * 24 + 4];
    mt_format_shape(buf, sizeof buf, t->ndim, t->sizes);
    return PyUnicode_FromString(buf);
}

/* _set_fw_grad(tensor, tangent or None): the tangent at the active level. */
static PyObject *set_fw_grad(PyObject *m, PyObject *args)
{
    PyObject *t, *g;
    if (!PyArg_ParseTuple(args, "O!O:_set_fw_grad", &MTTensorBase_Type, &t, &g))
        return NULL;
    if (g != Py_None && !MTPy_Check(g))
        return PyErr_Format(PyExc_TypeError, "expected Variable or None (got %s)",
                            Py_TYPE(g)->tp_name);
    if (g != Py_None) {
        mt_tensor *a = MTPy_T(t), *b = MTPy_T(g);
        if (a->ndim != b->ndim || memcmp(a->sizes, b->sizes, sizeof(int64_t) * a->ndim) != 0) {
            PyObject *sa = size_list(a), *sb = size_list(b);
            if (sa && sb)
                PyErr_Format(PyExc_RuntimeError,
                             "Trying to set a forward gradient that has a different size than "
                             "that of the original Tensor, this is not supported. Tensor is of "
                             "size %U while the given forward gradient is of size %U.",
                             sa, sb);
            Py_XDECREF(sa);
            Py_XDECREF(sb);
            return NULL;
        }
    }
    if (mt_fw_set_grad(MTPy_T(t), g == Py_None ? NULL : MTPy_T(g)) < 0)
        return mtpy_raise();
    Py_RETURN_NONE;
}

static PyObject *set_fwd_grad_enabled(PyObject *m, PyObject *arg)
{
    int v = PyObject_IsTrue(arg);
    if (v < 0)
        return NULL;
    mt_fw_grad_enabled = v;
    Py_RETURN_NONE;
}

static PyObject *is_fwd_grad_enabled(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(mt_fw_grad_enabled);
}

static PyMethodDef methods[] = {
    {"_enter_dual_level", enter_dual_level, METH_NOARGS, NULL},
    {"_exit_dual_level", exit_dual_level, METH_NOARGS, NULL},
    {"_fw_grad", fw_grad, METH_O, NULL},
    {"_set_fw_grad", set_fw_grad, METH_VARARGS, NULL},
    {"_set_fwd_grad_enabled", set_fwd_grad_enabled, METH_O, NULL},
    {"_is_fwd_grad_enabled", is_fwd_grad_enabled, METH_NOARGS, NULL},
    {NULL},
};

int mt_forward_ad_init(PyObject *module) { return PyModule_AddFunctions(module, methods); }
