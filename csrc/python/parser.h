/* The argument parser: reads torch-style signature strings once, then parses
 * each call against them in one pass while collecting the operands that
 * override __torch_function__. */
#ifndef MT_PYTHON_PARSER_H
#define MT_PYTHON_PARSER_H

#include "common.h"

#define MT_MAX_PARAMS 14
#define MT_MAX_LIST 32
#define MT_MAX_OVERLOADED 8

typedef enum {
    MT_ARG_TENSOR,
    MT_ARG_TENSOR_LIST,
    MT_ARG_INT,
    MT_ARG_INT_LIST,
    MT_ARG_FLOAT,
    MT_ARG_SCALAR,
    MT_ARG_BOOL,
    MT_ARG_DTYPE,
    MT_ARG_STR,
    MT_ARG_GENERATOR,
    MT_ARG_DEVICE,
    MT_ARG_LAYOUT,
    MT_ARG_MEMORY_FORMAT,
    MT_ARG_OBJECT,
} mt_argtype;

typedef enum { MT_SCALAR_BOOL, MT_SCALAR_INT, MT_SCALAR_FLOAT } mt_scalar_kind;

typedef struct {
    mt_scalar_kind kind;
    int64_t i; /* for bool and int */
    double f;  /* always set */
} mt_scalar;

typedef struct {
    /* The object as passed (borrowed); NULL when the default was used or the
     * argument was None. */
    PyObject *obj;
    mt_tensor *t;   /* Tensor args that are tensors */
    bool is_scalar; /* a Python number where a Tensor was expected (numbers allowed) */
    int nints;      /* int[] */
    int64_t *ints;
    union {
        int64_t i;
        double f;
        bool b;
        mt_dtype dtype;
        mt_scalar s;
        const char *str;
    };
} mt_value;

typedef struct mt_signature mt_signature;
struct mt_node_kind;

typedef struct {
    const mt_signature *sig;
    int overload; /* index of the matched signature */
    PyObject *const *args;
    Py_ssize_t nargs;
    PyObject *kwnames;
    mt_value v[MT_MAX_PARAMS];
    int64_t listbuf[MT_MAX_PARAMS][MT_MAX_LIST];
    /* operands that override __torch_function__, one per type, dispatch order */
    PyObject *overloaded[MT_MAX_OVERLOADED];
    int noverloaded;
    int ncustom; /* of those, operands whose handler is not Tensor's own */
    /* Set by an impl whose derivative kind depends on the argument values
     * (x[key] is SelectBackward0, SliceBackward0, ... as torch names the view
     * op it applies last); replaces the op row's kind. */
    const struct mt_node_kind *derivative;
} mt_args;

/* value helpers for impls */
static inline bool mt_is_none(const mt_args *a, int i) { return a->v[i].obj == NULL; }

enum {
    MT_KIND_FUNCTION = 1u << 0, /* minitorch.<name> */
    MT_KIND_METHOD = 1u << 1,   /* minitorch.Tensor.<name> */
    MT_NUMBERS = 1u << 2,       /* Tensor params also take Python numbers */
    MT_KIND_NN = 1u << 3,       /* minitorch.nn.functional.<name> */
};

typedef PyObject *(*mt_impl_fn)(mt_args *a);

/* Parses sigs (newline-free signature strings) once; NULL on a malformed one. */
mt_signature *mt_signature_parse(const char *text, unsigned flags);
const char *mt_signature_name(const mt_signature *s);
const char *mt_signature_text(const mt_signature *s);
int mt_signature_nparams(const mt_signature *s);
/* Index of a `bool inplace` parameter, or -1: such calls write into input 0. */
int mt_signature_inplace_param(const mt_signature *s);
/* Index of the `out` parameter, or -1. */
int mt_signature_out_param(const mt_signature *s);
mt_argtype mt_signature_param_type(const mt_signature *s, int i);
/* Python-visible description for overrides.get_testing_overrides():
 * a tuple of (name, type string, kind, default-or-missing). */
PyObject *mt_signature_params(const mt_signature *s);

/* Parses a vectorcall against the overloads; on failure raises TypeError in
 * torch's words and returns -1. is_method shifts positions in messages. */
int mt_parse(mt_signature *const *sigs, int nsigs, PyObject *const *args, Py_ssize_t nargs,
             PyObject *kwnames, bool is_method, mt_args *out);

/* The operand's type overrides __torch_function__ (exact tensors never do). */
bool mt_has_torch_function(PyObject *obj);
/* Adds obj to a->overloaded if it overrides __torch_function__ (and dispatch
 * is not disabled): one operand per type, subclasses before superclasses. */
void mt_collect_overloaded(mt_args *a, PyObject *obj);

/* Thread-local switches behind DisableTorchFunction(Subclass). */
extern _Thread_local int mt_tf_disabled;          /* everything but modes */
extern _Thread_local int mt_tf_subclass_disabled; /* Tensor subclasses */
/* Tensor.__torch_function__ and the disabled marker, set at module init. */
extern PyObject *mt_default_tf;
extern PyObject *mt_disabled_tf;

#endif
