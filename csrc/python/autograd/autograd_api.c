/* The Python face of autograd: Tensor.grad / grad_fn / is_leaf / hooks,
 * grad-mode switches, and the entry point that runs the engine. */
#include "autograd_bind.h"
#include "../dispatch/function.h"
#include "../dispatch/torch_function_state.h"

#include "../../autograd/engine.h"
#include "../../autograd/forward.h"
#include "../../autograd/grad_mode.h"
#include "../../autograd/view_tracking.h"
#include "../../kernels/copy.h"

#include <string.h>

PyObject *mtpy_add_hook(PyObject *dict, PyObject *fn, const char *prefix);

static mt_autograd_meta *meta_of(PyObject *self) { return ((MTTensorObject *)self)->ag; }

static PyObject *get_grad(PyObject *self, void *c)
{
    mt_autograd_meta *m = meta_of(self);
    if (m && m->grad)
        return Py_NewRef((PyObject *)mtpy_container(m->grad));
    Py_RETURN_NONE;
}

static int set_grad(PyObject *self, PyObject *v, void *c)
{
    if (v && v != Py_None) {
        if (!MTPy_Check(v)) {
            PyErr_Format(PyExc_TypeError,
                         "assigned grad expected to be a Tensor or None but got grad of type %s",
                         Py_TYPE(v)->tp_name);
            return -1;
        }
        mt_tensor *t = MTPy_T(self), *g = MTPy_T(v);
        if (g->dtype != t->dtype) {
            PyErr_SetString(PyExc_TypeError, "assigned grad has data of a different type");
            return -1;
        }
        bool same = g->ndim == t->ndim;
        for (int d = 0; same && d < t->ndim; d++)
            same = g->sizes[d] == t->sizes[d];
        if (!same) {
            PyErr_SetString(PyExc_RuntimeError, "assigned grad has data of a different size");
            return -1;
        }
    }
    mt_autograd_meta *m = v && v != Py_None ? mt_meta.get_or_create(MTPy_T(self)) : meta_of(self);
    if (!m)
        return v && v != Py_None ? -1 : 0;
    mt_tensor *old = m->grad;
    m->grad = v && v != Py_None ? (Py_INCREF(v), MTPy_T(v)) : NULL;
    if (old)
        Py_DECREF((PyObject *)mtpy_container(old));
    return 0;
}

static PyObject *get_grad_fn(PyObject *self, void *c)
{
    mt_autograd_meta *m = meta_of(self);
    if (mt_view_refresh(MTPy_T(self)) < 0)
        return mtpy_raise();
    if (m && m->grad_fn)
        return mtpy_node_object(m->grad_fn);
    Py_RETURN_NONE;
}

static PyObject *get_is_leaf(PyObject *self, void *c)
{
    mt_autograd_meta *m = meta_of(self);
    if (mt_view_refresh(MTPy_T(self)) < 0)
        return mtpy_raise();
    return PyBool_FromLong(!(m && m->grad_fn));
}

static PyObject *get_requires_grad(PyObject *self, void *c)
{
    return PyBool_FromLong(mt_requires_grad(MTPy_T(self)));
}

static int set_requires_grad_flag(PyObject *self, bool value)
{
    mt_autograd_meta *m = meta_of(self);
    if (m && m->grad_fn) {
        if (!value) {
            PyErr_SetString(PyExc_RuntimeError,
                            "you can only change requires_grad flags of leaf variables. If you "
                            "want to use a computed variable in a subgraph that doesn't require "
                            "differentiation use var_no_grad = var.detach().");
            return -1;
        }
        return 0;
    }
    if (value && !mt_is_inexact(MTPy_T(self)->dtype)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "only Tensors of floating point and complex dtype can require gradients");
        return -1;
    }
    if (value && MTPy_T(self)->storage->inference && !mt_inference_mode) {
        PyErr_SetString(PyExc_RuntimeError, "Setting requires_grad=True on inference tensor "
                                            "outside InferenceMode is not allowed.");
        return -1;
    }
    if (value)
        MTPy_T(self)->flags |= MT_FLAG_REQUIRES_GRAD;
    else
        MTPy_T(self)->flags &= ~MT_FLAG_REQUIRES_GRAD;
    return 0;
}

static int set_requires_grad(PyObject *self, PyObject *v, void *c)
{
    if (!v || !PyBool_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "requires_grad must be a bool");
        return -1;
    }
    return set_requires_grad_flag(self, v == Py_True);
}

static PyObject *get_retains_grad(PyObject *self, void *c)
{
    mt_autograd_meta *m = meta_of(self);
    return PyBool_FromLong(m && m->retains_grad);
}

static PyObject *get_output_nr(PyObject *self, void *c)
{
    mt_autograd_meta *m = meta_of(self);
    return PyLong_FromLong(m ? (long)m->output_nr : 0);
}

/* .data: the same memory with no history and a version counter of its own,
 * so writes through it are not seen by autograd's checks; assigning
 * replaces the memory and keeps the tensor's counter (torch's set_data). */
static PyObject *get_data(PyObject *self, void *c)
{
    mt_tensor *t = MTPy_T(self);
    PyObject *out = mtpy_new_view(self, t->ndim, t->sizes, t->strides, t->offset);
    if (out && mt_tensor_own_counter(MTPy_T(out), 0) < 0)
        Py_CLEAR(out);
    return out;
}

static int set_data(PyObject *self, PyObject *v, void *c)
{
    if (!v || !MTPy_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "data must be a Tensor");
        return -1;
    }
    mt_tensor *t = MTPy_T(self), *src = MTPy_T(v);
    if (mt_requires_grad(t) && !mt_is_inexact(src->dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "data set to a tensor that requires gradients must be "
                                            "floating point or complex dtype");
        return -1;
    }
    if (mt_tensor_keep_counter(t) < 0) {
        mtpy_raise();
        return -1;
    }
    mt_storage *old = t->storage;
    uint32_t flags = t->flags;
    mt_version_counter *counter = t->counter;
    mt_storage_incref(src->storage);
    *t = *src;
    t->flags = flags;
    t->counter = counter;
    mt_storage_decref(old);
    return 0;
}

static PyObject *get_base(PyObject *self, void *c)
{
    mt_autograd_meta *m = meta_of(self);
    if (m && m->view_base)
        return Py_NewRef((PyObject *)mtpy_container(m->view_base));
    Py_RETURN_NONE;
}

PyGetSetDef mt_autograd_getset[] = {
    {"grad", get_grad, set_grad,
     "The gradient backward accumulated into this tensor (None until then); leaves, and\n"
     "non-leaves after retain_grad(), get one.",
     NULL},
    {"grad_fn", get_grad_fn, NULL,
     "The graph node that made this tensor (None for a leaf); backward starts there.", NULL},
    {"is_leaf", get_is_leaf, NULL,
     "True for tensors no recorded operation made: those that do not require grad, and\n"
     "those the user created with requires_grad=True.",
     NULL},
    {"requires_grad", get_requires_grad, set_requires_grad,
     "Whether autograd records operations on this tensor; settable on leaves.", NULL},
    {"retains_grad", get_retains_grad, NULL,
     "True when retain_grad() was called on this non-leaf tensor.", NULL},
    {"output_nr", get_output_nr, NULL, "Which output of its grad_fn this tensor is (0 for a leaf).",
     NULL},
    {"data", get_data, set_data,
     "The tensor's values outside autograd: a detached alias; assigning replaces the\n"
     "tensor's storage, shape and dtype.",
     NULL},
    {"_base", get_base, NULL, NULL, NULL},
    {NULL},
};

static PyObject *requires_grad_(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"requires_grad", NULL};
    int value = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|p:requires_grad_", kwlist, &value))
        return NULL;
    if (set_requires_grad_flag(self, value) < 0)
        return NULL;
    return Py_NewRef(self);
}

/* The entry a non-leaf's grad_fn keeps for its hooks and retained grad. */
static int node_entry(PyObject *self, PyObject *hooks, bool retain)
{
    mt_autograd_meta *m = meta_of(self);
    PyObject **slot = (PyObject **)&m->grad_fn->pre_hooks;
    if (!*slot && !(*slot = PyList_New(0)))
        return -1;
    PyObject *entry = Py_BuildValue("(ION)", m->output_nr, hooks ? hooks : Py_None,
                                    retain ? PyLong_FromVoidPtr(m) : Py_NewRef(Py_None));
    if (!entry)
        return -1;
    int r = PyList_Append(*slot, entry);
    Py_DECREF(entry);
    return r;
}

static PyObject *retain_grad(PyObject *self, PyObject *unused)
{
    mt_autograd_meta *m = meta_of(self);
    if (!mt_requires_grad(MTPy_T(self)))
        return PyErr_Format(PyExc_RuntimeError,
                            "can't retain_grad on Tensor that has requires_grad=False");
    if (!m || !m->grad_fn || m->retains_grad)
        Py_RETURN_NONE; /* leaves keep their grad anyway */
    m->retains_grad = true;
    if (node_entry(self, NULL, true) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *tensor_hooks_dict(PyObject *self)
{
    if (!mt_requires_grad(MTPy_T(self)))
        return PyErr_Format(PyExc_RuntimeError,
                            "cannot register a hook on a tensor that doesn't require gradient");
    mt_autograd_meta *m = mt_meta.get_or_create(MTPy_T(self));
    if (!m)
        return NULL;
    if (!m->hooks) {
        if (!(m->hooks = PyDict_New()))
            return NULL;
        if (m->grad_fn && node_entry(self, m->hooks, false) < 0)
            return NULL;
    }
    return m->hooks;
}

static PyObject *register_hook(PyObject *self, PyObject *fn)
{
    PyObject *d = tensor_hooks_dict(self);
    return d ? mtpy_add_hook(d, fn, NULL) : NULL;
}

static PyObject *register_post_accumulate_grad_hook(PyObject *self, PyObject *fn)
{
    mt_autograd_meta *m = meta_of(self);
    if (m && m->grad_fn)
        return PyErr_Format(PyExc_RuntimeError,
                            "post accumulate grad hooks cannot be registered on non-leaf tensors");
    PyObject *d = tensor_hooks_dict(self);
    return d ? mtpy_add_hook(d, fn, "post") : NULL;
}

static PyObject *detach_(PyObject *self, PyObject *unused)
{
    /* a view shares its base's memory and history: detaching it in place
     * would leave the base's graph pointing at memory it no longer tracks */
    if (mt_is_view(MTPy_T(self)))
        return PyErr_Format(PyExc_RuntimeError,
                            "Can't detach views in-place. Use detach() instead. If you are "
                            "using DistributedDataParallel (DDP) for training, and "
                            "gradient_as_bucket_view is set as True, gradients are views of "
                            "DDP buckets, and hence detach_() cannot be called on these "
                            "gradients. To fix this error, please refer to the "
                            "Optimizer.zero_grad() function in torch/optim/optimizer.py as the "
                            "solution.");
    mt_autograd_meta *m = meta_of(self);
    if (m && m->grad_fn) {
        mt_node_decref(m->grad_fn);
        m->grad_fn = NULL;
    }
    MTPy_T(self)->flags &= ~MT_FLAG_REQUIRES_GRAD;
    /* as torch's detach_, the tensor leaves forward-mode AD too: its tangent goes */
    if (mt_fw_grad(MTPy_T(self)) && mt_fw_set_grad(MTPy_T(self), NULL) < 0)
        return mtpy_raise();
    return Py_NewRef(self);
}

/* Backward passes running in this thread: a nested one (a custom Function's
 * backward calling backward) takes the Python path, which moves deep nests
 * to fresh threads (minitorch.autograd._run_backward). */
static _Thread_local int engine_depth;
/* The running pass captures gradients (autograd.grad, backward(inputs=)):
 * reentrant checkpoint refuses those, as torch's. */
static _Thread_local bool engine_captures;

/* The run in progress (torch's graph task): hooks that must tell one run
 * from the next, or know its roots, read it (_current_graph_task_*); its
 * state dict lives as long as the run. */
typedef struct graph_run {
    int64_t id;
    mt_backward_task *task;
    PyObject *state; /* dict, made on first use */
    struct graph_run *outer;
} graph_run;
static _Thread_local graph_run *current_run;
static int64_t last_run_id;

/* A run also puts back the saved-tensor hooks stack it started with, as
 * torch's engine restores its thread state: what hooks enter or leave during
 * backward does not outlive it. */
static int run_engine(mt_backward_task *task)
{
    PyObject *hooks = mtpy_saved_hooks_stack();
    PyObject *kept = PyList_GetSlice(hooks, 0, PyList_GET_SIZE(hooks));
    if (!kept)
        return -1;
    graph_run run = {.id = __atomic_add_fetch(&last_run_id, 1, __ATOMIC_RELAXED),
                     .task = task,
                     .outer = current_run};
    current_run = &run;
    bool outer = engine_captures;
    engine_captures = task->ninputs > 0;
    engine_depth++;
    int r = mt_run_backward(task);
    engine_depth--;
    engine_captures = outer;
    current_run = run.outer;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (PyList_SetSlice(hooks, 0, PyList_GET_SIZE(hooks), kept) < 0)
        PyErr_Clear(); /* a list slice of a list: cannot fail short of memory */
    Py_DECREF(kept);
    Py_XDECREF(run.state);
    PyErr_Restore(type, value, tb);
    return r;
}

static PyObject *current_graph_task_id(PyObject *m, PyObject *unused)
{
    return PyLong_FromLongLong(current_run ? current_run->id : -1);
}

/* _current_graph_task_state(): the running pass's dict, or None outside one. */
static PyObject *current_graph_task_state(PyObject *m, PyObject *unused)
{
    if (!current_run)
        Py_RETURN_NONE;
    if (!current_run->state && !(current_run->state = PyDict_New()))
        return NULL;
    return Py_NewRef(current_run->state);
}

static PyObject *tensor_tuple(mt_tensor **ts, int n)
{
    PyObject *out = PyTuple_New(n);
    for (int i = 0; out && i < n; i++)
        PyTuple_SET_ITEM(out, i, Py_NewRef((PyObject *)mtpy_container(ts[i])));
    return out;
}

/* _current_graph_task_roots(): (roots, inputs or None) of the running pass. */
static PyObject *current_graph_task_roots(PyObject *m, PyObject *unused)
{
    if (!current_run)
        return PyErr_Format(PyExc_RuntimeError, "no backward pass is running");
    mt_backward_task *t = current_run->task;
    PyObject *roots = tensor_tuple(t->roots, t->nroots);
    PyObject *inputs = t->ninputs ? tensor_tuple(t->inputs, t->ninputs) : Py_NewRef(Py_None);
    PyObject *out = roots && inputs ? PyTuple_Pack(2, roots, inputs) : NULL;
    Py_XDECREF(roots);
    Py_XDECREF(inputs);
    return out;
}

/* _C._autograd._get_current_graph_task_keep_graph(): whether the running
 * pass keeps the graph (True outside one, as torch's). */
static PyObject *current_graph_task_keep_graph(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(current_run ? current_run->task->keep_graph : true);
}

static PyMethodDef autograd_submodule_methods[] = {
    {"_get_current_graph_task_keep_graph", current_graph_task_keep_graph, METH_NOARGS, NULL},
    {NULL},
};

/* Adds this file's part of _C._autograd (torch's torch._C._autograd), the
 * submodule module.c creates. */
int mt_autograd_api_init(PyObject *module)
{
    PyObject *sub = PyObject_GetAttrString(module, "_autograd");
    int rc = sub ? PyModule_AddFunctions(sub, autograd_submodule_methods) : -1;
    Py_XDECREF(sub);
    return rc;
}

static PyObject *engine_is_plain_backward(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(!engine_captures);
}

static PyObject *python_backward(PyObject *self, PyObject *gradient, PyObject *retain,
                                 PyObject *create, PyObject *inputs)
{
    PyObject *mod = PyImport_ImportModule("minitorch.autograd");
    PyObject *fn = mod ? PyObject_GetAttrString(mod, "backward") : NULL;
    Py_XDECREF(mod);
    if (!fn)
        return NULL;
    PyObject *args = Py_BuildValue("(OOOO)", self, gradient, retain, create);
    PyObject *kw = args ? Py_BuildValue("{sO}", "inputs", inputs) : NULL;
    PyObject *r = kw ? PyObject_Call(fn, args, kw) : NULL;
    Py_DECREF(fn);
    Py_XDECREF(args);
    Py_XDECREF(kw);
    return r;
}

/* Tensor.backward on a tensor-like or under a mode: the handlers see the
 * call, as torch's do (and nothing the backward pass runs inside). */
static PyObject *dispatch_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames)
{
    PyObject *func = PyObject_GetAttrString((PyObject *)mtpy_tensor_class, "backward");
    PyObject *all = func ? PyTuple_New(nargs + 1) : NULL;
    PyObject *kwargs = all ? PyDict_New() : NULL;
    PyObject *relevant = kwargs ? PyTuple_Pack(1, self) : NULL;
    PyObject *r = NULL;
    if (!relevant)
        goto done;
    PyTuple_SET_ITEM(all, 0, Py_NewRef(self));
    for (Py_ssize_t i = 0; i < nargs; i++)
        PyTuple_SET_ITEM(all, i + 1, Py_NewRef(args[i]));
    for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); k++)
        if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) < 0)
            goto done;
    r = mt_handle_torch_function(func, relevant, all, kwargs);
done:
    Py_XDECREF(func);
    Py_XDECREF(all);
    Py_XDECREF(kwargs);
    Py_XDECREF(relevant);
    return r;
}

/* Tensor.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None):
 * the common case runs the engine directly; inputs= and create_graph go
 * through minitorch.autograd.backward. */
static PyObject *tensor_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    static const char *names[] = {"gradient", "retain_graph", "create_graph", "inputs"};
    PyObject *v[4] = {Py_None, Py_None, Py_False, Py_None};
    if (mt_mode_active() ||
        (!mt_tf_disabled && !mt_tf_subclass_disabled && mt_has_torch_function(self)))
        return dispatch_backward(self, args, nargs, kwnames);
    if (nargs > 4)
        return PyErr_Format(PyExc_TypeError,
                            "backward() takes from 1 to 5 positional arguments but %zd were given",
                            nargs + 1);
    for (Py_ssize_t i = 0; i < nargs; i++)
        v[i] = args[i];
    for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); k++) {
        const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        int found = -1;
        for (int i = 0; key && i < 4; i++)
            if (strcmp(key, names[i]) == 0)
                found = i;
        if (found < 0)
            return PyErr_Format(PyExc_TypeError,
                                "backward() got an unexpected keyword argument '%s'", key);
        v[found] = args[nargs + k];
    }
    int create = PyObject_IsTrue(v[2]);
    if (create < 0)
        return NULL;
    /* create_graph too: minitorch.autograd.backward gives torch's warning */
    if (v[3] != Py_None || engine_depth > 0 || create)
        return python_backward(self, v[0], v[1], v[2], v[3]);
    mt_tensor *t = MTPy_T(self);
    if (!mt_requires_grad(t))
        return PyErr_Format(
            PyExc_RuntimeError,
            "element 0 of tensors does not require grad and does not have a grad_fn");
    int keep = v[1] == Py_None ? 0 : PyObject_IsTrue(v[1]);
    if (keep < 0)
        return NULL;
    PyObject *grad;
    if (v[0] == Py_None) {
        if (t->numel != 1)
            return PyErr_Format(PyExc_RuntimeError,
                                "grad can be implicitly created only for scalar outputs");
        if (mt_is_complex(t->dtype))
            return PyErr_Format(PyExc_RuntimeError,
                                "grad can be implicitly created only for real scalar outputs but "
                                "got minitorch.%s",
                                mt_dtype_infos[t->dtype].name);
        if (!(grad = mtpy_new_contiguous(t->dtype, t->ndim, t->sizes, false)))
            return NULL;
        mt_fill(MTPy_T(grad), 1.0, 1, 0);
    } else if (MTPy_Check(v[0])) {
        mt_tensor *g = MTPy_T(v[0]);
        bool same = g->ndim == t->ndim;
        for (int d = 0; same && d < t->ndim; d++)
            same = g->sizes[d] == t->sizes[d];
        if (!same) {
            PyObject *gs = mtpy_size(g->ndim, g->sizes), *ts = mtpy_size(t->ndim, t->sizes);
            PyErr_Format(PyExc_RuntimeError,
                         "Mismatch in shape: grad_output[0] has a shape of %R and output[0] has "
                         "a shape of %R.",
                         gs, ts);
            Py_XDECREF(gs);
            Py_XDECREF(ts);
            return NULL;
        }
        grad = Py_NewRef(v[0]);
    } else {
        return PyErr_Format(PyExc_TypeError, "gradients can be either Tensors or None, but got %s",
                            Py_TYPE(v[0])->tp_name);
    }
    mt_tensor *root = t, *root_grad = MTPy_T(grad);
    mt_backward_task task = {.nroots = 1,
                             .roots = &root,
                             .root_grads = &root_grad,
                             .keep_graph = keep,
                             .create_graph = create};
    int r = run_engine(&task);
    Py_DECREF(grad);
    if (r < 0)
        return PyErr_Occurred() ? NULL : mtpy_raise();
    Py_RETURN_NONE;
}

static PyObject *is_view(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(mt_is_view(MTPy_T(self)));
}

PyMethodDef mt_autograd_methods[] = {
    {"backward", (PyCFunction)(void (*)(void))tensor_backward, METH_FASTCALL | METH_KEYWORDS,
     "backward($self, /, gradient=None, retain_graph=None, create_graph=False, inputs=None)\n"
     "--\n\n"
     "Computes the gradient of this tensor with respect to the graph leaves.\n\n"
     "Runs the graph that made this tensor backward from its grad_fn and adds each\n"
     "leaf's gradient into its .grad (gradients accumulate: zero them between\n"
     "steps). The graph's saved tensors are freed afterwards unless retain_graph\n"
     "is True. Hooks registered with register_hook run as their tensor's gradient\n"
     "is computed. autograd.grad computes gradients without touching .grad.\n\n"
     "Args:\n"
     "    gradient (Tensor, optional): the gradient of some scalar with respect to this\n"
     "        tensor, of its shape. May be omitted for a one-element tensor (then 1).\n"
     "    retain_graph (bool, optional): keep the graph to run backward through it\n"
     "        again. Default: the value of create_graph.\n"
     "    create_graph (bool): record the backward pass itself, so the gradients\n"
     "        can be differentiated again (higher-order derivatives). Default: ``False``.\n"
     "    inputs (Tensor or sequence of Tensors, optional): accumulate into the .grad\n"
     "        of these tensors only, instead of every leaf.\n\n"
     "Raises:\n"
     "    RuntimeError: when this tensor does not require grad, when gradient is\n"
     "        omitted for a tensor of more than one element, or when the graph was\n"
     "        already freed by an earlier backward."},
    {"requires_grad_", (PyCFunction)(void (*)(void))requires_grad_, METH_VARARGS | METH_KEYWORDS,
     NULL},
    {"retain_grad", retain_grad, METH_NOARGS, NULL},
    {"register_hook", register_hook, METH_O, NULL},
    {"register_post_accumulate_grad_hook", register_post_accumulate_grad_hook, METH_O, NULL},
    {"detach_", detach_, METH_NOARGS, NULL},
    {"_is_view", is_view, METH_NOARGS, NULL},
    {NULL},
};

/* ------------------------------------------------------- module functions */

static int tensor_array(PyObject *seq, mt_tensor **out, Py_ssize_t n, const char *what)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
        if (!MTPy_Check(o)) {
            PyErr_Format(PyExc_TypeError, "%s must be Tensors, got %s", what, Py_TYPE(o)->tp_name);
            return -1;
        }
        out[i] = MTPy_T(o);
    }
    return 0;
}

/* _run_backward(roots, grads, keep_graph, create_graph, inputs or None,
 *               accumulate=False)
 * -> tuple of captured gradients (None where none reached) or None; with
 * accumulate, the inputs' nodes run (backward(inputs=...)) and nothing is
 * captured. */
static PyObject *run_backward(PyObject *m, PyObject *args)
{
    PyObject *roots, *grads, *inputs;
    int keep, create, accumulate = 0;
    if (!PyArg_ParseTuple(args, "OOppO|p:_run_backward", &roots, &grads, &keep, &create, &inputs,
                          &accumulate))
        return NULL;
    PyObject *rs = PySequence_Fast(roots, "roots"), *gs = PySequence_Fast(grads, "grads");
    PyObject *is = inputs == Py_None ? NULL : PySequence_Fast(inputs, "inputs");
    PyObject *result = NULL;
    mt_tensor **buf = NULL;
    if (!rs || !gs || (inputs != Py_None && !is))
        goto done;
    Py_ssize_t nr = PySequence_Fast_GET_SIZE(rs), ni = is ? PySequence_Fast_GET_SIZE(is) : 0;
    buf = PyMem_Calloc(2 * nr + 2 * ni + 1, sizeof *buf);
    if (!buf) {
        PyErr_NoMemory();
        goto done;
    }
    mt_backward_task task = {
        .nroots = (int)nr,
        .roots = buf,
        .root_grads = buf + nr,
        .keep_graph = keep,
        .create_graph = create,
        .ninputs = (int)ni,
        .inputs = buf + 2 * nr,
        .captured = buf + 2 * nr + ni,
        .accumulate = accumulate,
    };
    if (tensor_array(rs, task.roots, nr, "tensors") < 0 ||
        tensor_array(gs, task.root_grads, nr, "grad_tensors") < 0 ||
        (is && tensor_array(is, task.inputs, ni, "inputs") < 0))
        goto done;
    if (run_engine(&task) < 0) {
        if (!PyErr_Occurred())
            mtpy_raise();
        goto done;
    }
    if (!is || accumulate) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    result = PyTuple_New(ni);
    for (Py_ssize_t i = 0; i < ni; i++) {
        mt_tensor *g = task.captured[i];
        PyObject *o = g ? (PyObject *)mtpy_container(g) : Py_NewRef(Py_None);
        if (result)
            PyTuple_SET_ITEM(result, i, o);
        else
            Py_DECREF(o);
    }
done:
    Py_XDECREF(rs);
    Py_XDECREF(gs);
    Py_XDECREF(is);
    PyMem_Free(buf);
    return result;
}

static PyObject *set_grad_enabled(PyObject *m, PyObject *v)
{
    int prev = mt_grad_enabled;
    int b = PyObject_IsTrue(v);
    if (b < 0)
        return NULL;
    mt_grad_enabled = b;
    return PyBool_FromLong(prev);
}

/* _set_anomaly_enabled(enabled, check_nan=True) */
static PyObject *set_anomaly_enabled(PyObject *m, PyObject *args)
{
    int enabled, check_nan = 1;
    if (!PyArg_ParseTuple(args, "p|p:_set_anomaly_enabled", &enabled, &check_nan))
        return NULL;
    mt_anomaly_enabled = enabled;
    mt_anomaly_check_nan = check_nan;
    Py_RETURN_NONE;
}

static PyObject *is_anomaly_enabled(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(mt_anomaly_enabled);
}

static PyObject *is_anomaly_check_nan_enabled(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(mt_anomaly_check_nan);
}

static PyObject *is_grad_enabled(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(mt_grad_enabled);
}

static PyObject *set_inference_mode(PyObject *m, PyObject *v)
{
    int prev = mt_inference_mode;
    int b = PyObject_IsTrue(v);
    if (b < 0)
        return NULL;
    mt_inference_mode = b;
    return PyBool_FromLong(prev);
}

static PyObject *is_inference_mode_enabled(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(mt_inference_mode);
}

PyMethodDef mt_autograd_module_methods[] = {
    {"_run_backward", run_backward, METH_VARARGS, NULL},
    {"_set_grad_enabled", set_grad_enabled, METH_O, NULL},
    {"is_grad_enabled", is_grad_enabled, METH_NOARGS,
     "is_grad_enabled()\n--\n\nReturns True if autograd records operations (not inside no_grad)."},
    {"_set_anomaly_enabled", set_anomaly_enabled, METH_VARARGS, NULL},
    {"_engine_is_plain_backward", engine_is_plain_backward, METH_NOARGS, NULL},
    {"_current_graph_task_id", current_graph_task_id, METH_NOARGS, NULL},
    {"_current_graph_task_state", current_graph_task_state, METH_NOARGS, NULL},
    {"_current_graph_task_roots", current_graph_task_roots, METH_NOARGS, NULL},
    {"is_anomaly_enabled", is_anomaly_enabled, METH_NOARGS, NULL},
    {"is_anomaly_check_nan_enabled", is_anomaly_check_nan_enabled, METH_NOARGS, NULL},
    {"_set_inference_mode", set_inference_mode, METH_O, NULL},
    {"is_inference_mode_enabled", is_inference_mode_enabled, METH_NOARGS,
     "is_inference_mode_enabled()\n--\n\nReturns True inside an inference_mode block."},
    {NULL},
};
