/* The derivative kind of a custom C op (ops/runtime/custom.h): it saves
 * every Tensor input and the output, calls the registrant's backward with
 * the output's gradient, and sums each input's gradient down to the input's
 * shape; its jvp, if given, makes the output's tangent. */
#include "custom_kind.h"
#include "derivatives.h"
#include "formula.h"
#include "../core/shape.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    mt_node_kind kind;
    char kind_name[160];
    const char *qualname; /* the row's, which lives as long as the row */
    mt_custom_backward backward;
    mt_custom_jvp jvp;
} custom_kind;

static const custom_kind *custom_of_kind(const mt_node_kind *kind)
{
    return (const custom_kind *)((const char *)kind - offsetof(custom_kind, kind));
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
static int take_gradient(const custom_kind *c, mt_node *n, int e, mt_tensor *g, mt_tensor **out)
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
    const custom_kind *c = custom_of_kind(n->kind);
    const char *sep = strstr(c->qualname, "::");
    if (!c->backward)
        return mt_error(MT_ERR_RUNTIME,
                        "Trying to backward through %.*s.%s.default but no autograd formula was "
                        "registered. Please use register_autograd to add one.",
                        (int)(sep - c->qualname), c->qualname, sep + 2);
    mt_tensor *g[MT_MAX_PARAMS] = {NULL};
    int status = c->backward(n, gin[0], g) < 0 ? mt_custom_failure(c->qualname, "backward") : 0;
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
    const custom_kind *c = custom_of_kind(n->kind);
    mt_tensor *t[MT_MAX_PARAMS] = {NULL};
    for (int p = 0; p < n->nparams; p++) {
        int e = mt_edge_of(n, p);
        if (e >= 0)
            t[p] = tin[e];
    }
    return c->jvp(n, t, &tout[0]) < 0 ? mt_custom_failure(c->qualname, "jvp") : 0;
}

/* The derivative kind of a C op: it saves every Tensor input and the output
 * for the callbacks to read, and names its nodes as torch names the nodes of
 * a custom op. */
static void make_kind(custom_kind *c, const mt_signature *s)
{
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
    c->kind.runs_below = true;
}

static int attach(int id, mt_custom_backward backward, mt_custom_jvp jvp)
{
    const mt_custom_op *op = mt_custom_of(mt_op_row(id));
    custom_kind *c = calloc(1, sizeof *c);
    if (!c)
        return mt_error(MT_ERR_MEMORY, "out of memory");
    c->qualname = op->qualname;
    c->backward = backward;
    c->jvp = jvp;
    make_kind(c, op->row.sig);
    if (mt_set_op_derivative(id, &c->kind) < 0) {
        free(c);
        return -1;
    }
    return 0;
}

int mt_custom_register_c(const char *schema, mt_custom_kernel kernel, mt_custom_backward backward,
                         mt_custom_jvp jvp)
{
    int id = mt_custom_register(schema, kernel, NULL, NULL);
    if (id < 0 || attach(id, backward, jvp) < 0)
        return -1;
    return id;
}
