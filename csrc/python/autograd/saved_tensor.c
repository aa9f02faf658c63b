/* What a node keeps for backward, as torch shows it to Python:
 * grad_fn._saved_<name> (the value: a saved tensor unpacked through its
 * hooks, or an argument), grad_fn._raw_saved_<name> (a SavedTensor), and a
 * custom Function node's _raw_saved_tensors. Also, in minitorch._C._autograd:
 * SavedTensor, _make_saved_tensor and the per-thread switch
 * disable_saved_tensors_hooks turns; and _C._current_autograd_node.
 *
 * Names come from the node's row signature, as torch's from the op's
 * schema: a method row's "input" is torch's "self", the kept output is
 * "result" ("result<k>" when the op has several outputs, "values" or
 * "indices" when they came as such a named tuple). A tensor param of
 * the kind's save_inputs is a SavedTensor (None when its MT_SAVE_IF rule
 * kept nothing); a number given for a tensor param is its value (a wrapped
 * 0-d tensor for a `Tensor|Number` param, as torch wraps it); other
 * arguments are plain values. A SavedTensor holds its node (the entry lives
 * there) or, made by _make_saved_tensor, an entry of its own. */
#include "autograd_bind.h"

#include "../../autograd/backend.h"
#include "../../ops/runtime/signature.h"

#include <string.h>

typedef struct {
    PyObject_HEAD mt_node *node; /* strong; NULL for an entry of its own */
    mt_saved *entry;             /* in node, or &own */
    mt_saved own;
} SavedTensorObject;

static PyTypeObject SavedTensor_Type;

static PyObject *saved_tensor_wrap(mt_node *n, mt_saved *entry)
{
    SavedTensorObject *o = (SavedTensorObject *)SavedTensor_Type.tp_alloc(&SavedTensor_Type, 0);
    if (!o)
        return NULL;
    if (n)
        mt_node_incref(n);
    o->node = n;
    o->entry = entry ? entry : &o->own;
    return (PyObject *)o;
}

static void saved_tensor_dealloc(SavedTensorObject *o)
{
    if (o->node)
        mt_node_decref(o->node);
    else
        mt_saved_release(&o->own);
    Py_TYPE(o)->tp_free((PyObject *)o);
}

static PyObject *saved_tensor_new(PyTypeObject *t, PyObject *a, PyObject *k)
{
    PyErr_SetString(PyExc_RuntimeError,
                    "Trying to create a SavedTensor object from Python is forbidden.");
    return NULL;
}

/* An entry that never held a tensor (a None saved, or one its rule skipped). */
static bool saved_none(const mt_saved *s) { return !s->t && !s->packed && !s->released; }

static bool saved_freed(const SavedTensorObject *o)
{
    return o->entry->released || (o->node && o->node->saved_released && !saved_none(o->entry));
}

static PyObject *unpack_entry(mt_node *n, mt_saved *s)
{
    if (saved_none(s))
        Py_RETURN_NONE;
    mt_tensor *t = mt_saved_get(n, s);
    return t ? (PyObject *)mtpy_container(t) : mtpy_raise();
}

static PyObject *saved_tensor_unpack(SavedTensorObject *o, PyObject *unused)
{
    return unpack_entry(o->node, o->entry);
}

static PyObject *incompatible(const char *fn, const char *params, PyObject *self, PyObject *args)
{
    PyObject *shown = PyObject_Repr(args);
    if (shown)
        PyErr_Format(PyExc_TypeError,
                     "%s(): incompatible function arguments. The following argument types are "
                     "supported:\n    1. %s\n\nInvoked with: %R, %U",
                     fn, params, self, shown);
    Py_XDECREF(shown);
    return NULL;
}

static PyObject *saved_tensor_register_hooks(SavedTensorObject *o, PyObject *args)
{
    if (PyTuple_GET_SIZE(args) != 2 || !PyCallable_Check(PyTuple_GET_ITEM(args, 0)) ||
        !PyCallable_Check(PyTuple_GET_ITEM(args, 1)))
        return incompatible("register_hooks",
                            "(self: minitorch._C._autograd.SavedTensor, arg0: Callable, arg1: "
                            "Callable) -> None",
                            (PyObject *)o, args);
    mt_saved *s = o->entry;
    if (s->packed) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Calling register_hooks on a saved tensor whose hooks have already been "
                        "set. Hint: only one pair of hooks is allowed at a time.");
        return NULL;
    }
    if (saved_freed(o)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Calling register_hooks on a saved tensor after it has been freed. Saved "
                        "intermediate values of the graph are freed when you call .backward() or "
                        "autograd.grad(). Specify retain_graph=True if you need to backward "
                        "through the graph a second time or if you need to access saved variables "
                        "after calling backward.");
        return NULL;
    }
    if (!s->t) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Calling register_hooks on a saved tensor with value None is forbidden");
        return NULL;
    }
    void *packed = NULL;
    if (mtpy_pack_saved_with(args, s->t, &packed) < 0)
        return NULL;
    if (mt_saved_take_packed(s, packed) < 0)
        return mtpy_raise();
    Py_RETURN_NONE;
}

/* What the entry holds: what its pack hook returned, or the tensor itself
 * (a saved output without its history). */
static PyObject *saved_tensor_data(SavedTensorObject *o, void *c)
{
    mt_saved *s = o->entry;
    if (s->packed)
        return Py_NewRef(PyTuple_GET_ITEM((PyObject *)s->packed, 1));
    if (s->t)
        return Py_NewRef((PyObject *)mtpy_container(s->t));
    Py_RETURN_NONE;
}

static PyObject *saved_tensor_unpack_hook(SavedTensorObject *o, void *c)
{
    mt_saved *s = o->entry;
    return Py_NewRef(s->packed ? PyTuple_GET_ITEM((PyObject *)s->packed, 0) : Py_None);
}

static PyMethodDef saved_tensor_methods[] = {
    {"register_hooks", (PyCFunction)saved_tensor_register_hooks, METH_VARARGS, NULL},
    {"unpack", (PyCFunction)saved_tensor_unpack, METH_NOARGS, NULL},
    {NULL},
};

static PyGetSetDef saved_tensor_getset[] = {
    {"data", (getter)saved_tensor_data, NULL, NULL, NULL},
    {"unpack_hook", (getter)saved_tensor_unpack_hook, NULL, NULL, NULL},
    {NULL},
};

static PyTypeObject SavedTensor_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch._C._autograd.SavedTensor",
    .tp_basicsize = sizeof(SavedTensorObject),
    .tp_dealloc = (destructor)saved_tensor_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = saved_tensor_methods,
    .tp_getset = saved_tensor_getset,
    .tp_new = saved_tensor_new,
};

/* ------------------------------------------------------- grad_fn attributes */

/* torch's name of param p of sig. */
static const char *torch_param_name(const mt_signature *sig, int p)
{
    const char *name = sig->params[p].name;
    return (sig->flags & MT_KIND_METHOD) && strcmp(name, "input") == 0 ? "self" : name;
}

/* A Python number, or the 0-d tensor torch wraps it in (int64 or float64). */
static PyObject *number_value(const mt_ad_value *v, bool wrapped)
{
    if (!wrapped)
        return v->is_float ? PyFloat_FromDouble(v->f) : PyLong_FromLongLong(v->i);
    PyObject *t = mtpy_new_contiguous(v->is_float ? MT_FLOAT64 : MT_INT64, 0, NULL, false);
    if (!t)
        return NULL;
    if (v->is_float)
        memcpy(mt_data(MTPy_T(t)), &v->f, sizeof v->f);
    else
        memcpy(mt_data(MTPy_T(t)), &v->i, sizeof v->i);
    return t;
}

/* A non-tensor argument of param p as Python sees it. An argument left
 * out holds p's default (a str's is p's own: the node keeps only given
 * ones). */
static PyObject *arg_value(const mt_param *p, const mt_ad_value *v)
{
    bool defaulted = v->none && p->has_default && !p->default_none;
    if (v->none && !defaulted && p->type != MT_ARG_BOOL)
        Py_RETURN_NONE;
    switch (p->type) {
    case MT_ARG_INT:
        return PyLong_FromLongLong(v->i);
    case MT_ARG_FLOAT:
        return PyFloat_FromDouble(v->f);
    case MT_ARG_SCALAR:
        return number_value(v, false);
    case MT_ARG_BOOL:
        return PyBool_FromLong((long)v->i);
    case MT_ARG_STR:
        return PyUnicode_FromString(defaulted ? p->def.str : v->str);
    case MT_ARG_DTYPE:
        return Py_NewRef(mtpy_dtype_obj((mt_dtype)v->i));
    case MT_ARG_INT_LIST: {
        PyObject *r = PyTuple_New(v->nints);
        for (int k = 0; r && k < v->nints; k++) {
            PyObject *x = PyLong_FromLongLong(v->ints[k]);
            if (!x)
                Py_CLEAR(r);
            else
                PyTuple_SET_ITEM(r, k, x);
        }
        return r;
    }
    default: /* MT_ARG_OBJECT (shown_as shows no other type) */
        return Py_NewRef(v->obj ? (PyObject *)v->obj : Py_None);
    }
}

/* How param p of n shows: not at all, as a value (_saved_<name>), as a
 * saved tensor (also _raw_saved_<name>), or as the 0-d tensor torch wraps a
 * number given for a `Tensor|Number` param in (also _raw_saved_<name>: a
 * SavedTensor of its own, as the node reads the number). */
enum { SHOWN_NOT, SHOWN_VALUE, SHOWN_SAVED, SHOWN_WRAPPED };

static int shown_as(const mt_node *n, int p)
{
    const mt_signature *sig = n->sig;
    switch (sig->params[p].type) {
    case MT_ARG_TENSOR:
        if (p == sig->out_param)
            return SHOWN_NOT;
        if (n->args[p].is_number)
            return sig->params[p].numbers_alone ? SHOWN_WRAPPED : SHOWN_VALUE;
        return n->kind->save_inputs & (1u << p) ? SHOWN_SAVED : SHOWN_NOT;
    case MT_ARG_INT:
    case MT_ARG_FLOAT:
    case MT_ARG_SCALAR:
    case MT_ARG_BOOL:
    case MT_ARG_STR:
    case MT_ARG_DTYPE:
    case MT_ARG_INT_LIST:
    case MT_ARG_OBJECT:
        return SHOWN_VALUE;
    default:
        return SHOWN_NOT;
    }
}

/* The name of n's kept output into buf, or NULL when it keeps none. */
static const char *output_name(const mt_node *n, char *buf, size_t size)
{
    int k = n->kind->save_output - 1;
    if (k < 0 || k >= n->nout)
        return NULL;
    if (n->sig && mt_signature_result_name(n->sig, k, buf, size))
        return buf;
    if (n->nout == 1)
        snprintf(buf, size, "result");
    else
        snprintf(buf, size, "result%d", k);
    return buf;
}

/* The backward classes whose torch node keeps its input's sizes
 * (grad_fn._saved_self_sym_sizes); minitorch's node has them as the
 * metadata of self's edge. */
static const char *const self_sizes_kinds[] = {
    "ViewBackward0",    "ExpandBackward0",      "SumBackward0",
    "SumBackward1",     "MeanBackward0",        "MeanBackward1",
    "SelectBackward0",  "SliceBackward0",       "SqueezeBackward0",
    "SqueezeBackward1", "IndexSelectBackward0", "RepeatBackward0",
    "UnfoldBackward0",  "DiagonalBackward0",    "SplitBackward0",
    "IndexBackward0",   "MaxBackward0",         NULL,
};

static bool keeps_self_sizes(const mt_node *n)
{
    if (n->nparams < 1 || n->sig->params[0].type != MT_ARG_TENSOR || n->edge_count[0] != 1)
        return false;
    for (const char *const *k = self_sizes_kinds; *k; k++)
        if (strcmp(n->kind->name, *k) == 0)
            return true;
    return false;
}

static PyObject *self_sizes(const mt_node *n)
{
    const mt_tensor_meta *m = &n->edge_meta[n->edge_start[0]];
    PyObject *out = PyTuple_New(m->ndim);
    for (int d = 0; out && d < m->ndim; d++) {
        PyObject *v = PyLong_FromLongLong(m->sizes[d]);
        if (!v) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, d, v);
    }
    return out;
}

/* A SavedTensor of its own holding the wrapped number v. */
static PyObject *wrapped_saved(const mt_ad_value *v)
{
    PyObject *t = number_value(v, true);
    SavedTensorObject *o = t ? (SavedTensorObject *)saved_tensor_wrap(NULL, NULL) : NULL;
    if (o)
        mt_saved_set(NULL, &o->own, MTPy_T(t), false, 0);
    Py_XDECREF(t);
    return (PyObject *)o;
}

static PyObject *custom_saved(mt_node *n, const char *name, bool raw)
{
    int count = 0;
    mt_saved *entries = mtpy_function_saved(n, &count);
    if (!entries || !raw || strcmp(name, "tensors") != 0)
        return NULL;
    if (n->saved_released) {
        mt_saved_get(n, &entries[0]); /* NULL: raises torch's freed error */
        return mtpy_raise();
    }
    PyObject *r = PyTuple_New(count);
    for (int i = 0; r && i < count; i++) {
        PyObject *o = saved_tensor_wrap(n, &entries[i]);
        if (!o)
            Py_CLEAR(r);
        else
            PyTuple_SET_ITEM(r, i, o);
    }
    return r;
}

PyObject *mtpy_node_saved_attr(mt_node *n, PyObject *attr)
{
    const char *s = PyUnicode_AsUTF8(attr);
    bool raw = s && strncmp(s, "_raw_saved_", 11) == 0;
    char buf[24];
    if (!s) {
        PyErr_Clear();
        return NULL;
    }
    if (!raw && strncmp(s, "_saved_", 7) != 0)
        return NULL;
    const char *name = s + (raw ? 11 : 7), *out = n->sig ? output_name(n, buf, sizeof buf) : NULL;
    if (!n->sig)
        return custom_saved(n, name, raw);
    if (!raw && strcmp(name, "self_sym_sizes") == 0 && keeps_self_sizes(n))
        return self_sizes(n);
    if (out && strcmp(name, out) == 0) {
        mt_saved *entry = &n->saved[n->nparams];
        return raw ? saved_tensor_wrap(n, entry) : unpack_entry(n, entry);
    }
    const mt_signature *sig = n->sig;
    for (int p = 0; p < n->nparams; p++) {
        int how = shown_as(n, p);
        if (how == SHOWN_NOT || strcmp(torch_param_name(sig, p), name) != 0)
            continue;
        if (how == SHOWN_SAVED)
            return raw ? saved_tensor_wrap(n, &n->saved[p]) : unpack_entry(n, &n->saved[p]);
        if (how == SHOWN_WRAPPED)
            return raw ? wrapped_saved(&n->args[p]) : number_value(&n->args[p], true);
        if (raw)
            return NULL;
        return sig->params[p].type == MT_ARG_TENSOR ? number_value(&n->args[p], false)
                                                    : arg_value(&sig->params[p], &n->args[p]);
    }
    return NULL;
}

static int append_name(PyObject *list, const char *prefix, const char *name)
{
    PyObject *s = PyUnicode_FromFormat("%s%s", prefix, name);
    int rc = s ? PyList_Append(list, s) : -1;
    Py_XDECREF(s);
    return rc;
}

int mtpy_node_saved_names(mt_node *n, PyObject *list)
{
    int count;
    char buf[24];
    if (!n->sig)
        return mtpy_function_saved(n, &count) ? append_name(list, "_raw_saved_", "tensors") : 0;
    const char *out = output_name(n, buf, sizeof buf);
    if (out && (append_name(list, "_saved_", out) < 0 || append_name(list, "_raw_saved_", out) < 0))
        return -1;
    if (keeps_self_sizes(n) && append_name(list, "_saved_", "self_sym_sizes") < 0)
        return -1;
    for (int p = 0; p < n->nparams; p++) {
        int how = shown_as(n, p);
        const char *name = torch_param_name(n->sig, p);
        if ((how != SHOWN_NOT && append_name(list, "_saved_", name) < 0) ||
            (how >= SHOWN_SAVED && append_name(list, "_raw_saved_", name) < 0))
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------- _C._autograd */

static PyObject *make_saved_tensor(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *names[] = {"tensor", "is_output", "is_inplace_on_view", NULL};
    PyObject *t;
    int is_output, on_view = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Op|p", names, &t, &is_output, &on_view) ||
        !MTPy_Check(t))
        return PyErr_Occurred() ? NULL
                                : incompatible("_make_saved_tensor",
                                               "(tensor: minitorch.Tensor, is_output: bool, "
                                               "is_inplace_on_view: bool = False) -> "
                                               "minitorch._C._autograd.SavedTensor",
                                               m, args);
    SavedTensorObject *o = (SavedTensorObject *)saved_tensor_wrap(NULL, NULL);
    if (!o)
        return NULL;
    /* with no node to attach it to, an output is kept as the tensor it is */
    mt_saved_set(NULL, &o->own, MTPy_T(t), false, 0);
    if (mt_saved_pack(&o->own, 1) < 0) {
        Py_DECREF(o);
        return mtpy_raise();
    }
    return (PyObject *)o;
}

/* disable_saved_tensors_hooks(message): per thread, as torch keeps it. */
static const char disabled_key[] = "minitorch.saved_tensors_hooks_disabled";

static PyObject *hooks_disabled_message(PyObject *m, PyObject *unused)
{
    PyObject *d = PyThreadState_GetDict();
    PyObject *msg = d ? PyDict_GetItemString(d, disabled_key) : NULL;
    return Py_NewRef(msg ? msg : Py_None);
}

static PyObject *hooks_is_enabled(PyObject *m, PyObject *unused)
{
    PyObject *msg = hooks_disabled_message(m, NULL);
    PyObject *r = PyBool_FromLong(msg == Py_None);
    Py_DECREF(msg);
    return r;
}

static PyObject *hooks_disable(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *names[] = {"error_message", "fail_if_non_empty", NULL};
    PyObject *msg;
    int fail_if_non_empty = 1;
    PyObject *d = PyThreadState_GetDict();
    if (!PyArg_ParseTupleAndKeywords(args, kw, "U|p", names, &msg, &fail_if_non_empty) || !d ||
        PyDict_SetItemString(d, disabled_key, msg) < 0)
        return NULL;
    if (fail_if_non_empty && PyList_GET_SIZE(mtpy_saved_hooks_stack()) > 0) {
        PyErr_SetObject(PyExc_RuntimeError, msg);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *hooks_enable(PyObject *m, PyObject *unused)
{
    PyObject *d = PyThreadState_GetDict();
    if (d && PyDict_GetItemString(d, disabled_key) && PyDict_DelItemString(d, disabled_key) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef autograd_methods[] = {
    {"_make_saved_tensor", (PyCFunction)(void (*)(void))make_saved_tensor,
     METH_VARARGS | METH_KEYWORDS, NULL},
    {"_saved_tensors_hooks_is_enabled", hooks_is_enabled, METH_NOARGS, NULL},
    {"_saved_tensors_hooks_get_disabled_error_message", hooks_disabled_message, METH_NOARGS, NULL},
    {"_saved_tensors_hooks_disable", (PyCFunction)(void (*)(void))hooks_disable,
     METH_VARARGS | METH_KEYWORDS, NULL},
    {"_saved_tensors_hooks_enable", hooks_enable, METH_NOARGS, NULL},
    {NULL},
};

/* The node whose backward is running (its unpack hooks run in it), or None. */
static PyObject *current_autograd_node(PyObject *m, PyObject *unused)
{
    return mt_running_node ? mtpy_node_object(mt_running_node) : Py_NewRef(Py_None);
}

static PyMethodDef c_methods[] = {
    {"_current_autograd_node", current_autograd_node, METH_NOARGS, NULL},
    {NULL},
};

int mtpy_saved_tensor_init(PyObject *module)
{
    if (PyType_Ready(&SavedTensor_Type) < 0 || PyModule_AddFunctions(module, c_methods) < 0)
        return -1;
    PyObject *sub = PyObject_GetAttrString(module, "_autograd");
    int rc = sub && PyModule_AddFunctions(sub, autograd_methods) == 0 &&
                     PyModule_AddObjectRef(sub, "SavedTensor", (PyObject *)&SavedTensor_Type) == 0
                 ? 0
                 : -1;
    Py_XDECREF(sub);
    return rc;
}
