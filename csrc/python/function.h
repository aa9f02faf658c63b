/* The callable objects behind every op-table name: minitorch.<name> functions
 * and minitorch.Tensor.<name> method descriptors. Both parse with the same
 * parser and dispatch __torch_function__ the same way. */
#ifndef MT_PYTHON_FUNCTION_H
#define MT_PYTHON_FUNCTION_H

#include "parser.h"

#include "../autograd/node.h"

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    const char *name;
    PyObject *public_name; /* "torch.add": how messages name it, as the note does */
    PyObject *qualname;
    PyObject *module;
    int nsigs;
    mt_signature **sigs;
    mt_impl_fn *impls;
    const mt_node_kind **kinds; /* per overload: its derivative, or NULL */
    bool is_method;
    bool inplace;               /* writes into its first argument */
    /* binary dunders: a TypeError becomes NotImplemented so Python tries the
     * reflected operator */
    bool type_error_to_not_implemented;
} MTFunctionObject;

extern PyTypeObject MTFunction_Type;
extern PyTypeObject MTMethod_Type;

PyObject *mt_function_new(PyTypeObject *type, const char *name, const char *public_prefix,
                          const char *module, const char *qualname_prefix, int nsigs,
                          mt_signature **sigs, mt_impl_fn *impls, const mt_node_kind **kinds);
/* Runs the matched overload's impl and records it into the autograd graph. */
PyObject *mt_function_run(MTFunctionObject *f, mt_args *a);

/* Runs the __torch_function__ protocol for a parsed call with overloaded
 * operands; impl runs in C when every operand uses Tensor's default. */
PyObject *mt_dispatch(PyObject *func, mt_impl_fn impl, mt_args *a);
/* Dispatch for Python-level callers: overloaded is a sequence of operands. */
PyObject *mt_handle_torch_function(PyObject *func, PyObject *overloaded, PyObject *args,
                                   PyObject *kwargs);
/* Tensor.__torch_function__ */
PyObject *mt_default_torch_function(PyObject *cls, PyObject *args, PyObject *kwargs);
/* Converts Tensor results (also inside tuples and lists) to cls. */
PyObject *mt_convert_results(PyObject *ret, PyTypeObject *cls);
int mt_function_init(PyObject *module);

#endif
