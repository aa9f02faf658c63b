/* minitorch.h: the C API of minitorch, for writing C extensions.
 *
 * Read it top to bottom; it is the reference.
 *
 * 1. Getting the API
 *
 *    Include this header (its folder is minitorch.get_include()) and call
 *    import_minitorch() in your module's init function, as NumPy's
 *    import_array():
 *
 *        #include <minitorch/minitorch.h>
 *
 *        PyMODINIT_FUNC PyInit_my_lib(void)
 *        {
 *            if (import_minitorch() < 0)
 *                return NULL;
 *            ...
 *        }
 *
 *    import_minitorch() imports minitorch._C, takes the function table it
 *    exports in the capsule minitorch._C._C_API, and points MT at it; every
 *    call then reads MT->name(...). The table only grows at its end
 *    (functions are appended, never moved or removed): an extension built
 *    against ABI version X.Y runs on any minitorch with major version X and
 *    minor version >= Y; otherwise import_minitorch() raises ImportError
 *    naming both versions. MT is static: an extension of several C files
 *    calls import_minitorch() in each file that uses MT.
 *
 * 2. Tensors and references
 *
 *    A minitorch_tensor is a handle to a tensor. Functions returning one
 *    return a new reference, which you give back with MT->release(t) (or
 *    hand over with MT->wrap(t)). Handles you are given (a kernel's
 *    arguments, MT->unwrap's result) are borrowed: keep them with
 *    MT->retain(t). A handle's memory is that of a minitorch.Tensor object,
 *    so wrap(t) costs nothing.
 *
 * 3. Errors
 *
 *    A function that fails returns NULL (pointers) or -1 (ints) with a
 *    Python exception set; pass the failure up the same way. Functions
 *    that cannot fail say so.
 *
 *    Every function checks its arguments before reading them, so a wrong
 *    one is an exception, never a crash: a NULL handle (RuntimeError
 *    "expected a proper Tensor but got NULL (an undefined Tensor in
 *    C++)"), a dtype code outside minitorch_dtype or an ndim outside
 *    [0, 16], NULL sizes, negative sizes and sizes whose product overflows
 *    (ValueError or RuntimeError, as torch.empty words them), a NULL or
 *    unknown op name, an op id no op has, a format with a letter not
 *    listed at MT->call or values the op's parameters do not take, and a
 *    parameter index outside the schema (IndexError) or of another kind
 *    (TypeError). Where the documented result of a function can also be a
 *    valid value (0 from MT->arg_double, NULL from MT->arg_tensor for
 *    None), tell a failure by PyErr_Occurred(). Only what no check can see
 *    stays your responsibility: a pointer that is not NULL but points at
 *    no tensor, fewer varargs than the format names, or a data pointer
 *    shorter than the sizes say.
 *
 * 4. The interpreter lock
 *
 *    Every function of the table needs the GIL. Around pure computation on
 *    memory you already hold (the data pointers of tensors you keep a
 *    reference to) you may release it:
 *
 *        float *out = MT->data_ptr(result);        (with the GIL)
 *        Py_BEGIN_ALLOW_THREADS
 *        for (int64_t i = 0; i < n; i++) out[i] = a[i] + b[i];
 *        Py_END_ALLOW_THREADS
 *
 *    Between the two macros call nothing from MT and touch no Python object.
 *
 * 5. Custom ops
 *
 *    MT->register_op("mylib::myadd(Tensor a, Tensor b, *, Scalar alpha=1)
 *    -> Tensor", kernel, backward, jvp) adds a row to minitorch's op table;
 *    the op is then minitorch.ops.mylib.myadd, with the argument checks and
 *    messages of the built-in ops, __torch_function__ dispatch, autograd
 *    (a grad_fn named GeneratedBackwardFor_mylib_myadd_defaultBackward),
 *    forward AD and gradcheck. The grammar is the op table's: parameter types
 *    Tensor, Tensor?, Tensor|Scalar, Scalar, int, int[], float, bool, str,
 *    dtype; a default after '='; keyword-only parameters after '*'. See the
 *    callback types below, and examples/c_extension/my_lib.c in the
 *    minitorch sources for a complete extension.
 *
 * 6. C++
 *
 *    The header is C and C++ alike (C99 and C++11 or later, clean under
 *    -Wall -Wextra -pedantic): its declarations have C linkage, so a C++
 *    extension (minitorch.utils.cpp_extension.load_inline, or .cpp files
 *    given to load or CppExtension) includes it as a C one does. Callbacks
 *    given to MT->register_op are plain functions (a static function or a
 *    captureless lambda); an exception thrown in C++ must not cross them:
 *    catch it and set a Python exception instead.
 */
#ifndef MINITORCH_MINITORCH_H
#define MINITORCH_MINITORCH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI this header describes. Overriding MINITORCH_ABI_MAJOR (-D) builds
 * an extension that claims another version, to test the refusal. */
#ifndef MINITORCH_ABI_MAJOR
#define MINITORCH_ABI_MAJOR 1
#endif
#define MINITORCH_ABI_MINOR 0

/* Opaque handles: a tensor, the arguments of a kernel call, and the graph
 * node a backward or jvp runs for. */
typedef struct minitorch_tensor minitorch_tensor;
typedef struct minitorch_args minitorch_args;
typedef struct minitorch_node minitorch_node;

/* dtypes, numbered as minitorch numbers them */
typedef enum {
    MINITORCH_BOOL = 0,
    MINITORCH_UINT8,
    MINITORCH_INT8,
    MINITORCH_INT16,
    MINITORCH_INT32,
    MINITORCH_INT64,
    MINITORCH_FLOAT16,
    MINITORCH_BFLOAT16,
    MINITORCH_FLOAT32,
    MINITORCH_FLOAT64,
} minitorch_dtype;

/* A custom op's kernel: reads its arguments by parameter position (MT->arg_*)
 * and returns the result, a new tensor (new reference), or NULL with an
 * exception set. It runs below autograd: ops it calls record nothing; the
 * call is recorded once, with the op's own node. */
typedef minitorch_tensor *(*minitorch_kernel)(const minitorch_args *args);

/* A custom op's backward: given the gradient of the output (never NULL),
 * stores in grad_inputs[p] the gradient of each Tensor parameter p that
 * MT->needs_grad(node, p) asks for (new references; leave NULL for zero).
 * A gradient with the output's broadcast shape is summed down to the
 * input's. Inputs and output are MT->saved_input(node, p) and
 * MT->saved_output(node); other arguments MT->saved_double/int(node, p).
 * Compute with MT->call so that double backward records. 0, or -1 with an
 * exception set. */
typedef int (*minitorch_backward)(minitorch_node *node, minitorch_tensor *grad_output,
                                  minitorch_tensor **grad_inputs);

/* A custom op's forward-mode derivative: tangents[p] is the tangent of
 * Tensor parameter p (NULL for zero); stores the output's tangent in
 * *tangent_out (new reference). 0, or -1 with an exception set. Without one,
 * forward AD derives the tangent from the backward. */
typedef int (*minitorch_jvp)(minitorch_node *node, minitorch_tensor *const *tangents,
                             minitorch_tensor **tangent_out);

typedef struct {
    unsigned abi_major;
    unsigned abi_minor;

    /* -- Python objects -------------------------------------------------- */
    /* 1 if obj is a minitorch.Tensor (or subclass), else 0 (NULL too);
     * cannot fail. */
    int (*check)(PyObject *obj);
    /* The tensor inside obj (borrowed, lives as long as obj), or NULL with a
     * TypeError. */
    minitorch_tensor *(*unwrap)(PyObject *obj);
    /* The minitorch.Tensor of t; consumes the reference t, returns a new one
     * to the object. */
    PyObject *(*wrap)(minitorch_tensor *t);
    /* NULL is ignored, as by Py_XINCREF and Py_XDECREF. */
    void (*retain)(minitorch_tensor *t);
    void (*release)(minitorch_tensor *t);

    /* -- Creating tensors (contiguous, new references) ------------------- */
    minitorch_tensor *(*empty)(int ndim, const int64_t *sizes, minitorch_dtype dtype);
    minitorch_tensor *(*zeros)(int ndim, const int64_t *sizes, minitorch_dtype dtype);
    /* A copy of prod(sizes) contiguous elements at data. */
    minitorch_tensor *(*from_data)(const void *data, int ndim, const int64_t *sizes,
                                   minitorch_dtype dtype);
    /* Same shape and dtype as t, uninitialised. */
    minitorch_tensor *(*empty_like)(minitorch_tensor *t);

    /* -- Metadata: fails only for a NULL handle (-1 or NULL); element_size
     * also for a dtype code outside minitorch_dtype (-1) ----------------- */
    int (*ndim)(minitorch_tensor *t);
    const int64_t *(*sizes)(minitorch_tensor *t);   /* ndim entries */
    const int64_t *(*strides)(minitorch_tensor *t); /* in elements */
    minitorch_dtype (*dtype)(minitorch_tensor *t);
    int64_t (*numel)(minitorch_tensor *t);
    int (*is_contiguous)(minitorch_tensor *t);
    /* Address of the first element (storage offset applied). */
    void *(*data_ptr)(minitorch_tensor *t);
    int64_t (*storage_offset)(minitorch_tensor *t); /* in elements */
    int (*element_size)(minitorch_dtype dtype);     /* bytes */
    int (*requires_grad)(minitorch_tensor *t);

    /* -- Layout ---------------------------------------------------------- */
    /* t itself (a new reference) when contiguous, else a contiguous copy. */
    minitorch_tensor *(*contiguous)(minitorch_tensor *t);
    /* Gives out the shape of like (fresh memory when the shape differs, as
     * torch's resize_as_). 0 or -1. */
    int (*resize_as)(minitorch_tensor *out, minitorch_tensor *like);

    /* -- Running ops ----------------------------------------------------- */
    /* The id of the op called name ("add", "mylib::myadd"), or -1 with a
     * ValueError. */
    int (*op_id)(const char *name);
    /* Runs an op with typed arguments: fmt has one character per argument,
     * in the op's parameter order:
     *   T minitorch_tensor *   N None          i int64_t     f double
     *   b int (bool)           D minitorch_dtype (as int)     s const char *
     *   L int n, const int64_t *values (an int[])
     * 'k' before one of them makes it a keyword: its name (const char *)
     * comes first. Parameters not given take their defaults. The call
     * checks, promotes and records for autograd as minitorch.<name> does,
     * below __torch_function__. Returns the op's tensor (new reference), e.g.
     *   MT->call("add", "TTkf", a, b, "alpha", 2.0)
     * or NULL with an exception (a ValueError for a letter not above; the
     * op's TypeError for a value its parameter does not take, a missing or
     * repeated argument, a NULL 'T' or 's' where None is not allowed: NULL
     * is None where it is; ValueError "invalid dtype" for a 'D' code
     * outside minitorch_dtype). An op returning something else than one
     * tensor is an error too. */
    minitorch_tensor *(*call)(const char *name, const char *fmt, ...);
    minitorch_tensor *(*call_id)(int id, const char *fmt, ...);

    /* -- Custom ops ------------------------------------------------------ */
    /* Registers schema (section 5) with its kernel; backward and jvp may be
     * NULL. Returns the op's Python callable (new reference), also reachable
     * as minitorch.ops.<namespace>.<name>, or NULL. */
    PyObject *(*register_op)(const char *schema, minitorch_kernel kernel,
                             minitorch_backward backward, minitorch_jvp jvp);
    /* A kernel's arguments, by parameter position. arg_tensor is borrowed
     * and NULL for None (or a number given for Tensor|Scalar, which
     * arg_double then reads); arg_double reads float, Scalar, int and bool
     * parameters, arg_int int, bool and integral Scalar ones. A position
     * outside the schema is an IndexError, a parameter of another type a
     * TypeError (arg_is_none: -1; the others: 0 or NULL, with the exception
     * set: see section 3). */
    minitorch_tensor *(*arg_tensor)(const minitorch_args *args, int i);
    int (*arg_is_none)(const minitorch_args *args, int i);
    double (*arg_double)(const minitorch_args *args, int i);
    int64_t (*arg_int)(const minitorch_args *args, int i);
    const int64_t *(*arg_int_list)(const minitorch_args *args, int i, int *n);
    const char *(*arg_str)(const minitorch_args *args, int i);
    /* In a backward or jvp: the saved Tensor input p (new reference, NULL
     * with an error when it was modified in place since), the saved output,
     * the recorded value of a non-Tensor parameter, and whether input p
     * needs a gradient. A position outside the schema is an IndexError
     * (needs_grad: -1; saved_double and saved_int: 0 with the exception
     * set). */
    minitorch_tensor *(*saved_input)(minitorch_node *node, int p);
    minitorch_tensor *(*saved_output)(minitorch_node *node);
    double (*saved_double)(minitorch_node *node, int p);
    int64_t (*saved_int)(minitorch_node *node, int p);
    int (*needs_grad)(minitorch_node *node, int p);
} minitorch_api;

#ifndef MINITORCH_INTERNAL /* minitorch's own build fills the table instead */

/* The table, once import_minitorch() has run. */
static const minitorch_api *MT;

static inline int import_minitorch(void)
{
    PyObject *module = PyImport_ImportModule("minitorch._C");
    if (!module)
        return -1;
    PyObject *capsule = PyObject_GetAttrString(module, "_C_API");
    Py_DECREF(module);
    if (!capsule)
        return -1;
    const minitorch_api *api =
        (const minitorch_api *)PyCapsule_GetPointer(capsule, "minitorch._C._C_API");
    Py_DECREF(capsule);
    if (!api)
        return -1;
    if (api->abi_major != MINITORCH_ABI_MAJOR || (int)api->abi_minor < MINITORCH_ABI_MINOR) {
        PyErr_Format(PyExc_ImportError,
                     "module compiled against minitorch C API version %d.%d, but the installed "
                     "minitorch provides version %u.%u",
                     MINITORCH_ABI_MAJOR, MINITORCH_ABI_MINOR, api->abi_major, api->abi_minor);
        return -1;
    }
    MT = api;
    return 0;
}

#endif /* MINITORCH_INTERNAL */

#ifdef __cplusplus
}
#endif

#endif
