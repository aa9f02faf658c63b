/* minitorch.Size: a tuple subclass for shapes. */
#include "common.h"

PyObject *mtpy_size(int ndim, const int64_t *sizes)
{
    PyObject *t = MTSize_Type.tp_alloc(&MTSize_Type, ndim);
    if (!t)
        return NULL;
    for (int i = 0; i < ndim; i++) {
        PyObject *v = PyLong_FromLongLong(sizes[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

static PyObject *size_repr(PyObject *self)
{
    Py_ssize_t n = PyTuple_GET_SIZE(self);
    PyObject *list = PySequence_List(self);
    if (!list)
        return NULL;
    PyObject *inner = PyObject_Repr(list);
    Py_DECREF(list);
    if (!inner)
        return NULL;
    (void)n;
    PyObject *r = PyUnicode_FromFormat("minitorch.Size(%U)", inner);
    Py_DECREF(inner);
    return r;
}

static PyObject *size_numel(PyObject *self, PyObject *unused)
{
    long long n = 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); i++) {
        long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(self, i));
        if (v == -1 && PyErr_Occurred())
            return NULL;
        n *= v;
    }
    return PyLong_FromLongLong(n);
}

static PyObject *size_reduce(PyObject *self, PyObject *unused)
{
    PyObject *plain = PySequence_Tuple(self);
    if (!plain)
        return NULL;
    PyObject *r = Py_BuildValue("(O(N))", (PyObject *)Py_TYPE(self), plain);
    return r;
}

/* Slicing a Size gives a Size, as torch's does; adding tuples too. */
static PyObject *size_subscript(PyObject *self, PyObject *key)
{
    PyObject *r = PyTuple_Type.tp_as_mapping->mp_subscript(self, key);
    if (r && PySlice_Check(key) && PyTuple_CheckExact(r)) {
        PyObject *s = PyObject_CallOneArg((PyObject *)&MTSize_Type, r);
        Py_DECREF(r);
        return s;
    }
    return r;
}

static PyObject *size_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *src = NULL;
    if (!PyArg_ParseTuple(args, "|O:Size", &src))
        return NULL;
    PyObject *seq = src ? PySequence_Tuple(src) : PyTuple_New(0);
    if (!seq)
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    PyObject *t = type->tp_alloc(type, n);
    for (Py_ssize_t i = 0; t && i < n; i++) {
        PyObject *v = PyNumber_Index(PyTuple_GET_ITEM(seq, i));
        if (!v) {
            Py_CLEAR(t);
            PyErr_Format(PyExc_TypeError,
                         "minitorch.Size() takes an iterable of 'int' (item %zd is '%s')", i,
                         Py_TYPE(PyTuple_GET_ITEM(seq, i))->tp_name);
            break;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    Py_DECREF(seq);
    return t;
}

static PyMethodDef size_methods[] = {
    {"numel", size_numel, METH_NOARGS,
     "numel($self, /)\n--\n\nReturns the number of elements a tensor of this shape holds."},
    {"__reduce__", size_reduce, METH_NOARGS, NULL},
    {NULL},
};

static PyMappingMethods size_as_mapping = {.mp_subscript = size_subscript};

PyTypeObject MTSize_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch.Size",
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_TUPLE_SUBCLASS,
    .tp_doc = "The shape of a tensor: a tuple of ints.",
    .tp_repr = size_repr,
    .tp_methods = size_methods,
    .tp_new = size_new,
    .tp_as_mapping = &size_as_mapping,
};

int mtpy_size_init(PyObject *module)
{
    MTSize_Type.tp_base = &PyTuple_Type;
    if (PyType_Ready(&MTSize_Type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Size", (PyObject *)&MTSize_Type);
}
