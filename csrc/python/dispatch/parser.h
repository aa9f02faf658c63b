/* The argument parser: parses each Python call against the op rows'
 * signatures (csrc/ops/runtime/signature.h) in one pass, converting arguments to the
 * typed values of mt_args while collecting the operands that override
 * __torch_function__. */
#ifndef MT_PYTHON_PARSER_H
#define MT_PYTHON_PARSER_H

#include "../types/common.h"

#include "../../ops/runtime/signature.h"
#include "../../core/hot.h"

/* Distinct overloading types a call keeps without allocating; more grow
 * the list on the heap. */
#define MT_INLINE_OVERLOADED 4

/* A Python call of an op row: the typed arguments C sees, and what the
 * binding keeps beside them. */
typedef struct {
    mt_args a; /* a.host points back here */
    PyObject *const *args;
    Py_ssize_t nargs;
    PyObject *kwnames;
    /* operands that override __torch_function__, one per type, dispatch
     * order: borrowed from the arguments (or the tuples the parser read
     * their lists into) */
    PyObject **overloaded;
    PyObject *overloaded_inline[MT_INLINE_OVERLOADED];
    int overloaded_cap;
    int noverloaded;
    /* copies of lists whose items are among the overloaded, or NULL */
    PyObject *held;
    int ncustom; /* of those, operands whose handler is not Tensor's own */
} mtpy_call;

static inline mtpy_call *mtpy_call_of(mt_args *a) { return (mtpy_call *)a->host; }

/* Gives every parameter of s its interned Python names; -1 with an exception. */
int mtpy_signature_bind(mt_signature *s);
/* Python-visible description for overrides.get_testing_overrides():
 * a tuple of (name, type string, kind, default-or-missing). */
PyObject *mt_signature_params(const mt_signature *s);
/* How messages name a parameter's type, as torch's do ("tuple of ints"). */
const char *mtpy_param_type_name(const mt_param *p);

/* torch's warning for a call of the deprecated overload sigs[k] (once per
 * process for all deprecated overloads unless set_warn_always); -1 with an
 * exception. */
int mtpy_warn_deprecated(const mt_signature *const *sigs, int nsigs, int k, bool is_method);
/* _C._deprecated_overload_should_warn(): whether the Python-level functions'
 * deprecated forms warn now, by the same flag. */
PyObject *mtpy_deprecated_overload_should_warn(PyObject *m, PyObject *unused);
/* Parses a vectorcall against the overloads; on failure raises TypeError in
 * torch's words and returns -1. is_method shifts positions in messages. On
 * success the caller releases the call with mtpy_call_release. */
int mt_parse(const mt_signature *const *sigs, int nsigs, PyObject *const *args, Py_ssize_t nargs,
             PyObject *kwnames, bool is_method, mtpy_call *out);
/* Frees what parsing allocated (tensor lists, the overloaded list). */
void mtpy_call_release(mtpy_call *c);
/* An empty overloaded list, for callers that collect without parsing, and
 * its release. */
void mtpy_call_init_overloaded(mtpy_call *c);
void mtpy_call_release_overloaded(mtpy_call *c);
/* Puts obj last in the overloaded list (MemoryError set when it cannot). */
void mtpy_call_append_overloaded(mtpy_call *c, PyObject *obj);
/* Keeps o alive until the call is released; -1 with an exception. */
int mtpy_call_hold(mtpy_call *c, PyObject *o);

/* The operand's type overrides __torch_function__ (exact tensors never do). */
bool mt_has_torch_function(PyObject *obj);
/* Dispatch is on and obj would reach a handler other than Tensor's own. */
bool mt_has_custom_torch_function(PyObject *obj);
/* Adds obj to c->overloaded if it overrides __torch_function__ (and dispatch
 * is not disabled): one operand per type, subclasses before superclasses.
 * Whether obj's type is among them now (false with MemoryError set when the
 * list could not grow). */
bool mt_collect_overloaded(mtpy_call *c, PyObject *obj);

/* Thread-local switches behind DisableTorchFunction(Subclass). */
extern _Thread_local int mt_tf_disabled MT_HOT_TLS;          /* everything but modes */
extern _Thread_local int mt_tf_subclass_disabled MT_HOT_TLS; /* Tensor subclasses */
/* Tensor.__torch_function__ and the disabled marker, set at module init. */
extern PyObject *mt_default_tf;
extern PyObject *mt_disabled_tf;

#endif
