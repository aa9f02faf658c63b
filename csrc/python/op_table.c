/* Publishes the rows of the op table (csrc/ops/table.h) as minitorch
 * functions, Tensor methods and nn.functional functions, and defines the
 * entry point of each MT_PYOP row: its binding impl behind the row's C
 * calling convention. */
#include "function.h"
#include "op_table.h"

#include <string.h>

/* An MT_PYOP row reads the Python objects of its call, so it runs only when
 * Python made the call. */
static int host_only(mt_args *a)
{
    return mt_error(MT_ERR_RUNTIME, "%s() is implemented by the Python binding only",
                    a->sig->name);
}

#define MT_OP(id, kinds, impl, sig, ...)
#define MT_PYOP(id, kinds, impl, sig, ...)                 \
    PyObject *impl(mt_args *a);                            \
    int mtpy_row_##id(mt_args *a, mt_result *r);           \
    int mtpy_row_##id(mt_args *a, mt_result *r)            \
    {                                                      \
        return a->host ? mtpy_result_from_object(impl(a), r) : host_only(a); \
    }
#include "../ops.def"
#undef MT_OP
#undef MT_PYOP

static bool same_name(const mt_op *a, const mt_op *b)
{
    return strcmp(a->sig->name, b->sig->name) == 0;
}

/* Builds one callable for all rows named like mt_ops[first] that have `kind`. */
static PyObject *build(int first, unsigned kind, PyTypeObject *type, const char *public_prefix,
                       const char *module, const char *qualprefix)
{
    int n = 0;
    for (int r = first; r < MT_OP_COUNT; r++)
        if (same_name(&mt_ops[r], &mt_ops[first]) && (mt_ops[r].kinds & kind))
            n++;
    const mt_op **rows = PyMem_Calloc(n, sizeof *rows);
    if (!rows)
        return PyErr_NoMemory();
    int k = 0;
    for (int r = first; r < MT_OP_COUNT; r++)
        if (same_name(&mt_ops[r], &mt_ops[first]) && (mt_ops[r].kinds & kind))
            rows[k++] = &mt_ops[r];
    return mt_function_new(type, mt_ops[first].sig->name, public_prefix, module, qualprefix, n,
                           rows);
}

static bool seen_before(int r, unsigned kind)
{
    for (int q = 0; q < r; q++)
        if ((mt_ops[q].kinds & kind) && same_name(&mt_ops[q], &mt_ops[r]))
            return true;
    return false;
}

int mt_op_table_install(PyObject *functions, PyObject *nn_functions)
{
    if (mt_ops_init() < 0)
        return mtpy_raise_int();
    for (int r = 0; r < MT_OP_COUNT; r++)
        if (mtpy_signature_bind(mt_ops[r].sig) < 0)
            return -1;
    for (int r = 0; r < MT_OP_COUNT; r++) {
        const char *name = mt_ops[r].sig->name;
        if ((mt_ops[r].kinds & MT_KIND_FUNCTION) && !seen_before(r, MT_KIND_FUNCTION)) {
            PyObject *f = build(r, MT_KIND_FUNCTION, &MTFunction_Type, "torch.", "minitorch", "");
            if (!f || PyDict_SetItemString(functions, name, f) < 0)
                return -1;
            Py_DECREF(f);
        }
        if ((mt_ops[r].kinds & MT_KIND_NN) && !seen_before(r, MT_KIND_NN)) {
            PyObject *f = build(r, MT_KIND_NN, &MTFunction_Type, "torch.nn.functional.",
                                "minitorch.nn.functional", "");
            if (!f || PyDict_SetItemString(nn_functions, name, f) < 0)
                return -1;
            Py_DECREF(f);
        }
        if ((mt_ops[r].kinds & MT_KIND_METHOD) && !seen_before(r, MT_KIND_METHOD)) {
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
