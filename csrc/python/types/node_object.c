/* grad_fn objects: one Python class per node kind (AddBackward0, ...). */
#include "../autograd/autograd_bind.h"

#include <string.h>
#include <structmember.h>

static PyObject *node_types; /* kind name -> class */

/* A handle whose remove() deletes one key from a hooks dict. */
typedef struct {
    PyObject_HEAD PyObject *dict;
    PyObject *key;
} HandleObject;

static PyObject *handle_remove(HandleObject *h, PyObject *unused)
{
    if (h->dict && PyDict_Contains(h->dict, h->key) == 1 && PyDict_DelItem(h->dict, h->key) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static void handle_dealloc(HandleObject *h)
{
    Py_XDECREF(h->dict);
    Py_XDECREF(h->key);
    PyObject_Free(h);
}

static PyObject *handle_enter(PyObject *h, PyObject *unused) { return Py_NewRef(h); }
static PyObject *handle_exit(HandleObject *h, PyObject *args) { return handle_remove(h, NULL); }

static PyMethodDef handle_methods[] = {
    {"remove", (PyCFunction)handle_remove, METH_NOARGS, NULL},
    {"__enter__", handle_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)handle_exit, METH_VARARGS, NULL},
    {NULL},
};

static PyMemberDef handle_members[] = {
    {"id", T_OBJECT, offsetof(HandleObject, key), READONLY, NULL},
    {NULL},
};

PyTypeObject MTHandle_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch.utils.hooks.RemovableHandle",
    .tp_basicsize = sizeof(HandleObject),
    .tp_dealloc = (destructor)handle_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = handle_methods,
    .tp_members = handle_members,
};

static uint64_t next_hook_id;

/* Adds fn to dict under a fresh key (or (prefix, id) when prefix is given). */
PyObject *mtpy_add_hook(PyObject *dict, PyObject *fn, const char *prefix)
{
    PyObject *key = prefix ? Py_BuildValue("(sK)", prefix, ++next_hook_id)
                           : PyLong_FromUnsignedLongLong(++next_hook_id);
    if (!key || PyDict_SetItem(dict, key, fn) < 0) {
        Py_XDECREF(key);
        return NULL;
    }
    HandleObject *h = PyObject_New(HandleObject, &MTHandle_Type);
    if (!h) {
        Py_DECREF(key);
        return NULL;
    }
    h->dict = Py_NewRef(dict);
    h->key = key;
    return (PyObject *)h;
}

PyObject *mtpy_node_object(mt_node *n)
{
    MTNodeObject *ctx = (MTNodeObject *)mtpy_function_ctx(n);
    if (ctx) {
        /* the ctx now keeps the node alive as a grad_fn object does (a
         * cycle through the node's ctx, which the collector frees once the
         * ctx alone holds the node) */
        if (!ctx->node) {
            mt_node_incref(n);
            ctx->node = n;
        }
        return Py_NewRef((PyObject *)ctx);
    }
    if (n->py_object)
        return Py_NewRef((PyObject *)n->py_object);
    PyObject *cls = PyDict_GetItemString(node_types, n->kind->name);
    if (!cls) {
        cls = PyObject_CallFunction((PyObject *)&PyType_Type, "s(O){s:s}", n->kind->name,
                                    (PyObject *)&MTNode_Type, "__module__", "minitorch.autograd");
        if (!cls || PyDict_SetItemString(node_types, n->kind->name, cls) < 0) {
            Py_XDECREF(cls);
            return NULL;
        }
        Py_DECREF(cls);
    }
    MTNodeObject *o = (MTNodeObject *)((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, 0);
    if (!o)
        return NULL;
    mt_node_incref(n);
    o->node = n;
    n->py_object = o;
    return (PyObject *)o;
}

mt_node *mtpy_node_of(PyObject *o) { return ((MTNodeObject *)o)->node; }

/* The per-kind classes are heap subclasses made by type(): their
 * subtype_dealloc drops the reference an instance holds on its class. */
static void node_dealloc(MTNodeObject *o)
{
    PyObject_GC_UnTrack(o);
    if (o->node) {
        o->node->py_object = NULL;
        mt_node_decref(o->node);
    }
    Py_TYPE(o)->tp_free(o);
}

static int visit_saved(const mt_saved *s, int count, visitproc visit, void *arg)
{
    for (int i = 0; s && i < count; i++) {
        if (s[i].t)
            Py_VISIT((PyObject *)mtpy_container(s[i].t));
        Py_VISIT((PyObject *)s[i].packed);
    }
    return 0;
}

int mtpy_node_traverse(mt_node *n, visitproc visit, void *arg)
{
    Py_VISIT((PyObject *)n->metadata);
    Py_VISIT((PyObject *)n->pre_hooks);
    Py_VISIT((PyObject *)n->post_hooks);
    Py_VISIT(mtpy_function_ctx(n));
    Py_VISIT((PyObject *)n->anomaly);
    if (n->variable)
        Py_VISIT((PyObject *)mtpy_container(n->variable));
    for (int p = 0; n->args && p < n->nparams; p++)
        Py_VISIT((PyObject *)n->args[p].obj);
    int nsaved = 0;
    const mt_saved *fs = mtpy_function_saved(n, &nsaved);
    int rc = visit_saved(fs, nsaved, visit, arg);
    return rc ? rc : visit_saved(n->saved, n->nparams + 1, visit, arg);
}

void mtpy_node_clear(mt_node *n)
{
    Py_CLEAR(*(PyObject **)&n->metadata);
    Py_CLEAR(*(PyObject **)&n->pre_hooks);
    Py_CLEAR(*(PyObject **)&n->post_hooks);
}

/* What the node holds belongs to this object only while nothing else holds
 * the node (no tensor, edge or run of the engine): only then can a cycle
 * through it (a hook whose closure holds this grad_fn) be garbage. */
static bool owns_node(MTNodeObject *o) { return o->node && o->node->refcount == 1; }

static int node_traverse(MTNodeObject *o, visitproc visit, void *arg)
{
    return owns_node(o) ? mtpy_node_traverse(o->node, visit, arg) : 0;
}

static int node_clear(MTNodeObject *o)
{
    if (owns_node(o))
        mtpy_node_clear(o->node);
    return 0;
}

/* torch's hand-written nodes (not generated from derivatives.yaml) name
 * themselves with their C++ namespace. */
static const char *const cpp_named[] = {"AccumulateGrad", "CopySlices", "CopyBackwards", "Error",
                                        "UndefinedGradBackward"};

/* A custom Function's ctx before it is handed out as a grad_fn has no node. */
static mt_node *live_node(MTNodeObject *o)
{
    if (!o->node)
        PyErr_Format(PyExc_RuntimeError,
                     "this %s is not (yet) a node of the graph: use the grad_fn of the "
                     "Function's output",
                     Py_TYPE(o)->tp_name);
    return o->node;
}

static PyObject *node_name(MTNodeObject *o, PyObject *unused)
{
    if (!o->node) /* a ctx: torch's name() is its class name */
        return PyUnicode_FromString(Py_TYPE(o)->tp_name);
    const char *name = o->node->kind->name;
    for (size_t i = 0; i < sizeof cpp_named / sizeof *cpp_named; i++)
        if (strcmp(name, cpp_named[i]) == 0)
            return PyUnicode_FromFormat("torch::autograd::%s", name);
    return PyUnicode_FromString(name);
}

static PyObject *node_next_functions(MTNodeObject *o, void *c)
{
    mt_node *n = o->node;
    if (!n) /* a ctx not recorded (yet), as torch's */
        return PyTuple_New(0);
    PyObject *out = PyTuple_New(n->nedges);
    for (int e = 0; out && e < n->nedges; e++) {
        PyObject *fn = n->edges[e].fn ? mtpy_node_object(n->edges[e].fn) : Py_NewRef(Py_None);
        PyObject *pair = fn ? Py_BuildValue("(NI)", fn, n->edges[e].input_nr) : NULL;
        if (!pair) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, e, pair);
    }
    return out;
}

/* The dict lives on the node: every grad_fn object of it sees the same. */
static PyObject *node_metadata(MTNodeObject *o, void *c)
{
    if (!live_node(o))
        return NULL;
    PyObject **slot = (PyObject **)&o->node->metadata;
    if (!*slot && !(*slot = PyDict_New()))
        return NULL;
    return Py_NewRef(*slot);
}

static PyObject *node_variable(MTNodeObject *o, void *c)
{
    if (!live_node(o))
        return NULL;
    if (!o->node->variable)
        return PyErr_Format(PyExc_AttributeError, "'%s' object has no attribute 'variable'",
                            o->node->kind->name);
    return Py_NewRef((PyObject *)mtpy_container(o->node->variable));
}

static PyObject **hook_slot(mt_node *n, bool pre)
{
    return (PyObject **)(pre ? &n->pre_hooks : &n->post_hooks);
}

static PyObject *node_register_hook(MTNodeObject *o, PyObject *fn)
{
    if (!live_node(o))
        return NULL;
    PyObject **slot = hook_slot(o->node, false);
    if (!*slot && !(*slot = PyDict_New()))
        return NULL;
    return mtpy_add_hook(*slot, fn, NULL);
}

/* Each prehook sits in a one-entry dict of its own, in the node's pre_hooks
 * list in registration order, so its handle can remove it. */
static PyObject *node_register_prehook(MTNodeObject *o, PyObject *fn)
{
    if (!live_node(o))
        return NULL;
    PyObject **slot = hook_slot(o->node, true);
    if (!*slot && !(*slot = PyList_New(0)))
        return NULL;
    PyObject *dict = PyDict_New();
    PyObject *handle = dict ? mtpy_add_hook(dict, fn, NULL) : NULL;
    PyObject *entry = handle ? Py_BuildValue("(iOO)", -1, dict, Py_None) : NULL;
    Py_XDECREF(dict);
    if (!entry || PyList_Append(*slot, entry) < 0) {
        Py_XDECREF(entry);
        Py_XDECREF(handle);
        return NULL;
    }
    Py_DECREF(entry);
    return handle;
}

static PyObject *node_repr(MTNodeObject *o)
{
    return PyUnicode_FromFormat("<%s object at %p>", o->node->kind->name, o);
}

/* torch's grad_fn of a custom Function is its ctx: saved_tensors,
 * needs_input_grad and whatever forward set on ctx read through here, after
 * what the node saved. */
static PyObject *node_getattro(MTNodeObject *o, PyObject *name)
{
    PyObject *r = PyObject_GenericGetAttr((PyObject *)o, name);
    if (r || !o->node || !PyErr_ExceptionMatches(PyExc_AttributeError))
        return r;
    /* what the node saved (grad_fn._saved_self, ...) */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    r = mtpy_node_saved_attr(o->node, name);
    if (r || PyErr_Occurred()) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return r;
    }
    PyErr_Restore(type, value, tb);
    PyObject *ctx = mtpy_function_ctx(o->node);
    if (!ctx || ctx == (PyObject *)o)
        return NULL;
    PyErr_Clear();
    r = PyObject_GetAttr(ctx, name);
    if (!r && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_AttributeError, "'%s' object has no attribute '%U'", o->node->kind->name,
                     name);
    }
    return r;
}

/* object.__dir__ and what the node saved, as torch lists its properties */
static PyObject *node_dir(MTNodeObject *o, PyObject *unused)
{
    PyObject *list = PyObject_CallMethod((PyObject *)&PyBaseObject_Type, "__dir__", "O", o);
    if (list && o->node && mtpy_node_saved_names(o->node, list) < 0)
        Py_CLEAR(list);
    return list;
}

static PyMethodDef node_methods[] = {
    {"__dir__", (PyCFunction)node_dir, METH_NOARGS, NULL},
    {"name", (PyCFunction)node_name, METH_NOARGS, NULL},
    {"register_hook", (PyCFunction)node_register_hook, METH_O, NULL},
    {"register_prehook", (PyCFunction)node_register_prehook, METH_O, NULL},
    {NULL},
};

static PyGetSetDef node_getset[] = {
    {"next_functions", (getter)node_next_functions, NULL, NULL, NULL},
    {"metadata", (getter)node_metadata, NULL, NULL, NULL},
    {"variable", (getter)node_variable, NULL, NULL, NULL},
    {NULL},
};

PyTypeObject MTNode_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch.autograd.graph.Node",
    .tp_basicsize = sizeof(MTNodeObject),
    .tp_dealloc = (destructor)node_dealloc,
    .tp_repr = (reprfunc)node_repr,
    .tp_getattro = (getattrofunc)node_getattro,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)node_traverse,
    .tp_clear = (inquiry)node_clear,
    .tp_methods = node_methods,
    .tp_getset = node_getset,
};

int mt_node_object_init(PyObject *module)
{
    if (PyType_Ready(&MTNode_Type) < 0 || PyType_Ready(&MTHandle_Type) < 0)
        return -1;
    if (!(node_types = PyDict_New()))
        return -1;
    if (PyModule_AddObjectRef(module, "_Node", (PyObject *)&MTNode_Type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "_RemovableHandle", (PyObject *)&MTHandle_Type);
}
