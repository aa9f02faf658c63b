/* Tensors of other libraries: recognised by type (no Python code runs to
 * tell), taken as data through DLPack or NumPy's array interface, and named
 * in the TypeError when one is given as an operand. */
#include "foreign_tensors.h"
#include "dlpack.h"
#include "numpy_api.h"
#include "numpy_bridge.h"

static PyObject *str_dlpack, *str_array_interface;

/* _C._refuse_foreign(fname, what, obj): for Python-level functions' own
 * argument checks, raises the TypeError of mtpy_raise_foreign when obj is a
 * foreign tensor, else returns None. */
static PyObject *refuse_foreign(PyObject *m, PyObject *args)
{
    const char *fname, *what;
    PyObject *o;
    if (!PyArg_ParseTuple(args, "ssO:_refuse_foreign", &fname, &what, &o))
        return NULL;
    if (!mtpy_is_foreign_tensor(o))
        Py_RETURN_NONE;
    mtpy_raise_foreign(fname, what, o);
    return NULL;
}

static PyMethodDef foreign_methods[] = {
    {"_refuse_foreign", refuse_foreign, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

int mtpy_foreign_init(PyObject *module)
{
    str_dlpack = PyUnicode_InternFromString("__dlpack__");
    str_array_interface = PyUnicode_InternFromString("__array_interface__");
    if (!str_dlpack || !str_array_interface)
        return -1;
    return PyModule_AddFunctions(module, foreign_methods);
}

bool mtpy_is_foreign_tensor(PyObject *o)
{
    PyTypeObject *tp = Py_TYPE(o);
    if (MTPy_Check(o) || PyArray_Check(o) || PyArray_IsScalar(o, Generic))
        return false;
    return _PyType_Lookup(tp, str_dlpack) || _PyType_Lookup(tp, str_array_interface);
}

/* torch.tensor(t) copies a tensor that requires grad without its graph;
 * DLPack refuses to export one, so its detached view is exported. */
static PyObject *detached(PyObject *o)
{
    PyObject *rg = PyObject_GetAttrString(o, "requires_grad");
    if (!rg) {
        PyErr_Clear();
        return Py_NewRef(o);
    }
    int yes = PyObject_IsTrue(rg);
    Py_DECREF(rg);
    if (yes < 0)
        return NULL;
    return yes ? PyObject_CallMethod(o, "detach", NULL) : Py_NewRef(o);
}

PyObject *mtpy_from_foreign(PyObject *o)
{
    if (!_PyType_Lookup(Py_TYPE(o), str_dlpack)) {
        PyObject *arr = PyArray_FromAny(o, NULL, 0, 0, 0, NULL);
        if (!arr)
            return NULL;
        PyObject *t = mtpy_from_numpy(arr);
        Py_DECREF(arr);
        return t;
    }
    PyObject *src = detached(o);
    if (!src)
        return NULL;
    PyObject *t = mtpy_from_dlpack_object(src);
    Py_DECREF(src);
    return t;
}

void mtpy_raise_foreign(const char *fname, const char *what, PyObject *o)
{
    PyObject *module = PyObject_GetAttrString((PyObject *)Py_TYPE(o), "__module__");
    if (!module || !PyUnicode_Check(module)) {
        PyErr_Clear();
        Py_XDECREF(module);
        module = PyUnicode_FromString("builtins");
        if (!module)
            return;
    }
    PyErr_Format(PyExc_TypeError,
                 "%s(): %s must be a minitorch Tensor, not %U.%s; a tensor of another library "
                 "is not converted implicitly: convert it with minitorch.as_tensor() or "
                 "minitorch.from_dlpack()",
                 fname, what, module, _PyType_Name(Py_TYPE(o)));
    Py_DECREF(module);
}
