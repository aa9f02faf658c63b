/* Result buffers of op calls. */
#include "args.h"

#include <stdlib.h>

int mt_result_alloc(mt_result *r, mt_result_kind kind, int n)
{
    r->kind = kind;
    r->n = n;
    r->host = NULL;
    r->tuple_name = NULL;
    r->t = n <= MT_RESULT_INLINE ? r->inline_t : calloc((size_t)n, sizeof(mt_tensor *));
    if (!r->t) {
        r->n = 0;
        return mt_error(MT_ERR_MEMORY, "out of memory");
    }
    for (int k = 0; k < n && r->t == r->inline_t; k++)
        r->t[k] = NULL;
    return 0;
}

void mt_result_clear(mt_result *r)
{
    if (r->host) {
        mt_owner.release_object(r->host);
        r->host = NULL;
    } else {
        for (int k = 0; k < r->n; k++)
            mt_xrelease(r->t[k]);
    }
    if (r->t && r->t != r->inline_t)
        free(r->t);
    r->t = r->inline_t;
    r->n = 0;
    r->kind = MT_RESULT_NONE;
}
