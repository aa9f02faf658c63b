/* Publishes the rows of the op table (csrc/ops/runtime/table.h) as minitorch
 * functions, Tensor methods and nn.functional functions, lists them with
 * their tags and sample domains for tests and transforms (_C._op_rows()),
 * and defines the entry point of each MT_PYOP row: its binding impl behind
 * the row's C calling convention, installed into the table at init. */
#include "function.h"
#include "op_table.h"
#include "../autograd/autograd_bind.h"
#include "../../autograd/derivatives.h"
#include "../../ops/tags.h"

#include <string.h>

PyObject *mtpy_object_of(const mt_param *p, const mt_value *v)
{
    if (p->type == MT_ARG_OBJECT)
        return Py_NewRef((PyObject *)v->obj);
    if (v->t)
        return Py_NewRef((PyObject *)mtpy_container(v->t));
    switch (p->type) {
    case MT_ARG_TENSOR:
    case MT_ARG_SCALAR:
        if (v->s.kind == MT_SCALAR_COMPLEX)
            return PyComplex_FromDoubles(v->s.f, v->s.im);
        return v->s.kind == MT_SCALAR_FLOAT  ? PyFloat_FromDouble(v->s.f)
               : v->s.kind == MT_SCALAR_BOOL ? PyBool_FromLong((long)v->s.i)
                                             : PyLong_FromLongLong(v->s.i);
    case MT_ARG_TENSOR_LIST: {
        PyObject *l = PyList_New(v->nints);
        for (int k = 0; l && k < v->nints; k++)
            PyList_SET_ITEM(l, k, Py_NewRef((PyObject *)mtpy_container(v->tensors[k])));
        return l;
    }
    case MT_ARG_INT:
        return PyLong_FromLongLong(v->i);
    case MT_ARG_INT_LIST: {
        PyObject *l = PyTuple_New(v->nints);
        for (int k = 0; l && k < v->nints; k++)
            PyTuple_SET_ITEM(l, k, PyLong_FromLongLong(v->ints[k]));
        return l;
    }
    case MT_ARG_FLOAT:
        return PyFloat_FromDouble(v->f);
    case MT_ARG_BOOL:
        return PyBool_FromLong(v->b);
    case MT_ARG_DTYPE:
        return Py_NewRef(mtpy_dtype_obj(v->dtype));
    case MT_ARG_STR:
        return PyUnicode_FromString(v->str);
    default:
        PyErr_Format(PyExc_RuntimeError,
                     "minitorch: argument '%s' needs a Python object when called from C", p->name);
        return NULL;
    }
}

/* Runs a binding impl for a call C code made: its given arguments become the
 * Python objects the impl reads, for the length of the call. */
static PyObject *run_for_c(mtpy_impl_fn impl, mt_args *a)
{
    mtpy_call c;
    PyObject *held[MT_MAX_PARAMS] = {NULL};
    PyObject *r = NULL;
    c.a = *a;
    c.a.host = &c;
    c.args = NULL;
    c.nargs = 0;
    c.kwnames = NULL;
    mtpy_call_init_overloaded(&c);
    const mt_signature *s = a->sig;
    for (int i = 0; i < s->nparams; i++) {
        mt_value *v = &c.a.v[i];
        if (v->ints == a->listbuf[i])
            v->ints = c.a.listbuf[i];
        if (!v->obj)
            continue;
        if (!(held[i] = mtpy_object_of(&s->params[i], v)))
            goto done;
        v->obj = held[i];
    }
    r = impl(&c.a);
    a->path = c.a.path;
done:
    for (int i = 0; i < s->nparams; i++)
        Py_XDECREF(held[i]);
    mtpy_call_release_overloaded(&c);
    return r;
}

/* An impl's Python result as the row's result. Its failure is either a
 * Python exception or an mt_error it left pending. */
static int row_result(PyObject *o, mt_result *r)
{
    if (!o && !PyErr_Occurred()) {
        r->kind = MT_RESULT_NONE;
        r->n = 0;
        return -1;
    }
    return mtpy_result_from_object(o, r);
}

#define MT_OP(id, kinds, impl, sig, ...)
#define MT_PYOP(id, kinds, impl, sig, ...)                            \
    PyObject *impl(mt_args *a);                                       \
    int mtpy_row_##id(mt_args *a, mt_result *r);                      \
    int mtpy_row_##id(mt_args *a, mt_result *r)                       \
    {                                                                 \
        return row_result(a->host ? impl(a) : run_for_c(impl, a), r); \
    }
#include "../../ops.def"
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
#define MT_PYOP(id, ...) mt_op_install_host_impl(MT_OP_##id, mtpy_row_##id);
#include "../../ops.def"
#undef MT_PYOP
    if (mt_ops_init() < 0 || mt_autograd_init() < 0)
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
            PyObject *m =
                build(r, MT_KIND_METHOD, &MTMethod_Type, "torch.Tensor.", "minitorch", "Tensor.");
            if (!m || PyDict_SetItemString(MTTensorBase_Type.tp_dict, name, m) < 0)
                return -1;
            Py_DECREF(m);
        }
    }
    PyType_Modified(&MTTensorBase_Type);
    return 0;
}

static const char *const row_ids[MT_OP_COUNT] = {
#define MT_OP(id, ...) "MT_OP_" #id,
#define MT_PYOP(id, ...) "MT_OP_" #id,
#define MT_OPERATOR(id, ...)                                                         \
    "MT_OP_" #id, "MT_OP_" #id "_", "MT_OP_" #id "_dunder", "MT_OP_" #id "_idunder", \
        "MT_OP_" #id "_rdunder",
#include "../../ops.def"
#undef MT_OP
#undef MT_PYOP
#undef MT_OPERATOR
};

static const char *const row_samples[MT_OP_COUNT] = {
#define MT_SAMPLE(id, domain) [MT_OP_##id] = (domain),
#include "../../ops.def"
#undef MT_SAMPLE
};

static const char *const tag_names[] = {
#define MT_TAG_NAME(NAME, TEXT) TEXT,
    MT_FOR_TAGS(MT_TAG_NAME)
#undef MT_TAG_NAME
};

/* A row's tag names. */
static PyObject *row_tag_names(const mt_op *op)
{
    unsigned tags = op->tags;
    int n = 0;
    for (size_t k = 0; k < sizeof tag_names / sizeof tag_names[0]; k++)
        n += tags >> k & 1u;
    PyObject *out = PyTuple_New(n);
    for (size_t k = 0, i = 0; out && k < sizeof tag_names / sizeof tag_names[0]; k++) {
        if (!(tags >> k & 1u))
            continue;
        PyObject *name = PyUnicode_FromString(tag_names[k]);
        if (!name)
            Py_CLEAR(out);
        else
            PyTuple_SET_ITEM(out, i++, name);
    }
    return out;
}

/* Each row as (C id, name, kinds: "f" function "m" method "n" nn.functional,
 * signature, times run, tags, sample domain or None). */
PyObject *mt_op_rows(PyObject *module, PyObject *unused)
{
    PyObject *out = PyTuple_New(MT_OP_COUNT);
    for (int r = 0; out && r < MT_OP_COUNT; r++) {
        const mt_op *op = &mt_ops[r];
        char kinds[4];
        int n = 0;
        if (op->kinds & MT_KIND_FUNCTION)
            kinds[n++] = 'f';
        if (op->kinds & MT_KIND_METHOD)
            kinds[n++] = 'm';
        if (op->kinds & MT_KIND_NN)
            kinds[n++] = 'n';
        kinds[n] = '\0';
        PyObject *tags = row_tag_names(op);
        const char *sample = row_samples[op->id] ? row_samples[op->id] : row_samples[op->base];
        PyObject *row =
            tags ? Py_BuildValue("(sss#skNz)", row_ids[r], op->sig->name, kinds, (Py_ssize_t)n,
                                 op->sig->text, mtpy_row_runs[r], tags, sample)
                 : NULL;
        if (!row)
            Py_CLEAR(out);
        else
            PyTuple_SET_ITEM(out, r, row);
    }
    return out;
}
