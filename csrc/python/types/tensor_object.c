/* minitorch._C.TensorBase: the C type under minitorch.Tensor. */
#include "common.h"
#include "../dispatch/function.h"
#include "../interop/from_data.h"
#include "../autograd/autograd_bind.h"

#include "../../core/shape.h"
#include "../../core/hot.h"

PyTypeObject *mtpy_tensor_class = &MTTensorBase_Type;
MT_HOT_TLS _Thread_local PyTypeObject *mtpy_result_class = NULL;

PyObject *mtpy_raise(void)
{
    const char *msg;
    mt_error_kind k = mt_error_take(&msg);
    PyObject *exc = PyExc_RuntimeError;
    if (PyErr_Occurred()) /* a Python callback raised below: its exception stands */
        return NULL;
    switch (k) {
    case MT_ERR_INDEX:
        exc = PyExc_IndexError;
        break;
    case MT_ERR_VALUE:
        exc = PyExc_ValueError;
        break;
    case MT_ERR_TYPE:
        exc = PyExc_TypeError;
        break;
    case MT_ERR_NOT_IMPLEMENTED:
        exc = PyExc_NotImplementedError;
        break;
    case MT_ERR_MEMORY:
        PyErr_Format(PyExc_MemoryError, "%s", msg);
        return NULL;
    case MT_OK:
    case MT_ERR_HOST:
        msg = "minitorch: internal error without a message";
        break;
    default:
        break;
    }
    PyErr_SetString(exc, msg);
    return NULL;
}

int mtpy_raise_int(void)
{
    mtpy_raise();
    return -1;
}

static MTTensorObject *alloc_object(PyTypeObject *cls)
{
    MTTensorObject *o = (MTTensorObject *)cls->tp_alloc(cls, 0);
    return o;
}

PyObject *mtpy_new_contiguous(mt_dtype dtype, int ndim, const int64_t *sizes, bool zeroed)
{
    MTTensorObject *o = alloc_object(mtpy_result_class ? mtpy_result_class : mtpy_tensor_class);
    if (!o)
        return NULL;
    if (mt_tensor_init_contiguous(&o->t, dtype, ndim, sizes, zeroed) < 0) {
        Py_DECREF(o);
        return mtpy_raise();
    }
    return (PyObject *)o;
}

PyObject *mtpy_new_strided(mt_dtype dtype, int ndim, const int64_t *sizes, const int64_t *strides)
{
    PyObject *o = mtpy_new_contiguous(dtype, ndim, sizes, false);
    if (o && ndim)
        memcpy(MTPy_T(o)->strides, strides, sizeof(int64_t) * ndim);
    return o;
}

MT_HOT PyObject *mtpy_new_view(PyObject *base, int ndim, const int64_t *sizes,
                               const int64_t *strides, int64_t offset)
{
    MTTensorObject *o = alloc_object(mtpy_result_class ? mtpy_result_class : mtpy_tensor_class);
    if (!o)
        return NULL;
    if (mt_tensor_init_view(&o->t, MTPy_T(base), ndim, sizes, strides, offset) < 0) {
        Py_DECREF(o);
        return mtpy_raise();
    }
    return (PyObject *)o;
}

PyObject *mtpy_as_subclass(PyObject *self, PyTypeObject *cls)
{
    if (!PyType_IsSubtype(cls, &MTTensorBase_Type))
        return PyErr_Format(PyExc_TypeError, "cls must be a subclass of minitorch.Tensor, got %s",
                            cls->tp_name);
    MTTensorObject *o = alloc_object(cls);
    if (!o)
        return NULL;
    o->t = *MTPy_T(self);
    mt_storage_incref(o->t.storage);
    mt_version_counter_incref(o->t.counter);
    mtpy_meta_share(o, (MTTensorObject *)self);
    return (PyObject *)o;
}

/* Tensors hash by identity, as torch's do (parameters key optimizer state). */
static Py_hash_t tensor_hash(PyObject *self) { return _Py_HashPointer(self); }

MT_HOT static void tensor_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    mtpy_meta_release((MTTensorObject *)self);
    mt_tensor_release(MTPy_T(self));
    Py_TYPE(self)->tp_free(self);
}

static int visit_tensor(mt_tensor *t, visitproc visit, void *arg)
{
    Py_VISIT(t ? (PyObject *)mtpy_container(t) : NULL);
    return 0;
}

/* The tensor's meta is then all that holds its grad_fn n. A custom
 * Function's ctx handed out as a grad_fn holds n too; held by nothing but n
 * itself, it is part of n. */
static bool holds_node_alone(mt_node *n)
{
    if (n->refcount == 1)
        return true;
    PyObject *ctx = mtpy_function_ctx(n);
    return n->refcount == 2 && ctx && ((MTNodeObject *)ctx)->node == n && Py_REFCNT(ctx) == 1;
}

/* Cycle GC, as torch's tensors take part in it: a custom Function's output
 * kept on its own ctx (output -> node -> ctx -> output), a hook whose closure
 * holds its tensor. What the meta holds is this tensor's only while no alias
 * shares the meta; what its grad_fn holds, only while nothing else (a later
 * node's edge, a grad_fn object, the engine) holds the node. Nothing here
 * runs on the op path: only collections traverse. */
static int tensor_traverse(PyObject *self, visitproc visit, void *arg)
{
    mt_autograd_meta *m = ((MTTensorObject *)self)->ag;
    if (!m || m->refcount != 1)
        return 0;
    Py_VISIT((PyObject *)m->hooks);
    int rc = visit_tensor(m->grad, visit, arg);
    if (!rc)
        rc = visit_tensor(m->fw_grad, visit, arg);
    if (!rc)
        rc = visit_tensor(m->view_base, visit, arg);
    if (!rc && m->grad_fn && holds_node_alone(m->grad_fn))
        rc = mtpy_node_traverse(m->grad_fn, visit, arg);
    return rc;
}

/* Only a tensor in garbage is cleared: dropping its autograd side (grad_fn,
 * grad, hooks) breaks every cycle traverse reported. */
static int tensor_clear(PyObject *self)
{
    mtpy_meta_release((MTTensorObject *)self);
    return 0;
}

/* Tensor(*sizes), Tensor(size), Tensor(data), Tensor(): the legacy constructor. */
static PyObject *tensor_new(PyTypeObject *cls, PyObject *args, PyObject *kwargs)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    PyObject *base = NULL;
    if (kwargs && PyDict_GET_SIZE(kwargs)) {
        PyObject *dev = PyDict_GetItemString(kwargs, "device");
        if (!dev || PyDict_GET_SIZE(kwargs) > 1)
            return PyErr_Format(PyExc_TypeError,
                                "new() received an invalid combination of arguments");
    }
    bool all_ints = true;
    for (Py_ssize_t i = 0; i < n && all_ints; i++)
        all_ints =
            PyLong_Check(PyTuple_GET_ITEM(args, i)) && !PyBool_Check(PyTuple_GET_ITEM(args, i));
    if (n == 1 && PyObject_TypeCheck(PyTuple_GET_ITEM(args, 0), &MTSize_Type))
        args = PyTuple_GET_ITEM(args, 0), all_ints = true, n = PyTuple_GET_SIZE(args);
    if (n == 0 || all_ints) {
        int64_t sizes[MT_MAX_DIMS];
        if (n == 0) {
            sizes[0] = 0;
            n = 1;
        } else if (n > MT_MAX_DIMS) {
            return PyErr_Format(PyExc_RuntimeError, "minitorch supports at most %d dimensions",
                                MT_MAX_DIMS);
        } else {
            for (Py_ssize_t i = 0; i < n; i++) {
                sizes[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(args, i));
                if (sizes[i] == -1 && PyErr_Occurred())
                    return NULL;
            }
        }
        base = mtpy_new_contiguous(mtpy_default_dtype(), (int)n, sizes, false);
    } else if (n == 1 && MTPy_Check(PyTuple_GET_ITEM(args, 0))) {
        /* Tensor(t), Subclass(t): a differentiable alias of t (AliasBackward0),
         * as torch's, never a copy */
        base = PyObject_GetItem(PyTuple_GET_ITEM(args, 0), Py_Ellipsis);
    } else if (n == 1) {
        mt_dtype d = mtpy_default_dtype();
        base = mtpy_from_data(PyTuple_GET_ITEM(args, 0), &d, false);
    } else {
        return PyErr_Format(PyExc_TypeError,
                            "new() received an invalid combination of arguments - got (%s, ...)",
                            Py_TYPE(PyTuple_GET_ITEM(args, 0))->tp_name);
    }
    if (!base || cls == mtpy_tensor_class)
        return base;
    PyObject *out = mtpy_as_subclass(base, cls);
    Py_DECREF(base);
    return out;
}

/* ------------------------------------------------------------- properties */

static PyObject *get_shape(PyObject *self, void *c)
{
    return mtpy_size(MTPy_T(self)->ndim, MTPy_T(self)->sizes);
}

static PyObject *get_dtype(PyObject *self, void *c)
{
    return Py_NewRef(mtpy_dtype_obj(MTPy_T(self)->dtype));
}

static PyObject *get_ndim(PyObject *self, void *c) { return PyLong_FromLong(MTPy_T(self)->ndim); }

static PyObject *get_itemsize(PyObject *self, void *c)
{
    return PyLong_FromLong(mt_itemsize(MTPy_T(self)->dtype));
}

static PyObject *get_nbytes(PyObject *self, void *c)
{
    return PyLong_FromLongLong(MTPy_T(self)->numel * mt_itemsize(MTPy_T(self)->dtype));
}

static PyObject *get_version(PyObject *self, void *c)
{
    if (MTPy_T(self)->storage->inference)
        return PyErr_Format(PyExc_RuntimeError, "Inference tensors do not track version counter.");
    return PyLong_FromLongLong(mt_version(MTPy_T(self)));
}

static PyGetSetDef tensor_getset[] = {
    {"shape", get_shape, NULL, "The size of each dimension, as a minitorch.Size.", NULL},
    {"dtype", get_dtype, NULL, "The data type of the elements.", NULL},
    {"ndim", get_ndim, NULL, "The number of dimensions.", NULL},
    {"itemsize", get_itemsize, NULL, "The size of one element in bytes.", NULL},
    {"nbytes", get_nbytes, NULL, "The size of the elements in bytes (numel() * itemsize).", NULL},
    {"_version", get_version, NULL, NULL, NULL},
    {NULL},
};

static PyObject *tensor_make_subclass(PyObject *unused, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"cls", "data", "require_grad", NULL};
    PyObject *cls, *data;
    int require_grad = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!|p:_make_subclass", kwlist, &cls,
                                     &MTTensorBase_Type, &data, &require_grad))
        return NULL;
    if (!PyType_Check(cls))
        return PyErr_Format(PyExc_TypeError, "cls must be a type");
    PyObject *out = mtpy_as_subclass(data, (PyTypeObject *)cls);
    if (out) {
        MTPy_T(out)->flags &= ~MT_FLAG_REQUIRES_GRAD;
        if (require_grad)
            MTPy_T(out)->flags |= MT_FLAG_REQUIRES_GRAD;
    }
    return out;
}

static PyObject *tensor_as_subclass(PyObject *self, PyObject *cls)
{
    if (!PyType_Check(cls))
        return PyErr_Format(PyExc_TypeError, "as_subclass(): argument 'cls' must be a type");
    if (!PyType_IsSubtype((PyTypeObject *)cls, &MTTensorBase_Type))
        return PyErr_Format(PyExc_TypeError, "cls must be a subclass of minitorch.Tensor, got %s",
                            ((PyTypeObject *)cls)->tp_name);
    /* As torch's: an alias recorded by autograd (AliasBackward0), taken
     * through a plain Tensor so self's own indexing overrides stay out. */
    if (!mt_meta.get_or_create(MTPy_T(self))) /* so plain shares it */
        return PyErr_NoMemory();
    PyObject *plain = mtpy_as_subclass(self, mtpy_tensor_class);
    PyObject *base = plain ? PyObject_GetItem(plain, Py_Ellipsis) : NULL;
    Py_XDECREF(plain);
    if (!base)
        return NULL;
    PyObject *out = mtpy_as_subclass(base, (PyTypeObject *)cls);
    Py_DECREF(base);
    return out;
}

static PyMethodDef tensor_methods[] = {
    {"__torch_function__", (PyCFunction)(void (*)(void))mt_default_torch_function,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, NULL},
    {"_make_subclass", (PyCFunction)(void (*)(void))tensor_make_subclass,
     METH_VARARGS | METH_KEYWORDS | METH_STATIC, NULL},
    {"as_subclass", tensor_as_subclass, METH_O,
     "as_subclass($self, cls, /)\n--\n\n"
     "Returns a tensor of type cls (a Tensor subclass) sharing this tensor's data, an\n"
     "alias autograd records (AliasBackward0)."},
    {NULL},
};

PyTypeObject MTTensorBase_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch._C.TensorBase",
    .tp_basicsize = sizeof(MTTensorObject),
    .tp_dealloc = tensor_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = tensor_traverse,
    .tp_clear = tensor_clear,
    .tp_new = tensor_new,
    .tp_getset = tensor_getset,
    .tp_methods = tensor_methods,
    .tp_hash = tensor_hash,
};

static PyObject *set_tensor_class(PyObject *m, PyObject *cls)
{
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &MTTensorBase_Type))
        return PyErr_Format(PyExc_TypeError, "expected a subclass of TensorBase");
    Py_INCREF(cls);
    mtpy_tensor_class = (PyTypeObject *)cls;
    Py_RETURN_NONE;
}

PyMethodDef mt_tensor_module_methods[] = {
    {"_set_tensor_class", set_tensor_class, METH_O, NULL},
    {NULL},
};

int mt_tensor_type_init(PyObject *module)
{
    extern PyGetSetDef mt_autograd_getset[];
    extern PyMethodDef mt_autograd_methods[];
    if (PyType_Ready(&MTTensorBase_Type) < 0)
        return -1;
    /* autograd's attributes are defined beside the engine binding */
    for (PyGetSetDef *g = mt_autograd_getset; g->name; g++) {
        PyObject *d = PyDescr_NewGetSet(&MTTensorBase_Type, g);
        if (!d || PyDict_SetItemString(MTTensorBase_Type.tp_dict, g->name, d) < 0)
            return -1;
        Py_DECREF(d);
    }
    for (PyMethodDef *md = mt_autograd_methods; md->ml_name; md++) {
        PyObject *d = PyDescr_NewMethod(&MTTensorBase_Type, md);
        if (!d || PyDict_SetItemString(MTTensorBase_Type.tp_dict, md->ml_name, d) < 0)
            return -1;
        Py_DECREF(d);
    }
    /* Tensor.__torch_function__ as looked up on the type: the default marker. */
    mt_default_tf = PyDict_GetItemString(MTTensorBase_Type.tp_dict, "__torch_function__");
    Py_XINCREF(mt_default_tf);
    return PyModule_AddObjectRef(module, "TensorBase", (PyObject *)&MTTensorBase_Type);
}
