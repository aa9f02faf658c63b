#include "operators.h"

enum {
    OP_ADD, OP_RADD, OP_IADD, OP_SUB, OP_RSUB, OP_ISUB, OP_MUL, OP_RMUL, OP_IMUL,
    OP_TRUEDIV, OP_RTRUEDIV, OP_ITRUEDIV, OP_FLOORDIV, OP_RFLOORDIV, OP_IFLOORDIV,
    OP_MOD, OP_RMOD, OP_IMOD, OP_POW, OP_RPOW, OP_IPOW, OP_MATMUL, OP_RMATMUL, OP_IMATMUL,
    OP_AND, OP_RAND, OP_IAND, OP_OR, OP_ROR, OP_IOR, OP_XOR, OP_RXOR, OP_IXOR,
    OP_LSHIFT, OP_RLSHIFT, OP_ILSHIFT, OP_RSHIFT, OP_RRSHIFT, OP_IRSHIFT,
    OP_NEG, OP_POS, OP_ABS, OP_INVERT, OP_BOOL, OP_INT, OP_FLOAT, OP_INDEX,
    OP_GETITEM, OP_SETITEM, OP_LEN,
    OP_LT, OP_LE, OP_EQ, OP_NE, OP_GT, OP_GE,
    OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
    "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__", "__rmul__",
    "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__", "__rfloordiv__",
    "__ifloordiv__", "__mod__", "__rmod__", "__imod__", "__pow__", "__rpow__", "__ipow__",
    "__matmul__", "__rmatmul__", "__imatmul__", "__and__", "__rand__", "__iand__", "__or__",
    "__ror__", "__ior__", "__xor__", "__rxor__", "__ixor__", "__lshift__", "__rlshift__",
    "__ilshift__", "__rshift__", "__rrshift__", "__irshift__", "__neg__", "__pos__", "__abs__",
    "__invert__", "__bool__", "__int__", "__float__", "__index__", "__getitem__",
    "__setitem__", "__len__", "__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__",
};

static PyObject *op_objs[OP_COUNT];

int mt_operators_init(void)
{
    for (int i = 0; i < OP_COUNT; i++) {
        op_objs[i] = PyDict_GetItemString(MTTensorBase_Type.tp_dict, op_names[i]);
        Py_XINCREF(op_objs[i]);
    }
    return 0;
}

static PyObject *call2(int op, PyObject *a, PyObject *b)
{
    if (!op_objs[op])
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *args[2] = {a, b};
    return PyObject_Vectorcall(op_objs[op], args, 2, NULL);
}

/* A TypeError becomes NotImplemented so Python tries the reflected operator. */
static PyObject *binary(int fwd, int rev, PyObject *a, PyObject *b)
{
    PyObject *r = MTPy_Check(a) ? call2(fwd, a, b) : call2(rev, b, a);
    if (!r && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    return r;
}

static PyObject *inplace(int op, PyObject *a, PyObject *b)
{
    PyObject *r = call2(op, a, b);
    if (!r && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    return r;
}

static PyObject *unary(int op, PyObject *a)
{
    if (!op_objs[op])
        return PyErr_Format(PyExc_TypeError, "bad operand type for %s", op_names[op]);
    return PyObject_Vectorcall(op_objs[op], &a, 1, NULL);
}

#define BIN(slot, F, R) \
    static PyObject *slot(PyObject *a, PyObject *b) { return binary(F, R, a, b); }
#define INPL(slot, I) \
    static PyObject *slot(PyObject *a, PyObject *b) { return inplace(I, a, b); }
#define UN(slot, U) \
    static PyObject *slot(PyObject *a) { return unary(U, a); }

BIN(nb_add, OP_ADD, OP_RADD)
BIN(nb_sub, OP_SUB, OP_RSUB)
BIN(nb_mul, OP_MUL, OP_RMUL)
BIN(nb_truediv, OP_TRUEDIV, OP_RTRUEDIV)
BIN(nb_floordiv, OP_FLOORDIV, OP_RFLOORDIV)
BIN(nb_mod, OP_MOD, OP_RMOD)
BIN(nb_matmul, OP_MATMUL, OP_RMATMUL)
BIN(nb_and, OP_AND, OP_RAND)
BIN(nb_or, OP_OR, OP_ROR)
BIN(nb_xor, OP_XOR, OP_RXOR)
BIN(nb_lshift, OP_LSHIFT, OP_RLSHIFT)
BIN(nb_rshift, OP_RSHIFT, OP_RRSHIFT)
INPL(nb_iadd, OP_IADD)
INPL(nb_isub, OP_ISUB)
INPL(nb_imul, OP_IMUL)
INPL(nb_itruediv, OP_ITRUEDIV)
INPL(nb_ifloordiv, OP_IFLOORDIV)
INPL(nb_imod, OP_IMOD)
INPL(nb_imatmul, OP_IMATMUL)
INPL(nb_iand, OP_IAND)
INPL(nb_ior, OP_IOR)
INPL(nb_ixor, OP_IXOR)
INPL(nb_ilshift, OP_ILSHIFT)
INPL(nb_irshift, OP_IRSHIFT)
UN(nb_neg, OP_NEG)
UN(nb_pos, OP_POS)
UN(nb_abs, OP_ABS)
UN(nb_invert, OP_INVERT)
UN(nb_int, OP_INT)
UN(nb_float, OP_FLOAT)
UN(nb_index, OP_INDEX)

static PyObject *nb_pow(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None)
        Py_RETURN_NOTIMPLEMENTED;
    return binary(OP_POW, OP_RPOW, a, b);
}

static PyObject *nb_ipow(PyObject *a, PyObject *b, PyObject *mod)
{
    return inplace(OP_IPOW, a, b);
}

static int nb_bool(PyObject *a)
{
    PyObject *r = unary(OP_BOOL, a);
    if (!r)
        return -1;
    int v = PyObject_IsTrue(r);
    Py_DECREF(r);
    return v;
}

PyNumberMethods mt_tensor_as_number = {
    .nb_add = nb_add, .nb_subtract = nb_sub, .nb_multiply = nb_mul,
    .nb_remainder = nb_mod, .nb_power = nb_pow, .nb_negative = nb_neg,
    .nb_positive = nb_pos, .nb_absolute = nb_abs, .nb_bool = nb_bool,
    .nb_invert = nb_invert, .nb_lshift = nb_lshift, .nb_rshift = nb_rshift,
    .nb_and = nb_and, .nb_xor = nb_xor, .nb_or = nb_or, .nb_int = nb_int,
    .nb_float = nb_float, .nb_inplace_add = nb_iadd, .nb_inplace_subtract = nb_isub,
    .nb_inplace_multiply = nb_imul, .nb_inplace_remainder = nb_imod,
    .nb_inplace_power = nb_ipow, .nb_inplace_lshift = nb_ilshift,
    .nb_inplace_rshift = nb_irshift, .nb_inplace_and = nb_iand,
    .nb_inplace_xor = nb_ixor, .nb_inplace_or = nb_ior, .nb_floor_divide = nb_floordiv,
    .nb_true_divide = nb_truediv, .nb_inplace_floor_divide = nb_ifloordiv,
    .nb_inplace_true_divide = nb_itruediv, .nb_index = nb_index,
    .nb_matrix_multiply = nb_matmul, .nb_inplace_matrix_multiply = nb_imatmul,
};

static Py_ssize_t mp_length(PyObject *a)
{
    PyObject *r = unary(OP_LEN, a);
    if (!r)
        return -1;
    Py_ssize_t n = PyLong_AsSsize_t(r);
    Py_DECREF(r);
    return n;
}

static PyObject *mp_subscript(PyObject *a, PyObject *key)
{
    return call2(OP_GETITEM, a, key);
}

static int mp_ass_subscript(PyObject *a, PyObject *key, PyObject *value)
{
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "Tensor does not support deleting items");
        return -1;
    }
    PyObject *args[3] = {a, key, value};
    if (!op_objs[OP_SETITEM]) {
        PyErr_SetString(PyExc_TypeError, "Tensor does not support item assignment");
        return -1;
    }
    PyObject *r = PyObject_Vectorcall(op_objs[OP_SETITEM], args, 3, NULL);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

PyMappingMethods mt_tensor_as_mapping = {
    .mp_length = mp_length,
    .mp_subscript = mp_subscript,
    .mp_ass_subscript = mp_ass_subscript,
};

PyObject *mt_tensor_richcompare(PyObject *a, PyObject *b, int op)
{
    static const int map[] = {[Py_LT] = OP_LT, [Py_LE] = OP_LE, [Py_EQ] = OP_EQ,
                              [Py_NE] = OP_NE, [Py_GT] = OP_GT, [Py_GE] = OP_GE};
    static const int swapped[] = {[Py_LT] = OP_GT, [Py_LE] = OP_GE, [Py_EQ] = OP_EQ,
                                  [Py_NE] = OP_NE, [Py_GT] = OP_LT, [Py_GE] = OP_LE};
    PyObject *r = MTPy_Check(a) ? call2(map[op], a, b) : call2(swapped[op], b, a);
    if (!r && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    return r;
}
