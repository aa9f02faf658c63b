/* The callable objects behind every op-table name: minitorch.<name> functions
 * and minitorch.Tensor.<name> method descriptors. Both parse with the same
 * parser and dispatch __torch_function__ the same way. */
#ifndef MT_PYTHON_FUNCTION_H
#define MT_PYTHON_FUNCTION_H

#include "parser.h"

#include "../../ops/runtime/table.h"

typedef struct {
    PyObject_HEAD vectorcallfunc vectorcall;
    const char *name;
    PyObject *public_name; /* "torch.add": how messages name it, as the note does */
    PyObject *qualname;
    PyObject *module;
    int nsigs;
    const mt_signature **sigs;
    const mt_op **rows; /* per overload */
    bool is_method;
    /* binary dunders: a TypeError becomes NotImplemented so Python tries the
     * reflected operator */
    bool type_error_to_not_implemented;
    /* torch's function is written in Python: it dispatches on its raw
     * arguments before parsing (set by minitorch.overrides) */
    bool python_level;
    /* attributes Python sets: a custom op's overloads (minitorch.ops.ns.op.default) */
    PyObject *dict;
} MTFunctionObject;

extern PyTypeObject MTFunction_Type;
extern PyTypeObject MTMethod_Type;

/* A binding impl: a row whose arguments are Python data (MT_PYOP rows), and
 * the indexing entry points. */
typedef PyObject *(*mtpy_impl_fn)(mt_args *a);

PyObject *mt_function_new(PyTypeObject *type, const char *name, const char *public_prefix,
                          const char *module, const char *qualname_prefix, int nsigs,
                          const mt_op **rows);
/* How many times each row was run from Python (minitorch._C._op_rows reads
 * it, so the fuzz sweep can tell that it reached every row). */
extern unsigned long mtpy_row_runs[MT_OP_COUNT];

/* Runs the matched row (mt_op_run) and makes the Python result. */
PyObject *mt_function_run(MTFunctionObject *f, mtpy_call *c);
/* The Python object of a result of op (NULL: of no row); consumes r. A
 * tuple is op's return_types.<name> when op's signature names its results. */
PyObject *mtpy_result_object(mt_result *r, const mt_op *op);
/* Stores a binding impl's Python result into r (consuming it); -1 when it
 * is NULL (the exception stays set). */
int mtpy_result_from_object(PyObject *o, mt_result *r);

/* A kwargs argument as the dict PyObject_Call takes: *out is a new reference,
 * NULL for None or an empty mapping; any mapping is copied as Python's
 * `**kwargs` does, anything else is its TypeError. */
int mt_kwargs_dict(PyObject *kwargs, PyObject **out);

/* Runs the __torch_function__ protocol for a parsed call with overloaded
 * operands; the call runs in C when every operand uses Tensor's default
 * (impl, for callers that are not op-table functions). */
PyObject *mt_dispatch(PyObject *func, mtpy_impl_fn impl, mtpy_call *c);
/* The operands a call dispatches on, kept (new references, inline when few)
 * after its parsed state is gone. */
typedef struct {
    bool dispatch; /* Python handlers (or a mode) must see the call */
    int n;
    PyObject **ops;
    PyObject *inline_ops[MT_INLINE_OVERLOADED];
} mt_pending;

/* mt_dispatch in two halves, so the parsed call can be dropped before any
 * handler runs. The first runs the call in C when no Python handler needs to
 * see it; otherwise it returns NULL with pending->dispatch set and the
 * operands in pending (NULL without dispatch is an error). The second calls
 * the handlers with the call's original arguments; then release pending. */
PyObject *mt_dispatch_in_c(PyObject *func, mtpy_impl_fn impl, mtpy_call *c, mt_pending *pending);
PyObject *mt_dispatch_handlers(PyObject *func, const mt_pending *pending, PyObject *const *args,
                               Py_ssize_t nargs, PyObject *kwnames);
void mt_pending_release(mt_pending *pending);
/* Dispatch for Python-level callers: overloaded is a sequence of operands;
 * handlers get kwargs as a dict (empty for NULL), as torch's
 * handle_torch_function passes it. */
PyObject *mt_handle_torch_function(PyObject *func, PyObject *overloaded, PyObject *args,
                                   PyObject *kwargs);
/* The dispatch of a function written in Python (overrides.overridable):
 * runs the protocol when a mode is active or a relevant argument of the call
 * (mt_relevant_args over args, then kwargs' values) overrides it, else
 * returns NotImplemented, which a dispatched call never does. */
PyObject *mt_dispatch_python_level(PyObject *func, PyObject *args, PyObject *kwargs);
/* Where a Python-level function looks for operands to dispatch on: each of
 * the n arguments, and the items of each list or tuple among them; a new
 * tuple. */
PyObject *mt_relevant_args(PyObject *const *args, Py_ssize_t n);
/* Tensor.__torch_function__ */
PyObject *mt_default_torch_function(PyObject *cls, PyObject *args, PyObject *kwargs);
/* Converts Tensor results (also inside tuples and lists) to cls. */
PyObject *mt_convert_results(PyObject *ret, PyTypeObject *cls);
int mt_function_init(PyObject *module);

#endif
