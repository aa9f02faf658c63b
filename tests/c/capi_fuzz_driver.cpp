/* The C++ driver of tests/capi_fuzz.py (built with load_inline): calls each
 * entry of the C API table (minitorch.h) with the arguments Python hands it,
 * NULL for None, and reports per call what came back, so the sweep can check
 * that every hostile call fails with an exception and the documented error
 * value, or succeeds, and never crashes.
 *
 * An outcome is a tuple: ("ok", value), ("raised", type name, message), or
 * ("bad", what) when the result and the exception state disagree (an error
 * value with no exception set, or an exception set beside a result).
 *
 * MT->call and MT->call_id are variadic and the sweep builds their argument
 * lists at run time: integers and pointers are passed in 16 integer slots and
 * doubles in 8 floating slots, after the fixed arguments. The callee reads
 * as many of each as the format names, in order; that is how the System V
 * x86-64 and AAPCS64 (Linux) conventions lay out variadic arguments, where
 * integer and floating arguments are counted apart, and why the sweep runs on
 * those platforms only. */
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace
{

PyObject *log_list; /* outcomes recorded inside the probe op's kernel and backward */

/* One outcome of a call; failed tells whether the result is the entry's
 * error value, ambiguous whether that value is also a valid result. */
PyObject *outcome(bool failed, bool ambiguous, PyObject *value)
{
    if (PyErr_Occurred()) {
        Py_XDECREF(value);
        if (!failed)
            return Py_BuildValue("(ss)", "bad", "an exception is set beside a result");
        PyObject *type, *exc, *tb;
        PyErr_Fetch(&type, &exc, &tb);
        PyErr_NormalizeException(&type, &exc, &tb);
        PyObject *text = exc ? PyObject_Str(exc) : nullptr;
        PyErr_Clear();
        PyObject *r = Py_BuildValue("(ssO)", "raised", ((PyTypeObject *)type)->tp_name,
                                    text ? text : Py_None);
        Py_XDECREF(text);
        Py_XDECREF(type);
        Py_XDECREF(exc);
        Py_XDECREF(tb);
        return r;
    }
    if (failed && !ambiguous) {
        Py_XDECREF(value);
        return Py_BuildValue("(ss)", "bad", "the error value without an exception");
    }
    PyObject *r = Py_BuildValue("(sO)", "ok", value ? value : Py_None);
    Py_XDECREF(value);
    return r;
}

/* Appends (entry, detail, outcome) to list. */
void record(PyObject *list, const char *entry, const std::string &detail, PyObject *result)
{
    PyObject *item = Py_BuildValue("(ssN)", entry, detail.c_str(), result);
    if (item) {
        PyList_Append(list, item);
        Py_DECREF(item);
    }
}

PyObject *tensor_value(minitorch_tensor *t) { return t ? MT->wrap(t) : nullptr; }

minitorch_tensor *tensor_or_null(PyObject *o) { return o == Py_None ? nullptr : MT->unwrap(o); }

/* ------------------------------------------------------------ the table */

/* objects(o): check, unwrap, wrap, retain, release with o and with NULL */
PyObject *objects(PyObject *, PyObject *args)
{
    PyObject *o;
    if (!PyArg_ParseTuple(args, "O", &o))
        return nullptr;
    PyObject *list = PyList_New(0);
    if (!list)
        return nullptr;
    record(list, "check", "obj", outcome(false, false, PyLong_FromLong(MT->check(o))));
    record(list, "check", "NULL", outcome(false, false, PyLong_FromLong(MT->check(nullptr))));
    minitorch_tensor *t = MT->unwrap(o);
    record(list, "unwrap", "obj", outcome(!t, false, PyBool_FromLong(t != nullptr)));
    t = MT->unwrap(nullptr);
    record(list, "unwrap", "NULL", outcome(!t, false, PyBool_FromLong(t != nullptr)));
    PyObject *w = MT->wrap(nullptr);
    record(list, "wrap", "NULL", outcome(!w, false, w));
    MT->retain(nullptr);
    record(list, "retain", "NULL", outcome(false, false, nullptr));
    MT->release(nullptr);
    record(list, "release", "NULL", outcome(false, false, nullptr));
    return list;
}

/* create(ndim, sizes | None, dtype, data | None): empty, zeros, from_data.
 * sizes is padded with ones to 64 entries, so that an ndim the API accepts
 * never reads past it. */
PyObject *create(PyObject *, PyObject *args)
{
    int ndim, dtype;
    PyObject *sizes_obj, *data_obj;
    if (!PyArg_ParseTuple(args, "iOiO", &ndim, &sizes_obj, &dtype, &data_obj))
        return nullptr;
    std::vector<int64_t> sizes(64, 1);
    if (sizes_obj != Py_None) {
        Py_ssize_t n = PySequence_Length(sizes_obj);
        for (Py_ssize_t i = 0; i < n && i < 64; i++) {
            PyObject *item = PySequence_GetItem(sizes_obj, i);
            sizes[(size_t)i] = item ? PyLong_AsLongLong(item) : 0;
            Py_XDECREF(item);
        }
        if (PyErr_Occurred())
            return nullptr;
    }
    const int64_t *s = sizes_obj == Py_None ? nullptr : sizes.data();
    const void *data = data_obj == Py_None ? nullptr : PyBytes_AsString(data_obj);
    if (data_obj != Py_None && !data)
        return nullptr;
    minitorch_dtype d = (minitorch_dtype)dtype;
    PyObject *list = PyList_New(0);
    if (!list)
        return nullptr;
    minitorch_tensor *t = MT->empty(ndim, s, d);
    record(list, "empty", "", outcome(!t, false, tensor_value(t)));
    t = MT->zeros(ndim, s, d);
    record(list, "zeros", "", outcome(!t, false, tensor_value(t)));
    t = MT->from_data(data, ndim, s, d);
    record(list, "from_data", "", outcome(!t, false, tensor_value(t)));
    return list;
}

/* metadata(t | None): every entry reading a tensor */
PyObject *metadata(PyObject *, PyObject *args)
{
    PyObject *o;
    if (!PyArg_ParseTuple(args, "O", &o))
        return nullptr;
    minitorch_tensor *t = tensor_or_null(o);
    if (!t && o != Py_None)
        return nullptr;
    PyObject *list = PyList_New(0);
    if (!list)
        return nullptr;
    int nd = MT->ndim(t);
    record(list, "ndim", "", outcome(nd < 0, false, PyLong_FromLong(nd)));
    const int64_t *sz = MT->sizes(t);
    record(list, "sizes", "", outcome(!sz, false, PyBool_FromLong(sz != nullptr)));
    const int64_t *st = MT->strides(t);
    record(list, "strides", "", outcome(!st, false, PyBool_FromLong(st != nullptr)));
    int dt = (int)MT->dtype(t);
    record(list, "dtype", "", outcome(dt < 0, false, PyLong_FromLong(dt)));
    int64_t n = MT->numel(t);
    record(list, "numel", "", outcome(n < 0, false, PyLong_FromLongLong(n)));
    int c = MT->is_contiguous(t);
    record(list, "is_contiguous", "", outcome(c < 0, false, PyLong_FromLong(c)));
    void *p = MT->data_ptr(t);
    /* an empty tensor may have no memory: NULL is valid then */
    record(list, "data_ptr", "", outcome(!p, t != nullptr, PyBool_FromLong(p != nullptr)));
    int64_t off = MT->storage_offset(t);
    record(list, "storage_offset", "", outcome(off < 0, false, PyLong_FromLongLong(off)));
    int rg = MT->requires_grad(t);
    record(list, "requires_grad", "", outcome(rg < 0, false, PyLong_FromLong(rg)));
    minitorch_tensor *e = MT->empty_like(t);
    record(list, "empty_like", "", outcome(!e, false, tensor_value(e)));
    minitorch_tensor *k = MT->contiguous(t);
    record(list, "contiguous", "", outcome(!k, false, tensor_value(k)));
    return list;
}

PyObject *element_size(PyObject *, PyObject *args)
{
    int code;
    if (!PyArg_ParseTuple(args, "i", &code))
        return nullptr;
    PyObject *list = PyList_New(0);
    int n = list ? MT->element_size((minitorch_dtype)code) : 0;
    if (list)
        record(list, "element_size", std::to_string(code),
               outcome(n < 0, false, PyLong_FromLong(n)));
    return list;
}

PyObject *resize_as(PyObject *, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b))
        return nullptr;
    minitorch_tensor *out = tensor_or_null(a), *like = tensor_or_null(b);
    if ((!out && a != Py_None) || (!like && b != Py_None))
        return nullptr;
    PyObject *list = PyList_New(0);
    int rc = list ? MT->resize_as(out, like) : 0;
    if (list)
        record(list, "resize_as", "", outcome(rc < 0, false, PyLong_FromLong(rc)));
    return list;
}

PyObject *op_id(PyObject *, PyObject *args)
{
    const char *name;
    if (!PyArg_ParseTuple(args, "z", &name))
        return nullptr;
    PyObject *list = PyList_New(0);
    int id = list ? MT->op_id(name) : 0;
    if (list)
        record(list, "op_id", name ? name : "NULL", outcome(id < 0, false, PyLong_FromLong(id)));
    return list;
}

/* call(name | id, fmt | None, values, by_id): MT->call or MT->call_id with
 * values in the slots: None a NULL pointer, a Tensor its handle, an int an
 * int64_t, a float a double, a str a const char *, and a tuple (n, [ints] |
 * None) the int and pointer pair of an 'L'. */
PyObject *call(PyObject *, PyObject *args)
{
    PyObject *name_obj, *values;
    const char *fmt;
    int by_id;
    if (!PyArg_ParseTuple(args, "OzO!p", &name_obj, &fmt, &PyList_Type, &values, &by_id))
        return nullptr;
    int64_t g[16] = {0};
    double d[8] = {0};
    std::vector<std::vector<int64_t>> lists;
    lists.reserve(16);
    size_t ng = 0, nd = 0;
    auto slot = [&](int64_t v) {
        if (ng < 16)
            g[ng++] = v;
    };
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(values); i++) {
        PyObject *v = PyList_GET_ITEM(values, i);
        if (v == Py_None) {
            slot(0);
        } else if (MT->check(v)) {
            slot((int64_t)(intptr_t)MT->unwrap(v));
        } else if (PyFloat_Check(v)) {
            if (nd < 8)
                d[nd++] = PyFloat_AsDouble(v);
        } else if (PyLong_Check(v)) {
            slot((int64_t)PyLong_AsLongLong(v));
        } else if (PyUnicode_Check(v)) {
            slot((int64_t)(intptr_t)PyUnicode_AsUTF8(v));
        } else if (PyTuple_Check(v) && PyTuple_GET_SIZE(v) == 2) {
            PyObject *items = PyTuple_GET_ITEM(v, 1);
            slot(PyLong_AsLongLong(PyTuple_GET_ITEM(v, 0)));
            if (items == Py_None) {
                slot(0);
            } else {
                lists.emplace_back();
                for (Py_ssize_t k = 0; k < PyList_Size(items); k++)
                    lists.back().push_back(PyLong_AsLongLong(PyList_GetItem(items, k)));
                lists.back().resize(64, 0);
                slot((int64_t)(intptr_t)lists.back().data());
            }
        } else {
            return PyErr_Format(PyExc_TypeError, "call(): no slot for %s", Py_TYPE(v)->tp_name);
        }
        if (PyErr_Occurred())
            return nullptr;
    }
    minitorch_tensor *r;
    if (by_id) {
        int id = (int)PyLong_AsLong(name_obj);
        if (PyErr_Occurred())
            return nullptr;
        r = MT->call_id(id, fmt, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10],
                        g[11], g[12], g[13], g[14], g[15], d[0], d[1], d[2], d[3], d[4], d[5], d[6],
                        d[7]);
    } else {
        const char *name = name_obj == Py_None ? nullptr : PyUnicode_AsUTF8(name_obj);
        if (!name && name_obj != Py_None)
            return nullptr;
        r = MT->call(name, fmt, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10],
                     g[11], g[12], g[13], g[14], g[15], d[0], d[1], d[2], d[3], d[4], d[5], d[6],
                     d[7]);
    }
    return outcome(!r, false, tensor_value(r));
}

/* ------------------------------------------------- custom ops and nodes */

const int INDICES[] = {INT_MIN, -1000, -1, 0, 1, 2, 3, 4, 5, 6, 7, 13, 14, 1000, INT_MAX};

/* capi_fuzz::probe(Tensor a, int n, float x, str s, int[] l, Tensor? o=None,
 * *, bool flag=False) -> Tensor: every accessor at every index */
minitorch_tensor *probe_kernel(const minitorch_args *a)
{
    for (int i : INDICES) {
        std::string at = std::to_string(i);
        minitorch_tensor *t = MT->arg_tensor(a, i);
        record(log_list, "arg_tensor", at, outcome(!t, true, PyBool_FromLong(t != nullptr)));
        int none = MT->arg_is_none(a, i);
        record(log_list, "arg_is_none", at, outcome(none < 0, false, PyLong_FromLong(none)));
        double x = MT->arg_double(a, i);
        record(log_list, "arg_double", at, outcome(x == 0, true, PyFloat_FromDouble(x)));
        int64_t n = MT->arg_int(a, i);
        record(log_list, "arg_int", at, outcome(n == 0, true, PyLong_FromLongLong(n)));
        int len = -7;
        const int64_t *l = MT->arg_int_list(a, i, &len);
        record(log_list, "arg_int_list", at,
               outcome(!l, true, Py_BuildValue("(Oi)", l ? Py_True : Py_False, len)));
        const char *s = MT->arg_str(a, i);
        record(log_list, "arg_str", at, outcome(!s, true, PyUnicode_FromString(s ? s : "")));
    }
    int len = 0;
    const int64_t *l = MT->arg_int_list(a, 4, nullptr);
    record(log_list, "arg_int_list", "n=NULL", outcome(!l, false, PyBool_FromLong(l != nullptr)));
    minitorch_tensor *t = MT->arg_tensor(nullptr, 0);
    record(log_list, "arg_tensor", "NULL", outcome(!t, false, PyBool_FromLong(t != nullptr)));
    int none = MT->arg_is_none(nullptr, 0);
    record(log_list, "arg_is_none", "NULL", outcome(none < 0, false, PyLong_FromLong(none)));
    double x = MT->arg_double(nullptr, 0);
    record(log_list, "arg_double", "NULL", outcome(x == 0, false, PyFloat_FromDouble(x)));
    int64_t n = MT->arg_int(nullptr, 0);
    record(log_list, "arg_int", "NULL", outcome(n == 0, false, PyLong_FromLongLong(n)));
    l = MT->arg_int_list(nullptr, 0, &len);
    record(log_list, "arg_int_list", "NULL", outcome(!l, false, PyBool_FromLong(l != nullptr)));
    const char *s = MT->arg_str(nullptr, 0);
    record(log_list, "arg_str", "NULL", outcome(!s, false, PyBool_FromLong(s != nullptr)));
    return MT->call("clone", "T", MT->arg_tensor(a, 0));
}

int probe_backward(minitorch_node *node, minitorch_tensor *grad, minitorch_tensor **grad_inputs)
{
    for (int p : INDICES) {
        std::string at = std::to_string(p);
        minitorch_tensor *t = MT->saved_input(node, p);
        record(log_list, "saved_input", at, outcome(!t, false, tensor_value(t)));
        double x = MT->saved_double(node, p);
        record(log_list, "saved_double", at, outcome(x == 0, true, PyFloat_FromDouble(x)));
        int64_t n = MT->saved_int(node, p);
        record(log_list, "saved_int", at, outcome(n == 0, true, PyLong_FromLongLong(n)));
        int need = MT->needs_grad(node, p);
        record(log_list, "needs_grad", at, outcome(need < 0, false, PyLong_FromLong(need)));
    }
    minitorch_tensor *out = MT->saved_output(node);
    record(log_list, "saved_output", "", outcome(!out, false, tensor_value(out)));
    minitorch_tensor *t = MT->saved_input(nullptr, 0);
    record(log_list, "saved_input", "NULL", outcome(!t, false, tensor_value(t)));
    t = MT->saved_output(nullptr);
    record(log_list, "saved_output", "NULL", outcome(!t, false, tensor_value(t)));
    double x = MT->saved_double(nullptr, 0);
    record(log_list, "saved_double", "NULL", outcome(x == 0, false, PyFloat_FromDouble(x)));
    int64_t n = MT->saved_int(nullptr, 0);
    record(log_list, "saved_int", "NULL", outcome(n == 0, false, PyLong_FromLongLong(n)));
    int need = MT->needs_grad(nullptr, 0);
    record(log_list, "needs_grad", "NULL", outcome(need < 0, false, PyLong_FromLong(need)));
    MT->retain(grad);
    grad_inputs[0] = grad;
    return 0;
}

/* register_probe(): the probe op, and register_op with hostile arguments */
PyObject *register_probe(PyObject *, PyObject *)
{
    if (!log_list && !(log_list = PyList_New(0)))
        return nullptr;
    PyObject *list = PyList_New(0);
    if (!list)
        return nullptr;
    const char *bad[] = {nullptr,
                         "",
                         "capi_fuzz::",
                         "::f(Tensor a) -> Tensor",
                         "capi_fuzz::f(Tensor a",
                         "capi_fuzz::f(Nope a) -> Tensor",
                         "capi_fuzz::f(Tensor a=, int b) -> Tensor",
                         "capi_fuzz::f(Tensor a0, Tensor a1, Tensor a2, Tensor a3, Tensor a4, "
                         "Tensor a5, Tensor a6, Tensor a7, Tensor a8, Tensor a9, Tensor a10, "
                         "Tensor a11, Tensor a12, Tensor a13, Tensor a14, Tensor a15) -> Tensor"};
    for (const char *schema : bad) {
        PyObject *op = MT->register_op(schema, probe_kernel, nullptr, nullptr);
        record(list, "register_op", schema ? schema : "NULL", outcome(!op, false, op));
    }
    PyObject *op =
        MT->register_op("capi_fuzz::nokernel(Tensor a) -> Tensor", nullptr, nullptr, nullptr);
    record(list, "register_op", "kernel=NULL", outcome(!op, false, op));
    op = MT->register_op("capi_fuzz::probe(Tensor a, int n, float x, str s, int[] l, "
                         "Tensor? o=None, *, bool flag=False) -> Tensor",
                         probe_kernel, probe_backward, nullptr);
    record(list, "register_op", "probe", outcome(!op, false, op));
    return list;
}

/* take_log(): the outcomes the probe op recorded, the log emptied */
PyObject *take_log(PyObject *, PyObject *)
{
    PyObject *list = log_list ? log_list : PyList_New(0);
    log_list = PyList_New(0);
    return list;
}

} // namespace
