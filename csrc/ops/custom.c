/* The registry of custom ops: rows appended at run time after the static
 * table, each with an impl and a derivative kind that call the registrant's
 * callbacks. Touches only the op layer and the autograd floor below it. */
#include "custom.h"

#include "../autograd/derivatives.h"
#include "../autograd/formula.h"
#include "../autograd/forward.h"
#include "../autograd/grad_mode.h"
#include "../core/shape.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mt_custom_op **customs;
static int ncustoms, capacity;

const mt_op *mt_op_row(int id)
{
    if (id >= 0 && id < MT_OP_COUNT)
        return &mt_ops[id];
    if (id >= MT_OP_COUNT && id - MT_OP_COUNT < ncustoms)
        return &customs[id - MT_OP_COUNT]->row;
    return NULL;
}

const mt_custom_op *mt_custom_of(const mt_op *op)
{
    return op->id >= MT_OP_COUNT ? (const mt_custom_op *)op : NULL;
}

int mt_op_find(const char *name)
{
    for (int k = ncustoms - 1; k >= 0; k--)
        if (strcmp(customs[k]->qualname, name) == 0)
            return MT_OP_COUNT + k;
    int any = -1;
    for (int r = 0; r < MT_OP_COUNT; r++) {
        if (!mt_ops[r].kinds || strcmp(mt_ops[r].sig->name, name) != 0)
            continue;
        if (mt_ops[r].kinds & MT_KIND_FUNCTION)
            return r;
        if (any < 0)
            any = r;
    }
    if (any < 0)
        return mt_error(MT_ERR_VALUE, "minitorch: no op named '%s'", name);
    return any;
}

/* A callback failed: keep the error it left, or say that it left none (a
 * host exception it raised stands over either). */
static int carry_failure(const mt_custom_op *c, const char *what)
{
    const char *msg;
    char copy[512];
    mt_error_kind k = mt_error_take(&msg);
    if (k != MT_OK) {
        snprintf(copy, sizeof copy, "%s", msg);
        return mt_error(k, "%s", copy);
    }
    return mt_error(MT_ERR_RUNTIME, "%s: the %s failed without setting an error", c->qualname,
                    what);
}

/* The kernel runs below autograd: the ops it calls record nothing, and the
 * runner records the call once, with the op's own node. */
static int run_kernel(mt_args *a, mt_result *r)
{
    const mt_custom_op *c = (const mt_custom_op *)a->op;
    bool grad = mt_grad_enabled, fw = mt_fw_grad_enabled;
    mt_grad_enabled = false;
    mt_fw_grad_enabled = false;
    mt_tensor *t = c->kernel(a);
    mt_grad_enabled = grad;
    mt_fw_grad_enabled = fw;
    if (!t)
        return carry_failure(c, "kernel");
    return mt_result_tensor(r, t);
}

static const mt_custom_op *custom_of_kind(const mt_node_kind *kind)
{
    return (const mt_custom_op *)((const char *)kind - offsetof(mt_custom_op, kind));
}

static bool same_shape(const mt_tensor_meta *m, const mt_tensor *t)
{
    if (m->ndim != t->ndim)
        return false;
    for (int d = 0; d < t->ndim; d++)
        if (m->sizes[d] != t->sizes[d])
            return false;
    return true;
}

/* The gradient the backward gave for edge e, summed down to the input's
 * shape and dtype; consumes g. */
static int take_gradient(const mt_custom_op *c, mt_node *n, int e, mt_tensor *g,
                         mt_tensor **out)
{
    const mt_tensor_meta *m = &n->edge_meta[e];
    char got[MT_MAX_DIMS * 24 + 4], want[MT_MAX_DIMS * 24 + 4];
    mt_format_shape(got, sizeof got, g->ndim, g->sizes);
    mt_tensor *r = g->ndim >= m->ndim ? mt_reduce_to_edge(n, e, g) : g;
    if (!r)
        return -1;
    if (!same_shape(m, r)) {
        mt_format_shape(want, sizeof want, m->ndim, m->sizes);
        mt_release(r);
        return mt_error(MT_ERR_RUNTIME,
                        "Function %s returned an invalid gradient at index %d - got %s but "
                        "expected shape compatible with %s",
                        c->kind_name, e, got, want);
    }
    *out = r;
    return 0;
}

static int run_backward(mt_node *n, mt_tensor **gin, mt_tensor **gout)
{
    const mt_custom_op *c = custom_of_kind(n->kind);
    const char *sep = strstr(c->qualname, "::");
    if (!c->backward)
        return mt_error(MT_ERR_RUNTIME,
                        "Trying to backward through %.*s.%s.default but no autograd formula was "
                        "registered. Please use register_autograd to add one.",
                        (int)(sep - c->qualname), c->qualname, sep + 2);
    mt_tensor *g[MT_MAX_PARAMS] = {NULL};
    int status = c->backward(n, gin[0], g) < 0 ? carry_failure(c, "backward") : 0;
    for (int p = 0; p < n->nparams; p++) {
        if (!g[p])
            continue;
        int e = mt_edge_of(n, p);
        if (status < 0 || e < 0 || !mt_needs(n, e))
            mt_release(g[p]);
        else
            status = take_gradient(c, n, e, g[p], &gout[e]);
    }
    if (status < 0)
        mt_release_all(n->nedges, gout);
    return status;
}

static int run_jvp(mt_node *n, mt_tensor **tin, mt_tensor **tout)
{
    const mt_custom_op *c = custom_of_kind(n->kind);
    mt_tensor *t[MT_MAX_PARAMS] = {NULL};
    for (int p = 0; p < n->nparams; p++) {
        int e = mt_edge_of(n, p);
        if (e >= 0)
            t[p] = tin[e];
    }
    return c->jvp(n, t, &tout[0]) < 0 ? carry_failure(c, "jvp") : 0;
}

static bool is_name(const char *from, const char *to)
{
    if (from == to)
        return false;
    for (const char *p = from; p < to; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return false;
    return true;
}

/* "ns::name(" with both parts identifiers, one closing parenthesis, and a
 * C op returning one Tensor. */
static int check_schema(const char *schema, bool c_op)
{
    const char *sep = strstr(schema, "::"), *open = strchr(schema, '(');
    const char *close = open ? strchr(open, ')') : NULL;
    if (!sep || !open || sep > open || !is_name(schema, sep) || !is_name(sep + 2, open))
        return mt_error(MT_ERR_VALUE,
                        "a custom op's schema starts with 'namespace::name(', got '%s'", schema);
    if (open - schema >= 64)
        return mt_error(MT_ERR_VALUE, "custom op name too long (63 characters at most): '%s'",
                        schema);
    const char *ret = close ? close + 1 : NULL;
    while (ret && *ret == ' ')
        ret++;
    if (!close || (*ret && strncmp(ret, "->", 2) != 0))
        return mt_error(MT_ERR_VALUE, "malformed custom op schema '%s'", schema);
    if (c_op && *ret) {
        ret += 2;
        while (*ret == ' ')
            ret++;
        if (strcmp(ret, "Tensor") != 0)
            return mt_error(MT_ERR_VALUE,
                            "a custom op with a C kernel returns one Tensor, got '%s'", schema);
    }
    return 0;
}

/* The derivative kind of a C op: it saves every Tensor input and the output
 * for the callbacks to read, and names its nodes as torch names the nodes of
 * a custom op. */
static void make_kind(mt_custom_op *c)
{
    const mt_signature *s = c->row.sig;
    const char *sep = strstr(c->qualname, "::");
    snprintf(c->kind_name, sizeof c->kind_name, "GeneratedBackwardFor_%.*s_%s_defaultBackward",
             (int)(sep - c->qualname), c->qualname, sep + 2);
    c->kind.name = c->kind_name;
    c->kind.backward = run_backward;
    for (int p = 0; p < s->nparams && p < 32; p++)
        if (s->params[p].type == MT_ARG_TENSOR)
            c->kind.save_inputs |= MT_SAVE(p);
    c->kind.save_output = MT_OUTPUT(0);
    c->kind.materialize = true;
    c->kind.jvp = c->jvp ? run_jvp : NULL;
}

static int append(mt_custom_op *c)
{
    if (ncustoms == capacity) {
        int cap = capacity ? 2 * capacity : 16;
        mt_custom_op **grown = realloc(customs, sizeof *grown * (size_t)cap);
        if (!grown)
            return mt_error(MT_ERR_MEMORY, "out of memory");
        customs = grown;
        capacity = cap;
    }
    customs[ncustoms] = c;
    return MT_OP_COUNT + ncustoms++;
}

int mt_custom_register(const char *schema, mt_custom_kernel kernel, mt_custom_backward backward,
                       mt_custom_jvp jvp, mt_impl_fn host_impl, void *host)
{
    if (check_schema(schema, kernel != NULL) < 0)
        return -1;
    mt_custom_op *c = calloc(1, sizeof *c);
    char *text = c ? malloc(strlen(schema) + 1) : NULL;
    if (!text) {
        free(c);
        return mt_error(MT_ERR_MEMORY, "out of memory");
    }
    strcpy(text, schema);
    mt_signature *sig = mt_signature_parse(text, MT_KIND_FUNCTION);
    if (!sig)
        goto fail;
    for (int p = 0; kernel && p < sig->nparams; p++)
        if (sig->params[p].type == MT_ARG_TENSOR_LIST || sig->params[p].type == MT_ARG_OBJECT) {
            mt_error(MT_ERR_VALUE, "a custom op with a C kernel takes no '%s' parameter",
                     sig->params[p].type_text);
            goto fail;
        }
    snprintf(c->qualname, sizeof c->qualname, "%s", sig->name);
    c->kernel = kernel;
    c->backward = backward;
    c->jvp = jvp;
    c->host = host;
    c->row.text = text;
    c->row.kinds = MT_KIND_FUNCTION;
    c->row.impl = kernel ? run_kernel : host_impl;
    c->row.derivative_name = "";
    c->row.form = MT_FORM_PLAIN;
    c->row.sig = sig;
    if (kernel) {
        make_kind(c);
        c->row.derivative = &c->kind;
    } else {
        c->row.derivative = &mt_nondifferentiable_kind;
    }
    int id = append(c);
    if (id < 0)
        goto fail;
    c->row.id = (mt_op_id)id;
    c->row.base = (mt_op_id)id;
    return id;
fail:
    free(sig);
    free(text);
    free(c);
    return -1;
}
