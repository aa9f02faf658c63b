/* The hooks the plain-C layers call into the binding through: tensor
 * ownership (core/owner.h), warnings, and the autograd backend (user hooks
 * on nodes and tensors, and what the binding keeps on a node). */
#include "autograd_bind.h"

#include "../../autograd/backend.h"
#include "../../autograd/validate.h"
#include "../../autograd/grad_mode.h"
#include "../../autograd/call.h"
#include "../../core/hot.h"

/* ------------------------------------------------------------------ owner
 * Tensors below the binding are minitorch.Tensor objects (of the subclass a
 * default __torch_function__ is running for, when there is one). */

MT_HOT static mt_tensor *owner_make(void)
{
    PyTypeObject *cls = mtpy_result_class ? mtpy_result_class : mtpy_tensor_class;
    PyObject *o = cls->tp_alloc(cls, 0);
    if (!o) {
        PyErr_Clear();
        mt_error(MT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    return MTPy_T(o);
}

static void owner_retain(mt_tensor *t) { Py_INCREF((PyObject *)mtpy_container(t)); }

static void owner_release(mt_tensor *t) { Py_DECREF((PyObject *)mtpy_container(t)); }

/* Only the engine's gradient buffer refers to t, and t alone uses its memory. */
static bool owner_unshared(mt_tensor *t)
{
    return Py_REFCNT((PyObject *)mtpy_container(t)) == 1 && t->storage->refcount == 1;
}

static void *owner_unlock(void) { return PyEval_SaveThread(); }

static void owner_relock(void *token) { PyEval_RestoreThread(token); }

static void owner_retain_object(void *o) { Py_INCREF((PyObject *)o); }

static void owner_release_object(void *o) { Py_DECREF((PyObject *)o); }

static int warn_hook(const char *msg) { return PyErr_WarnEx(PyExc_UserWarning, msg, 1); }

/* ------------------------------------------------------------------- hooks
 * Tensor hooks live in a dict on the tensor's meta. A leaf's hooks run when
 * its AccumulateGrad node receives the gradient; a non-leaf's when its
 * grad_fn receives the gradient for its output. Node pre_hooks hold entries
 * (output_nr, hooks dict, retains-grad meta or NULL) as a Python list. */

/* torch names a hook in its errors by __name__, or "<unknown>". */
static PyObject *hook_name(PyObject *hook)
{
    PyObject *name = PyObject_GetAttrString(hook, "__name__");
    if (name && PyUnicode_Check(name))
        return name;
    Py_XDECREF(name);
    PyErr_Clear();
    return PyUnicode_FromString("<unknown>");
}

/* The one check of a non-None value v a hook returned for a gradient was
 * (NULL: that gradient is None): the Python side here, the tensor's dtype
 * and shape in the engine's mt_check_hook_value. */
static int check_returned(PyObject *hook, const mt_tensor *was, PyObject *v)
{
    if (!was) {
        PyErr_SetString(PyExc_RuntimeError, "can't replace a None gradient with a non-None value");
        return -1;
    }
    if (!MTPy_Check(v)) {
        PyErr_Format(PyExc_TypeError, "expected Variable, but hook returned '%s'",
                     Py_TYPE(v)->tp_name);
        return -1;
    }
    PyObject *name = hook_name(hook);
    const char *s = name ? PyUnicode_AsUTF8(name) : NULL;
    int rc = s ? mt_check_hook_value(was, MTPy_T(v), s) : -1;
    Py_XDECREF(name);
    return rc < 0 && !PyErr_Occurred() ? mtpy_raise_int() : rc;
}

/* A hook given a tuple of gradients returned r in its place: torch's checks
 * of the tuple, then of each value against the one it replaces. */
static int check_returned_tuple(PyObject *hook, PyObject *was, PyObject *r)
{
    if (!PyTuple_Check(r)) {
        PyErr_Format(PyExc_TypeError, "expected tuple, but hook returned '%s'",
                     Py_TYPE(r)->tp_name);
        return -1;
    }
    if (PyTuple_GET_SIZE(r) != PyTuple_GET_SIZE(was)) {
        PyObject *name = hook_name(hook);
        if (name)
            PyErr_Format(PyExc_RuntimeError,
                         "hook '%U' has returned an incorrect number of values (got %zd, but "
                         "expected %zd)",
                         name, PyTuple_GET_SIZE(r), PyTuple_GET_SIZE(was));
        Py_XDECREF(name);
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(r); i++) {
        PyObject *w = PyTuple_GET_ITEM(was, i), *v = PyTuple_GET_ITEM(r, i);
        if (v != Py_None && check_returned(hook, w == Py_None ? NULL : MTPy_T(w), v) < 0)
            return -1;
    }
    return 0;
}

static PyObject *grads_tuple(int count, mt_tensor **grads)
{
    PyObject *tup = PyTuple_New(count);
    for (int k = 0; tup && k < count; k++)
        PyTuple_SET_ITEM(tup, k,
                         grads[k] ? Py_NewRef((PyObject *)mtpy_container(grads[k]))
                                  : Py_NewRef(Py_None));
    return tup;
}

/* Puts the values of a checked tuple back into grads (None: no gradient). */
static void take_grads_tuple(PyObject *tup, int count, mt_tensor **grads)
{
    for (int k = 0; k < count; k++) {
        PyObject *v = PyTuple_GET_ITEM(tup, k);
        if (grads[k])
            owner_release(grads[k]);
        grads[k] = v == Py_None ? NULL : (Py_INCREF(v), MTPy_T(v));
    }
}

/* The tensor hooks of a dict, in registration order as the run starts, on
 * the gradient in *slot: each sees what the one before returned. As in
 * torch, a gradient that is None (an output of a running node that got
 * none) is handed to them as None. */
static int call_hook_dict(PyObject *hooks, mt_tensor **slot)
{
    if (!hooks)
        return 0;
    PyObject *items = PyDict_Items(hooks);
    if (!items)
        return -1;
    int status = 0;
    for (Py_ssize_t i = 0; status == 0 && i < PyList_GET_SIZE(items); i++) {
        PyObject *kv = PyList_GET_ITEM(items, i);
        /* post-accumulate hooks share the dict (tuple keys) and run after
         * accumulation, on the leaf, not here on its gradient */
        if (PyTuple_Check(PyTuple_GET_ITEM(kv, 0)))
            continue;
        PyObject *fn = PyTuple_GET_ITEM(kv, 1);
        PyObject *r = PyObject_CallOneArg(fn, *slot ? (PyObject *)mtpy_container(*slot) : Py_None);
        if (!r || (r != Py_None && check_returned(fn, *slot, r) < 0))
            status = -1;
        else if (r != Py_None) {
            owner_release(*slot);
            *slot = (Py_INCREF(r), MTPy_T(r));
        }
        Py_XDECREF(r);
    }
    Py_DECREF(items);
    return status;
}

static int retain_into(mt_autograd_meta *m, mt_tensor *g)
{
    if (!m || !m->retains_grad || !g)
        return 0;
    mt_tensor *v = m->grad ? mt_call(MT_OP_add, "TT", m->grad, g) : mt_call(MT_OP_clone, "T", g);
    if (!v)
        return -1;
    if (m->grad)
        owner_release(m->grad);
    m->grad = v;
    return 0;
}

/* The node prehooks fns (a list) on the node's output grads; a tuple one
 * returns replaces them. */
static int call_node_prehooks(mt_node *n, PyObject *fns, mt_tensor **grads)
{
    int status = 0;
    for (Py_ssize_t i = 0; status == 0 && i < PyList_GET_SIZE(fns); i++) {
        PyObject *fn = PyList_GET_ITEM(fns, i);
        PyObject *tup = grads_tuple(n->nout, grads);
        PyObject *r = tup ? PyObject_CallOneArg(fn, tup) : NULL;
        if (!r || (r != Py_None && check_returned_tuple(fn, tup, r) < 0))
            status = -1;
        else if (r != Py_None)
            take_grads_tuple(r, n->nout, grads);
        Py_XDECREF(r);
        Py_XDECREF(tup);
    }
    return status;
}

/* The node prehooks as registered when the node starts: a handle removed
 * while they run takes effect from the next backward, as in torch. */
static PyObject *node_prehooks_now(PyObject *list)
{
    PyObject *out = PyList_New(PyList_GET_SIZE(list));
    for (Py_ssize_t i = 0; out && i < PyList_GET_SIZE(list); i++) {
        PyObject *e = PyList_GET_ITEM(list, i);
        PyObject *fns = PyLong_AsLong(PyTuple_GET_ITEM(e, 0)) < 0
                            ? PyDict_Values(PyTuple_GET_ITEM(e, 1))
                            : Py_NewRef(Py_None);
        if (!fns)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, fns);
    }
    return out;
}

/* As torch's engine: the tensor hooks of the node's outputs, then their
 * retained grads (which see what the hooks returned). */
static int be_run_tensor_pre_hooks(mt_node *n, mt_tensor **grads)
{
    if (n->variable) { /* AccumulateGrad: the leaf's own hooks */
        mt_autograd_meta *m = mt_meta.get(n->variable);
        if (m && call_hook_dict(m->hooks, &grads[0]) < 0)
            return -1;
    }
    if (!n->pre_hooks)
        return 0;
    PyObject *entries = PySequence_List(n->pre_hooks);
    int status = entries ? 0 : -1;
    for (int pass = 0; pass < 2; pass++)
        for (Py_ssize_t i = 0; status == 0 && i < PyList_GET_SIZE(entries); i++) {
            PyObject *e = PyList_GET_ITEM(entries, i);
            long nr = PyLong_AsLong(PyTuple_GET_ITEM(e, 0));
            PyObject *hooks = PyTuple_GET_ITEM(e, 1), *metaaddr = PyTuple_GET_ITEM(e, 2);
            if (nr < 0 || nr >= n->nout)
                continue;
            if (pass == 0 && hooks != Py_None)
                status = call_hook_dict(hooks, &grads[nr]);
            else if (pass == 1 && metaaddr != Py_None)
                status = retain_into(PyLong_AsVoidPtr(metaaddr), grads[nr]);
        }
    Py_XDECREF(entries);
    return status;
}

/* The node's own prehooks (grad_fn.register_prehook(fn): fn(grad_outputs)),
 * after its tensor hooks. */
static int be_run_pre_hooks(mt_node *n, mt_tensor **grads)
{
    if (!n->pre_hooks)
        return 0;
    PyObject *entries = PySequence_List(n->pre_hooks);
    PyObject *prehooks = entries ? node_prehooks_now(entries) : NULL;
    int status = prehooks ? 0 : -1;
    for (Py_ssize_t i = 0; status == 0 && i < PyList_GET_SIZE(entries); i++)
        if (PyLong_AsLong(PyTuple_GET_ITEM(PyList_GET_ITEM(entries, i), 0)) < 0)
            status = call_node_prehooks(n, PyList_GET_ITEM(prehooks, i), grads);
    Py_XDECREF(prehooks);
    Py_XDECREF(entries);
    return status;
}

/* grad_fn.register_hook(fn): fn(grad_inputs, grad_outputs); a tuple it
 * returns replaces grad_inputs, and the next hook sees it. With gin NULL
 * grad_outputs is (), as torch gives it to hooks registered mid-call. */
static int be_run_post_hooks(mt_node *n, mt_tensor **gin, mt_tensor **gout)
{
    PyObject *ins = grads_tuple(n->nedges, gout), *outs = grads_tuple(gin ? n->nout : 0, gin);
    PyObject *fns = ins && outs ? PyDict_Values(n->post_hooks) : NULL;
    int status = fns ? 0 : -1;
    for (Py_ssize_t i = 0; status == 0 && i < PyList_GET_SIZE(fns); i++) {
        PyObject *fn = PyList_GET_ITEM(fns, i);
        PyObject *r = PyObject_CallFunctionObjArgs(fn, ins, outs, NULL);
        if (!r || (r != Py_None && check_returned_tuple(fn, ins, r) < 0))
            status = -1;
        else if (r != Py_None)
            Py_SETREF(ins, Py_NewRef(r));
        Py_XDECREF(r);
    }
    if (status == 0)
        take_grads_tuple(ins, n->nedges, gout);
    Py_XDECREF(fns);
    Py_XDECREF(ins);
    Py_XDECREF(outs);
    return status;
}

static int be_post_acc_hooks(mt_tensor *leaf)
{
    mt_autograd_meta *m = mt_meta.get(leaf);
    PyObject *self = (PyObject *)mtpy_container(leaf);
    if (!m || !m->hooks)
        return 0;
    /* post-accumulate hooks sit in the same dict under tuple keys ("post", id) */
    PyObject *items = PyDict_Items(m->hooks);
    if (!items)
        return -1;
    int status = 0;
    for (Py_ssize_t i = 0; status == 0 && i < PyList_GET_SIZE(items); i++) {
        PyObject *kv = PyList_GET_ITEM(items, i);
        PyObject *fn = PyTuple_GET_ITEM(kv, 1);
        if (!PyTuple_Check(PyTuple_GET_ITEM(kv, 0)))
            continue;
        PyObject *r = PyObject_CallOneArg(fn, self);
        if (!r)
            status = -1;
        else if (r != Py_None && r != self) {
            /* torch checks the value as a gradient's before refusing it (the
             * leaf itself passes) */
            if (check_returned(fn, leaf, r) == 0)
                PyErr_SetString(PyExc_RuntimeError,
                                "Tensor post accumulate grad hooks should return None.");
            status = -1;
        }
        Py_XDECREF(r);
    }
    Py_DECREF(items);
    return status;
}

/* ---------------------------------------------------------- anomaly mode
 * A node made in anomaly mode keeps (forward stack as a list of lines, the
 * grad_fn object of the node whose backward made it, or None). */

static void be_node_created(mt_node *n, mt_node *parent)
{
    PyObject *tb = PyImport_ImportModule("traceback");
    PyObject *stack = tb ? PyObject_CallMethod(tb, "format_stack", NULL) : NULL;
    PyObject *cause = parent ? mtpy_node_object(parent) : Py_NewRef(Py_None);
    if (stack && cause)
        n->anomaly = PyTuple_Pack(2, stack, cause);
    if (!n->anomaly)
        PyErr_Clear(); /* the stack is a debugging aid: the op goes on without it */
    Py_XDECREF(cause);
    Py_XDECREF(stack);
    Py_XDECREF(tb);
}

/* A warning that may not raise: it goes to stderr when warnings are errors. */
static void warn_or_print(PyObject *msg)
{
    const char *s = PyUnicode_AsUTF8(msg);
    if (s && PyErr_WarnEx(PyExc_UserWarning, s, 1) == 0)
        return;
    PyErr_Clear();
    PySys_FormatStderr("%U\n", msg);
}

static PyObject *stack_text(PyObject *anomaly)
{
    PyObject *empty = PyUnicode_FromString("");
    PyObject *text = empty ? PyUnicode_Join(empty, PyTuple_GET_ITEM(anomaly, 0)) : NULL;
    Py_XDECREF(empty);
    return text;
}

/* torch's report: where the failing node was made, then where each node
 * whose backward made the previous one was made. */
static void be_node_failed(mt_node *n)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    bool first = true;
    while (n) {
        PyObject *a = n->anomaly, *text = a ? stack_text(a) : NULL, *msg;
        if (!text)
            msg = PyUnicode_FromFormat("Error detected in %s. No forward pass information "
                                       "available. Enable detect anomaly during forward pass "
                                       "for more information.",
                                       n->kind->name);
        else if (first)
            msg = PyUnicode_FromFormat("Error detected in %s. Traceback of forward call that "
                                       "caused the error:\n%U",
                                       n->kind->name, text);
        else
            msg = PyUnicode_FromFormat("\n\nPrevious calculation was induced by %s. Traceback "
                                       "of forward call that induced the previous calculation:"
                                       "\n%U",
                                       n->kind->name, text);
        Py_XDECREF(text);
        if (msg)
            warn_or_print(msg);
        Py_XDECREF(msg);
        PyErr_Clear();
        first = false;
        PyObject *cause = a ? PyTuple_GET_ITEM(a, 1) : Py_None;
        n = cause == Py_None ? NULL : mtpy_node_of(cause);
    }
    PyErr_Restore(type, value, tb);
}

/* ------------------------------------------------------ saved-tensor hooks
 * autograd.graph.saved_tensors_hooks: a stack of (pack, unpack) pairs; the
 * innermost packs what nodes save from now on. A packed entry keeps
 * (unpack, what pack returned). */

static PyObject *saved_hooks_stack; /* list */

static int be_pack_saved(mt_tensor *t, void **packed)
{
    Py_ssize_t depth = saved_hooks_stack ? PyList_GET_SIZE(saved_hooks_stack) : 0;
    *packed = NULL;
    if (depth == 0)
        return 0;
    /* held: the hook may change the stack while it runs */
    PyObject *pair = Py_NewRef(PyList_GET_ITEM(saved_hooks_stack, depth - 1));
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        Py_DECREF(pair);
        PyErr_SetString(PyExc_RuntimeError, "saved tensors hooks must be (pack, unpack) pairs");
        return -1;
    }
    int rc = mtpy_pack_saved_with(pair, t, packed);
    Py_DECREF(pair);
    return rc;
}

int mtpy_pack_saved_with(PyObject *pair, mt_tensor *t, void **packed)
{
    int64_t version = mt_version(t);
    /* in no_grad mode, as torch's: what the hook computes saves nothing */
    bool grad_mode = mt_grad_enabled;
    mt_grad_enabled = false;
    PyObject *r = PyObject_CallOneArg(PyTuple_GET_ITEM(pair, 0), (PyObject *)mtpy_container(t));
    mt_grad_enabled = grad_mode;
    if (!r)
        return -1;
    if (mt_version(t) != version) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_RuntimeError,
                        "A saved tensor pack hook is modifying its input in place. Tensors "
                        "provided as input to pack hook cannot be modified by in-place operations "
                        "as this can lead to unexpected side-effects. Please open an issue if you "
                        "need to perform in-place operations on the input to a pack hook.");
        return -1;
    }
    *packed = PyTuple_Pack(2, PyTuple_GET_ITEM(pair, 1), r);
    Py_DECREF(r);
    return *packed ? 0 : -1;
}

static mt_tensor *be_unpack_saved(void *packed)
{
    PyObject *p = packed;
    PyObject *r = PyObject_CallOneArg(PyTuple_GET_ITEM(p, 0), PyTuple_GET_ITEM(p, 1));
    if (!r)
        return NULL;
    if (!MTPy_Check(r)) {
        PyErr_Format(PyExc_TypeError,
                     "Output of saved tensor unpack_hook expected to be a Tensor but got result "
                     "of type %s",
                     Py_TYPE(r)->tp_name);
        Py_DECREF(r);
        return NULL;
    }
    return MTPy_T(r); /* the new reference r is the tensor's */
}

/* A saved entry standing for a wrapper subclass instance
 * (Tensor._make_wrapper_subclass) is the instance's detach() as its
 * __torch_dispatch__ answers it, as torch saves such tensors through a
 * dispatched detach: a plain alias would stand for the placeholder memory.
 * A detach that fails is reported as unraisable and the entry aliases. */
static mt_tensor *be_alias_saved(mt_tensor *t)
{
    PyObject *o = (PyObject *)mtpy_container(t);
    if (Py_TYPE(o) == mtpy_tensor_class)
        return NULL;
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *flag = PyObject_GetAttrString(o, "_is_wrapper_subclass");
    int wrapper = flag ? PyObject_IsTrue(flag) : -1;
    Py_XDECREF(flag);
    PyObject *r = NULL;
    if (wrapper > 0) {
        bool grad = mt_grad_enabled;
        PyTypeObject *result_class = mtpy_result_class;
        mt_grad_enabled = false;
        mtpy_result_class = NULL;
        r = PyObject_CallMethod(o, "detach", NULL);
        mt_grad_enabled = grad;
        mtpy_result_class = result_class;
        if (r && !MTPy_Check(r)) {
            PyErr_Format(PyExc_TypeError, "detach() of a wrapper subclass returned %s",
                         Py_TYPE(r)->tp_name);
            Py_CLEAR(r);
        }
    }
    if (wrapper != 0 && !r)
        PyErr_WriteUnraisable(o);
    PyGILState_Release(gil);
    return r ? MTPy_T(r) : NULL; /* the new reference r is the tensor's */
}

/* _saved_tensors_hooks_stack(): the stack itself, a list of (pack, unpack)
 * tuples; autograd.graph pushes and pops it, and a backward run puts back
 * the stack it started with. */
static PyObject *get_saved_hooks_stack(PyObject *m, PyObject *unused)
{
    return Py_NewRef(saved_hooks_stack);
}

PyObject *mtpy_saved_hooks_stack(void) { return saved_hooks_stack; }

static PyMethodDef saved_hooks_methods[] = {
    {"_saved_tensors_hooks_stack", get_saved_hooks_stack, METH_NOARGS, NULL},
    {NULL},
};

static void be_node_freed(mt_node *n)
{
    Py_CLEAR(*(PyObject **)&n->anomaly);
    Py_CLEAR(*(PyObject **)&n->metadata);
    Py_CLEAR(*(PyObject **)&n->pre_hooks);
    Py_CLEAR(*(PyObject **)&n->post_hooks);
    Py_CLEAR(*(PyObject **)&n->py_ctx);
    for (int p = 0; n->args && p < n->nparams; p++)
        Py_CLEAR(*(PyObject **)&n->args[p].obj);
}

/* ------------------------------------------------------------------- meta */

MT_HOT static mt_autograd_meta *meta_get(mt_tensor *t) { return mtpy_container(t)->ag; }

MT_HOT static mt_autograd_meta *meta_get_or_create(mt_tensor *t)
{
    MTTensorObject *o = mtpy_container(t);
    if (!o->ag) {
        o->ag = PyMem_Calloc(1, sizeof(mt_autograd_meta));
        if (!o->ag) {
            PyErr_NoMemory();
            return NULL;
        }
        o->ag->refcount = 1;
    }
    return o->ag;
}

/* Removes this meta's retains-grad entries from node n's pre-hooks. */
static void unregister_retains(mt_autograd_meta *m, mt_node *n)
{
    if (!n || !n->pre_hooks)
        return;
    PyObject *list = n->pre_hooks;
    for (Py_ssize_t i = PyList_GET_SIZE(list) - 1; i >= 0; i--) {
        PyObject *addr = PyTuple_GET_ITEM(PyList_GET_ITEM(list, i), 2);
        if (addr != Py_None && PyLong_AsVoidPtr(addr) == m)
            PySequence_DelItem(list, i);
    }
}

static void unregister_from_node(mt_autograd_meta *m) { unregister_retains(m, m->grad_fn); }

/* The hooks registered so far stay with the old grad_fn (they see the
 * gradient of the tensor before the in-place change); later ones go to a new
 * dict on the new grad_fn. A retained grad is the tensor's latest one. */
static int be_history_moved(mt_tensor *t, mt_node *old)
{
    mt_autograd_meta *m = mt_meta.get(t);
    Py_CLEAR(*(PyObject **)&m->hooks);
    if (!m->retains_grad)
        return 0;
    unregister_retains(m, old);
    PyObject **slot = (PyObject **)&m->grad_fn->pre_hooks;
    if (!*slot && !(*slot = PyList_New(0)))
        return -1;
    PyObject *entry = Py_BuildValue("(IOO&)", m->output_nr, Py_None, PyLong_FromVoidPtr, m);
    int rc = entry ? PyList_Append(*slot, entry) : -1;
    Py_XDECREF(entry);
    return rc;
}

MT_HOT void mtpy_meta_release(MTTensorObject *o)
{
    mt_autograd_meta *m = o->ag;
    if (!m)
        return;
    o->ag = NULL;
    if (--m->refcount > 0)
        return;
    unregister_from_node(m);
    Py_CLEAR(*(PyObject **)&m->hooks);
    mt_meta_clear(m);
    PyMem_Free(m);
}

void mtpy_meta_share(MTTensorObject *dst, MTTensorObject *src)
{
    if (!src->ag)
        return;
    src->ag->refcount++;
    dst->ag = src->ag;
}

int mt_autograd_bind_init(PyObject *module)
{
    mt_owner = (mt_owner_hooks){
        .make = owner_make,
        .retain = owner_retain,
        .release = owner_release,
        .unshared = owner_unshared,
        .unlock = owner_unlock,
        .relock = owner_relock,
        .retain_object = owner_retain_object,
        .release_object = owner_release_object,
    };
    mt_warn_hook = warn_hook;
    mt_ad = (mt_ad_backend){
        .run_tensor_pre_hooks = be_run_tensor_pre_hooks,
        .run_pre_hooks = be_run_pre_hooks,
        .run_post_hooks = be_run_post_hooks,
        .run_tensor_post_acc_hooks = be_post_acc_hooks,
        .node_freed = be_node_freed,
        .node_held_once = mtpy_function_held_once,
        .history_moved = be_history_moved,
        .node_created = be_node_created,
        .node_failed = be_node_failed,
        .pack_saved = be_pack_saved,
        .unpack_saved = be_unpack_saved,
        .alias_saved = be_alias_saved,
    };
    mt_meta = (mt_meta_access){.get = meta_get, .get_or_create = meta_get_or_create};
    if (!(saved_hooks_stack = PyList_New(0)) ||
        PyModule_AddFunctions(module, saved_hooks_methods) < 0)
        return -1;
    if (mtpy_saved_tensor_init(module) < 0)
        return -1;
    return mt_node_object_init(module);
}
