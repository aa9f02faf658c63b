/* Custom ops on the Python side: publishes each registered row
 * (csrc/ops/runtime/custom.h) as a function object in minitorch._C._custom_ops,
 * which minitorch.ops.<namespace>.<name> reads, and runs the rows whose
 * implementation is a Python callable (minitorch.library.custom_op). */
#include "capi.h"

#include "../dispatch/function.h"
#include "../dispatch/op_table.h"

#include "../../ops/runtime/custom.h"
#include "../../ops/runtime/unlock.h"

#include <string.h>

static PyObject *custom_ops; /* qualname -> function object */

PyObject *mtpy_custom_publish(int id)
{
    const mt_op *row = mt_op_row(id);
    if (mtpy_signature_bind(row->sig) < 0)
        return NULL;
    const mt_op **rows = PyMem_Calloc(1, sizeof *rows);
    if (!rows)
        return PyErr_NoMemory();
    rows[0] = row;
    const char *qualname = row->sig->name;
    PyObject *f = mt_function_new(&MTFunction_Type, qualname, "", "minitorch.ops", "", 1, rows);
    if (!f) {
        PyMem_Free(rows);
        return NULL;
    }
    if (PyDict_SetItemString(custom_ops, qualname, f) < 0)
        Py_CLEAR(f);
    return f;
}

/* The arguments of a call as the Python implementation takes them: the
 * positional parameters in a tuple, the keyword-only ones in a dict. */
static int python_arguments(const mt_args *a, PyObject **args, PyObject **kwargs)
{
    const mt_signature *s = a->sig;
    *args = PyTuple_New(s->npositional);
    *kwargs = PyDict_New();
    if (!*args || !*kwargs)
        return -1;
    for (int p = 0; p < s->nparams; p++) {
        const mt_param *prm = &s->params[p];
        const mt_value *v = &a->v[p];
        bool none = !v->obj && (!prm->has_default || prm->default_none) &&
                    !(prm->type == MT_ARG_INT_LIST && v->ints);
        PyObject *o = none ? Py_NewRef(Py_None) : mtpy_object_of(prm, v);
        if (!o)
            return -1;
        if (p < s->npositional) {
            PyTuple_SET_ITEM(*args, p, o);
        } else {
            int rc = PyDict_SetItemString(*kwargs, prm->name, o);
            Py_DECREF(o);
            if (rc < 0)
                return -1;
        }
    }
    return 0;
}

static int run_python(mt_args *a, mt_result *r)
{
    const mt_custom_op *c = mt_custom_of(a->op);
    PyObject *args = NULL, *kwargs = NULL, *out = NULL;
    if (python_arguments(a, &args, &kwargs) == 0) {
        /* the Python impl's ops are calls of their own, as torch's Python
         * kernels' are: dispatch modes see them */
        const mt_args *call = mt_running_call_swap(NULL);
        out = PyObject_Call((PyObject *)c->host, args, kwargs);
        mt_running_call_swap(call);
    }
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    return mtpy_result_from_object(out, r);
}

/* _define_custom_op(schema, impl): registers a row run by impl. */
static PyObject *define_custom_op(PyObject *m, PyObject *args)
{
    const char *schema;
    PyObject *impl;
    if (!PyArg_ParseTuple(args, "sO:_define_custom_op", &schema, &impl))
        return NULL;
    if (!PyCallable_Check(impl))
        return PyErr_Format(PyExc_TypeError, "_define_custom_op: impl must be callable");
    /* the row keeps impl for the life of the process, as rows are never
     * removed */
    int id = mt_custom_register(schema, NULL, run_python, impl);
    if (id < 0)
        return mtpy_raise();
    Py_INCREF(impl);
    return mtpy_custom_publish(id);
}

static PyMethodDef methods[] = {
    {"_define_custom_op", define_custom_op, METH_VARARGS, NULL},
    {NULL},
};

int mtpy_custom_ops_init(PyObject *module)
{
    if (!(custom_ops = PyDict_New()) ||
        PyModule_AddObjectRef(module, "_custom_ops", custom_ops) < 0)
        return -1;
    return PyModule_AddFunctions(module, methods);
}
