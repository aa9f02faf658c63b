/* Custom autograd.Function: a node kind whose backward calls the Python
 * `backward` (or `vjp`) of the Function class.
 *
 * Ownership:
 *   output tensors -> node -> (py_ctx) FunctionNode -> ctx (the Python object
 *   forward saw) ; ctx -> FunctionNode only through a weak reference, kept in a
 *   C slot of _FunctionBase so Python code cannot hold the FunctionNode past
 *   the node's life. The FunctionNode dies exactly when the node is freed.
 *   The ctx is also the node's grad_fn object, as torch's (a _Node); once
 *   handed out as one it holds the node. When the node is left to that hold
 *   alone and nothing but the node holds the ctx (its outputs died after
 *   Python code let go of the ctx), node_held_once frees both at once; the
 *   other order (the ctx let go after the outputs died) leaves a cycle its
 *   traversal lets the collector free.
 * The engine only sees the kind: its backward pointer and py_ctx. */
#include "autograd_bind.h"

#include "../../autograd/backend.h"
#include "../../autograd/formula.h"
#include "../../autograd/grad_mode.h"
#include "../../autograd/validate.h"
#include "../../autograd/view_tracking.h"

#include <string.h>

/* One kind per Function class, kept alive by a capsule the class and every
 * FunctionNode of it hold. */
typedef struct {
    mt_node_kind kind;
    char name[128];     /* "LinearFunctionBackward" */
    char cls_name[128]; /* "LinearFunction": names saved outputs in version errors */
} function_kind;

enum { OUT_NONE, OUT_DIFF, OUT_NONDIFF };

typedef struct {
    PyObject_HEAD mt_node *node; /* the node owning this object (alive while we are) */
    PyObject *ctx;
    PyObject *kind_capsule;
    int ninputs;
    int *input_edge;     /* per forward argument: its edge, or -1 (not a tensor) */
    uint8_t *out_tensor; /* per output: OUT_NONE, OUT_DIFF or OUT_NONDIFF */
    int nsaved;
    mt_saved *saved;
    bool materialize;
    bool saved_taken; /* clear_saved_tensors_on_access: read once, then freed */
    PyObject *weakrefs;
} FunctionNodeObject;

typedef struct {
    MTNodeObject base;  /* its node once handed out as a grad_fn */
    PyObject *node_ref; /* weak reference to the FunctionNode, once recorded */
} FunctionBaseObject;

static PyTypeObject FunctionNode_Type;
static PyTypeObject FunctionBase_Type;

static void release_saved_entries(FunctionNodeObject *h)
{
    for (int i = 0; i < h->nsaved; i++)
        mt_saved_release(&h->saved[i]);
}

static void function_node_dealloc(FunctionNodeObject *h)
{
    if (h->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)h);
    release_saved_entries(h);
    PyMem_Free(h->saved);
    PyMem_Free(h->input_edge);
    PyMem_Free(h->out_tensor);
    Py_XDECREF(h->ctx);
    Py_XDECREF(h->kind_capsule);
    PyObject_Free(h);
}

static PyTypeObject FunctionNode_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch._C._FunctionNode",
    .tp_basicsize = sizeof(FunctionNodeObject),
    .tp_dealloc = (destructor)function_node_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_weaklistoffset = offsetof(FunctionNodeObject, weakrefs),
};

/* Called by the engine after a backward that does not keep the graph. */
static void python_function_release(mt_node *n)
{
    if (n->py_ctx)
        release_saved_entries(n->py_ctx);
}

/* ctx._materialize_non_diff_grads (default True): False leaves the grads of
 * non-differentiable outputs None even when grads are materialized. */
static bool materialize_non_diff(FunctionNodeObject *h)
{
    PyObject *v = PyObject_GetAttrString(h->ctx, "_materialize_non_diff_grads");
    int b = v ? PyObject_IsTrue(v) : 1;
    Py_XDECREF(v);
    PyErr_Clear();
    return b != 0;
}

static int python_function_backward(mt_node *n, mt_tensor **gin, mt_tensor **gout)
{
    FunctionNodeObject *h = n->py_ctx;
    const char *name = n->kind->name;
    if (!h) {
        mt_error(MT_ERR_RUNTIME, "the Python side of this custom Function node is gone");
        return -1;
    }
    PyObject *grads = PyTuple_New(n->nout), *apply = NULL, *r = NULL, *seq = NULL;
    int status = -1;
    if (!grads)
        return -1;
    for (int k = 0; k < n->nout; k++) {
        PyObject *g;
        if (gin[k])
            g = Py_NewRef((PyObject *)mtpy_container(gin[k]));
        else if (h->materialize && h->out_tensor[k] &&
                 (h->out_tensor[k] == OUT_DIFF || materialize_non_diff(h))) {
            mt_tensor_meta *m = &n->out_meta[k];
            mt_tensor *z = mt_new(m->dtype, m->ndim, m->sizes, true);
            if (!z)
                goto done;
            g = (PyObject *)mtpy_container(z);
        } else
            g = Py_NewRef(Py_None);
        PyTuple_SET_ITEM(grads, k, g);
    }
    if (!(apply = PyObject_GetAttrString(h->ctx, "apply")) ||
        !(r = PyObject_Call(apply, grads, NULL)))
        goto done;
    if (!(seq = PyTuple_Check(r) ? Py_NewRef(r) : PyTuple_Pack(1, r)))
        goto done;
    Py_ssize_t got = PyTuple_GET_SIZE(seq);
    bool bad_count = got < h->ninputs;
    for (Py_ssize_t i = h->ninputs; i < got; i++)
        bad_count |= PyTuple_GET_ITEM(seq, i) != Py_None;
    if (bad_count) {
        PyErr_Format(PyExc_RuntimeError,
                     "function %s returned an incorrect number of gradients (expected %d, got %zd)",
                     name, h->ninputs, got);
        goto done;
    }
    for (int i = 0; i < h->ninputs; i++) {
        PyObject *v = PyTuple_GET_ITEM(seq, i);
        if (v == Py_None)
            continue;
        int e = h->input_edge[i];
        if (e < 0) {
            PyErr_Format(PyExc_RuntimeError,
                         "function %s returned a gradient different than None at position %d, "
                         "but the corresponding forward input was not a Variable",
                         name, i + 1);
            goto done;
        }
        if (!MTPy_Check(v)) {
            PyErr_Format(PyExc_RuntimeError, "expected Variable or None (got %s)",
                         Py_TYPE(v)->tp_name);
            goto done;
        }
        if (n->edges[e].fn) /* else that input needs no gradient */
            gout[e] = (Py_INCREF(v), MTPy_T(v));
    }
    /* also here, not only in the engine: CopySlices calls this backward too */
    status = mt_validate_outputs(n, gout);
done:
    if (status < 0)
        mt_release_all(n->nedges, gout);
    Py_XDECREF(seq);
    Py_XDECREF(r);
    Py_XDECREF(apply);
    Py_DECREF(grads);
    return status;
}

/* _function_kind(class_name, node_name=None) -> capsule with the node kind
 * of that class, named node_name (default: class_name + "Backward"; torch's
 * own nodes made by Python Functions here, such as Error, differ). */
static void kind_capsule_free(PyObject *cap)
{
    PyMem_Free(PyCapsule_GetPointer(cap, "minitorch.function_kind"));
}

static PyObject *function_kind_new(PyObject *m, PyObject *args)
{
    const char *s, *node_name = NULL;
    if (!PyArg_ParseTuple(args, "s|z:_function_kind", &s, &node_name))
        return NULL;
    function_kind *k = PyMem_Calloc(1, sizeof *k);
    if (!k)
        return PyErr_NoMemory();
    if (node_name)
        snprintf(k->name, sizeof k->name, "%s", node_name);
    else
        snprintf(k->name, sizeof k->name, "%sBackward", s);
    snprintf(k->cls_name, sizeof k->cls_name, "%s", s);
    k->kind = (mt_node_kind){
        .name = k->name, .backward = python_function_backward, .release = python_function_release};
    PyObject *cap = PyCapsule_New(k, "minitorch.function_kind", kind_capsule_free);
    if (!cap)
        PyMem_Free(k);
    return cap;
}

static int contains(PyObject *seq, PyObject *o)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(seq); i++)
        if (PyTuple_GET_ITEM(seq, i) == o)
            return 1;
    return 0;
}

static int tensor_index(PyObject *args, PyObject *o)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++)
        if (PyTuple_GET_ITEM(args, i) == o)
            return (int)i;
    return -1;
}

static bool has_history_of(mt_tensor *t, mt_node *n)
{
    mt_autograd_meta *m = mt_meta.get(t);
    return m && m->grad_fn == n;
}

static const char not_an_input[] =
    "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been "
    "mutated should be passed to ctx.mark_dirty().";

/* torch's refusals for what forward marked dirty; record: the call records. */
static int check_dirty(PyObject *args, PyObject *outs, PyObject *dirty, PyObject *nondiff,
                       bool record)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dirty); i++) {
        PyObject *d = PyTuple_GET_ITEM(dirty, i);
        if (!contains(outs, d)) {
            PyErr_SetString(PyExc_RuntimeError,
                            "Some elements marked as dirty during the forward method were not "
                            "returned as output. The inputs that are modified inplace must all be "
                            "outputs of the Function.");
            return -1;
        }
        if (!record || !MTPy_Check(d) || contains(nondiff, d) || !mt_is_inexact(MTPy_T(d)->dtype))
            continue;
        mt_tensor *t = MTPy_T(d);
        mt_autograd_meta *dm = mt_meta.get(t);
        if ((t->flags & MT_FLAG_REQUIRES_GRAD) && !(dm && dm->grad_fn)) {
            PyErr_SetString(PyExc_RuntimeError,
                            "a leaf Variable that requires grad has been used in an in-place "
                            "operation.");
            return -1;
        }
        if (tensor_index(args, d) < 0) {
            if (mt_is_view(t)) {
                PyErr_SetString(PyExc_RuntimeError, not_an_input);
                return -1;
            }
            if (PyErr_WarnEx(PyExc_UserWarning, not_an_input, 1) < 0)
                return -1;
        }
        if (!mt_is_view(t))
            continue;
        if (PyTuple_GET_SIZE(outs) > 1) {
            PyErr_SetString(
                PyExc_RuntimeError,
                "If your Function modifies inplace an input that is a view of another Tensor, your "
                "Function cannot return more than one Tensor. This is not supported by the current "
                "autograd engine. You should either make sure the input is not a view (using "
                ".clone() for example) or make your Function only return one Tensor (potentially "
                "splitting it into two Functions: one doing the inplace that returns a single "
                "Tensor and a second one that does the other operations). You can ask on the "
                "forum https://discuss.pytorch.org/ if you need help to do this change.");
            return -1;
        }
        if (mt_view_check_inplace(t) < 0) {
            mtpy_raise();
            return -1;
        }
    }
    return 0;
}

/* An input forward returned unchanged: a view of it, so it can take its own
 * history (or, when it requires grad but gets no history here, a detached
 * alias, as torch's). */
static PyObject *returned_input(PyObject *o, bool differentiable)
{
    mt_tensor *t = MTPy_T(o);
    if (!differentiable && mt_requires_grad(t))
        return PyObject_CallMethod(o, "detach", NULL);
    PyObject *v = mtpy_new_view(o, t->ndim, t->sizes, t->strides, t->offset);
    if (v && mt_view_track(MTPy_T(v), t, false) < 0) {
        Py_DECREF(v);
        return mtpy_raise();
    }
    /* a Tensor subclass comes back as itself (its __torch_function__ stays) */
    if (v && Py_TYPE(v) != Py_TYPE(o))
        Py_SETREF(v, mtpy_as_subclass(v, Py_TYPE(o)));
    return v;
}

/* _function_record(ctx, kind, args, outputs, to_save, non_differentiable, dirty,
 *                  materialize, record) -> outputs (a tuple).
 * Runs after forward. Outputs that are inputs become views of them; views
 * among the outputs may no longer be changed in place. When record (grad
 * mode is on and some tensor argument requires grad) the differentiable
 * outputs get history. Everything that can fail on user input is checked
 * before the first tensor gets history, so an error leaves no half-built
 * graph. */
static PyObject *function_record(PyObject *m, PyObject *a)
{
    PyObject *ctx, *cap, *args, *outs, *to_save, *nondiff, *dirty;
    int materialize, record;
    if (!PyArg_ParseTuple(a, "O!O!O!O!O!O!O!pp:_function_record", &FunctionBase_Type, &ctx,
                          &PyCapsule_Type, &cap, &PyTuple_Type, &args, &PyTuple_Type, &outs,
                          &PyTuple_Type, &to_save, &PyTuple_Type, &nondiff, &PyTuple_Type, &dirty,
                          &materialize, &record))
        return NULL;
    function_kind *fk = PyCapsule_GetPointer(cap, "minitorch.function_kind");
    if (!fk)
        return NULL;
    int nargs = (int)PyTuple_GET_SIZE(args), nout = (int)PyTuple_GET_SIZE(outs);
    int nsaved = record ? (int)PyTuple_GET_SIZE(to_save) : 0;
    for (int i = 0; i < nsaved; i++) {
        PyObject *o = PyTuple_GET_ITEM(to_save, i);
        if (o != Py_None && !MTPy_Check(o))
            return PyErr_Format(PyExc_TypeError,
                                "save_for_backward can only save variables, but argument %d is "
                                "of type %s",
                                i, Py_TYPE(o)->tp_name);
        if (o != Py_None && MTPy_T(o)->storage->inference) {
            PyErr_SetString(PyExc_RuntimeError, mt_inference_save_message);
            return NULL;
        }
    }
    if (check_dirty(args, outs, dirty, nondiff, record) < 0)
        return NULL;
    int nedges = 0;
    for (int i = 0; i < nargs; i++)
        nedges += MTPy_Check(PyTuple_GET_ITEM(args, i));

    PyObject *result = PyTuple_New(nout);
    bool *diff = PyMem_Calloc(nout + 1, sizeof(bool));
    FunctionNodeObject *h = NULL;
    mt_node *n = NULL;
    if (!result || !diff) {
        PyErr_NoMemory();
        goto fail;
    }
    if (record) {
        h = PyObject_New(FunctionNodeObject, &FunctionNode_Type);
        if (h) {
            h->node = NULL;
            h->ctx = Py_NewRef(ctx);
            h->kind_capsule = Py_NewRef(cap);
            h->ninputs = nargs;
            h->nsaved = 0;
            h->materialize = materialize;
            h->saved_taken = false;
            h->weakrefs = NULL;
            h->input_edge = PyMem_Calloc(nargs + 1, sizeof(int));
            h->out_tensor = PyMem_Calloc(nout + 1, sizeof(uint8_t));
            h->saved = PyMem_Calloc(nsaved + 1, sizeof(mt_saved));
        }
        if (!h || !h->input_edge || !h->out_tensor || !h->saved) {
            PyErr_NoMemory();
            goto fail;
        }
        if (!(n = mt_node_new(&fk->kind, nedges, nout, 0))) {
            PyErr_NoMemory();
            goto fail;
        }
        n->op_name = fk->cls_name;
        for (int i = 0, e = 0; i < nargs; i++) {
            PyObject *o = PyTuple_GET_ITEM(args, i);
            h->input_edge[i] = -1;
            if (!MTPy_Check(o))
                continue;
            mt_tensor *t = MTPy_T(o);
            if (mt_gradient_edge(t, &n->edges[e]) < 0)
                goto fail;
            n->edge_meta[e].dtype = t->dtype;
            n->edge_meta[e].ndim = t->ndim;
            memcpy(n->edge_meta[e].sizes, t->sizes, sizeof(int64_t) * t->ndim);
            h->input_edge[i] = e++;
        }
    }
    int ndiff = 0;
    for (int k = 0; k < nout; k++) {
        PyObject *o = PyTuple_GET_ITEM(outs, k);
        if (!MTPy_Check(o)) {
            PyTuple_SET_ITEM(result, k, Py_NewRef(o));
            continue;
        }
        diff[k] = record && mt_is_inexact(MTPy_T(o)->dtype) && !contains(nondiff, o);
        ndiff += diff[k];
        if (tensor_index(args, o) >= 0 && !contains(dirty, o))
            o = returned_input(o, diff[k]);
        else
            Py_INCREF(o);
        if (!o)
            goto fail;
        PyTuple_SET_ITEM(result, k, o);
        if (!record)
            continue;
        h->out_tensor[k] = diff[k] ? OUT_DIFF : OUT_NONDIFF;
        mt_tensor *t = MTPy_T(o);
        n->out_meta[k].dtype = t->dtype;
        n->out_meta[k].ndim = t->ndim;
        memcpy(n->out_meta[k].sizes, t->sizes, sizeof(int64_t) * t->ndim);
    }
    /* A dirty view takes this node as the change of its base (CopySlices);
     * other differentiable outputs take it as their history. */
    for (int k = 0; k < nout; k++) {
        PyObject *raw = PyTuple_GET_ITEM(outs, k);
        if (!diff[k])
            continue;
        mt_tensor *t = MTPy_T(PyTuple_GET_ITEM(result, k));
        int i = tensor_index(args, raw);
        int rc = contains(dirty, raw) && i >= 0 && mt_is_view(t)
                     ? mt_view_rebase(t, n, h->input_edge[i])
                     : mt_set_history(t, n, (uint32_t)k);
        if (rc < 0)
            goto fail;
    }
    for (int k = 0; k < nout; k++) {
        PyObject *raw = PyTuple_GET_ITEM(outs, k);
        if (MTPy_Check(raw) && !(contains(dirty, raw) && tensor_index(args, raw) >= 0))
            mt_view_mark_custom(MTPy_T(PyTuple_GET_ITEM(result, k)), ndiff > 1);
    }
    PyMem_Free(diff);
    diff = NULL;
    if (!record)
        return result;
    for (int i = 0; i < nsaved; i++, h->nsaved++) {
        PyObject *o = PyTuple_GET_ITEM(to_save, i);
        if (o == Py_None)
            continue;
        mt_tensor *t = MTPy_T(o);
        int k = tensor_index(result, o);
        /* a dirty view's history is its base's CopySlices of n; held with
         * history it would keep itself alive through n */
        bool is_output = k >= 0 && (has_history_of(t, n) || contains(dirty, o));
        mt_saved_set(n, &h->saved[i], t, is_output, is_output ? (uint32_t)k : 0);
        if (is_output)
            h->saved[i].producer = fk->cls_name;
    }
    if (mt_saved_pack(h->saved, h->nsaved) < 0)
        goto fail;
    h->node = n;
    n->py_ctx = h; /* the node now owns h */
    h = NULL;
    PyObject *ref = PyWeakref_NewRef((PyObject *)n->py_ctx, NULL);
    if (!ref)
        goto fail;
    Py_XSETREF(((FunctionBaseObject *)ctx)->node_ref, ref);
    mt_node_decref(n); /* the outputs hold it now */
    return result;
fail:
    PyMem_Free(diff);
    if (n)
        mt_node_decref(n);
    Py_XDECREF(h);
    Py_XDECREF(result);
    return mtpy_raise();
}

PyObject *mtpy_function_ctx(mt_node *n)
{
    if (n->kind->backward != python_function_backward || !n->py_ctx)
        return NULL;
    return ((FunctionNodeObject *)n->py_ctx)->ctx;
}

void mtpy_function_held_once(mt_node *n)
{
    MTNodeObject *ctx = (MTNodeObject *)mtpy_function_ctx(n);
    if (!ctx || ctx->node != n || Py_REFCNT(ctx) != 1)
        return;
    ctx->node = NULL;
    mt_node_decref(n);
}

mt_saved *mtpy_function_saved(mt_node *n, int *count)
{
    if (n->kind->backward != python_function_backward || !n->py_ctx)
        return NULL;
    FunctionNodeObject *h = n->py_ctx;
    *count = h->nsaved;
    return h->saved;
}

/* ------------------------------------------------------------ _FunctionBase */

static int function_base_traverse(FunctionBaseObject *o, visitproc visit, void *arg)
{
    Py_VISIT(o->node_ref);
    mt_node *n = o->base.node;
    return n && n->refcount == 1 ? mtpy_node_traverse(n, visit, arg) : 0;
}

static int function_base_clear(FunctionBaseObject *o)
{
    Py_CLEAR(o->node_ref);
    mt_node *n = o->base.node;
    o->base.node = NULL;
    if (n)
        mt_node_decref(n);
    return 0;
}

/* Python subclasses' subtype_dealloc drops the type reference itself. */
static void function_base_dealloc(FunctionBaseObject *o)
{
    PyObject_GC_UnTrack(o);
    function_base_clear(o);
    Py_TYPE(o)->tp_free(o);
}

/* torch's repr of a ctx / custom grad_fn: the default object repr */
static PyObject *function_base_repr(PyObject *o) { return PyBaseObject_Type.tp_repr(o); }

static PyObject *freed_error(void)
{
    PyErr_SetString(PyExc_RuntimeError,
                    "Trying to backward through the graph a second time (or directly access "
                    "saved tensors after they have already been freed). Saved intermediate values "
                    "of the graph are freed when you call .backward() or autograd.grad(). Specify "
                    "retain_graph=True if you need to backward through the graph a second time or "
                    "if you need to access saved tensors after calling backward.");
    return NULL;
}

/* ctx.saved_tensors: what save_for_backward kept, version-checked; saved
 * outputs come back attached to this node. Before recording (or when nothing
 * was recorded) the tensors given to save_for_backward. */
static PyObject *get_saved_tensors(FunctionBaseObject *self, void *c)
{
    if (!self->node_ref) {
        PyObject *to_save = PyObject_GetAttrString((PyObject *)self, "to_save");
        if (!to_save)
            return NULL;
        if (to_save == Py_None) {
            Py_DECREF(to_save);
            return PyTuple_New(0);
        }
        PyObject *r = PySequence_Tuple(to_save);
        Py_DECREF(to_save);
        return r;
    }
    FunctionNodeObject *h = (FunctionNodeObject *)PyWeakref_GetObject(self->node_ref);
    if ((PyObject *)h == Py_None)
        return freed_error();
    mt_node *n = h->node;
    if (h->saved_taken) {
        PyErr_SetString(PyExc_RuntimeError,
                        "saved_tensors can only be accessed once when "
                        "clear_saved_tensors_on_access=True is set on the autograd.Function. "
                        "Either access saved_tensors only once, or set "
                        "clear_saved_tensors_on_access=False.");
        return NULL;
    }
    if (n->saved_released)
        return freed_error();
    PyObject *r = PyTuple_New(h->nsaved);
    for (int i = 0; r && i < h->nsaved; i++) {
        PyObject *o;
        if (!h->saved[i].t && !h->saved[i].packed)
            o = Py_NewRef(Py_None);
        else {
            mt_tensor *t = mt_saved_get(n, &h->saved[i]);
            if (!t) {
                Py_CLEAR(r);
                mtpy_raise();
                break;
            }
            o = (PyObject *)mtpy_container(t);
        }
        PyTuple_SET_ITEM(r, i, o);
    }
    /* the Function may ask that the node let go of them once handed out */
    PyObject *clear =
        r ? PyObject_GetAttrString((PyObject *)self, "clear_saved_tensors_on_access") : NULL;
    int take = clear ? PyObject_IsTrue(clear) : 0;
    Py_XDECREF(clear);
    if (r && (take < 0 || !clear)) {
        PyErr_Clear();
        take = 0;
    }
    if (take) {
        release_saved_entries(h);
        h->saved_taken = true;
    }
    return r;
}

static PyObject *get_saved_variables(FunctionBaseObject *self, void *c)
{
    if (PyErr_WarnEx(PyExc_DeprecationWarning,
                     "'saved_variables' is deprecated; use 'saved_tensors'", 0) < 0)
        return NULL;
    return get_saved_tensors(self, c);
}

static PyGetSetDef function_base_getset[] = {
    {"saved_tensors", (getter)get_saved_tensors, NULL, NULL, NULL},
    {"saved_variables", (getter)get_saved_variables, NULL, NULL, NULL},
    {NULL},
};

static PyTypeObject FunctionBase_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch._C._FunctionBase",
    .tp_basicsize = sizeof(FunctionBaseObject),
    .tp_dealloc = (destructor)function_base_dealloc,
    .tp_repr = function_base_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)function_base_traverse,
    .tp_clear = (inquiry)function_base_clear,
    .tp_getset = function_base_getset,
    .tp_new = PyType_GenericNew,
};

static PyMethodDef function_methods[] = {
    {"_function_kind", function_kind_new, METH_VARARGS, NULL},
    {"_function_record", function_record, METH_VARARGS, NULL},
    {NULL},
};

int mt_py_function_init(PyObject *module)
{
    FunctionBase_Type.tp_base = &MTNode_Type;
    if (PyType_Ready(&FunctionNode_Type) < 0 || PyType_Ready(&FunctionBase_Type) < 0)
        return -1;
    if (PyModule_AddObjectRef(module, "_FunctionBase", (PyObject *)&FunctionBase_Type) < 0)
        return -1;
    return PyModule_AddFunctions(module, function_methods);
}
