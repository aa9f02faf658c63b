/* minitorch.return_types: the named (values, indices) tuples of max, min,
 * median, nanmedian, mode, sort, topk, kthvalue, cummax and cummin,
 * aminmax's (min, max) and frexp's (mantissa, exponent). */
#include "return_types.h"

#include <structmember.h>
#include <string.h>

static const char *names[] = {"max",  "min",      "median", "nanmedian", "mode",    "sort",
                              "topk", "kthvalue", "cummax", "cummin",    "aminmax", "frexp"};
#define NTYPES ((int)(sizeof names / sizeof names[0]))
static PyTypeObject *types[NTYPES];

static PyStructSequence_Field fields[] = {{"values", NULL}, {"indices", NULL}, {NULL, NULL}};
static PyStructSequence_Field minmax_fields[] = {{"min", NULL}, {"max", NULL}, {NULL, NULL}};
static PyStructSequence_Field frexp_fields[] = {
    {"mantissa", NULL}, {"exponent", NULL}, {NULL, NULL}};

/* torch prints one field a line: "torch.return_types.max(\nvalues=...,\nindices=...)" */
static PyObject *pair_repr(PyObject *self)
{
    PyMemberDef *f = Py_TYPE(self)->tp_members;
    return PyUnicode_FromFormat("%s(\n%s=%R,\n%s=%R)", Py_TYPE(self)->tp_name, f[0].name,
                                PyStructSequence_GET_ITEM(self, 0), f[1].name,
                                PyStructSequence_GET_ITEM(self, 1));
}

int mtpy_return_types_init(PyObject *module)
{
    PyObject *sub = PyModule_New("minitorch.return_types");
    if (!sub)
        return -1;
    for (int k = 0; k < NTYPES; k++) {
        char qual[64];
        snprintf(qual, sizeof qual, "minitorch.return_types.%s", names[k]);
        PyStructSequence_Field *f = strcmp(names[k], "aminmax") == 0 ? minmax_fields
                                    : strcmp(names[k], "frexp") == 0 ? frexp_fields
                                                                     : fields;
        PyStructSequence_Desc desc = {NULL, NULL, f, 2};
        /* the type keeps a pointer to its name: give it storage that lives on */
        desc.name = PyMem_RawMalloc(strlen(qual) + 1);
        if (!desc.name)
            goto fail;
        strcpy((char *)desc.name, qual);
        types[k] = PyStructSequence_NewType(&desc);
        if (!types[k])
            goto fail;
        types[k]->tp_repr = pair_repr;
        PyType_Modified(types[k]);
        if (PyModule_AddObjectRef(sub, names[k], (PyObject *)types[k]) < 0)
            goto fail;
    }
    if (PyModule_AddObject(module, "return_types", sub) < 0)
        goto fail;
    return 0;
fail:
    Py_DECREF(sub);
    return -1;
}

PyObject *mtpy_return_pair(const char *name, PyObject *values, PyObject *indices)
{
    if (!values || !indices) {
        Py_XDECREF(values);
        Py_XDECREF(indices);
        return NULL;
    }
    for (int k = 0; k < NTYPES; k++) {
        if (strcmp(names[k], name) != 0)
            continue;
        PyObject *r = PyStructSequence_New(types[k]);
        if (!r)
            break;
        PyStructSequence_SetItem(r, 0, values);
        PyStructSequence_SetItem(r, 1, indices);
        return r;
    }
    Py_DECREF(values);
    Py_DECREF(indices);
    return NULL;
}
