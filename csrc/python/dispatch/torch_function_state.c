/* Thread-local __torch_function__ state: the mode stack and the
 * DisableTorchFunction / DisableTorchFunctionSubclass guards. */
#include "parser.h"
#include "torch_function_state.h"
#include "../../core/hot.h"

MT_HOT_TLS _Thread_local PyObject *mt_mode_stack = NULL; /* list, created on first push */

MT_HOT bool mt_mode_active(void)
{
    return mt_mode_stack && PyList_GET_SIZE(mt_mode_stack) > 0 && !mt_tf_disabled;
}

static PyObject *push_mode(PyObject *m, PyObject *mode)
{
    if (!mt_mode_stack && !(mt_mode_stack = PyList_New(0)))
        return NULL;
    if (PyList_Append(mt_mode_stack, mode) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyObject *mt_mode_pop(void)
{
    Py_ssize_t n = mt_mode_stack ? PyList_GET_SIZE(mt_mode_stack) : 0;
    if (n == 0)
        return PyErr_Format(PyExc_RuntimeError, "Trying to pop from an empty mode stack");
    PyObject *top = Py_NewRef(PyList_GET_ITEM(mt_mode_stack, n - 1));
    if (PyList_SetSlice(mt_mode_stack, n - 1, n, NULL) < 0) {
        Py_DECREF(top);
        return NULL;
    }
    return top;
}

int mt_mode_push(PyObject *mode)
{
    PyObject *r = push_mode(NULL, mode);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

static PyObject *pop_mode(PyObject *m, PyObject *unused) { return mt_mode_pop(); }

static PyObject *len_modes(PyObject *m, PyObject *unused)
{
    return PyLong_FromSsize_t(mt_mode_stack ? PyList_GET_SIZE(mt_mode_stack) : 0);
}

static PyObject *get_mode_at(PyObject *m, PyObject *idx)
{
    Py_ssize_t i = PyLong_AsSsize_t(idx);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t n = mt_mode_stack ? PyList_GET_SIZE(mt_mode_stack) : 0;
    if (i < 0)
        i += n;
    if (i < 0 || i >= n)
        return PyErr_Format(PyExc_IndexError, "mode stack index out of range");
    return Py_NewRef(PyList_GET_ITEM(mt_mode_stack, i));
}

static PyObject *is_enabled(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(!mt_tf_disabled && !mt_tf_subclass_disabled);
}

static PyObject *is_all_disabled(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(mt_tf_disabled != 0);
}

/* ----------------------------------------------------------- guard objects */

typedef struct {
    PyObject_HEAD int *counter;
} GuardObject;

static PyObject *guard_enter(GuardObject *self, PyObject *unused)
{
    (*self->counter)++;
    Py_RETURN_NONE;
}

static PyObject *guard_exit(GuardObject *self, PyObject *args)
{
    (*self->counter)--;
    Py_RETURN_FALSE;
}

static PyMethodDef guard_methods[] = {
    {"__enter__", (PyCFunction)guard_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)guard_exit, METH_VARARGS, NULL},
    {NULL},
};

static PyObject *disable_all_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    GuardObject *g = (GuardObject *)type->tp_alloc(type, 0);
    if (g)
        g->counter = &mt_tf_disabled;
    return (PyObject *)g;
}

static PyObject *disable_subclass_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    GuardObject *g = (GuardObject *)type->tp_alloc(type, 0);
    if (g)
        g->counter = &mt_tf_subclass_disabled;
    return (PyObject *)g;
}

/* The counters are thread-local, so each guard bumps the counter of the
 * thread that enters it; guards are not meant to cross threads. */
static PyTypeObject DisableAll_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch._C.DisableTorchFunction",
    .tp_basicsize = sizeof(GuardObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = guard_methods,
    .tp_new = disable_all_new,
};

static PyTypeObject DisableSubclass_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch._C.DisableTorchFunctionSubclass",
    .tp_basicsize = sizeof(GuardObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = guard_methods,
    .tp_new = disable_subclass_new,
};

static PyMethodDef state_methods[] = {
    {"_push_on_torch_function_stack", push_mode, METH_O, NULL},
    {"_pop_torch_function_stack", pop_mode, METH_NOARGS, NULL},
    {"_len_torch_function_stack", len_modes, METH_NOARGS, NULL},
    {"_get_function_stack_at", get_mode_at, METH_O, NULL},
    {"_is_torch_function_enabled", is_enabled, METH_NOARGS, NULL},
    {"_is_torch_function_all_disabled", is_all_disabled, METH_NOARGS, NULL},
    {NULL},
};

int mt_torch_function_state_init(PyObject *module)
{
    if (PyType_Ready(&DisableAll_Type) < 0 || PyType_Ready(&DisableSubclass_Type) < 0)
        return -1;
    if (PyModule_AddObjectRef(module, "DisableTorchFunction", (PyObject *)&DisableAll_Type) < 0 ||
        PyModule_AddObjectRef(module, "DisableTorchFunctionSubclass",
                              (PyObject *)&DisableSubclass_Type) < 0)
        return -1;
    return PyModule_AddFunctions(module, state_methods);
}
