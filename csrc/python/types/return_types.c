/* minitorch.return_types: torch's named result tuples (struct sequences
 * printed one field a line, "minitorch.return_types.max(\nvalues=...,\n
 * indices=...)"), one type per name. A row whose signature names its results
 * ("-> (Tensor values, Tensor indices)") has its type made at import, so the
 * row, not its kernel, names a result; Python composites ask for theirs by
 * name and fields through minitorch._C._return_type. The types live as long
 * as the process, and so do the names they point to. */
#include "return_types.h"

#include <string.h>
#include <structmember.h>

#include "../../ops/runtime/signature.h"

typedef struct {
    const char *name;
    PyTypeObject *type;
} named_type;

static PyObject *submodule; /* minitorch.return_types, also in sys.modules */
static named_type *registry;
static int nregistered, capacity;
static PyTypeObject *row_type[MT_OP_COUNT];

static PyObject *fields_repr(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject *parts = PyList_New(0);
    if (!parts)
        return NULL;
    for (Py_ssize_t k = 0; k < Py_SIZE(self); k++) {
        PyObject *part = PyUnicode_FromFormat("%s=%R", tp->tp_members[k].name,
                                              PyStructSequence_GET_ITEM(self, k));
        if (!part || PyList_Append(parts, part) < 0) {
            Py_XDECREF(part);
            Py_DECREF(parts);
            return NULL;
        }
        Py_DECREF(part);
    }
    PyObject *sep = PyUnicode_FromString(",\n");
    PyObject *body = sep ? PyUnicode_Join(sep, parts) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(parts);
    if (!body)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("%s(\n%U)", tp->tp_name, body);
    Py_DECREF(body);
    return r;
}

static char *lasting_copy(const char *s, size_t n)
{
    char *c = PyMem_RawMalloc(n + 1);
    if (!c) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(c, s, n);
    c[n] = '\0';
    return c;
}

static PyTypeObject *find(const char *name)
{
    for (int k = 0; k < nregistered; k++)
        if (strcmp(registry[k].name, name) == 0)
            return registry[k].type;
    return NULL;
}

static bool same_fields(PyTypeObject *tp, const char *const *fields, int n)
{
    PyObject *count = PyObject_GetAttrString((PyObject *)tp, "n_fields");
    long have = count ? PyLong_AsLong(count) : -1;
    Py_XDECREF(count);
    PyErr_Clear();
    if (have != n)
        return false;
    for (int k = 0; k < n; k++)
        if (strcmp(tp->tp_members[k].name, fields[k]) != 0)
            return false;
    return true;
}

PyTypeObject *mtpy_return_type(const char *name, const char *const *fields, int n)
{
    PyTypeObject *known = find(name);
    if (known) {
        if (same_fields(known, fields, n))
            return known;
        PyErr_Format(PyExc_RuntimeError,
                     "minitorch.return_types.%s is already defined with other fields", name);
        return NULL;
    }
    if (nregistered == capacity) {
        int grown = capacity ? 2 * capacity : 32;
        named_type *r = PyMem_RawRealloc(registry, (size_t)grown * sizeof *r);
        if (!r) {
            PyErr_NoMemory();
            return NULL;
        }
        registry = r;
        capacity = grown;
    }
    PyStructSequence_Field *f = PyMem_RawCalloc((size_t)n + 1, sizeof *f);
    PyObject *qualified = PyUnicode_FromFormat("minitorch.return_types.%s", name);
    const char *q = qualified ? PyUnicode_AsUTF8(qualified) : NULL;
    char *lasting_name = q ? lasting_copy(q, strlen(q)) : NULL;
    Py_XDECREF(qualified);
    if (!f || !lasting_name)
        goto fail;
    for (int k = 0; k < n; k++)
        if (!(f[k].name = lasting_copy(fields[k], strlen(fields[k]))))
            goto fail;
    PyStructSequence_Desc desc = {lasting_name, NULL, f, n};
    PyTypeObject *tp = PyStructSequence_NewType(&desc);
    if (!tp)
        goto fail;
    tp->tp_repr = fields_repr;
    PyType_Modified(tp);
    const char *short_name = lasting_name + strlen("minitorch.return_types.");
    if (PyModule_AddObjectRef(submodule, short_name, (PyObject *)tp) < 0) {
        Py_DECREF(tp);
        return NULL;
    }
    registry[nregistered++] = (named_type){short_name, tp};
    return tp;
fail:
    if (!PyErr_Occurred())
        PyErr_NoMemory();
    return NULL;
}

static int type_rows(void)
{
    for (int id = 0; id < MT_OP_COUNT; id++) {
        const mt_signature *sig = mt_ops[id].sig;
        int n = mt_signature_named_results(sig);
        char names[8][64];
        const char *fields[8];
        if (!n)
            continue;
        if (n > 8) {
            PyErr_Format(PyExc_SystemError, "%s names more than 8 results", sig->name);
            return -1;
        }
        for (int k = 0; k < n; k++) {
            mt_signature_result_name(sig, k, names[k], sizeof names[k]);
            fields[k] = names[k];
        }
        if (!(row_type[id] = mtpy_return_type(mt_signature_name(sig), fields, n)))
            return -1;
    }
    return 0;
}

PyTypeObject *mtpy_row_return_type(const mt_op *op)
{
    return op && op->id < MT_OP_COUNT ? row_type[op->id] : NULL;
}

/* minitorch._C._return_type(name, fields): the type return_types.<name> with
 * those fields, made on first request. */
static PyObject *py_return_type(PyObject *self, PyObject *args)
{
    const char *name;
    PyObject *fields;
    if (!PyArg_ParseTuple(args, "sO!:_return_type", &name, &PyTuple_Type, &fields))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(fields);
    const char *names[16];
    if (n < 1 || n > 16) {
        PyErr_SetString(PyExc_ValueError, "_return_type: between 1 and 16 fields");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        if (!(names[k] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(fields, k))))
            return NULL;
    return Py_XNewRef((PyObject *)mtpy_return_type(name, names, (int)n));
}

PyMethodDef mtpy_return_type_methods[] = {
    {"_return_type", py_return_type, METH_VARARGS, NULL},
    {NULL},
};

int mtpy_return_types_init(PyObject *module)
{
    submodule = PyModule_New("minitorch.return_types");
    if (!submodule)
        return -1;
    /* pickle finds a result's type by importing its module */
    PyObject *modules = PyImport_GetModuleDict();
    if (PyDict_SetItemString(modules, "minitorch.return_types", submodule) < 0 || type_rows() < 0 ||
        PyModule_AddObjectRef(module, "return_types", submodule) < 0)
        return -1;
    return 0;
}
