/* Result buffers of op calls. */
#include "args.h"
#include "../../core/hot.h"

#include <stdlib.h>

int mt_result_alloc(mt_result *r, mt_result_kind kind, int n)
{
    r->kind = kind;
    r->n = n;
    r->host = NULL;
    r->t = n <= MT_RESULT_INLINE ? r->inline_t : calloc((size_t)n, sizeof(mt_tensor *));
    if (!r->t) {
        r->n = 0;
        return mt_error(MT_ERR_MEMORY, "out of memory");
    }
    for (int k = 0; k < n && r->t == r->inline_t; k++)
        r->t[k] = NULL;
    return 0;
}

int mt_result_tuple(mt_result *r, int n, mt_tensor **ts)
{
    bool ok = true;
    for (int i = 0; i < n; i++)
        ok = ok && ts[i];
    if (!ok || mt_result_alloc(r, MT_RESULT_TUPLE, n) < 0) {
        for (int i = 0; i < n; i++)
            mt_xrelease(ts[i]);
        return -1;
    }
    for (int i = 0; i < n; i++)
        r->t[i] = ts[i];
    return 0;
}

MT_HOT void mt_result_clear(mt_result *r)
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

int mt_result_pair(mt_result *r, mt_tensor *a, mt_tensor *b)
{
    if (!a || !b || mt_result_alloc(r, MT_RESULT_TUPLE, 2) < 0) {
        mt_xrelease(a);
        mt_xrelease(b);
        r->kind = MT_RESULT_NONE;
        r->n = 0;
        return -1;
    }
    r->t[0] = a;
    r->t[1] = b;
    return 0;
}

int mt_result_own_counters(mt_result *r)
{
    for (int k = 0; k < r->n; k++)
        if (r->t[k] && mt_tensor_own_counter(r->t[k], 0) < 0) {
            mt_result_clear(r);
            return -1;
        }
    return 0;
}
