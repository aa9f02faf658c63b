/* minitorch.dtype objects and the default dtype. */
#include "common.h"

#include <structmember.h>

static MTDtypeObject dtype_objs[MT_NUM_DTYPES];

PyObject *mtpy_dtype_obj(mt_dtype d) { return (PyObject *)&dtype_objs[d]; }

int mtpy_dtype_from(PyObject *o, mt_dtype *out)
{
    if (Py_TYPE(o) == &MTDtype_Type) {
        *out = ((MTDtypeObject *)o)->dtype;
        return 0;
    }
    if (o == (PyObject *)&PyFloat_Type) {
        *out = MT_FLOAT64;
        return 0;
    }
    if (o == (PyObject *)&PyLong_Type) {
        *out = MT_INT64;
        return 0;
    }
    if (o == (PyObject *)&PyBool_Type) {
        *out = MT_BOOL;
        return 0;
    }
    if (o == (PyObject *)&PyComplex_Type) {
        *out = MT_COMPLEX128;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "expected a minitorch.dtype, got %s", Py_TYPE(o)->tp_name);
    return -1;
}

mt_dtype mtpy_default_dtype(void) { return mt_default_dtype; }

void mtpy_set_default_dtype(mt_dtype d) { mt_default_dtype = d; }

static PyObject *dtype_repr(MTDtypeObject *self)
{
    return PyUnicode_FromFormat("minitorch.%s", mt_dtype_infos[self->dtype].name);
}

static PyObject *dtype_is_floating(MTDtypeObject *self, void *c)
{
    return PyBool_FromLong(mt_is_floating(self->dtype));
}

static PyObject *dtype_is_signed(MTDtypeObject *self, void *c)
{
    return PyBool_FromLong(mt_dtype_infos[self->dtype].is_signed);
}

static PyObject *dtype_is_complex(MTDtypeObject *self, void *c)
{
    return PyBool_FromLong(mt_is_complex(self->dtype));
}

static PyObject *dtype_itemsize(MTDtypeObject *self, void *c)
{
    return PyLong_FromLong(mt_itemsize(self->dtype));
}

/* the names torch's messages give the dtype: "Float" and the C++ "float" */
static PyObject *dtype_scalar_name(MTDtypeObject *self, void *c)
{
    return PyUnicode_FromString(mt_dtype_infos[self->dtype].scalar_name);
}

static PyObject *dtype_cpp_name(MTDtypeObject *self, void *c)
{
    return PyUnicode_FromString(mt_dtype_infos[self->dtype].cpp_name);
}

static PyObject *dtype_reduce(MTDtypeObject *self, PyObject *unused)
{
    /* pickled by name: minitorch.<name> */
    return PyUnicode_FromString(mt_dtype_infos[self->dtype].name);
}

static PyObject *dtype_to_real(MTDtypeObject *self, PyObject *unused)
{
    return Py_NewRef(mtpy_dtype_obj(mt_complex_part(self->dtype)));
}

/* torch's toComplexType: float16 -> complex32; bfloat16 and the integers
 * have none. */
static PyObject *dtype_to_complex(MTDtypeObject *self, PyObject *unused)
{
    mt_dtype d = self->dtype;
    if (d == MT_FLOAT16)
        return Py_NewRef(mtpy_dtype_obj(MT_COMPLEX32));
    if (d == MT_FLOAT32 || d == MT_FLOAT64 || mt_is_complex(d))
        return Py_NewRef(mtpy_dtype_obj(mt_complex_of(d)));
    return PyErr_Format(PyExc_RuntimeError, "Unknown Complex ScalarType for %s",
                        mt_dtype_infos[d].scalar_name);
}

static PyGetSetDef dtype_getset[] = {
    {"is_floating_point", (getter)dtype_is_floating, NULL, "True for floating point dtypes.", NULL},
    {"is_signed", (getter)dtype_is_signed, NULL, "True for dtypes that hold negative values.",
     NULL},
    {"is_complex", (getter)dtype_is_complex, NULL,
     "True for the complex dtypes (complex32, complex64, complex128).", NULL},
    {"itemsize", (getter)dtype_itemsize, NULL, "The size of one element in bytes.", NULL},
    {"_scalar_name", (getter)dtype_scalar_name, NULL,
     "The dtype's name in torch's messages: 'Float', 'Long', 'ComplexDouble'.", NULL},
    {"_cpp_name", (getter)dtype_cpp_name, NULL,
     "The C++ type torch's messages name for the dtype: 'float', 'long int', 'c10::Half'.", NULL},
    {NULL},
};

static PyMethodDef dtype_methods[] = {
    {"__reduce__", (PyCFunction)dtype_reduce, METH_NOARGS, NULL},
    {"to_real", (PyCFunction)dtype_to_real, METH_NOARGS,
     "to_real($self, /)\n--\n\nReturns the real dtype of this one: a complex dtype's part "
     "type, any other dtype itself."},
    {"to_complex", (PyCFunction)dtype_to_complex, METH_NOARGS,
     "to_complex($self, /)\n--\n\nReturns the complex dtype of this one: complex64 for "
     "float32, complex128 for float64, a complex dtype itself."},
    {NULL},
};

PyTypeObject MTDtype_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch.dtype",
    .tp_basicsize = sizeof(MTDtypeObject),
    .tp_repr = (reprfunc)dtype_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The data type of a tensor's elements: minitorch.float32, minitorch.int64, ...",
    .tp_getset = dtype_getset,
    .tp_methods = dtype_methods,
};

/* ------------------------------------------------------- module functions */

static PyObject *get_default_dtype(PyObject *m, PyObject *unused)
{
    return Py_NewRef(mtpy_dtype_obj(mt_default_dtype));
}

static PyObject *set_default_dtype(PyObject *m, PyObject *d)
{
    mt_dtype dt;
    if (Py_TYPE(d) != &MTDtype_Type)
        return PyErr_Format(PyExc_TypeError, "dtype must be a minitorch.dtype, not %s",
                            Py_TYPE(d)->tp_name);
    dt = ((MTDtypeObject *)d)->dtype;
    if (dt != MT_FLOAT32 && dt != MT_FLOAT64 && dt != MT_FLOAT16 && dt != MT_BFLOAT16)
        return PyErr_Format(PyExc_TypeError,
                            "only floating-point types are supported as the default type");
    mt_default_dtype = dt;
    Py_RETURN_NONE;
}

static int dtype_arg(PyObject *o, void *out) { return mtpy_dtype_from(o, out) == 0; }

static PyObject *promote_types(PyObject *m, PyObject *args)
{
    mt_dtype a, b;
    if (!PyArg_ParseTuple(args, "O&O&:promote_types", dtype_arg, &a, dtype_arg, &b))
        return NULL;
    if (mt_check_promotion(a, b) < 0)
        return mtpy_raise();
    return Py_NewRef(mtpy_dtype_obj(mt_promote_types(a, b)));
}

static PyObject *can_cast(PyObject *m, PyObject *args)
{
    mt_dtype a, b;
    if (!PyArg_ParseTuple(args, "O&O&:can_cast", dtype_arg, &a, dtype_arg, &b))
        return NULL;
    return PyBool_FromLong(mt_can_cast(a, b));
}

PyMethodDef mt_dtype_module_methods[] = {
    {"get_default_dtype", get_default_dtype, METH_NOARGS,
     "get_default_dtype()\n--\n\n"
     "Returns the dtype factories give floating point tensors when none is asked for."},
    {"set_default_dtype", set_default_dtype, METH_O,
     "set_default_dtype(d, /)\n--\n\n"
     "Sets the default floating point dtype (float32 or float64; also float16 or bfloat16)."},
    {"promote_types", promote_types, METH_VARARGS,
     "promote_types(type1, type2, /)\n--\n\n"
     "Returns the smallest dtype both dtypes can be cast to without losing their kind."},
    {"can_cast", can_cast, METH_VARARGS,
     "can_cast(from_, to, /)\n--\n\n"
     "Returns True if torch's casting rules allow casting ``from_`` to ``to`` (no float to\n"
     "int, no number to bool)."},
    {NULL},
};

int mtpy_dtype_init(PyObject *module)
{
    if (PyType_Ready(&MTDtype_Type) < 0)
        return -1;
    for (int d = 0; d < MT_NUM_DTYPES; d++) {
        PyObject *o = (PyObject *)&dtype_objs[d];
        Py_SET_TYPE(o, &MTDtype_Type);
        Py_SET_REFCNT(o, 1); /* static objects: never freed */
        dtype_objs[d].dtype = (mt_dtype)d;
        if (PyModule_AddObjectRef(module, mt_dtype_infos[d].name, o) < 0)
            return -1;
        if (mt_dtype_infos[d].alias &&
            PyModule_AddObjectRef(module, mt_dtype_infos[d].alias, o) < 0)
            return -1;
    }
    return PyModule_AddObjectRef(module, "dtype", (PyObject *)&MTDtype_Type);
}
