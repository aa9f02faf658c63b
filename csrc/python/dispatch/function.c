#include "function.h"
#include "docstring.h"
#include "torch_function_state.h"
#include "../autograd/autograd_bind.h"
#include "../types/return_types.h"
#include "../interop/foreign_tensors.h"

#include "../../autograd/derivatives.h"
#include "../../autograd/record.h"
#include "../../ops/runtime/deprecated_form.h"

#include <structmember.h>
#ifdef __GLIBC__
#include <pthread.h>
#endif

#include "../../core/portable.h"
#include "../../core/hot.h"

/* A call of a deprecated overload (ops/runtime/deprecated_form.h) warns as
 * torch's parser does and becomes the call of the row it stands for, which
 * then dispatches, records and runs as any call of that row. */
static Py_NO_INLINE int forward_deprecated(MTFunctionObject *f, mtpy_call *c)
{
    const mt_op *op = f->rows[c->a.overload], *t = mt_deprecated_target(op);
    int k = 0;
    while (t && k < f->nsigs && f->rows[k] != t)
        k++;
    if (!t || k == f->nsigs) {
        PyErr_Format(PyExc_RuntimeError, "%s(): no overload for this deprecated form",
                     op->sig->name);
        return -1;
    }
    if (mtpy_warn_deprecated(f->sigs, f->nsigs, c->a.overload, f->is_method) < 0)
        return -1;
    mtpy_row_runs[op->id]++;
    mt_args from = c->a;
    mt_deprecated_forward(t, &from, &c->a);
    c->a.overload = k;
    return 0;
}

/* Parses the call and runs it, unless Python handlers must see it: then
 * pending gets the operands to dispatch on. Out of line, so that the parsed
 * call (several KiB) is off the stack before a handler runs: a handler that
 * calls back into minitorch costs each level of its recursion a small frame. */
MT_HOT static Py_NO_INLINE PyObject *parse_and_run(MTFunctionObject *f, PyObject *const *args,
                                                   Py_ssize_t nargs, PyObject *kwnames,
                                                   mt_pending *pending)
{
    mtpy_call c;
    PyObject *r;
    pending->dispatch = false;
    if (mt_parse(f->sigs, f->nsigs, args, nargs, kwnames, f->is_method, &c) < 0)
        return NULL;
    if ((f->rows[c.a.overload]->tags & MT_TAG_DEPRECATED) && forward_deprecated(f, &c) < 0) {
        mtpy_call_release(&c);
        return NULL;
    }
    if (c.noverloaded || mt_mode_active())
        r = mt_dispatch_in_c((PyObject *)f, NULL, &c, pending);
    else
        r = mt_function_run(f, &c);
    mtpy_call_release(&c);
    return r;
}

/* Whether a call of a Python-level function has something to dispatch on: a
 * mode, or a relevant argument (mt_relevant_args) with its own handler. */
static bool unparsed_call_dispatches(PyObject *const *args, Py_ssize_t n)
{
    if (mt_mode_active())
        return true;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = args[i];
        if (PyList_Check(o) || PyTuple_Check(o)) {
            for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(o); k++)
                if (mt_has_custom_torch_function(PySequence_Fast_GET_ITEM(o, k)))
                    return true;
        } else if (mt_has_custom_torch_function(o)) {
            return true;
        }
    }
    return false;
}

PyObject *mt_dispatch_python_level(PyObject *func, PyObject *args, PyObject *kwargs)
{
    /* the positional arguments, then the keyword ones, as relevant_args reads them */
    PyObject *all = PySequence_List(args);
    if (all && kwargs && PyDict_GET_SIZE(kwargs)) {
        PyObject *values = PyDict_Values(kwargs);
        Py_ssize_t n = PyList_GET_SIZE(all);
        if (!values || PyList_SetSlice(all, n, n, values) < 0)
            Py_CLEAR(all);
        Py_XDECREF(values);
    }
    if (!all)
        return NULL;
    PyObject *relevant = mt_relevant_args(PySequence_Fast_ITEMS(all), PyList_GET_SIZE(all));
    Py_DECREF(all);
    if (!relevant)
        return NULL;
    bool any = mt_mode_active();
    if (!mt_tf_disabled && !mt_tf_subclass_disabled)
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(relevant) && !any; i++)
            any = mt_has_torch_function(PyTuple_GET_ITEM(relevant, i));
    PyObject *r =
        any ? mt_handle_torch_function(func, relevant, args, kwargs) : Py_NewRef(Py_NotImplemented);
    Py_DECREF(relevant);
    return r;
}

/* A Python-level function dispatches before it parses, with the call's
 * arguments as given, so a handler sees calls the rows would refuse. */
static PyObject *dispatch_unparsed(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames)
{
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *relevant = mt_relevant_args(args, nargs + nkw);
    PyObject *fargs = relevant ? PyTuple_New(nargs) : NULL;
    PyObject *fkwargs = fargs ? PyDict_New() : NULL;
    PyObject *r = NULL;
    if (!fkwargs)
        goto done;
    for (Py_ssize_t i = 0; i < nargs; i++)
        PyTuple_SET_ITEM(fargs, i, Py_NewRef(args[i]));
    for (Py_ssize_t k = 0; k < nkw; k++)
        if (PyDict_SetItem(fkwargs, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) < 0)
            goto done;
    r = mt_handle_torch_function(self, relevant, fargs, fkwargs);
done:
    Py_XDECREF(relevant);
    Py_XDECREF(fargs);
    Py_XDECREF(fkwargs);
    return r;
}

/* The operand of an operator is a foreign tensor; asked with an exception
 * set, which a type lookup must not see. */
static bool foreign_operand(PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 2)
        return false;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    bool foreign = mtpy_is_foreign_tensor(args[1]);
    PyErr_Restore(type, value, tb);
    return foreign;
}

MT_HOT static PyObject *function_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                            PyObject *kwnames)
{
    MTFunctionObject *f = (MTFunctionObject *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (f->python_level &&
        unparsed_call_dispatches(args, nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0)))
        return dispatch_unparsed(self, args, nargs, kwnames);
    mt_pending pending;
    PyObject *r = parse_and_run(f, args, nargs, kwnames, &pending);
    if (pending.dispatch) {
        r = mt_dispatch_handlers(self, &pending, args, nargs, kwnames);
        mt_pending_release(&pending);
    }
    /* Python tries the reflected operator when the other operand does not
     * fit; a self that is no tensor is the caller's error, and a foreign
     * tensor's operator would only hand the call back to us */
    if (!r && f->type_error_to_not_implemented && nargs && MTPy_Check(args[0]) &&
        PyErr_ExceptionMatches(PyExc_TypeError) && !foreign_operand(args, nargs)) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    return r;
}

unsigned long mtpy_row_runs[MT_OP_COUNT];

PyObject *mt_function_run(MTFunctionObject *f, mtpy_call *c)
{
    mt_result r;
    const mt_op *op = f->rows[c->a.overload];
    /* built-in rows only: custom ops (ops/runtime/custom.c) have ids past the table */
    if (op->id < MT_OP_COUNT)
        mtpy_row_runs[op->id]++;
    if (mt_op_run(op, &c->a, &r) < 0)
        return mtpy_raise();
    return mtpy_result_object(&r, op);
}

MT_HOT PyObject *mtpy_result_object(mt_result *r, const mt_op *op)
{
    PyObject *o = NULL;
    PyTypeObject *named;
    switch (r->kind) {
    case MT_RESULT_HOST:
        o = r->host;
        r->host = NULL;
        r->n = 0;
        break;
    case MT_RESULT_NONE:
        o = Py_NewRef(Py_None);
        break;
    case MT_RESULT_TENSOR:
        o = (PyObject *)mtpy_container(r->t[0]);
        r->n = 0;
        break;
    case MT_RESULT_BOOL:
        o = PyBool_FromLong(r->i != 0);
        break;
    case MT_RESULT_INT:
        o = PyLong_FromLongLong(r->i);
        break;
    case MT_RESULT_FLOAT:
        o = PyFloat_FromDouble(r->f);
        break;
    case MT_RESULT_TUPLE:
    case MT_RESULT_LIST:
        named = r->kind == MT_RESULT_TUPLE ? mtpy_row_return_type(op) : NULL;
        o = named                        ? PyStructSequence_New(named)
            : r->kind == MT_RESULT_TUPLE ? PyTuple_New(r->n)
                                         : PyList_New(r->n);
        for (int k = 0; o && k < r->n; k++) {
            PyObject *item = (PyObject *)mtpy_container(r->t[k]);
            r->t[k] = NULL;
            if (named)
                PyStructSequence_SetItem(o, k, item);
            else if (r->kind == MT_RESULT_TUPLE)
                PyTuple_SET_ITEM(o, k, item);
            else
                PyList_SET_ITEM(o, k, item);
        }
        break;
    }
    mt_result_clear(r);
    return o;
}

MT_HOT int mtpy_result_from_object(PyObject *o, mt_result *r)
{
    r->host = NULL;
    r->t = r->inline_t;
    if (!o) {
        r->kind = MT_RESULT_NONE;
        r->n = 0;
        return mt_error(MT_ERR_HOST, "a binding impl raised");
    }
    if (MTPy_Check(o))
        return mt_result_tensor(r, MTPy_T(o));
    bool seq = PyTuple_Check(o) || PyList_Check(o);
    int n = seq ? (int)PySequence_Fast_GET_SIZE(o) : 0;
    if (mt_result_alloc(r, MT_RESULT_HOST, n) < 0) {
        Py_DECREF(o);
        return -1;
    }
    r->host = o;
    for (int k = 0; k < n; k++) {
        PyObject *item = PySequence_Fast_GET_ITEM(o, k);
        r->t[k] = MTPy_Check(item) ? MTPy_T(item) : NULL;
    }
    return 0;
}

/* Python's operator protocol calls these dunders for `a + b`, `a < b`, ... */
static bool is_binary_dunder(const char *name)
{
    static const char *const ops[] = {"add", "sub",    "mul",    "truediv", "floordiv",
                                      "mod", "pow",    "matmul", "and",     "or",
                                      "xor", "lshift", "rshift", "div",     NULL};
    static const char *const cmps[] = {"__lt__", "__le__", "__eq__", "__ne__",
                                       "__gt__", "__ge__", NULL};
    size_t n = strlen(name);
    if (n < 5 || strncmp(name, "__", 2) != 0 || strcmp(name + n - 2, "__") != 0)
        return false;
    for (int i = 0; cmps[i]; i++)
        if (strcmp(name, cmps[i]) == 0)
            return true;
    const char *core = name + 2;
    size_t len = n - 4;
    if (*core == 'r' || *core == 'i') { /* reflected or in-place forms */
        for (int i = 0; ops[i]; i++)
            if (strlen(ops[i]) == len - 1 && strncmp(core + 1, ops[i], len - 1) == 0)
                return true;
    }
    for (int i = 0; ops[i]; i++)
        if (strlen(ops[i]) == len && strncmp(core, ops[i], len) == 0)
            return true;
    return false;
}

PyObject *mt_function_new(PyTypeObject *type, const char *name, const char *public_prefix,
                          const char *module, const char *qualname_prefix, int nsigs,
                          const mt_op **rows)
{
    MTFunctionObject *f = PyObject_New(MTFunctionObject, type);
    if (!f)
        return NULL;
    f->vectorcall = function_vectorcall;
    f->name = name;
    f->nsigs = nsigs;
    f->rows = rows;
    f->sigs = PyMem_Calloc(nsigs, sizeof *f->sigs);
    if (!f->sigs) {
        PyObject_Free(f);
        return PyErr_NoMemory();
    }
    for (int k = 0; k < nsigs; k++)
        f->sigs[k] = rows[k]->sig;
    f->is_method = type == &MTMethod_Type;
    f->python_level = false;
    f->dict = NULL;
    f->type_error_to_not_implemented = f->is_method && is_binary_dunder(name);
    /* torch.special's rows, special_<name> as torch names them, are public
     * (and documented) as torch.special.<name> */
    bool special =
        !f->is_method && strcmp(public_prefix, "torch.") == 0 && strncmp(name, "special_", 8) == 0;
    f->public_name = special ? PyUnicode_FromFormat("torch.special.%s", name + 8)
                             : PyUnicode_FromFormat("%s%s", public_prefix, name);
    f->qualname = PyUnicode_FromFormat("%s%s", qualname_prefix, name);
    f->module = PyUnicode_FromString(special ? "minitorch.special" : module);
    if (!f->public_name || !f->qualname || !f->module) {
        Py_DECREF(f);
        return NULL;
    }
    return (PyObject *)f;
}

static void function_dealloc(MTFunctionObject *f)
{
    PyMem_Free(f->sigs);
    Py_XDECREF(f->public_name);
    Py_XDECREF(f->qualname);
    Py_XDECREF(f->module);
    Py_XDECREF(f->dict);
    PyObject_Free(f);
}

static PyObject *function_repr(MTFunctionObject *f)
{
    if (f->is_method)
        return PyUnicode_FromFormat("<method '%s' of 'minitorch.Tensor' objects>", f->name);
    return PyUnicode_FromFormat("<built-in method %s of type object>", f->name);
}

static PyObject *function_get_name(MTFunctionObject *f, void *c)
{
    return PyUnicode_FromString(f->name);
}

static PyObject *function_get_qualname(MTFunctionObject *f, void *c)
{
    return Py_NewRef(f->qualname);
}

static PyObject *function_get_module(MTFunctionObject *f, void *c) { return Py_NewRef(f->module); }

static PyObject *function_get_doc(MTFunctionObject *f, void *c) { return mt_function_doc(f); }

/* (signature params, ...) for overrides.get_testing_overrides() */
static PyObject *function_get_signatures(MTFunctionObject *f, void *c)
{
    PyObject *out = PyTuple_New(f->nsigs);
    for (int k = 0; out && k < f->nsigs; k++) {
        PyObject *p = mt_signature_params(f->sigs[k]);
        if (!p) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, k, p);
    }
    return out;
}

/* Per overload, the name of its derivative kind ("" for none), so the
 * gradcheck sweep can tell which ops must be covered. */
static PyObject *function_get_derivatives(MTFunctionObject *f, void *c)
{
    PyObject *out = PyTuple_New(f->nsigs);
    for (int k = 0; out && k < f->nsigs; k++) {
        const mt_node_kind *kind = mt_op_derivative(f->rows[k]);
        PyObject *s = PyUnicode_FromString(kind ? kind->name : "");
        if (!s) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, k, s);
    }
    return out;
}

static PyGetSetDef function_getset[] = {
    {"__name__", (getter)function_get_name, NULL, NULL, NULL},
    {"__qualname__", (getter)function_get_qualname, NULL, NULL, NULL},
    {"__module__", (getter)function_get_module, NULL, NULL, NULL},
    {"__doc__", (getter)function_get_doc, NULL, NULL, NULL},
    {"_signatures", (getter)function_get_signatures, NULL, NULL, NULL},
    {"_derivatives", (getter)function_get_derivatives, NULL, NULL, NULL},
    {NULL},
};

static PyMemberDef function_members[] = {
    {"_public_name", T_OBJECT, offsetof(MTFunctionObject, public_name), READONLY, NULL},
    {"_python_level", T_BOOL, offsetof(MTFunctionObject, python_level), 0, NULL},
    {NULL},
};

static PyObject *method_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

PyTypeObject MTFunction_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch._C.builtin_function",
    .tp_basicsize = sizeof(MTFunctionObject),
    .tp_dealloc = (destructor)function_dealloc,
    .tp_repr = (reprfunc)function_repr,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(MTFunctionObject, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_getset = function_getset,
    .tp_members = function_members,
    .tp_dictoffset = offsetof(MTFunctionObject, dict),
};

PyTypeObject MTMethod_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "minitorch._C.method_descriptor",
    .tp_basicsize = sizeof(MTFunctionObject),
    .tp_dealloc = (destructor)function_dealloc,
    .tp_repr = (reprfunc)function_repr,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(MTFunctionObject, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_getset = function_getset,
    .tp_members = function_members,
    .tp_descr_get = method_descr_get,
};

/* ----------------------------------------------------------------- dispatch */

static PyObject *str_torch_function;
static PyObject *warned_types; /* plain-method handlers already warned about */

PyObject *mt_convert_results(PyObject *ret, PyTypeObject *cls)
{
    if (!ret || cls == mtpy_tensor_class)
        return ret;
    if (MTPy_Check(ret)) {
        if (PyObject_TypeCheck(ret, cls))
            return ret;
        PyObject *sub = mtpy_as_subclass(ret, cls);
        Py_DECREF(ret);
        return sub;
    }
    if (PyTuple_Check(ret) || PyList_Check(ret)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(ret);
        bool any = false;
        for (Py_ssize_t i = 0; i < n && !any; i++)
            any = MTPy_Check(PySequence_Fast_GET_ITEM(ret, i)) ||
                  PyTuple_Check(PySequence_Fast_GET_ITEM(ret, i)) ||
                  PyList_Check(PySequence_Fast_GET_ITEM(ret, i));
        if (!any)
            return ret;
        PyObject *items = PyTuple_New(n);
        if (!items)
            goto fail;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *r = mt_convert_results(Py_NewRef(PySequence_Fast_GET_ITEM(ret, i)), cls);
            if (!r) {
                Py_DECREF(items);
                goto fail;
            }
            PyTuple_SET_ITEM(items, i, r);
        }
        PyObject *out;
        if (PyTuple_CheckExact(ret))
            out = items;
        else if (PyList_CheckExact(ret)) {
            out = PySequence_List(items);
            Py_DECREF(items);
        } else if (PyObject_HasAttrString((PyObject *)Py_TYPE(ret), "_make")) {
            out = PyObject_CallMethod((PyObject *)Py_TYPE(ret), "_make", "O", items);
            Py_DECREF(items);
        } else {
            out = PyObject_CallOneArg((PyObject *)Py_TYPE(ret), items);
            Py_DECREF(items);
        }
        Py_DECREF(ret);
        return out;
    }
    return ret;
fail:
    Py_DECREF(ret);
    return NULL;
}

static PyObject *no_implementation(PyObject *func, PyObject *types)
{
    PyObject *public_name = PyObject_GetAttrString(func, "_public_name");
    if (!public_name) {
        PyErr_Clear();
        public_name = PyObject_GetAttrString(func, "__name__");
        if (!public_name)
            return NULL;
    }
    PyObject *names = PyList_New(0);
    for (Py_ssize_t i = 0; names && i < PyTuple_GET_SIZE(types); i++) {
        PyObject *n = PyUnicode_FromString(((PyTypeObject *)PyTuple_GET_ITEM(types, i))->tp_name);
        const char *dot = n ? strrchr(PyUnicode_AsUTF8(n), '.') : NULL;
        if (dot) {
            PyObject *bare = PyUnicode_FromString(dot + 1);
            Py_SETREF(n, bare);
        }
        if (!n || PyList_Append(names, n) < 0)
            Py_CLEAR(names);
        Py_XDECREF(n);
    }
    if (names) {
        PyObject *sep = PyUnicode_FromString(", ");
        PyObject *joined = sep ? PyUnicode_Join(sep, names) : NULL;
        Py_XDECREF(sep);
        PyErr_Format(PyExc_TypeError,
                     "no implementation found for '%U' on types that implement "
                     "__torch_function__: [%U]",
                     public_name, joined);
        Py_XDECREF(joined);
        Py_DECREF(names);
    }
    Py_DECREF(public_name);
    return NULL;
}

static int warn_plain_method(PyTypeObject *tp)
{
    PyObject *attr = _PyType_Lookup(tp, str_torch_function);
    if (!attr || !PyFunction_Check(attr))
        return 0;
    if (!mt_warn_always) {
        int seen = PySet_Contains(warned_types, (PyObject *)tp);
        if (seen)
            return seen < 0 ? -1 : 0;
        if (PySet_Add(warned_types, (PyObject *)tp) < 0)
            return -1;
    }
    return PyErr_WarnEx(PyExc_DeprecationWarning,
                        "Defining your `__torch_function__` as a plain method is deprecated and "
                        "will be an error in future, please define it as a classmethod.",
                        1);
}

/* Whether this thread is near the end of its C stack. Handlers that call
 * back into minitorch recurse through C frames whose size Python's recursion
 * limit does not see, so a thread with a small stack (threading.stack_size)
 * would overflow before reaching the limit. The bound leaves room for the
 * handler's own Python and C frames: an eighth of the stack, at most 256 KiB. */
static bool stack_nearly_full(void)
{
#if defined(__GLIBC__)
    static MT_HOT_TLS _Thread_local char *bound;
    char here;
    if (!bound) {
        pthread_attr_t attr;
        void *addr = NULL;
        size_t size = 0;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &addr, &size) != 0)
                addr = NULL;
            pthread_attr_destroy(&attr);
        }
        if (!addr)
            return false;
        bound = (char *)addr + (size / 8 < 256 * 1024 ? size / 8 : 256 * 1024);
    }
    return &here < bound;
#else
    return false;
#endif
}

static PyObject *call_handler(PyObject *handler, PyObject *func, PyObject *types, PyObject *args,
                              PyObject *kwargs)
{
    if (stack_nearly_full()) {
        PyErr_SetString(PyExc_RecursionError,
                        "maximum recursion depth exceeded in __torch_function__ (C stack)");
        return NULL;
    }
    if (Py_EnterRecursiveCall(" in __torch_function__"))
        return NULL;
    PyObject *ret = kwargs ? PyObject_CallFunctionObjArgs(handler, func, types, args, kwargs, NULL)
                           : PyObject_CallFunctionObjArgs(handler, func, types, args, NULL);
    Py_LeaveRecursiveCall();
    return ret;
}

/* A mode's handler bound to its class, which torch's op rows refuse. */
static bool is_classmethod_handler(PyObject *handler)
{
    return PyMethod_Check(handler) && PyType_Check(PyMethod_GET_SELF(handler));
}

/* The active mode first (popped while it runs, so calls it makes go past it),
 * then each operand's handler in order, until one does not return
 * NotImplemented. from_row: the call is an op row's, where torch refuses a
 * mode whose __torch_function__ is a classmethod. */
static PyObject *call_handlers(PyObject *func, PyObject *const *overloaded, int n, PyObject *types,
                               PyObject *args, PyObject *kwargs, bool from_row)
{
    if (mt_mode_active()) {
        PyObject *mode = mt_mode_pop();
        if (!mode)
            return NULL;
        PyObject *handler = PyObject_GetAttr(mode, str_torch_function);
        PyObject *ret = NULL;
        if (handler && from_row && is_classmethod_handler(handler))
            PyErr_SetString(PyExc_RuntimeError,
                            "Defining your mode's `__torch_function__` as a classmethod is not "
                            "supported, please make it a plain method");
        else if (handler)
            ret = call_handler(handler, func, types, args, kwargs);
        Py_XDECREF(handler);
        int pushed = mt_mode_push(mode);
        Py_DECREF(mode);
        if (pushed < 0) {
            Py_XDECREF(ret);
            return NULL;
        }
        if (ret != Py_NotImplemented)
            return ret;
        Py_DECREF(ret);
    }
    for (int i = 0; i < n; i++) {
        PyObject *obj = overloaded[i];
        if (warn_plain_method(Py_TYPE(obj)) < 0)
            return NULL;
        PyObject *handler = PyObject_GetAttr(obj, str_torch_function);
        if (!handler)
            return NULL;
        PyObject *ret = call_handler(handler, func, types, args, kwargs);
        Py_DECREF(handler);
        if (ret != Py_NotImplemented)
            return ret;
        Py_DECREF(ret);
    }
    return no_implementation(func, types);
}

static PyObject *types_tuple(PyObject *const *overloaded, int n)
{
    PyObject *types = PyTuple_New(n);
    for (int i = 0; types && i < n; i++)
        PyTuple_SET_ITEM(types, i, Py_NewRef((PyObject *)Py_TYPE(overloaded[i])));
    return types;
}

static bool subclass_of_all_overloaded(PyTypeObject *cls, const mtpy_call *a)
{
    for (int i = 0; i < a->noverloaded; i++)
        if (!PyType_IsSubtype(cls, Py_TYPE(a->overloaded[i])))
            return false;
    return true;
}

PyObject *mt_dispatch_in_c(PyObject *func, mtpy_impl_fn impl, mtpy_call *a, mt_pending *pending)
{
    /* Every operand a Tensor subclass with Tensor's own handler: do what that
     * handler does, in C, without calling into Python. */
    bool all_default = a->ncustom == 0 && !mt_mode_active();
    pending->dispatch = false;
    if (all_default) {
        for (int i = 0; i < a->noverloaded; i++) {
            PyTypeObject *cls = Py_TYPE(a->overloaded[i]);
            if (!subclass_of_all_overloaded(cls, a))
                continue;
            PyTypeObject *outer = mtpy_result_class;
            mtpy_result_class = cls;
            PyObject *r = Py_TYPE(func) == &MTFunction_Type || Py_TYPE(func) == &MTMethod_Type
                              ? mt_function_run((MTFunctionObject *)func, a)
                              : impl(&a->a);
            mtpy_result_class = outer;
            return mt_convert_results(r, cls);
        }
    }
    if (all_default) {
        PyObject *types = types_tuple(a->overloaded, a->noverloaded);
        PyObject *r = types ? no_implementation(func, types) : NULL;
        Py_XDECREF(types);
        return r;
    }
    int n = a->noverloaded;
    pending->ops =
        n <= MT_INLINE_OVERLOADED ? pending->inline_ops : PyMem_Malloc(sizeof(PyObject *) * n);
    if (!pending->ops)
        return PyErr_NoMemory();
    for (int i = 0; i < n; i++)
        pending->ops[i] = Py_NewRef(a->overloaded[i]);
    pending->n = n;
    pending->dispatch = true;
    return NULL;
}

void mt_pending_release(mt_pending *pending)
{
    for (int i = 0; i < pending->n; i++)
        Py_DECREF(pending->ops[i]);
    if (pending->ops != pending->inline_ops)
        PyMem_Free(pending->ops);
}

PyObject *mt_dispatch_handlers(PyObject *func, const mt_pending *pending, PyObject *const *argv,
                               Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *const *overloaded = pending->ops;
    int n = pending->n;
    PyObject *types = types_tuple(overloaded, n);
    PyObject *args = PyTuple_New(nargs);
    PyObject *kwargs = NULL;
    PyObject *ret = NULL;
    if (!types || !args)
        goto done;
    for (Py_ssize_t i = 0; i < nargs; i++)
        PyTuple_SET_ITEM(args, i, Py_NewRef(argv[i]));
    if (kwnames && PyTuple_GET_SIZE(kwnames)) {
        kwargs = PyDict_New();
        for (Py_ssize_t k = 0; kwargs && k < PyTuple_GET_SIZE(kwnames); k++)
            if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, k), argv[nargs + k]) < 0)
                Py_CLEAR(kwargs);
        if (!kwargs)
            goto done;
    }
    ret = call_handlers(func, overloaded, n, types, args, kwargs, true);
done:
    Py_XDECREF(types);
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    return ret;
}

PyObject *mt_dispatch(PyObject *func, mtpy_impl_fn impl, mtpy_call *a)
{
    mt_pending pending;
    PyObject *r = mt_dispatch_in_c(func, impl, a, &pending);
    if (!pending.dispatch)
        return r;
    r = mt_dispatch_handlers(func, &pending, a->args, a->nargs, a->kwnames);
    mt_pending_release(&pending);
    return r;
}

/* torch's handle_torch_function hands the handlers plain tensors' type too
 * (whose own handler declines beside other types), after the subclasses of
 * it: it goes last among what is collected so far, and later subclasses go
 * before it. */
static void collect_for_python_level(mtpy_call *a, PyObject *obj)
{
    if (Py_TYPE(obj) != mtpy_tensor_class) {
        mt_collect_overloaded(a, obj);
        return;
    }
    if (mt_tf_disabled || mt_tf_subclass_disabled)
        return;
    for (int i = 0; i < a->noverloaded; i++)
        if (Py_TYPE(a->overloaded[i]) == mtpy_tensor_class)
            return;
    mtpy_call_append_overloaded(a, obj);
}

int mt_kwargs_dict(PyObject *kwargs, PyObject **out)
{
    *out = NULL;
    if (!kwargs || kwargs == Py_None)
        return 0;
    if (!PyDict_Check(kwargs) && !PyObject_HasAttrString(kwargs, "keys")) {
        PyErr_Format(PyExc_TypeError, "argument after ** must be a mapping, not %.200s",
                     Py_TYPE(kwargs)->tp_name);
        return -1;
    }
    PyObject *d = PyDict_New();
    if (!d || PyDict_Merge(d, kwargs, 1) < 0) {
        Py_XDECREF(d);
        return -1;
    }
    if (PyDict_GET_SIZE(d) == 0)
        Py_DECREF(d);
    else
        *out = d;
    return 0;
}

PyObject *mt_handle_torch_function(PyObject *func, PyObject *relevant, PyObject *args,
                                   PyObject *kwargs)
{
    mtpy_call a;
    mtpy_call_init_overloaded(&a);
    PyObject *seq = PySequence_Fast(relevant, "relevant_args must be a sequence");
    if (!seq)
        return NULL;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++)
        collect_for_python_level(&a, PySequence_Fast_GET_ITEM(seq, i));
    PyObject *types = PyErr_Occurred() ? NULL : types_tuple(a.overloaded, a.noverloaded);
    PyObject *ret = NULL, *kw;
    /* handlers get kwargs as a dict, empty when there are none */
    if (types && mt_kwargs_dict(kwargs, &kw) == 0 && (kw || (kw = PyDict_New()))) {
        ret = call_handlers(func, a.overloaded, a.noverloaded, types, args, kw, false);
        Py_DECREF(kw);
    }
    Py_XDECREF(types);
    mtpy_call_release_overloaded(&a);
    Py_DECREF(seq);
    return ret;
}

PyObject *mt_relevant_args(PyObject *const *args, Py_ssize_t n)
{
    PyObject *out = PyList_New(0);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        PyObject *o = args[i];
        if (PyList_Check(o) || PyTuple_Check(o)) {
            /* re-read the size each step: appending may run a finalizer */
            for (Py_ssize_t k = 0; out && k < PySequence_Fast_GET_SIZE(o); k++)
                if (PyList_Append(out, PySequence_Fast_GET_ITEM(o, k)) < 0)
                    Py_CLEAR(out);
        } else if (PyList_Append(out, o) < 0)
            Py_CLEAR(out);
    }
    PyObject *t = out ? PyList_AsTuple(out) : NULL;
    Py_XDECREF(out);
    return t;
}

/* The functions this thread's default handler is running, innermost last.
 * It runs one with our subclass dispatch off, which only our dispatch
 * reads: another library's dispatch (torch.sum(mt_t), torch_t + mt_t)
 * hands the same function straight back, which is declined, so that
 * library raises its own TypeError instead of recursing. */
#define MT_MAX_RUNNING 32
static _Thread_local PyObject *running[MT_MAX_RUNNING];
static _Thread_local int nrunning;

static bool already_running(PyObject *func)
{
    for (int i = 0; i < nrunning; i++)
        if (running[i] == func)
            return true;
    return false;
}

PyObject *mt_default_torch_function(PyObject *cls, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"func", "types", "args", "kwargs", NULL};
    PyObject *func, *types, *fargs = NULL, *fkwargs = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO:__torch_function__", kwlist, &func,
                                     &types, &fargs, &fkwargs))
        return NULL;
    PyObject *tseq = PySequence_Tuple(types);
    if (!tseq)
        return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tseq); i++) {
        PyObject *t = PyTuple_GET_ITEM(tseq, i);
        if (!PyType_Check(t) || !PyType_IsSubtype((PyTypeObject *)cls, (PyTypeObject *)t)) {
            Py_DECREF(tseq);
            Py_RETURN_NOTIMPLEMENTED;
        }
    }
    Py_DECREF(tseq);
    PyObject *empty = NULL, *kw;
    if (!fargs || fargs == Py_None)
        fargs = empty = PyTuple_New(0);
    else if (!PyTuple_Check(fargs))
        fargs = empty = PySequence_Tuple(fargs);
    if (!fargs)
        return NULL;
    if (mt_kwargs_dict(fkwargs, &kw) < 0) {
        Py_XDECREF(empty);
        return NULL;
    }
    if (already_running(func)) {
        Py_XDECREF(empty);
        Py_XDECREF(kw);
        Py_RETURN_NOTIMPLEMENTED;
    }
    bool tracked = nrunning < MT_MAX_RUNNING;
    if (tracked)
        running[nrunning++] = func;
    mt_tf_subclass_disabled++;
    PyObject *ret = PyObject_Call(func, fargs, kw);
    mt_tf_subclass_disabled--;
    if (tracked)
        nrunning--;
    Py_XDECREF(empty);
    Py_XDECREF(kw);
    return mt_convert_results(ret, (PyTypeObject *)cls);
}

int mt_function_init(PyObject *module)
{
    str_torch_function = PyUnicode_InternFromString("__torch_function__");
    warned_types = PySet_New(NULL);
    if (!str_torch_function || !warned_types)
        return -1;
    if (PyType_Ready(&MTFunction_Type) < 0 || PyType_Ready(&MTMethod_Type) < 0)
        return -1;
    return 0;
}
