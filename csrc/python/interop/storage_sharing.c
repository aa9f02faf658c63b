/* The storage-level entry points that pickling and multiprocessing
 * (minitorch/_storage_pickle.py, minitorch/multiprocessing/) build on: a
 * tensor's whole storage as bytes, its identity, moving it into shared
 * memory, and a storage rebuilt from a shared-memory descriptor. Private
 * functions of _C; the public methods are Tensor.share_memory_/is_shared. */
#include "../types/common.h"
#include "../../core/shared_memory.h"

static mt_tensor *tensor_arg(PyObject *o)
{
    if (!MTPy_Check(o)) {
        PyErr_Format(PyExc_TypeError, "expected a minitorch.Tensor, but got %s",
                     Py_TYPE(o)->tp_name);
        return NULL;
    }
    return MTPy_T(o);
}

/* A 1-D uint8 tensor over all of st's bytes; consumes the reference to st. */
static PyObject *bytes_over(mt_storage *st)
{
    int64_t n = (int64_t)st->nbytes, one = 1;
    MTTensorObject *o = (MTTensorObject *)mtpy_tensor_class->tp_alloc(mtpy_tensor_class, 0);
    mt_tensor whole = {.storage = st, .dtype = MT_UINT8};
    if (!o || mt_tensor_init_view(&o->t, &whole, 1, &n, &one, 0) < 0) {
        mt_storage_decref(st);
        Py_XDECREF(o);
        return o ? mtpy_raise() : NULL;
    }
    mt_storage_decref(st); /* the tensor holds its own reference */
    return (PyObject *)o;
}

static PyObject *storage_bytes(PyObject *m, PyObject *o)
{
    mt_tensor *t = tensor_arg(o);
    if (!t)
        return NULL;
    mt_storage_incref(t->storage);
    return bytes_over(t->storage);
}

static PyObject *storage_key(PyObject *m, PyObject *o)
{
    mt_tensor *t = tensor_arg(o);
    return t ? PyLong_FromVoidPtr(t->storage) : NULL;
}

/* o's tensor, its storage moved into shared memory first. */
static mt_tensor *shared_tensor_arg(PyObject *o)
{
    mt_tensor *t = tensor_arg(o);
    if (t && mt_storage_share(t->storage) < 0) {
        mtpy_raise();
        return NULL;
    }
    return t;
}

static PyObject *share_memory(PyObject *m, PyObject *o)
{
    return shared_tensor_arg(o) ? Py_NewRef(o) : NULL;
}

static PyObject *is_shared(PyObject *m, PyObject *o)
{
    mt_tensor *t = tensor_arg(o);
    return t ? PyBool_FromLong(mt_storage_is_shared(t->storage)) : NULL;
}

static PyObject *shared_fd(PyObject *m, PyObject *o)
{
    mt_tensor *t = shared_tensor_arg(o);
    return t ? PyLong_FromLong(mt_storage_shared_fd(t->storage)) : NULL;
}

/* (fd, nbytes) -> the storage's bytes as a uint8 tensor; owns fd from now on. */
static PyObject *from_shared_fd(PyObject *m, PyObject *args)
{
    int fd;
    Py_ssize_t nbytes;
    if (!PyArg_ParseTuple(args, "in:_from_shared_fd", &fd, &nbytes))
        return NULL;
    if (nbytes < 0)
        return PyErr_Format(PyExc_ValueError, "nbytes must be non-negative, got %zd", nbytes);
    mt_storage *st = mt_storage_from_shared_fd(fd, (size_t)nbytes);
    return st ? bytes_over(st) : mtpy_raise();
}

/* nbytes -> a uint8 tensor over a new shared storage: batches built in a
 * DataLoader worker go there directly instead of being copied there. */
static PyObject *empty_shared(PyObject *m, PyObject *arg)
{
    Py_ssize_t nbytes = PyLong_AsSsize_t(arg);
    if (nbytes == -1 && PyErr_Occurred())
        return NULL;
    if (nbytes < 0)
        return PyErr_Format(PyExc_ValueError, "nbytes must be non-negative, got %zd", nbytes);
    mt_storage *st = mt_storage_new_shared((size_t)nbytes);
    return st ? bytes_over(st) : mtpy_raise();
}

PyMethodDef mtpy_storage_sharing_methods[] = {
    {"_storage_bytes", storage_bytes, METH_O, NULL},
    {"_storage_key", storage_key, METH_O, NULL},
    {"_share_memory", share_memory, METH_O, NULL},
    {"_is_shared", is_shared, METH_O, NULL},
    {"_shared_fd", shared_fd, METH_O, NULL},
    {"_from_shared_fd", from_shared_fd, METH_VARARGS, NULL},
    {"_empty_shared", empty_shared, METH_O, NULL},
    {NULL},
};
