/* Checks on gradients re-entering the engine (see validate.h): the one place
 * a hook's value or a node's output is compared with what the graph
 * recorded, so no kernel downstream sees a gradient of a shape or dtype its
 * node did not record. */
#include "validate.h"
#include "formula.h"

#include "../core/shape.h"

#include <stdio.h>
#include <string.h>

static bool same_shape(int ndim, const int64_t *sizes, const mt_tensor *t)
{
    return ndim == t->ndim && memcmp(sizes, t->sizes, sizeof(int64_t) * (size_t)ndim) == 0;
}

int mt_check_hook_value(const mt_tensor *was, const mt_tensor *got, const char *hook)
{
    if (was->dtype != got->dtype) {
        mt_error(MT_ERR_RUNTIME,
                 "hook '%s' has changed the type of value (was minitorch.%sTensor got "
                 "minitorch.%sTensor)",
                 hook, mt_dtype_infos[was->dtype].scalar_name,
                 mt_dtype_infos[got->dtype].scalar_name);
        return -1;
    }
    if (!same_shape(was->ndim, was->sizes, got)) {
        mt_error(MT_ERR_RUNTIME, "hook '%s' has changed the size of value", hook);
        return -1;
    }
    return 0;
}

/* Whether a gradient of g's shape sums down to the input's (torch's
 * is_expandable_to). */
static bool expandable_to(const mt_tensor_meta *m, const mt_tensor *g)
{
    if (m->ndim > g->ndim)
        return false;
    for (int d = 1; d <= m->ndim; d++) {
        int64_t want = m->sizes[m->ndim - d], have = g->sizes[g->ndim - d];
        if (want != have && want != 1)
            return false;
    }
    return true;
}

int mt_validate_outputs(mt_node *n, mt_tensor **gout)
{
    for (int e = 0; e < n->nedges; e++) {
        mt_tensor *g = gout[e];
        const mt_tensor_meta *m = &n->edge_meta[e];
        if (!g || !n->edges[e].fn)
            continue;
        if (g->dtype == m->dtype && same_shape(m->ndim, m->sizes, g))
            continue;
        if (!expandable_to(m, g)) {
            char got[MT_MAX_DIMS * 24 + 4], want[MT_MAX_DIMS * 24 + 4];
            mt_format_shape(got, sizeof got, g->ndim, g->sizes);
            mt_format_shape(want, sizeof want, m->ndim, m->sizes);
            mt_error(MT_ERR_RUNTIME,
                     "Function %s returned an invalid gradient at index %d - got %s but "
                     "expected shape compatible with %s",
                     n->kind->name, e, got, want);
            return -1;
        }
        gout[e] = NULL;
        if (!(gout[e] = mt_reduce_to_edge(n, e, g)))
            return -1;
    }
    return 0;
}
