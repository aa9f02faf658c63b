#include "parser.h"
#include "../types/generator.h"
#include "../interop/foreign_tensors.h"
#include "../interop/numpy_bridge.h"
#include "../../core/hot.h"

#include <ctype.h>
#include <string.h>

MT_HOT_TLS _Thread_local int mt_tf_disabled = 0;
MT_HOT_TLS _Thread_local int mt_tf_subclass_disabled = 0;
PyObject *mt_default_tf = NULL;
PyObject *mt_disabled_tf = NULL;
static PyObject *str_torch_function;

/* ---------------------------------------------------------------- signatures */

int mtpy_signature_bind(mt_signature *s)
{
    if (!str_torch_function &&
        !(str_torch_function = PyUnicode_InternFromString("__torch_function__")))
        return -1;
    for (int i = 0; i < s->nparams; i++) {
        mt_param *p = &s->params[i];
        if (!p->host_name && !(p->host_name = PyUnicode_InternFromString(p->name)))
            return -1;
        if (p->alias && !p->host_alias && !(p->host_alias = PyUnicode_InternFromString(p->alias)))
            return -1;
    }
    return 0;
}

PyObject *mt_signature_params(const mt_signature *s)
{
    PyObject *out = PyTuple_New(s->nparams);
    if (!out)
        return NULL;
    for (int i = 0; i < s->nparams; i++) {
        const mt_param *p = &s->params[i];
        PyObject *item =
            Py_BuildValue("(ssOz)", p->name, p->type_text, p->kwonly ? Py_True : Py_False,
                          p->has_default ? p->default_text : NULL);
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, item);
    }
    return out;
}

/* ---------------------------------------------------------- torch_function */

/* The type's __torch_function__ if it dispatches, else NULL: exact tensors
 * never do (that compare is the whole fast path), nor the disabled marker,
 * nor a foreign tensor, whose handler is its own library's. */
static PyObject *torch_function_of(PyObject *obj)
{
    PyTypeObject *tp = Py_TYPE(obj);
    if (tp == mtpy_tensor_class || tp == &MTTensorBase_Type)
        return NULL;
    PyObject *attr = _PyType_Lookup(tp, str_torch_function);
    if (!attr || attr == mt_disabled_tf || mtpy_is_foreign_tensor(obj))
        return NULL;
    return attr;
}

bool mt_has_torch_function(PyObject *obj) { return torch_function_of(obj) != NULL; }

bool mt_has_custom_torch_function(PyObject *obj)
{
    PyObject *handler;
    if (mt_tf_disabled || mt_tf_subclass_disabled || !(handler = torch_function_of(obj)))
        return false;
    return !(handler == mt_default_tf && MTPy_Check(obj));
}

static int grow_overloaded(mtpy_call *c)
{
    int cap = c->overloaded_cap * 2;
    PyObject **buf = c->overloaded == c->overloaded_inline
                         ? PyMem_Malloc(sizeof(PyObject *) * cap)
                         : PyMem_Realloc(c->overloaded, sizeof(PyObject *) * cap);
    if (!buf) {
        PyErr_NoMemory();
        return -1;
    }
    if (c->overloaded == c->overloaded_inline)
        memcpy(buf, c->overloaded_inline, sizeof c->overloaded_inline);
    c->overloaded = buf;
    c->overloaded_cap = cap;
    return 0;
}

void mtpy_call_init_overloaded(mtpy_call *c)
{
    c->overloaded = c->overloaded_inline;
    c->overloaded_cap = MT_INLINE_OVERLOADED;
    c->noverloaded = 0;
    c->ncustom = 0;
    c->held = NULL;
}

void mtpy_call_release_overloaded(mtpy_call *c)
{
    if (c->overloaded != c->overloaded_inline) {
        PyMem_Free(c->overloaded);
        c->overloaded = c->overloaded_inline;
        c->overloaded_cap = MT_INLINE_OVERLOADED;
    }
    Py_CLEAR(c->held);
}

void mtpy_call_append_overloaded(mtpy_call *c, PyObject *obj)
{
    if (c->noverloaded < c->overloaded_cap || grow_overloaded(c) == 0)
        c->overloaded[c->noverloaded++] = obj;
}

int mtpy_call_hold(mtpy_call *c, PyObject *o)
{
    if (!c->held && !(c->held = PyList_New(0)))
        return -1;
    return PyList_Append(c->held, o);
}

/* One operand per type; a subclass goes before the first of its superclasses. */
MT_HOT bool mt_collect_overloaded(mtpy_call *out, PyObject *obj)
{
    PyObject *handler;
    if (mt_tf_disabled || mt_tf_subclass_disabled || !(handler = torch_function_of(obj)))
        return false;
    PyTypeObject *tp = Py_TYPE(obj);
    int pos = out->noverloaded;
    for (int i = 0; i < out->noverloaded; i++) {
        PyTypeObject *other = Py_TYPE(out->overloaded[i]);
        if (other == tp)
            return true;
        if (pos == out->noverloaded && PyType_IsSubtype(tp, other))
            pos = i;
    }
    if (out->noverloaded == out->overloaded_cap && grow_overloaded(out) < 0)
        return false;
    memmove(&out->overloaded[pos + 1], &out->overloaded[pos],
            sizeof(PyObject *) * (out->noverloaded - pos));
    out->overloaded[pos] = obj;
    out->noverloaded++;
    if (!(handler == mt_default_tf && MTPy_Check(obj)))
        out->ncustom++;
    return true;
}

/* ------------------------------------------------------------- conversions */

/* As torch's parser, a Tensor-like that is no tensor is taken for any
 * argument (or int list element) only to dispatch on; the call never runs
 * with it, since its own handler makes the call dispatch. */
static bool stands_in_for_dispatch(mtpy_call *out, PyObject *o)
{
    PyTypeObject *tp = Py_TYPE(o);
    if (tp == &PyLong_Type || tp == &PyFloat_Type || tp == &PyBool_Type || tp == &PyUnicode_Type ||
        tp == &MTDtype_Type || tp == &PyTuple_Type || tp == &PyList_Type || MTPy_Check(o))
        return false; /* the common arguments, without a type lookup */
    return mt_collect_overloaded(out, o);
}

MT_HOT static bool is_int_like(PyObject *o)
{
    if (PyLong_CheckExact(o))
        return true;
    if (PyBool_Check(o) || PyFloat_Check(o))
        return false;
    if (PyLong_Check(o))
        return true;
    if (MTPy_Check(o))
        return MTPy_T(o)->ndim == 0 && mt_is_integral(MTPy_T(o)->dtype, false);
    return Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_index;
}

MT_HOT static int as_int(PyObject *o, int64_t *out)
{
    if (PyLong_CheckExact(o)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow) {
            PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
            return -1;
        }
        *out = v;
        return 0;
    }
    PyObject *idx = PyNumber_Index(o);
    if (!idx)
        return -1;
    long long v = PyLong_AsLongLong(idx);
    Py_DECREF(idx);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
        return -1;
    }
    *out = v;
    return 0;
}

/* The one test of what is a number, as torch's parser has it: Python's bool,
 * int and float (with subclasses of int and float) and NumPy's scalars. A
 * NumPy integer is an int; a NumPy bool, floating or complex scalar is read
 * through __float__, as torch reads it, so np.bool_(True) is the float 1.0
 * and an np.complex64 drops its imaginary part with NumPy's ComplexWarning. A
 * Python complex (np.complex128 is one) is no number: there is no complex
 * dtype. Exact int and float come first: they are what calls pass. */
typedef enum { NUM_NONE, NUM_BOOL, NUM_INT, NUM_FLOAT, NUM_COMPLEX } number_kind;

static number_kind number_kind_of(PyObject *o)
{
    PyTypeObject *tp = Py_TYPE(o);
    if (tp == &PyFloat_Type)
        return NUM_FLOAT;
    if (tp == &PyLong_Type)
        return NUM_INT;
    if (tp == &PyBool_Type)
        return NUM_BOOL;
    /* a subclass of complex (NumPy's complex128) is no number to torch */
    if (PyComplex_Check(o))
        return PyComplex_CheckExact(o) ? NUM_COMPLEX : NUM_NONE;
    switch (mtpy_numpy_scalar_kind(o)) {
    case MTPY_NP_INTEGER:
        return NUM_INT;
    /* torch reads a NumPy complex scalar as a float (NumPy warns of the
     * dropped imaginary part); only Python's complex is a complex number */
    case MTPY_NP_COMPLEX:
    case MTPY_NP_BOOL:
    case MTPY_NP_FLOATING:
        return NUM_FLOAT;
    case MTPY_NP_NONE:
        break;
    }
    if (PyLong_Check(o))
        return NUM_INT;
    return PyFloat_Check(o) ? NUM_FLOAT : NUM_NONE;
}

static bool is_number(PyObject *o) { return number_kind_of(o) != NUM_NONE; }

/* A number (is_number) or a one-element tensor, as an mt_scalar. */
static int as_scalar(PyObject *o, mt_scalar *s)
{
    switch (number_kind_of(o)) {
    case NUM_BOOL:
        s->kind = MT_SCALAR_BOOL;
        s->i = o == Py_True;
        s->f = (double)s->i;
        s->im = 0;
        return 0;
    case NUM_INT: {
        int overflow;
        s->i = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (s->i == -1 && PyErr_Occurred())
            return -1;
        if (overflow) {
            /* torch's words: it retries a NumPy integer past int64 as a
             * Python int, which a NumPy scalar is not */
            if (PyLong_Check(o))
                PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
            else
                PyErr_SetString(PyExc_TypeError, "an integer is required");
            return -1;
        }
        s->kind = MT_SCALAR_INT;
        s->f = (double)s->i;
        s->im = 0;
        return 0;
    }
    case NUM_FLOAT:
        s->f = PyFloat_AsDouble(o);
        if (s->f == -1.0 && PyErr_Occurred())
            return -1;
        s->kind = MT_SCALAR_FLOAT;
        s->i = 0;
        s->im = 0;
        return 0;
    case NUM_COMPLEX: {
        Py_complex c = PyComplex_AsCComplex(o);
        if (c.real == -1.0 && PyErr_Occurred())
            return -1;
        s->kind = MT_SCALAR_COMPLEX;
        s->i = 0;
        s->f = c.real;
        s->im = c.imag;
        return 0;
    }
    case NUM_NONE:
        break;
    }
    if (!MTPy_Check(o)) {
        PyErr_Format(PyExc_TypeError, "expected a number, got %s", Py_TYPE(o)->tp_name);
        return -1;
    }
    PyObject *item = PyObject_CallMethod(o, "item", NULL);
    if (!item)
        return -1;
    int r = as_scalar(item, s);
    Py_DECREF(item);
    return r;
}

typedef enum { CONV_OK = 0, CONV_BAD_TYPE = 1, CONV_ERROR = -1 } conv_result;

/* For list errors: which element was wrong (a new reference, as the list
 * it came from may not outlive the message). */
typedef struct {
    int bad_pos;
    PyObject *bad_elem;
} conv_detail;

static void bad_element(conv_detail *det, Py_ssize_t pos, PyObject *elem)
{
    det->bad_pos = (int)pos;
    det->bad_elem = Py_NewRef(elem);
}

/* o's items, fixed for the length of the conversion: a list is copied when
 * reading its items may run Python code (an __index__ that changes the list
 * would otherwise pull items from under us). A new reference. */
static PyObject *stable_items(PyObject *o)
{
    if (PyList_Check(o))
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(o); k++)
            if (!PyLong_CheckExact(PyList_GET_ITEM(o, k)))
                return PyList_AsTuple(o);
    return Py_NewRef(o);
}

static conv_result convert_int_list(const mt_param *p, PyObject *o, mt_value *v, int64_t *buf,
                                    mtpy_call *out, conv_detail *det)
{
    if (is_int_like(o) && p->list_len) {
        int64_t x;
        if (as_int(o, &x) < 0)
            return CONV_ERROR;
        for (int k = 0; k < p->list_len; k++)
            buf[k] = x;
        v->ints = buf;
        v->nints = p->list_len;
        return CONV_OK;
    }
    if (!PyTuple_Check(o) && !PyList_Check(o))
        return CONV_BAD_TYPE;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if (n > MT_MAX_LIST) {
        /* a list longer than the call's own buffer (split's sections) lives
         * in a bytes object the call holds until it is released */
        PyObject *big = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
        if (!big)
            return CONV_ERROR;
        int held = mtpy_call_hold(out, big);
        buf = (int64_t *)PyBytes_AS_STRING(big);
        Py_DECREF(big);
        if (held < 0)
            return CONV_ERROR;
    }
    PyObject *seq = stable_items(o);
    if (!seq)
        return CONV_ERROR;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    conv_result r = CONV_OK;
    bool dispatching = false;
    for (Py_ssize_t k = 0; k < n && r == CONV_OK; k++) {
        if (stands_in_for_dispatch(out, items[k])) {
            buf[k] = 0;
            dispatching = true;
            continue;
        }
        if (!is_int_like(items[k])) {
            bad_element(det, k, items[k]);
            r = CONV_BAD_TYPE;
        } else if (as_int(items[k], &buf[k]) < 0) {
            r = CONV_ERROR;
        }
    }
    /* the operands to dispatch on are borrowed from the copy */
    if (dispatching && seq != o && mtpy_call_hold(out, seq) < 0)
        r = CONV_ERROR;
    Py_DECREF(seq);
    v->ints = buf;
    v->nints = (int)n;
    return r;
}

static conv_result convert(const mt_signature *sig, const mt_param *p, PyObject *o, mt_value *v,
                           int64_t *buf, mtpy_call *out, conv_detail *det)
{
    v->obj = o;
    v->t = NULL;
    v->is_scalar = false;
    v->tensors = NULL;
    if (p->type == MT_ARG_OBJECT && !p->optional)
        return CONV_OK; /* anything, None included, is passed through */
    if (o == Py_None) {
        if (!p->optional)
            return CONV_BAD_TYPE;
        v->obj = NULL;
        v->ints = NULL; /* autograd records an int list as None by this */
        v->nints = 0;
        return CONV_OK;
    }
    if (p->type != MT_ARG_TENSOR && p->type != MT_ARG_TENSOR_LIST && p->type != MT_ARG_OBJECT &&
        stands_in_for_dispatch(out, o))
        return CONV_OK;
    switch (p->type) {
    case MT_ARG_TENSOR:
        if (Py_TYPE(o) == mtpy_tensor_class) {
            v->t = MTPy_T(o);
            return CONV_OK;
        }
        if (MTPy_Check(o)) {
            v->t = MTPy_T(o);
            mt_collect_overloaded(out, o);
            return CONV_OK;
        }
        if (p->numbers && is_number(o)) {
            v->is_scalar = true;
            return as_scalar(o, &v->s) < 0 ? CONV_ERROR : CONV_OK;
        }
        /* a tensor-like is taken only to dispatch on: with dispatch off it is
         * not a tensor */
        if (mt_collect_overloaded(out, o))
            return CONV_OK;
        return PyErr_Occurred() ? CONV_ERROR : CONV_BAD_TYPE;
    case MT_ARG_TENSOR_LIST: {
        if (!PyTuple_Check(o) && !PyList_Check(o))
            return CONV_BAD_TYPE;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        if (n > INT32_MAX) {
            PyErr_SetString(PyExc_RuntimeError, "minitorch: too many tensors in a list");
            return CONV_ERROR;
        }
        /* The tensors are read once, and the call holds a reference to each
         * item until it is released: Python code run while later arguments
         * are converted (an __index__) may empty the list the caller gave.
         * The references sit after the n tensor pointers. */
        mt_tensor **ts = PyMem_Calloc(n ? 2 * (size_t)n : 1, sizeof(void *));
        if (!ts) {
            PyErr_NoMemory();
            return CONV_ERROR;
        }
        PyObject **items = (PyObject **)(ts + n);
        memcpy(items, PySequence_Fast_ITEMS(o), sizeof(PyObject *) * n);
        for (Py_ssize_t k = 0; k < n; k++)
            Py_INCREF(items[k]);
        v->tensors = ts;
        v->nints = (int)n;
        for (Py_ssize_t k = 0; k < n; k++) {
            if (MTPy_Check(items[k])) {
                ts[k] = MTPy_T(items[k]);
                mt_collect_overloaded(out, items[k]);
                continue;
            }
            if (mt_collect_overloaded(out, items[k]))
                continue;
            if (PyErr_Occurred())
                return CONV_ERROR;
            bad_element(det, k, items[k]);
            return CONV_BAD_TYPE;
        }
        return CONV_OK;
    }
    case MT_ARG_INT:
        if (!is_int_like(o))
            return CONV_BAD_TYPE;
        return as_int(o, &v->i) < 0 ? CONV_ERROR : CONV_OK;
    case MT_ARG_INT_LIST:
        return convert_int_list(p, o, v, buf, out, det);
    case MT_ARG_FLOAT:
        if (PyFloat_CheckExact(o)) {
            v->f = PyFloat_AS_DOUBLE(o);
            return CONV_OK;
        }
        if (PyBool_Check(o) || !is_number(o)) {
            if (MTPy_Check(o) && MTPy_T(o)->ndim == 0)
                goto scalar_float;
            return CONV_BAD_TYPE;
        }
    scalar_float:
        if (as_scalar(o, &v->s) < 0)
            return CONV_ERROR;
        if (v->s.kind == MT_SCALAR_COMPLEX)
            return CONV_BAD_TYPE;
        v->f = v->s.f;
        return CONV_OK;
    case MT_ARG_SCALAR:
        if (is_number(o) || (MTPy_Check(o) && MTPy_T(o)->numel == 1))
            return as_scalar(o, &v->s) < 0 ? CONV_ERROR : CONV_OK;
        return CONV_BAD_TYPE;
    case MT_ARG_BOOL:
        if (PyBool_Check(o)) {
            v->b = o == Py_True;
            return CONV_OK;
        }
        return CONV_BAD_TYPE; /* torch refuses np.bool_ here too */
    case MT_ARG_DTYPE:
        if (Py_TYPE(o) == &MTDtype_Type) {
            v->dtype = ((MTDtypeObject *)o)->dtype;
            return CONV_OK;
        }
        if (o == (PyObject *)&PyFloat_Type || o == (PyObject *)&PyLong_Type ||
            o == (PyObject *)&PyBool_Type)
            return mtpy_dtype_from(o, &v->dtype) < 0 ? CONV_ERROR : CONV_OK;
        return CONV_BAD_TYPE;
    case MT_ARG_STR:
        if (!PyUnicode_Check(o))
            return CONV_BAD_TYPE;
        v->str = PyUnicode_AsUTF8(o);
        return v->str ? CONV_OK : CONV_ERROR;
    case MT_ARG_GENERATOR:
        if (!PyObject_TypeCheck(o, &MTGenerator_Type))
            return CONV_BAD_TYPE;
        v->gen = mtpy_generator(o);
        return CONV_OK;
    case MT_ARG_DEVICE: {
        PyObject *s = PyObject_Str(o);
        if (!s)
            return CONV_ERROR;
        const char *c = PyUnicode_AsUTF8(s);
        bool ok = c && (strcmp(c, "cpu") == 0 || strncmp(c, "cpu:", 4) == 0);
        /* a CUDA or MPS device fails as torch's CPU-only build fails */
        bool cuda = c && strncmp(c, "cuda", 4) == 0, mps = c && strncmp(c, "mps", 3) == 0;
        Py_DECREF(s);
        if (!ok) {
            if (cuda)
                PyErr_SetString(PyExc_AssertionError, "Torch not compiled with CUDA enabled");
            else if (mps)
                PyErr_SetString(PyExc_RuntimeError,
                                "PyTorch is not linked with support for mps devices");
            else
                PyErr_Format(PyExc_RuntimeError,
                             "minitorch only has the cpu device, got device '%S'", o);
            return CONV_ERROR;
        }
        return CONV_OK;
    }
    case MT_ARG_MEMORY_FORMAT: {
        /* a minitorch.memory_format carries its layout's number (ops/memory_format.h) */
        PyObject *code = PyObject_GetAttrString(o, "_mt_memory_format_code");
        if (!code) {
            PyErr_Clear();
            return CONV_BAD_TYPE;
        }
        v->i = PyLong_AsLongLong(code);
        Py_DECREF(code);
        return v->i == -1 && PyErr_Occurred() ? CONV_ERROR : CONV_OK;
    }
    case MT_ARG_LAYOUT:
    case MT_ARG_OBJECT:
        return CONV_OK;
    }
    return CONV_BAD_TYPE;
}

/* ------------------------------------------------------------------ errors */

const char *mtpy_param_type_name(const mt_param *p)
{
    switch (p->type) {
    case MT_ARG_TENSOR:
        return "Tensor";
    case MT_ARG_TENSOR_LIST:
        return "tuple of Tensors";
    case MT_ARG_INT:
        return "int";
    case MT_ARG_INT_LIST:
        return "tuple of ints";
    case MT_ARG_FLOAT:
        return "float";
    case MT_ARG_SCALAR:
        return "Number";
    case MT_ARG_BOOL:
        return "bool";
    case MT_ARG_DTYPE:
        return "minitorch.dtype";
    case MT_ARG_STR:
        return "str";
    case MT_ARG_GENERATOR:
        return "minitorch.Generator";
    case MT_ARG_DEVICE:
        return "minitorch.device";
    case MT_ARG_MEMORY_FORMAT:
        return "minitorch.memory_format";
    default:
        return "object";
    }
}

static void raise_bad_type(const mt_signature *s, const mt_param *p, int idx, bool positional,
                           bool is_method, PyObject *o, const conv_detail *det)
{
    char where[64] = "";
    if (is_method && idx == 0) {
        /* Python's words for a method descriptor called on a non-instance */
        PyErr_Format(PyExc_TypeError,
                     "descriptor '%s' for 'minitorch.Tensor' objects doesn't apply to a '%s' "
                     "object",
                     s->name, Py_TYPE(o)->tp_name);
        return;
    }
    if (positional)
        snprintf(where, sizeof where, " (position %d)", idx + 1 - (is_method ? 1 : 0));
    PyObject *foreign = det->bad_elem ? det->bad_elem : o;
    if (mtpy_is_foreign_tensor(foreign)) {
        char what[160];
        if (det->bad_elem)
            snprintf(what, sizeof what, "element %d of argument '%s'%s", det->bad_pos, p->name,
                     where);
        else
            snprintf(what, sizeof what, "argument '%s'%s", p->name, where);
        mtpy_raise_foreign(s->name, what, foreign);
        return;
    }
    if (det->bad_elem && p->type == MT_ARG_TENSOR_LIST)
        /* torch counts arguments from 0, a method's self not among them */
        PyErr_Format(PyExc_TypeError, "expected Tensor as element %d in argument %d, but got %s",
                     det->bad_pos, idx - (is_method ? 1 : 0), Py_TYPE(det->bad_elem)->tp_name);
    else if (det->bad_elem && p->type == MT_ARG_INT_LIST)
        PyErr_Format(PyExc_TypeError,
                     "%s(): argument '%s'%s must be %s, but found element of type %s at pos %d",
                     s->name, p->name, where, mtpy_param_type_name(p),
                     Py_TYPE(det->bad_elem)->tp_name, det->bad_pos);
    else
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s'%s must be %s, not %s", s->name, p->name,
                     where, mtpy_param_type_name(p), Py_TYPE(o)->tp_name);
}

/* Some Tensor operand other than out= is a tensor (or a tensor-like). */
static bool tensor_operand_given(const mt_signature *s, const mt_args *a)
{
    for (int i = 0; i < s->nparams; i++)
        if (s->params[i].type == MT_ARG_TENSOR && i != s->out_param && a->v[i].obj &&
            !a->v[i].is_scalar)
            return true;
    return false;
}

/* Parses one signature. raise: produce the specific TypeError on mismatch;
 * otherwise a mismatch returns 1 with no exception set. */
MT_HOT static int parse_one(const mt_signature *s, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames, bool is_method, bool raise, mtpy_call *out)
{
    PyObject *slots[MT_MAX_PARAMS];
    bool positional[MT_MAX_PARAMS];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    int self_shift = is_method ? 1 : 0;
    int lone_number = -1;
    memset(slots, 0, sizeof(PyObject *) * s->nparams);
    out->noverloaded = 0;
    out->ncustom = 0;
    /* a method of self alone is CPython's no-argument method in torch, which
     * refuses any keyword (out= too), then any argument, in CPython's words */
    if (raise && is_method && s->nparams - (s->out_param >= 0) == 1 && (nkw || nargs > 1)) {
        if (nkw)
            PyErr_Format(PyExc_TypeError, "TensorBase.%s() takes no keyword arguments", s->name);
        else
            PyErr_Format(PyExc_TypeError, "TensorBase.%s() takes no arguments (%zd given)", s->name,
                         nargs - 1);
        return -1;
    }

    /* positional: varargs int list swallows the tail when it starts with an
     * int, and only when it is the one positional after self (x.reshape(2, 3),
     * zeros(2, 3), but not torch.reshape(x, 6)) */
    Py_ssize_t npos = nargs;
    if (s->varargs_param == self_shift && nargs > s->varargs_param &&
        (is_int_like(args[s->varargs_param]) || mt_has_torch_function(args[s->varargs_param]))) {
        npos = s->varargs_param; /* handled below */
    } else if (nargs > s->npositional) {
        if (!raise)
            return 1;
        int lo = s->nrequired - self_shift, hi = s->npositional - self_shift;
        if (lo == hi)
            PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd %s given",
                         s->name, hi, hi == 1 ? "" : "s", nargs - self_shift,
                         nargs - self_shift == 1 ? "was" : "were");
        else
            PyErr_Format(PyExc_TypeError,
                         "%s() takes from %d to %d positional arguments but %zd were given",
                         s->name, lo, hi, nargs - self_shift);
        return -1;
    }
    for (Py_ssize_t i = 0; i < npos; i++) {
        slots[i] = args[i];
        positional[i] = true;
    }
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int found = -1;
        for (int i = 0; i < s->nparams && found < 0; i++)
            if (s->params[i].host_name == key || s->params[i].host_alias == key)
                found = i;
        for (int i = 0; i < s->nparams && found < 0; i++)
            if (PyUnicode_Compare(s->params[i].host_name, key) == 0 ||
                (s->params[i].host_alias && PyUnicode_Compare(s->params[i].host_alias, key) == 0))
                found = i;
        /* torch's methods have no out= (x.sum(0, out=o) is refused) */
        if (found >= 0 && found == s->out_param && is_method)
            found = -1;
        if (found < 0) {
            if (!raise)
                return 1;
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", s->name,
                         key);
            return -1;
        }
        if (slots[found] || (npos != nargs && found == s->varargs_param)) {
            if (!raise)
                return 1;
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", s->name,
                         s->params[found].name);
            return -1;
        }
        slots[found] = args[nargs + k];
        positional[found] = false;
    }
    /* missing required */
    int nmissing = 0;
    const char *missing_name = NULL;
    for (int i = 0; i < s->nparams; i++) {
        if (i == s->varargs_param && npos != nargs)
            continue;
        if (!slots[i] && !s->params[i].has_default) {
            if (!missing_name)
                missing_name = s->params[i].name;
            nmissing++;
        }
    }
    if (nmissing) {
        if (!raise)
            return 1;
        PyErr_Format(PyExc_TypeError, "%s() missing %d required positional argument%s: \"%s\"",
                     s->name, nmissing, nmissing == 1 ? "" : "s", missing_name);
        return -1;
    }
    for (int i = 0; i < s->nparams; i++) {
        const mt_param *p = &s->params[i];
        mt_value *v = &out->a.v[i];
        conv_detail det = {0, NULL};
        if (i == s->varargs_param && npos != nargs) {
            /* x.view(2, 3): the remaining positionals are the list */
            Py_ssize_t n = nargs - npos;
            if (n > MT_MAX_LIST) {
                PyErr_Format(PyExc_RuntimeError, "minitorch: too many elements in '%s'", p->name);
                return -1;
            }
            for (Py_ssize_t k = 0; k < n; k++) {
                if (stands_in_for_dispatch(out, args[npos + k])) {
                    out->a.listbuf[i][k] = 0;
                    continue;
                }
                if (!is_int_like(args[npos + k])) {
                    if (!raise)
                        return 1;
                    det.bad_pos = (int)k;
                    det.bad_elem = args[npos + k]; /* the caller holds it */
                    raise_bad_type(s, p, i, true, is_method, args[npos + k], &det);
                    return -1;
                }
                if (as_int(args[npos + k], &out->a.listbuf[i][k]) < 0)
                    return -1;
            }
            v->obj = args[npos];
            v->t = NULL;
            v->ints = out->a.listbuf[i];
            v->tensors = NULL;
            v->nints = (int)n;
            continue;
        }
        if (!slots[i]) {
            mt_signature_default(p, v, out->a.listbuf[i]);
            continue;
        }
        conv_result r = convert(s, p, slots[i], v, out->a.listbuf[i], out, &det);
        if (r == CONV_OK && is_method && i == 0 && v->is_scalar)
            r = CONV_BAD_TYPE; /* self is a tensor, whatever numbers the row takes */
        if (r != CONV_OK) {
            if (r == CONV_BAD_TYPE && raise)
                raise_bad_type(s, p, i, positional[i], is_method, slots[i], &det);
            Py_XDECREF(det.bad_elem);
            return r == CONV_ERROR || raise ? -1 : 1;
        }
        if (v->is_scalar && !p->numbers_alone && lone_number < 0)
            lone_number = i;
    }
    /* xlogy(2, 3): torch's Scalar overloads pair a number with a tensor */
    if (lone_number >= 0 && !tensor_operand_given(s, &out->a)) {
        if (!raise)
            return 1;
        conv_detail none = {0, NULL};
        raise_bad_type(s, &s->params[lone_number], lone_number, positional[lone_number], is_method,
                       slots[lone_number], &none);
        return -1;
    }
    out->a.sig = s;
    return 0;
}

/* Could this signature take this many positionals and these keywords? */
static bool plausible(const mt_signature *s, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs > s->npositional && s->varargs_param < 0)
        return false;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    /* every required parameter must be given, by position or by name */
    for (int i = (int)nargs; i < s->nparams; i++) {
        if (s->params[i].has_default)
            continue;
        bool named = false;
        for (Py_ssize_t k = 0; k < nkw && !named; k++)
            named = PyUnicode_Compare(s->params[i].host_name, PyTuple_GET_ITEM(kwnames, k)) == 0;
        if (!named)
            return false;
    }
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        bool found = false;
        for (int i = 0; i < s->nparams && !found; i++)
            found =
                PyUnicode_Compare(s->params[i].host_name, key) == 0 ||
                (s->params[i].host_alias && PyUnicode_Compare(s->params[i].host_alias, key) == 0);
        if (!found)
            return false;
    }
    return true;
}

/* Appends "<lead>(Type name = default, *, ...)" to *msg as torch's messages
 * write a signature (its type names, no '?'): a method's without self or
 * out=. */
static void append_signature(PyObject **msg, const char *lead, const mt_signature *s,
                             bool is_method)
{
    PyUnicode_AppendAndDel(msg, PyUnicode_FromFormat("%s(", lead));
    bool star = false;
    for (int i = is_method ? 1 : 0; *msg && i < s->nparams; i++) {
        const mt_param *p = &s->params[i];
        const char *sep = i > (is_method ? 1 : 0) ? ", " : "";
        if (is_method && i == s->out_param)
            continue;
        if (p->kwonly && !star) {
            PyUnicode_AppendAndDel(msg, PyUnicode_FromFormat("%s*", sep));
            sep = ", ";
            star = true;
        }
        PyUnicode_AppendAndDel(msg,
                               PyUnicode_FromFormat("%s%s %s%s%s", sep, mtpy_param_type_name(p),
                                                    p->name, p->has_default ? " = " : "",
                                                    p->has_default ? p->default_text : ""));
    }
    PyUnicode_AppendAndDel(msg, PyUnicode_FromString(")"));
}

/* torch warns of its deprecated overloads from one place of its parser
 * (TORCH_WARN_ONCE): once per process for all of them, unless
 * set_warn_always. Whether to warn now; the Python-level functions'
 * deprecated forms share the flag through
 * _C._deprecated_overload_should_warn. */
static bool deprecated_should_warn(void)
{
    static bool warned;
    bool warn = !warned || mt_warn_always;
    warned = true;
    return warn;
}

int mtpy_warn_deprecated(const mt_signature *const *sigs, int nsigs, int k, bool is_method)
{
    if (!deprecated_should_warn())
        return 0;
    const char *name = sigs[k]->name;
    PyObject *msg = PyUnicode_FromFormat("This overload of %s is deprecated:\n\t%s", name, name);
    append_signature(&msg, "", sigs[k], is_method);
    PyUnicode_AppendAndDel(
        &msg, PyUnicode_FromString("\nConsider using one of the following signatures instead:"));
    for (int j = 0; msg && j < nsigs; j++)
        if (!sigs[j]->deprecated) {
            PyUnicode_AppendAndDel(&msg, PyUnicode_FromFormat("\n\t%s", name));
            append_signature(&msg, "", sigs[j], is_method);
        }
    int rc = msg ? PyErr_WarnEx(PyExc_UserWarning, PyUnicode_AsUTF8(msg), 1) : -1;
    Py_XDECREF(msg);
    return rc;
}

PyObject *mtpy_deprecated_overload_should_warn(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(deprecated_should_warn());
}

static void raise_invalid_combination(const mt_signature *const *sigs, int nsigs,
                                      PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                      bool is_method)
{
    PyObject *msg = PyUnicode_FromFormat(
        "%s() received an invalid combination of arguments - got (", sigs[0]->name);
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = is_method ? 1 : 0; msg && i < nargs + nkw; i++) {
        PyObject *part;
        const char *sep = i > (is_method ? 1 : 0) ? ", " : "";
        const char *tn = MTPy_Check(args[i]) ? "Tensor" : Py_TYPE(args[i])->tp_name;
        if (i < nargs)
            part = PyUnicode_FromFormat("%s%s", sep, tn);
        else
            part = PyUnicode_FromFormat("%s%U=%s", sep, PyTuple_GET_ITEM(kwnames, i - nargs), tn);
        PyUnicode_AppendAndDel(&msg, part);
    }
    PyUnicode_AppendAndDel(&msg, PyUnicode_FromString("), but expected one of:"));
    for (int k = 0; msg && k < nsigs; k++)
        if (!sigs[k]->deprecated)
            append_signature(&msg, "\n * ", sigs[k], is_method);
    if (msg) {
        PyErr_SetObject(PyExc_TypeError, msg);
        Py_DECREF(msg);
    }
}

MT_HOT void mtpy_call_release(mtpy_call *c)
{
    const mt_signature *s = c->a.sig;
    for (int i = 0; s && i < s->nparams; i++)
        if (s->params[i].type == MT_ARG_TENSOR_LIST && c->a.v[i].tensors) {
            mt_value *v = &c->a.v[i];
            PyObject **items = (PyObject **)(v->tensors + v->nints);
            for (int k = 0; k < v->nints; k++)
                Py_DECREF(items[k]);
            PyMem_Free(v->tensors);
            v->tensors = NULL;
        }
    mtpy_call_release_overloaded(c);
}

MT_HOT int mt_parse(const mt_signature *const *sigs, int nsigs, PyObject *const *args,
                    Py_ssize_t nargs, PyObject *kwnames, bool is_method, mtpy_call *out)
{
    out->args = args;
    out->nargs = nargs;
    out->kwnames = kwnames;
    out->a.host = out;
    mtpy_call_init_overloaded(out);
    for (int k = 0; k < nsigs; k++) {
        out->a.sig = sigs[k];
        for (int i = 0; i < sigs[k]->nparams; i++)
            out->a.v[i].tensors = NULL;
        int r = parse_one(sigs[k], args, nargs, kwnames, is_method, nsigs == 1, out);
        if (r == 0) {
            out->a.overload = k;
            return 0;
        }
        mtpy_call_release(out);
        if (r < 0)
            return -1;
    }
    /* No overload matched: be specific when only one could have, or when
     * torch lists only one (it leaves its deprecated overloads out). */
    int only = -1, count = 0, listed = 0, last = -1;
    for (int k = 0; k < nsigs; k++) {
        if (sigs[k]->deprecated)
            continue;
        listed++;
        last = k;
        if (plausible(sigs[k], nargs, kwnames)) {
            only = k;
            count++;
        }
    }
    if (listed == 1) {
        only = last;
        count = 1;
    }
    if (count == 1) {
        out->a.sig = sigs[only];
        for (int i = 0; i < sigs[only]->nparams; i++)
            out->a.v[i].tensors = NULL;
        parse_one(sigs[only], args, nargs, kwnames, is_method, true, out);
        mtpy_call_release(out);
        if (PyErr_Occurred())
            return -1;
    }
    raise_invalid_combination(sigs, nsigs, args, nargs, kwnames, is_method);
    return -1;
}
