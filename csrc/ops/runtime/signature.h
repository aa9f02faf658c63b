/* torch-style signature strings ("add(Tensor input, Tensor other, *,
 * Scalar alpha=1, Tensor? out=None)"), read once into parameter tables that
 * the binding's parser, the recorder and C callers share. A row returning
 * other than one Tensor says what after the parameters, as torch's schemas
 * do: "numel(Tensor input) -> int", "var_mean(...) -> (Tensor, Tensor)",
 * "sort(...) -> (Tensor values, Tensor indices)" (fields named: a
 * torch.return_types tuple). */
#ifndef MT_OPS_SIGNATURE_H
#define MT_OPS_SIGNATURE_H

#include "args.h"

typedef struct {
    mt_argtype type;
    bool optional; /* '?' or default None */
    bool kwonly;
    bool has_default;
    bool default_none;
    int list_len; /* int[2]: a bare int is repeated; 0 for any length */
    /* `Tensor|Scalar`: a Python number may stand for the tensor when another
     * operand is a tensor (torch's Scalar overloads); `Tensor|Number` also
     * when none is (torch.add(2, 3)). Never for self in a method call. */
    bool numbers;
    bool numbers_alone;
    char name[32];
    const char *alias; /* NumPy spelling (dim -> axis, keepdim -> keepdims) or NULL */
    char type_text[24];
    char default_text[32];
    mt_value def;
    int64_t def_list[MT_MAX_LIST];
    /* The host's interned spellings of name and alias, set once by the host. */
    void *host_name, *host_alias;
} mt_param;

struct mt_signature {
    char name[64];
    const char *text;
    /* What follows "-> " in text ("int", "(Tensor values, Tensor indices)"),
     * or NULL where text states none: for messages and the type stubs. */
    const char *returns;
    unsigned flags;
    bool deprecated; /* torch's deprecated overload: no error message lists it */
    int nparams;
    int npositional; /* params that may be given positionally */
    int nrequired;
    int varargs_param; /* a lone positional int[] taking varargs, or -1 */
    int inplace_param; /* `bool inplace` (nn.functional.relu, ...), or -1 */
    int out_param;     /* `Tensor? out`, or -1 */
    int dtype_param;   /* `dtype? dtype`, or -1 */
    int max_tensors;   /* the most tensor arguments a call has; -1 with a Tensor[] */
    mt_param params[MT_MAX_PARAMS];
};

/* Parses text; NULL with an mt_error on a malformed one. */
mt_signature *mt_signature_parse(const char *text, unsigned flags);
/* Fills v with param p's default. */
void mt_signature_default(const mt_param *p, mt_value *v, int64_t *listbuf);
/* The parameter called name, or -1. */
int mt_signature_find(const mt_signature *s, const char *name);
/* How many results the signature names ("-> (Tensor values, Tensor
 * indices)": 2); 0 when it returns no tuple or leaves one of them unnamed. */
int mt_signature_named_results(const mt_signature *s);
/* The name of named result k into buf (truncated to size); false when there
 * is no such named result. */
bool mt_signature_result_name(const mt_signature *s, int k, char *buf, size_t size);

static inline const char *mt_signature_name(const mt_signature *s) { return s->name; }
static inline int mt_signature_nparams(const mt_signature *s) { return s->nparams; }
static inline mt_argtype mt_signature_param_type(const mt_signature *s, int i)
{
    return s->params[i].type;
}

#endif
