#include "derivatives.h"
#include "backend.h"

#include <stdio.h>
#include <string.h>

#define MT_DERIV(Name, fn, saves, save_out, mat) MT_DERIV_AS(Name, Name, fn, saves, save_out, mat)
#define MT_VARIANT(Key, p, Variant)

#define MT_DERIV_AS(Key, Name, fn, saves, save_out, mat) \
    int fn(mt_node *, mt_tensor **, mt_tensor **);
#include "../ops.def"
#undef MT_DERIV_AS

/* Not const: attach_jvps fills in the forward formulas once. */
static mt_node_kind kinds[] = {
#define MT_DERIV_AS(Key, Name, fn, saves, save_out, mat) {#Name, fn, saves, save_out, mat},
#include "../ops.def"
#undef MT_DERIV_AS
};

/* The table key of each kind: several keys may share a class name when torch
 * gives one name to different formulas (2 / x and x * y are MulBackward0). */
static const char *const keys[] = {
#define MT_DERIV_AS(Key, Name, fn, saves, save_out, mat) #Key,
#include "../ops.def"
#undef MT_DERIV_AS
};
#undef MT_VARIANT
#define NKINDS (sizeof kinds / sizeof kinds[0])

static const struct {
    const char *key;
    int param;
    const char *variant;
} variants[] = {
#define MT_DERIV_AS(Key, Name, fn, saves, save_out, mat)
#define MT_VARIANT(Key, p, Variant) {#Key, p, #Variant},
#include "../ops.def"
#undef MT_DERIV_AS
#undef MT_VARIANT
};

#define MT_JVP(Key, fn) int fn(mt_node *, mt_tensor **, mt_tensor **);
#include "../ops.def"
#undef MT_JVP

static const struct {
    const char *key;
    mt_jvp_fn fn;
} jvps[] = {
#define MT_JVP(Key, fn) {#Key, fn},
#include "../ops.def"
#undef MT_JVP
};

static void attach_jvps(void)
{
    for (size_t j = 0; j < sizeof jvps / sizeof jvps[0]; j++)
        for (size_t i = 0; i < NKINDS; i++)
            if (strcmp(keys[i], jvps[j].key) == 0)
                kinds[i].jvp = jvps[j].fn;
}

const mt_node_kind mt_nondifferentiable_kind = {"NonDifferentiable", NULL, 0, false, false};

const mt_node_kind *mt_derivative_kind(const char *name)
{
    static bool jvps_attached;
    if (!jvps_attached) {
        attach_jvps();
        jvps_attached = true;
    }
    if (strcmp(name, "NonDifferentiable") == 0)
        return &mt_nondifferentiable_kind;
    for (size_t i = 0; i < NKINDS; i++)
        if (strcmp(keys[i], name) == 0)
            return &kinds[i];
    return NULL;
}

#define NVARIANTS (sizeof variants / sizeof variants[0])

/* variants[] resolved once to kind pointers, so recording a node never
 * compares strings. */
static struct {
    const mt_node_kind *kind, *variant;
    int param;
} resolved[NVARIANTS ? NVARIANTS : 1];
static bool variants_resolved;

static void resolve_variants(void)
{
    for (size_t i = 0; i < NVARIANTS; i++) {
        resolved[i].kind = mt_derivative_kind(variants[i].key);
        resolved[i].variant = mt_derivative_kind(variants[i].variant);
        resolved[i].param = variants[i].param;
    }
    variants_resolved = true;
}

const mt_node_kind *mt_derivative_variant(const mt_node *n)
{
    if (!variants_resolved)
        resolve_variants();
    for (size_t i = 0; i < NVARIANTS; i++) {
        int p = resolved[i].param;
        if (resolved[i].kind != n->kind)
            continue;
        if (p < 0 ? n->nedges > 0 && n->edge_meta[0].ndim == -p - 1
                  : p < n->nparams && !n->args[p].none && n->edge_count[p] == 0)
            return resolved[i].variant;
    }
    return n->kind;
}

static int not_implemented_backward(mt_node *n, mt_tensor **gin, mt_tensor **gout)
{
    char msg[160];
    snprintf(msg, sizeof msg, "the derivative for '%s' is not implemented.",
             n->op_name ? n->op_name : "?");
    mt_error(MT_ERR_RUNTIME, "%s", msg);
    return -1;
}

const mt_node_kind mt_not_implemented_kind = {"NotImplemented", not_implemented_backward, 0,
                                              false, false};
