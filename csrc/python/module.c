/* minitorch._C: module init wires the types and the op table together. */
#include "types/common.h"
#include "dispatch/function.h"
#include "autograd/autograd_bind.h"
#include "types/generator.h"
#include "interop/numpy_bridge.h"
#include "interop/foreign_tensors.h"
#include "dispatch/op_table.h"
#include "types/return_types.h"
#include "dispatch/torch_function_state.h"
#include "capi/capi.h"

#include "../kernels/gemm/blas.h"
#include "../kernels/parallel.h"

extern PyMethodDef mt_tensor_module_methods[];
extern PyMethodDef mt_dtype_module_methods[];
extern PyMethodDef mt_autograd_module_methods[];
int mt_tracking_init(PyObject *module);
extern PyMethodDef mtpy_blas_methods[];
extern PyMethodDef mtpy_build_info_methods[];
extern PyMethodDef mtpy_storage_sharing_methods[];
extern PyMethodDef mtpy_allocator_methods[];
extern PyMethodDef mtpy_profiler_methods[];
extern PyMethodDef mtpy_dispatch_mode_methods[];
extern PyMethodDef mtpy_crc32_methods[];
extern PyMethodDef mtpy_out_param_methods[];
int mt_tensor_type_init(PyObject *module);
int mtpy_size_init(PyObject *module);
int mt_py_function_init(PyObject *module);
int mt_forward_ad_init(PyObject *module);
int mt_autograd_api_init(PyObject *module);

static PyObject *set_num_threads(PyObject *m, PyObject *arg)
{
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (mt_set_num_threads((int)n) < 0)
        return mtpy_raise();
    Py_RETURN_NONE;
}

static PyObject *get_num_threads(PyObject *m, PyObject *unused)
{
    return PyLong_FromLong(mt_get_num_threads());
}

static PyObject *handle_torch_function(PyObject *m, PyObject *args)
{
    PyObject *func, *relevant, *fargs, *fkwargs = NULL;
    if (!PyArg_ParseTuple(args, "OOO!|O:_handle_torch_function", &func, &relevant, &PyTuple_Type,
                          &fargs, &fkwargs))
        return NULL;
    return mt_handle_torch_function(func, relevant, fargs, fkwargs == Py_None ? NULL : fkwargs);
}

static PyObject *dispatch_python_level(PyObject *m, PyObject *args)
{
    PyObject *func, *fargs, *fkwargs;
    if (!PyArg_ParseTuple(args, "OO!O:_dispatch_python_level", &func, &PyTuple_Type, &fargs,
                          &fkwargs))
        return NULL;
    return mt_dispatch_python_level(func, fargs, fkwargs == Py_None ? NULL : fkwargs);
}

static PyObject *relevant_args(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    return mt_relevant_args(args, nargs);
}

static PyObject *has_torch_function(PyObject *m, PyObject *relevant)
{
    PyObject *seq = PySequence_Fast(relevant, "expected a sequence");
    if (!seq)
        return NULL;
    bool any = mt_mode_active();
    if (!mt_tf_disabled && !mt_tf_subclass_disabled)
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq) && !any; i++)
            any = mt_has_torch_function(PySequence_Fast_GET_ITEM(seq, i));
    Py_DECREF(seq);
    return PyBool_FromLong(any);
}

/* What Parameter and other opting-out types assign to __torch_function__:
 * runs func with subclass dispatch off and leaves results as they are. */
static PyObject *disabled_torch_function_impl(PyObject *m, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"func", "types", "args", "kwargs", NULL};
    PyObject *func, *types, *fargs = NULL, *fkwargs = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO:_disabled_torch_function_impl", kwlist,
                                     &func, &types, &fargs, &fkwargs))
        return NULL;
    PyObject *tup = fargs && fargs != Py_None ? PySequence_Tuple(fargs) : PyTuple_New(0);
    PyObject *kw;
    if (!tup)
        return NULL;
    if (mt_kwargs_dict(fkwargs, &kw) < 0) {
        Py_DECREF(tup);
        return NULL;
    }
    mt_tf_subclass_disabled++;
    PyObject *r = PyObject_Call(func, tup, kw);
    mt_tf_subclass_disabled--;
    Py_DECREF(tup);
    Py_XDECREF(kw);
    return r;
}

static PyObject *set_warn_always(PyObject *m, PyObject *v)
{
    if (!PyBool_Check(v))
        return PyErr_Format(PyExc_RuntimeError, "setWarnOnlyOnce expects a bool, but got %s",
                            Py_TYPE(v)->tp_name);
    mt_warn_always = v == Py_True;
    Py_RETURN_NONE;
}

static PyObject *get_warn_always(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(mt_warn_always);
}

static PyMethodDef disabled_def = {"_disabled_torch_function_impl",
                                   (PyCFunction)(void (*)(void))disabled_torch_function_impl,
                                   METH_VARARGS | METH_KEYWORDS, NULL};

static PyMethodDef module_methods[] = {
    {"set_num_threads", set_num_threads, METH_O,
     "set_num_threads(int, /)\n--\n\nSets how many threads large kernels use."},
    {"get_num_threads", get_num_threads, METH_NOARGS,
     "get_num_threads()\n--\n\nReturns how many threads large kernels use."},
    {"_handle_torch_function", handle_torch_function, METH_VARARGS, NULL},
    {"_has_torch_function", has_torch_function, METH_O, NULL},
    {"_relevant_args", (PyCFunction)(void (*)(void))relevant_args, METH_FASTCALL, NULL},
    {"_dispatch_python_level", dispatch_python_level, METH_VARARGS, NULL},
    {"_op_rows", mt_op_rows, METH_NOARGS, NULL},
    {"_set_warnAlways", set_warn_always, METH_O, NULL},
    {"_get_warnAlways", get_warn_always, METH_NOARGS, NULL},
    {"_deprecated_overload_should_warn", mtpy_deprecated_overload_should_warn, METH_NOARGS, NULL},
    {NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "minitorch._C", "The C engine of minitorch.", -1, module_methods,
};

static int add_methods(PyObject *m, PyMethodDef *defs) { return PyModule_AddFunctions(m, defs); }

/* The engine needs the GIL, also on free-threaded CPython (3.13t+), where
 * this makes loading _C turn the GIL on for the process: the binding's
 * interpreter-wide state (the node class and custom op dicts, the
 * warned-types set, the saved-tensor hooks stack, the hook id counter) is
 * read through borrowed references and updated in check-then-set steps, and
 * the floors below count graph node references with plain integers and
 * leave the GIL only inside mt_unlock, for kernels on what the runner pinned.
 * _C._requires_gil records the declaration for minitorch/_gil.py, which
 * refuses an interpreter whose GIL was forced off. */
static int declare_gil_used(PyObject *m)
{
#ifdef Py_GIL_DISABLED
    if (PyUnstable_Module_SetGIL(m, Py_MOD_GIL_USED) < 0)
        return -1;
#endif
    return PyModule_AddObjectRef(m, "_requires_gil", Py_True);
}

/* _C.has_lapack: torch's build flag, which tests read to skip LAPACK-backed
 * checks; minitorch's own LAPACK (kernels/lapack) is always built in. */
static int declare_lapack(PyObject *m) { return PyModule_AddObjectRef(m, "has_lapack", Py_True); }

/* _C._functions: the op functions by name, in a dict whose instances take
 * attributes, where minitorch.autograd puts the node classes torch keeps
 * in its _C._functions module (AccumulateGrad, DelayedError, ...). */
static PyObject *new_function_table(void)
{
    PyObject *cls = PyObject_CallFunction((PyObject *)&PyType_Type, "s(O){s:s}", "_FunctionTable",
                                          (PyObject *)&PyDict_Type, "__module__", "minitorch._C");
    PyObject *table = cls ? PyObject_CallNoArgs(cls) : NULL;
    Py_XDECREF(cls);
    return table;
}

PyMODINIT_FUNC PyInit__C(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    if (declare_gil_used(m) < 0 || declare_lapack(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    mt_blas_locate = mtpy_load_blas;
    /* _C._autograd (torch's torch._C._autograd), which several files fill */
    PyObject *autograd_sub = PyModule_New("minitorch._C._autograd");
    if (!autograd_sub || PyModule_AddObject(m, "_autograd", autograd_sub) < 0) {
        Py_XDECREF(autograd_sub);
        Py_DECREF(m);
        return NULL;
    }
    if (add_methods(m, mtpy_profiler_methods) < 0 ||
        add_methods(m, mtpy_dispatch_mode_methods) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *functions = new_function_table();
    PyObject *nn_functions = PyDict_New();
    if (!functions || !nn_functions || mtpy_numpy_init() < 0 || mtpy_foreign_init(m) < 0 ||
        mtpy_dtype_init(m) < 0 || mtpy_size_init(m) < 0 || mtpy_generator_init(m) < 0 ||
        mt_function_init(m) < 0 || mt_tensor_type_init(m) < 0 ||
        mt_torch_function_state_init(m) < 0 || add_methods(m, mt_tensor_module_methods) < 0 ||
        add_methods(m, mt_dtype_module_methods) < 0 ||
        add_methods(m, mt_autograd_module_methods) < 0 || mt_tracking_init(m) < 0 ||
        add_methods(m, mtpy_blas_methods) < 0 || add_methods(m, mtpy_build_info_methods) < 0 ||
        add_methods(m, mtpy_storage_sharing_methods) < 0 ||
        add_methods(m, mtpy_allocator_methods) < 0 || add_methods(m, mtpy_crc32_methods) < 0 ||
        add_methods(m, mtpy_out_param_methods) < 0 ||
        add_methods(m, mtpy_return_type_methods) < 0 || mt_autograd_bind_init(m) < 0 ||
        mt_py_function_init(m) < 0 || mt_forward_ad_init(m) < 0 || mt_autograd_api_init(m) < 0 ||
        mt_op_table_install(functions, nn_functions) < 0 || mtpy_return_types_init(m) < 0 ||
        mtpy_custom_ops_init(m) < 0 || mtpy_capi_init(m) < 0 ||
        PyModule_AddObject(m, "_functions", functions) < 0 ||
        PyModule_AddObject(m, "_nn_functions", nn_functions) < 0 ||
        !(mt_disabled_tf = PyCFunction_New(&disabled_def, NULL)) ||
        PyModule_AddObjectRef(m, "_disabled_torch_function_impl", mt_disabled_tf) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
