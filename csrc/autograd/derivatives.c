/* Derivative kinds from the op table's rows, and each row's kind, guard and
 * path variants, resolved once at start-up so recording a call compares no
 * strings. */
#include "derivatives.h"
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
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

static const struct {
    const char *key;
    int param;
    uint32_t needed_by;
} save_ifs[] = {
#define MT_SAVE_IF(Key, p, mask) {#Key, p, mask},
#include "../ops.def"
#undef MT_SAVE_IF
};

/* The MT_SAVE_IF rows, once, into their kinds' save_if tables. */
static int attach_save_ifs(void)
{
    for (size_t r = 0; r < sizeof save_ifs / sizeof save_ifs[0]; r++) {
        size_t i = 0;
        while (i < NKINDS && strcmp(keys[i], save_ifs[r].key) != 0)
            i++;
        int p = save_ifs[r].param;
        if (i == NKINDS || p < 0 || p >= MT_NODE_MAX_PARAMS)
            return mt_error(MT_ERR_RUNTIME, "minitorch: bad MT_SAVE_IF row for %s",
                            save_ifs[r].key);
        uint32_t *table = (uint32_t *)kinds[i].save_if;
        if (!table && !(table = calloc(MT_NODE_MAX_PARAMS, sizeof *table)))
            return mt_error(MT_ERR_MEMORY, "out of memory");
        table[p] = save_ifs[r].needed_by;
        kinds[i].save_if = table;
    }
    return 0;
}

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
    if (strcmp(name, "NotImplemented") == 0)
        return &mt_not_implemented_kind;
    for (size_t i = 0; i < NKINDS; i++)
        if (strcmp(keys[i], name) == 0)
            return &kinds[i];
    return NULL;
}

#define NVARIANTS (sizeof variants / sizeof variants[0])

/* variants[] resolved once, at mt_autograd_init, to kind pointers, so
 * recording a node never compares strings. */
static struct {
    const mt_node_kind *kind, *variant;
    int param;
} resolved[NVARIANTS ? NVARIANTS : 1];
static int nresolved;

/* The rules on arguments go to resolved[]; those on paths to their kind's
 * by_path table, one lookup per call. */
static int resolve_variants(void)
{
    nresolved = 0;
    for (size_t i = 0; i < NVARIANTS; i++) {
        const mt_node_kind *base = mt_derivative_kind(variants[i].key);
        const mt_node_kind *variant = mt_derivative_kind(variants[i].variant);
        int p = variants[i].param, path = p - MT_PATH_BASE;
        if (!base || base == &mt_nondifferentiable_kind || !variant)
            return mt_error(MT_ERR_RUNTIME, "minitorch: bad variant row %s -> %s", variants[i].key,
                            variants[i].variant);
        /* a key names an entry of kinds[], which is ours to fill */
        mt_node_kind *kind = (mt_node_kind *)base;
        if (p < MT_PATH_BASE) {
            resolved[nresolved].kind = kind;
            resolved[nresolved].variant = variant;
            resolved[nresolved++].param = p;
            continue;
        }
        if (path >= MT_PATH_COUNT)
            return mt_error(MT_ERR_RUNTIME, "minitorch: path %d of '%s' is out of range", path,
                            variants[i].key);
        if (!kind->by_path && !(kind->by_path = calloc(MT_PATH_COUNT, sizeof *kind->by_path)))
            return mt_error(MT_ERR_MEMORY, "out of memory");
        kind->by_path[path] = variant;
    }
    return 0;
}

const mt_node_kind *mt_derivative_variant(const mt_node *n)
{
    for (int i = 0; i < nresolved; i++) {
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

const mt_node_kind mt_not_implemented_kind = {"NotImplemented", not_implemented_backward, 0, false,
                                              false};

typedef int (*guard_fn)(const mt_args *);

#define MT_GUARD(id, fn) int fn(const mt_args *);
#include "../ops.def"
#undef MT_GUARD

static const struct {
    mt_op_id id;
    guard_fn fn;
} guards[] = {
#define MT_GUARD(id, fn) {MT_OP_##id, fn},
#include "../ops.def"
#undef MT_GUARD
};

mt_op_autograd mt_op_autograd_rows[MT_OP_COUNT];
/* Custom rows (ids from MT_OP_COUNT) get their kinds as they are registered. */
static const mt_node_kind **custom_kinds;
static int ncustom;

int mt_autograd_init(void)
{
    for (int r = 0; r < MT_OP_COUNT; r++) {
        const mt_op *op = &mt_ops[r];
        if (op->derivative_name[0] &&
            !(mt_op_autograd_rows[r].kind = mt_derivative_kind(op->derivative_name)))
            return mt_error(MT_ERR_RUNTIME, "minitorch: unknown derivative '%s' for '%s'",
                            op->derivative_name, op->text);
    }
    for (size_t g = 0; g < sizeof guards / sizeof guards[0]; g++)
        mt_op_autograd_rows[guards[g].id].guard = guards[g].fn;
    if (attach_save_ifs() < 0)
        return -1;
    return resolve_variants();
}

const mt_node_kind *mt_custom_op_derivative(int id)
{
    id -= MT_OP_COUNT;
    /* a host custom op records itself (through an autograd.Function) */
    return id < ncustom && custom_kinds[id] ? custom_kinds[id] : &mt_nondifferentiable_kind;
}

int mt_set_op_derivative(int id, const mt_node_kind *kind)
{
    int k = id - MT_OP_COUNT;
    if (k < 0)
        return mt_error(MT_ERR_RUNTIME, "minitorch: row %d is not a custom op", id);
    if (k >= ncustom) {
        const mt_node_kind **grown = realloc(custom_kinds, sizeof *grown * (size_t)(k + 1));
        if (!grown)
            return mt_error(MT_ERR_MEMORY, "out of memory");
        memset(grown + ncustom, 0, sizeof *grown * (size_t)(k + 1 - ncustom));
        custom_kinds = grown;
        ncustom = k + 1;
    }
    custom_kinds[k] = kind;
    return 0;
}
