/* Turns the rows of csrc/ops.def into minitorch functions and Tensor methods. */
#include "function.h"
#include "op_table.h"

#include "../autograd/derivatives.h"

#include <string.h>

#define MT_OP(kinds, impl, sig, ...) PyObject *impl(mt_args *a);
#include "../ops.def"
#undef MT_OP

typedef struct {
    unsigned kinds;
    mt_impl_fn impl;
    const char *sig;
    const char *derivative; /* "" when the op has none */
} op_row;

static const op_row rows[] = {
#define MT_OP(kinds, impl, sig, ...) {kinds, impl, sig, #__VA_ARGS__},
#include "../ops.def"
#undef MT_OP
};
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

static mt_signature *parsed[NROWS];

static size_t name_len(const char *sig)
{
    return strchr(sig, '(') - sig;
}

static bool same_name(const char *a, const char *b)
{
    size_t n = name_len(a);
    return n == name_len(b) && strncmp(a, b, n) == 0;
}

/* Builds one callable for all rows named like rows[first] that have `kind`. */
static PyObject *build(int first, unsigned kind, PyTypeObject *type, const char *public_prefix,
                       const char *module, const char *qualprefix)
{
    int n = 0;
    for (int r = first; r < NROWS; r++)
        if (same_name(rows[r].sig, rows[first].sig) && (rows[r].kinds & kind))
            n++;
    mt_signature **sigs = PyMem_Calloc(n, sizeof *sigs);
    mt_impl_fn *impls = PyMem_Calloc(n, sizeof *impls);
    const mt_node_kind **kinds = PyMem_Calloc(n, sizeof *kinds);
    if (!sigs || !impls || !kinds)
        return PyErr_NoMemory();
    int k = 0;
    for (int r = first; r < NROWS; r++)
        if (same_name(rows[r].sig, rows[first].sig) && (rows[r].kinds & kind)) {
            sigs[k] = parsed[r];
            impls[k] = rows[r].impl;
            if (rows[r].derivative[0] &&
                !(kinds[k] = mt_derivative_kind(rows[r].derivative))) {
                PyErr_Format(PyExc_RuntimeError, "minitorch: unknown derivative '%s' for '%s'",
                             rows[r].derivative, rows[r].sig);
                return NULL;
            }
            k++;
        }
    return mt_function_new(type, mt_signature_name(parsed[first]), public_prefix, module,
                           qualprefix, n, sigs, impls, kinds);
}

static bool seen_before(int r, unsigned kind)
{
    for (int q = 0; q < r; q++)
        if ((rows[q].kinds & kind) && same_name(rows[q].sig, rows[r].sig))
            return true;
    return false;
}

int mt_op_table_install(PyObject *functions, PyObject *nn_functions)
{
    for (int r = 0; r < NROWS; r++)
        if (!(parsed[r] = mt_signature_parse(rows[r].sig, rows[r].kinds)))
            return -1;
    for (int r = 0; r < NROWS; r++) {
        const char *name = mt_signature_name(parsed[r]);
        if ((rows[r].kinds & MT_KIND_FUNCTION) && !seen_before(r, MT_KIND_FUNCTION)) {
            PyObject *f = build(r, MT_KIND_FUNCTION, &MTFunction_Type, "torch.", "minitorch", "");
            if (!f || PyDict_SetItemString(functions, name, f) < 0)
                return -1;
            Py_DECREF(f);
        }
        if ((rows[r].kinds & MT_KIND_NN) && !seen_before(r, MT_KIND_NN)) {
            PyObject *f = build(r, MT_KIND_NN, &MTFunction_Type, "torch.nn.functional.",
                                "minitorch.nn.functional", "");
            if (!f || PyDict_SetItemString(nn_functions, name, f) < 0)
                return -1;
            Py_DECREF(f);
        }
        if ((rows[r].kinds & MT_KIND_METHOD) && !seen_before(r, MT_KIND_METHOD)) {
            PyObject *m = build(r, MT_KIND_METHOD, &MTMethod_Type, "torch.Tensor.",
                                "minitorch", "Tensor.");
            if (!m || PyDict_SetItemString(MTTensorBase_Type.tp_dict, name, m) < 0)
                return -1;
            Py_DECREF(m);
        }
    }
    PyType_Modified(&MTTensorBase_Type);
    return 0;
}
