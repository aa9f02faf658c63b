/* The Generator type: the state is (seed, offset) of a counter-based Philox
 * stream, so get_state()/set_state() are 16 bytes. */
#include "generator.h"

#include <string.h>

#define STATE_BYTES 16

static PyObject *generator_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"device", NULL};
    PyObject *device = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Generator", kwlist, &device))
        return NULL;
    MTGeneratorObject *self = (MTGeneratorObject *)type->tp_alloc(type, 0);
    if (self) {
        self->gen = &self->own;
        mt_generator_manual_seed(self->gen, MT_DEFAULT_SEED);
    }
    return (PyObject *)self;
}

/* torch takes any int in [-2**63, 2**64): negative seeds wrap to uint64. */
static int seed_from(PyObject *o, uint64_t *out)
{
    PyObject *idx = PyNumber_Index(o);
    if (!idx)
        return -1;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
    if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(idx);
        Py_DECREF(idx);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
            return -1;
        }
        *out = u;
        return 0;
    }
    Py_DECREF(idx);
    if (overflow < 0) {
        PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
        return -1;
    }
    if (v == -1 && PyErr_Occurred())
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static PyObject *generator_manual_seed(PyObject *self, PyObject *seed)
{
    uint64_t s;
    if (seed_from(seed, &s) < 0)
        return NULL;
    mt_generator_manual_seed(mtpy_generator(self), s);
    return Py_NewRef(self);
}

/* The OS's entropy through os.urandom, which knows every platform's source
 * (and needs no getrandom from a newer C library than manylinux's). */
static PyObject *generator_seed(PyObject *self, PyObject *unused)
{
    PyObject *os = PyImport_ImportModule("os");
    PyObject *bytes = os ? PyObject_CallMethod(os, "urandom", "i", 8) : NULL;
    Py_XDECREF(os);
    if (!bytes)
        return NULL;
    uint64_t s;
    if (!PyBytes_Check(bytes) || PyBytes_GET_SIZE(bytes) != (Py_ssize_t)sizeof s) {
        Py_DECREF(bytes);
        PyErr_SetString(PyExc_RuntimeError, "os.urandom did not return 8 bytes");
        return NULL;
    }
    memcpy(&s, PyBytes_AS_STRING(bytes), sizeof s);
    Py_DECREF(bytes);
    mt_generator_manual_seed(mtpy_generator(self), s);
    return PyLong_FromUnsignedLongLong(s);
}

static PyObject *generator_initial_seed(PyObject *self, PyObject *unused)
{
    return PyLong_FromUnsignedLongLong(mtpy_generator(self)->seed);
}

static PyObject *generator_get_state(PyObject *self, PyObject *unused)
{
    int64_t n = STATE_BYTES;
    PyObject *t = mtpy_new_contiguous(MT_UINT8, 1, &n, false);
    if (t)
        memcpy(mt_data(MTPy_T(t)), mtpy_generator(self), STATE_BYTES);
    return t;
}

static PyObject *generator_set_state(PyObject *self, PyObject *state)
{
    if (!MTPy_Check(state) || MTPy_T(state)->dtype != MT_UINT8)
        return PyErr_Format(PyExc_TypeError, "expected a minitorch.ByteTensor, but got %s",
                            Py_TYPE(state)->tp_name);
    const mt_tensor *t = MTPy_T(state);
    if (t->numel != STATE_BYTES || !mt_tensor_is_contiguous(t))
        return PyErr_Format(PyExc_RuntimeError,
                            "Expected a Generator state of size %d, but found the input RNG "
                            "state size to be %lld",
                            STATE_BYTES, (long long)t->numel);
    memcpy(mtpy_generator(self), mt_data(t), STATE_BYTES);
    return Py_NewRef(self);
}

/* Pickles (and deep-copies) as a new Generator given this one's state. */
static PyObject *generator_reduce(PyObject *self, PyObject *unused)
{
    PyObject *state = generator_get_state(self, NULL);
    return state ? Py_BuildValue("(O()N)", (PyObject *)Py_TYPE(self), state) : NULL;
}

static PyObject *generator_setstate(PyObject *self, PyObject *state)
{
    PyObject *r = generator_set_state(self, state);
    Py_XDECREF(r);
    return r ? Py_NewRef(Py_None) : NULL;
}

static PyObject *generator_device(PyObject *self, void *unused)
{
    return PyUnicode_FromString("cpu");
}

static PyMethodDef generator_methods[] = {
    {"manual_seed", generator_manual_seed, METH_O,
     "Sets the seed for generating random numbers. Returns a `minitorch.Generator` object."},
    {"seed", generator_seed, METH_NOARGS,
     "Gets a non-deterministic random number from the OS and seeds the Generator with it."},
    {"initial_seed", generator_initial_seed, METH_NOARGS,
     "Returns the initial seed for generating random numbers."},
    {"get_state", generator_get_state, METH_NOARGS,
     "Returns the Generator state as a `minitorch.ByteTensor`."},
    {"set_state", generator_set_state, METH_O, "Sets the Generator state."},
    {"__reduce__", generator_reduce, METH_NOARGS, NULL},
    {"__setstate__", generator_setstate, METH_O, NULL},
    {NULL},
};

static PyGetSetDef generator_getset[] = {
    {"device", generator_device, NULL, NULL, NULL},
    {NULL},
};

PyTypeObject MTGenerator_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch._C.Generator",
    .tp_basicsize = sizeof(MTGeneratorObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Generator(device='cpu')\n\nCreates and returns a generator object that manages the "
              "state of the algorithm which produces pseudo random numbers.",
    .tp_new = generator_new,
    .tp_methods = generator_methods,
    .tp_getset = generator_getset,
};

int mtpy_generator_init(PyObject *module)
{
    if (PyType_Ready(&MTGenerator_Type) < 0 ||
        PyModule_AddObjectRef(module, "Generator", (PyObject *)&MTGenerator_Type) < 0)
        return -1;
    PyObject *dflt = PyObject_CallNoArgs((PyObject *)&MTGenerator_Type);
    if (!dflt)
        return -1;
    /* the default's state is the core's, which ops given no generator draw from */
    ((MTGeneratorObject *)dflt)->gen = &mt_default_generator;
    int rc = PyModule_AddObjectRef(module, "default_generator", dflt);
    Py_DECREF(dflt);
    return rc;
}
