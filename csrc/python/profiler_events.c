/* The profiler's C events for minitorch.profiler (ops/runtime/
 * profile_events.h records them): _C._profiler_start, _C._profiler_stop
 * (the events as tuples, named as torch's profiler names them), and the
 * user ranges of record_function. */
#include "types/common.h"

#include "../ops/runtime/custom.h"
#include "../ops/runtime/profile_events.h"

static PyObject *profiler_start(PyObject *m, PyObject *args)
{
    int shapes, memory;
    if (!PyArg_ParseTuple(args, "pp", &shapes, &memory))
        return NULL;
    int replaced = mt_profile_start(shapes, memory);
    if (replaced < 0)
        return PyErr_NoMemory();
    return PyBool_FromLong(replaced);
}

/* torch's name of a row: aten::add for add, __add__ and __radd__, aten::add_
 * for add_ and __iadd__ (and aten::relu_ for relu(x, inplace=True)); a
 * custom op's qualified name. */
static PyObject *op_name(const mt_op *op, bool inplace)
{
    const mt_custom_op *custom = mt_custom_of(op);
    if (custom)
        return PyUnicode_FromString(custom->qualname);
    if (op->form == MT_FORM_DUNDER || op->form == MT_FORM_RDUNDER)
        return PyUnicode_FromFormat("aten::%s", mt_ops[op->base].sig->name);
    if (op->form == MT_FORM_IDUNDER)
        return PyUnicode_FromFormat("aten::%s_", mt_ops[op->base].sig->name);
    if (inplace)
        return PyUnicode_FromFormat("aten::%s_", op->sig->name);
    return PyUnicode_FromFormat("aten::%s", op->sig->name);
}

static PyObject *event_shapes(const mt_profile_log *log, int64_t at)
{
    if (at < 0)
        Py_RETURN_NONE;
    const int64_t *s = log->shapes + at;
    int64_t n = *s++;
    PyObject *all = PyList_New(n);
    for (int64_t i = 0; all && i < n; i++) {
        int64_t ndim = *s++;
        PyObject *one = PyList_New(ndim > 0 ? ndim : 0);
        if (!one) {
            Py_CLEAR(all);
            break;
        }
        for (int64_t d = 0; d < ndim; d++)
            PyList_SET_ITEM(one, d, PyLong_FromLongLong(*s++));
        PyList_SET_ITEM(all, i, one);
    }
    return all;
}

static PyObject *event_tuple(const mt_profile_log *log, const mt_profile_event *e)
{
    PyObject *name = e->kind == MT_PROFILE_OP ? op_name(e->op, e->inplace)
                     : e->name >= 0           ? PyUnicode_FromString(log->text + e->name)
                                              : PyUnicode_FromString("");
    PyObject *shapes = name ? event_shapes(log, e->shapes) : NULL;
    if (!shapes) {
        Py_XDECREF(name);
        return NULL;
    }
    return Py_BuildValue(
        "(iNLLLLLLN)", (int)e->kind, name, (long long)(e->start_ns - log->start_ns),
        (long long)(e->end_ns - log->start_ns), (long long)e->parent, (long long)e->thread,
        (long long)e->alloc_bytes, (long long)e->freed_bytes, shapes);
}

/* None when no session ran; else the list of events, each (kind, name,
 * start ns, end ns, parent index or -1, thread, bytes allocated, bytes
 * freed, input shapes or None), times from the session's start. */
static PyObject *profiler_stop(PyObject *m, PyObject *unused)
{
    mt_profile_log log;
    if (!mt_profile_stop(&log))
        Py_RETURN_NONE;
    PyObject *list = PyList_New(log.n);
    for (int64_t i = 0; list && i < log.n; i++) {
        PyObject *t = event_tuple(&log, &log.events[i]);
        if (!t)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, t);
    }
    mt_profile_log_free(&log);
    return list;
}

static PyObject *profiler_active(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(mt_profile_active);
}

static PyObject *record_function_enter(PyObject *m, PyObject *name)
{
    const char *text = PyUnicode_AsUTF8(name);
    if (!text)
        return NULL;
    return PyLong_FromLongLong(mt_profile_begin(MT_PROFILE_USER, text));
}

static PyObject *record_function_exit(PyObject *m, PyObject *token)
{
    long long t = PyLong_AsLongLong(token);
    if (t == -1 && PyErr_Occurred())
        return NULL;
    mt_profile_end(t);
    Py_RETURN_NONE;
}

PyMethodDef mtpy_profiler_methods[] = {
    {"_profiler_start", profiler_start, METH_VARARGS, NULL},
    {"_profiler_stop", profiler_stop, METH_NOARGS, NULL},
    {"_profiler_active", profiler_active, METH_NOARGS, NULL},
    {"_record_function_enter", record_function_enter, METH_O, NULL},
    {"_record_function_exit", record_function_exit, METH_O, NULL},
    {NULL},
};
