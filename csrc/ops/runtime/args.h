/* Typed arguments and results of op-table calls. Whoever calls an op (the
 * Python binding after parsing, a derivative formula, a C extension) fills
 * an mt_args with plain C values; an impl reads them and fills an mt_result.
 * Nothing here knows about Python. */
#ifndef MT_OPS_ARGS_H
#define MT_OPS_ARGS_H

#include "../../core/error.h"
#include "../../core/owner.h"
#include "../../core/philox.h"

#define MT_MAX_PARAMS 14
#define MT_MAX_LIST 32

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

typedef enum { MT_SCALAR_BOOL, MT_SCALAR_INT, MT_SCALAR_FLOAT, MT_SCALAR_COMPLEX } mt_scalar_kind;

typedef struct {
    mt_scalar_kind kind;
    int64_t i; /* for bool and int */
    double f;  /* always set; a complex number's real part */
    double im; /* a complex number's imaginary part, else 0 */
} mt_scalar;

typedef struct {
    /* Non-NULL when the argument was given and is not None. The binding
     * stores the Python object here (its impls may read it); other callers
     * store any non-NULL marker, MT_GIVEN. */
    void *obj;
    mt_tensor *t;   /* Tensor params given a tensor */
    bool is_scalar; /* a number given for a `Tensor|Scalar` parameter */
    int nints;      /* int[]; for Tensor[], the number of tensors */
    int64_t *ints;
    mt_tensor **tensors; /* Tensor[] elements */
    union {
        int64_t i;
        double f;
        bool b;
        mt_dtype dtype;
        mt_scalar s;
        const char *str;
        mt_generator *gen; /* Generator params given a generator */
    };
} mt_value;

#define MT_GIVEN ((void *)&mt_given_marker)
extern const char mt_given_marker;

typedef struct mt_signature mt_signature;
struct mt_op;

typedef struct mt_args {
    const struct mt_op *op; /* the row being run */
    const mt_signature *sig;
    int overload; /* index of the row among the rows of its name */
    mt_value v[MT_MAX_PARAMS];
    int64_t listbuf[MT_MAX_PARAMS][MT_MAX_LIST];
    /* Which of its ways the impl took, when that changes what the call
     * stands for (x[key] ends in a select, a slice, ... as torch names the
     * view op it applies last): 0 unless the impl sets it. The autograd
     * floor's variant rows (MT_VARIANT with MT_PATH) name a derivative per
     * path. */
    int path;
    /* The binding's state for this call (its Python arguments), or NULL when
     * C code made the call. */
    void *host;
} mt_args;

static inline bool mt_is_none(const mt_args *a, int i) { return a->v[i].obj == NULL; }

typedef enum {
    MT_RESULT_NONE,
    MT_RESULT_TENSOR, /* t[0] */
    MT_RESULT_TUPLE,  /* t[0..n) */
    MT_RESULT_LIST,   /* t[0..n) */
    MT_RESULT_BOOL,   /* i */
    MT_RESULT_INT,    /* i */
    MT_RESULT_FLOAT,  /* f */
    MT_RESULT_HOST,   /* host: an object the binding made */
} mt_result_kind;

#define MT_RESULT_INLINE 4

typedef struct {
    mt_result_kind kind;
    int n;
    /* The tensors of the result: new references, except under a host object,
     * which owns them (they are then borrowed from it). */
    mt_tensor **t;
    mt_tensor *inline_t[MT_RESULT_INLINE];
    int64_t i;
    double f;
    void *host; /* new reference, opaque here */
} mt_result;

/* A result of one tensor; -1 when t is NULL (its error already set). */
static inline int mt_result_tensor(mt_result *r, mt_tensor *t)
{
    r->kind = MT_RESULT_TENSOR;
    r->host = NULL;
    r->n = t ? 1 : 0;
    r->t = r->inline_t;
    r->inline_t[0] = t;
    return t ? 0 : -1;
}
/* A pair (a, b), consumed (the row's signature names its fields); -1 when
 * either is NULL (its error already set). */
int mt_result_pair(mt_result *r, mt_tensor *a, mt_tensor *b);
/* Room for n result tensors (all NULL); -1 on OOM. */
int mt_result_alloc(mt_result *r, mt_result_kind kind, int n);
/* A plain tuple of the n tensors ts (consumed); -1 when one is NULL (its
 * error already set) or on OOM. */
int mt_result_tuple(mt_result *r, int n, mt_tensor **ts);
/* Drops the result's own references (not those under a host object, whose
 * release belongs to the host). */
void mt_result_clear(mt_result *r);
/* Gives every tensor of r a version counter of its own, at 0 (unsafe_split's
 * pieces, as torch's); on failure r is cleared. */
int mt_result_own_counters(mt_result *r);

/* Row kinds: where an op is published. */
enum {
    MT_KIND_FUNCTION = 1u << 0, /* minitorch.<name> */
    MT_KIND_METHOD = 1u << 1,   /* minitorch.Tensor.<name> */
    MT_KIND_NN = 1u << 3,       /* minitorch.nn.functional.<name> */
};

typedef int (*mt_impl_fn)(mt_args *a, mt_result *r);

#endif
