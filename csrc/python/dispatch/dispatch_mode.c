/* The binding's side of dispatch modes (torch.utils._python_dispatch): the
 * handler the runner calls for each row call while a mode is on
 * (ops/runtime/op_watch.h), handing the row's id and its arguments as
 * Python objects to the Python function minitorch installs, and the way
 * back: running one row below autograd, as an OpOverload call does.
 *
 *   _C._set_dispatch_handler(fn or None)
 *       fn(row_id, args, kwargs) -> the row's result, or NotImplemented to
 *       let the runner run the row itself (no mode wants it on this thread)
 *   _C._run_row(row_ids, args, kwargs)
 *       parses args/kwargs against the signatures of those rows (an id or a
 *       tuple of them: an overload's rows) and runs the row they match
 *       without recording (a mode still on sees it) */
#include "function.h"
#include "op_table.h"
#include "../autograd/autograd_bind.h"

#include "../../ops/runtime/custom.h"
#include "../../ops/runtime/run.h"

#include <string.h>

static PyObject *handler;

/* The row _run_row ran last on this thread and the path its impl reported
 * (args.h): a dispatched call takes its row's path from the run its mode
 * made, so autograd records the kind the impl chose (a mode that answers
 * without running the row leaves the row's default). */
static _Thread_local const mt_op *ran_op;
static _Thread_local int ran_path;

/* The call's arguments as the row's signature lays them out: positional
 * parameters in order, keyword-only ones in kwargs unless None. A value
 * without an object is None where the parameter is optional (an impl reads
 * it so, whatever the default), else it is made from the typed value. */
static int call_objects(const mt_args *a, PyObject **args, PyObject **kwargs)
{
    const mt_signature *s = a->sig;
    *args = PyTuple_New(s->npositional);
    *kwargs = PyDict_New();
    if (!*args || !*kwargs)
        return -1;
    for (int i = 0; i < s->nparams; i++) {
        const mt_param *p = &s->params[i];
        const mt_value *v = &a->v[i];
        bool positional = i < s->npositional;
        bool none = !v->obj && (p->optional || p->default_none);
        if (none && !positional)
            continue;
        /* a call from Python hands over the objects it was given (a device,
         * a layout), but for varargs, which keep only their first */
        bool given = a->host && v->obj && v->obj != MT_GIVEN && i != s->varargs_param;
        PyObject *o = none    ? Py_NewRef(Py_None)
                      : given ? Py_NewRef((PyObject *)v->obj)
                              : mtpy_object_of(p, v);
        if (!o)
            return -1;
        if (positional) {
            PyTuple_SET_ITEM(*args, i, o);
            continue;
        }
        int rc = PyDict_SetItemString(*kwargs, p->name, o);
        Py_DECREF(o);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* A handler's Python result as the row's result (consumes o): C callers of
 * the row read tensors, tuples and numbers as an impl leaves them. */
static int result_of(PyObject *o, mt_result *r)
{
    r->host = NULL;
    r->t = r->inline_t;
    r->n = 0;
    if (MTPy_Check(o))
        return mt_result_tensor(r, MTPy_T(o));
    if (o == Py_None) {
        r->kind = MT_RESULT_NONE;
        Py_DECREF(o);
        return 0;
    }
    if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o)) {
        r->kind = PyBool_Check(o)   ? MT_RESULT_BOOL
                  : PyLong_Check(o) ? MT_RESULT_INT
                                    : MT_RESULT_FLOAT;
        if (r->kind == MT_RESULT_FLOAT)
            r->f = PyFloat_AsDouble(o);
        else
            r->i = PyLong_AsLongLong(o);
        Py_DECREF(o);
        return PyErr_Occurred() ? mt_error(MT_ERR_HOST, "a dispatch mode's result") : 0;
    }
    bool seq = PyTuple_Check(o) || PyList_Check(o);
    Py_ssize_t n = seq ? PySequence_Fast_GET_SIZE(o) : 0;
    bool tensors = seq;
    for (Py_ssize_t k = 0; k < n && tensors; k++)
        tensors = MTPy_Check(PySequence_Fast_GET_ITEM(o, k));
    if (!tensors)
        return mtpy_result_from_object(o, r);
    if (mt_result_alloc(r, PyList_Check(o) ? MT_RESULT_LIST : MT_RESULT_TUPLE, (int)n) < 0) {
        Py_DECREF(o);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PySequence_Fast_GET_ITEM(o, k);
        r->t[k] = MTPy_T(Py_NewRef(item));
    }
    Py_DECREF(o);
    return 0;
}

static int dispatch(const mt_op *op, mt_args *a, mt_result *r)
{
    /* custom ops reach Python through their own Function, which a mode sees */
    if (!handler || op->id >= MT_OP_COUNT)
        return 1;
    /* a failed call holds nothing, as the runner leaves it */
    r->kind = MT_RESULT_NONE;
    r->n = 0;
    r->host = NULL;
    r->t = r->inline_t;
    a->path = 0;
    const mt_op *outer_op = ran_op;
    int outer_path = ran_path;
    ran_op = NULL;
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *args = NULL, *kwargs = NULL, *out = NULL;
    int rc = -1;
    PyObject *h = Py_NewRef(handler);
    /* below __torch_function__: the handler's own calls make plain tensors,
     * whatever subclass the outer call's results take */
    PyTypeObject *result_class = mtpy_result_class;
    mtpy_result_class = NULL;
    if (call_objects(a, &args, &kwargs) == 0)
        out = PyObject_CallFunction(h, "iOO", (int)op->id, args, kwargs);
    mtpy_result_class = result_class;
    Py_DECREF(h);
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    if (!out)
        rc = mt_error(MT_ERR_HOST, "a dispatch mode raised");
    else if (out == Py_NotImplemented) {
        Py_DECREF(out);
        rc = 1;
    } else if ((rc = result_of(out, r)) < 0) {
        r->kind = MT_RESULT_NONE;
    }
    if (rc == 0 && ran_op == op)
        a->path = ran_path;
    ran_op = outer_op;
    ran_path = outer_path;
    PyGILState_Release(gil);
    return rc;
}

static PyObject *set_handler(PyObject *self, PyObject *fn)
{
    if (fn != Py_None && !PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "_set_dispatch_handler(): expected a callable or None");
        return NULL;
    }
    PyObject *old = handler;
    handler = fn == Py_None ? NULL : Py_NewRef(fn);
    mt_dispatch_handler_set(handler ? dispatch : NULL);
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

#define MAX_ROWS 8

/* The rows of _run_row's first argument (an id or a tuple of ids) into
 * rows[MAX_ROWS]; their count, or -1 with an exception. */
static int rows_of(PyObject *ids, const mt_op **rows)
{
    bool many = PyTuple_Check(ids);
    Py_ssize_t n = many ? PyTuple_GET_SIZE(ids) : 1;
    if (n < 1 || n > MAX_ROWS) {
        PyErr_SetString(PyExc_ValueError, "_run_row(): expected 1 to 8 rows");
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *o = many ? PyTuple_GET_ITEM(ids, k) : ids;
        long id = PyLong_Check(o) ? PyLong_AsLong(o) : -1;
        if (!(rows[k] = id < 0 ? NULL : mt_op_row((int)id))) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "_run_row(): no row %R", o);
            return -1;
        }
    }
    return (int)n;
}

static PyObject *run_row(PyObject *self, PyObject *const *argv, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyTuple_Check(argv[1]) || (argv[2] != Py_None && !PyDict_Check(argv[2]))) {
        PyErr_SetString(PyExc_TypeError, "_run_row(row_ids, args: tuple, kwargs: dict | None)");
        return NULL;
    }
    const mt_op *rows[MAX_ROWS];
    const mt_signature *sigs[MAX_ROWS];
    int nrows = rows_of(argv[0], rows);
    if (nrows < 0)
        return NULL;
    for (int k = 0; k < nrows; k++)
        sigs[k] = rows[k]->sig;
    PyObject *kwargs = argv[2] == Py_None ? NULL : argv[2];
    Py_ssize_t npos = PyTuple_GET_SIZE(argv[1]), nkw = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
    PyObject **items = PyMem_Malloc(sizeof(PyObject *) * (size_t)(npos + nkw + 1));
    PyObject *kwnames = nkw ? PyTuple_New(nkw) : NULL;
    if (!items || (nkw && !kwnames)) {
        PyMem_Free(items);
        Py_XDECREF(kwnames);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < npos; i++)
        items[i] = PyTuple_GET_ITEM(argv[1], i);
    Py_ssize_t pos = 0, k = 0;
    PyObject *key, *value;
    while (kwargs && PyDict_Next(kwargs, &pos, &key, &value)) {
        PyTuple_SET_ITEM(kwnames, k, Py_NewRef(key));
        items[npos + k++] = value;
    }
    mtpy_call c;
    PyObject *out = NULL;
    if (mt_parse(sigs, nrows, items, npos, kwnames, false, &c) == 0) {
        const mt_op *op = rows[c.a.overload];
        /* rows sharing an impl tell themselves apart by their overload */
        c.a.overload = op->overload;
        mt_result r;
        int rc = mt_op_exec(op, &c.a, &r);
        ran_op = op;
        ran_path = c.a.path;
        out = rc < 0 ? mtpy_raise() : mtpy_result_object(&r, op);
        mtpy_call_release(&c);
    }
    PyMem_Free(items);
    Py_XDECREF(kwnames);
    return out;
}

PyMethodDef mtpy_dispatch_mode_methods[] = {
    {"_set_dispatch_handler", set_handler, METH_O, NULL},
    {"_run_row", (PyCFunction)(void (*)(void))run_row, METH_FASTCALL, NULL},
    {NULL},
};
