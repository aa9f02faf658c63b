/* my_lib: PyTorch's extension-ffi example (add forward and backward over the
 * library's C tensors) written against minitorch's C API, and the same add
 * registered as a custom op, minitorch.ops.my_lib.add, with autograd.
 *
 * Only <minitorch/minitorch.h> is used; build it with setup.py beside it or
 * with minitorch.utils.cpp_extension.load("my_lib", ["my_lib.c"]). */
#include <minitorch/minitorch.h>

#include <string.h>

/* Checks that a and b are tensors of one floating dtype and one shape. */
static int check_operands(minitorch_tensor *a, minitorch_tensor *b)
{
    minitorch_dtype dt = MT->dtype(a);
    if (dt != MINITORCH_FLOAT32 && dt != MINITORCH_FLOAT64) {
        PyErr_SetString(PyExc_TypeError, "my_lib: add takes float32 or float64 tensors");
        return -1;
    }
    if (MT->dtype(b) != dt) {
        PyErr_SetString(PyExc_TypeError, "my_lib: add takes two tensors of one dtype");
        return -1;
    }
    int same = MT->ndim(a) == MT->ndim(b);
    for (int d = 0; same && d < MT->ndim(a); d++)
        same = MT->sizes(a)[d] == MT->sizes(b)[d];
    if (!same) {
        PyErr_SetString(PyExc_ValueError, "my_lib: add takes two tensors of one shape");
        return -1;
    }
    return 0;
}

/* out[i] = a[i] + b[i] over contiguous memory; the GIL is released around
 * the loop only when it is long enough to be worth it. */
static void add_loop(minitorch_tensor *out, minitorch_tensor *a, minitorch_tensor *b)
{
    int64_t n = MT->numel(out);
    void *o = MT->data_ptr(out), *x = MT->data_ptr(a), *y = MT->data_ptr(b);
    int is_double = MT->dtype(out) == MINITORCH_FLOAT64;
    PyThreadState *state = n >= 65536 ? PyEval_SaveThread() : NULL;
    if (is_double)
        for (int64_t i = 0; i < n; i++)
            ((double *)o)[i] = ((const double *)x)[i] + ((const double *)y)[i];
    else
        for (int64_t i = 0; i < n; i++)
            ((float *)o)[i] = ((const float *)x)[i] + ((const float *)y)[i];
    if (state)
        PyEval_RestoreThread(state);
}

/* output = input1 + input2, output resized like input1 (the spec's
 * my_lib_add_forward). 0, or -1 with an exception set. */
static int my_lib_add_forward(minitorch_tensor *input1, minitorch_tensor *input2,
                              minitorch_tensor *output)
{
    if (check_operands(input1, input2) < 0)
        return -1;
    if (MT->dtype(output) != MT->dtype(input1)) {
        PyErr_SetString(PyExc_TypeError, "my_lib: output must have the inputs' dtype");
        return -1;
    }
    minitorch_tensor *a = MT->contiguous(input1);
    minitorch_tensor *b = a ? MT->contiguous(input2) : NULL;
    int status = b && MT->resize_as(output, input1) == 0 && MT->is_contiguous(output) ? 0 : -1;
    if (status == 0)
        add_loop(output, a, b);
    else if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "my_lib: output must be contiguous");
    if (a)
        MT->release(a);
    if (b)
        MT->release(b);
    return status;
}

/* grad_input = grad_output, resized like it: d(a + b)/da = d(a + b)/db = 1
 * (the spec's my_lib_add_backward). */
static int my_lib_add_backward(minitorch_tensor *grad_output, minitorch_tensor *grad_input)
{
    if (MT->dtype(grad_input) != MT->dtype(grad_output)) {
        PyErr_SetString(PyExc_TypeError, "my_lib: grad_input must have grad_output's dtype");
        return -1;
    }
    minitorch_tensor *g = MT->contiguous(grad_output);
    if (!g)
        return -1;
    int status = MT->resize_as(grad_input, g);
    if (status == 0)
        memcpy(MT->data_ptr(grad_input), MT->data_ptr(g),
               (size_t)MT->numel(g) * (size_t)MT->element_size(MT->dtype(g)));
    MT->release(g);
    return status;
}

/* ---- Python functions over the two: add_forward(a, b, out), add_backward(g, gi) */

static int unwrap_all(PyObject *args, int n, minitorch_tensor **out)
{
    if (PyTuple_GET_SIZE(args) != n) {
        PyErr_Format(PyExc_TypeError, "expected %d tensors, got %zd arguments", n,
                     PyTuple_GET_SIZE(args));
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (!(out[i] = MT->unwrap(PyTuple_GET_ITEM(args, i))))
            return -1;
    return 0;
}

static PyObject *py_add_forward(PyObject *self, PyObject *args)
{
    minitorch_tensor *t[3];
    if (unwrap_all(args, 3, t) < 0 || my_lib_add_forward(t[0], t[1], t[2]) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_add_backward(PyObject *self, PyObject *args)
{
    minitorch_tensor *t[2];
    if (unwrap_all(args, 2, t) < 0 || my_lib_add_backward(t[0], t[1]) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ---- The same add as a custom op: my_lib::add(Tensor a, Tensor b) -> Tensor */

static minitorch_tensor *add_kernel(const minitorch_args *args)
{
    minitorch_tensor *a = MT->arg_tensor(args, 0), *b = MT->arg_tensor(args, 1);
    if (check_operands(a, b) < 0)
        return NULL;
    minitorch_tensor *out = MT->empty_like(a);
    if (!out)
        return NULL;
    if (my_lib_add_forward(a, b, out) < 0) {
        MT->release(out);
        return NULL;
    }
    return out;
}

/* Both inputs get the output's gradient as it is. */
static int add_backward(minitorch_node *node, minitorch_tensor *grad_output,
                        minitorch_tensor **grad_inputs)
{
    for (int p = 0; p < 2; p++)
        if (MT->needs_grad(node, p)) {
            MT->retain(grad_output);
            grad_inputs[p] = grad_output;
        }
    return 0;
}

/* The output's tangent is the sum of the inputs' (NULL stands for zero). */
static int add_jvp(minitorch_node *node, minitorch_tensor *const *tangents,
                   minitorch_tensor **tangent_out)
{
    if (tangents[0] && tangents[1]) {
        *tangent_out = MT->call("add", "TT", tangents[0], tangents[1]);
        return *tangent_out ? 0 : -1;
    }
    minitorch_tensor *only = tangents[0] ? tangents[0] : tangents[1];
    if (only)
        MT->retain(only);
    *tangent_out = only;
    return 0;
}

static PyMethodDef methods[] = {
    {"add_forward", py_add_forward, METH_VARARGS,
     "add_forward(input1, input2, output): output = input1 + input2"},
    {"add_backward", py_add_backward, METH_VARARGS,
     "add_backward(grad_output, grad_input): grad_input = grad_output"},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "my_lib", "minitorch's C extension example.", -1, methods,
};

PyMODINIT_FUNC PyInit_my_lib(void)
{
    if (import_minitorch() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    /* An extension module may be loaded again (load() after a rebuild): the
     * newest registration of a name is the one minitorch.ops finds. */
    PyObject *op = MT->register_op("my_lib::add(Tensor a, Tensor b) -> Tensor", add_kernel,
                                   add_backward, add_jvp);
    if (!op || PyModule_AddObject(m, "add", op) < 0) {
        Py_XDECREF(op);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
