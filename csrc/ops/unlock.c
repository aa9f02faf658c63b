/* Releasing the host lock around kernels with the running call's storages
 * pinned (see unlock.h). The running call is per thread: an impl may run
 * another row through mt_call, whose kernels pin that row's operands. */
#include "unlock.h"

#include "table.h"

#include <stdlib.h>

static _Thread_local const mt_args *running;

const mt_args *mt_running_call_enter(const mt_args *a)
{
    const mt_args *outer = running;
    running = a;
    return outer;
}

void mt_running_call_leave(const mt_args *outer)
{
    running = outer;
}

typedef struct {
    void *host_token;
    int n;
    mt_storage *pinned[];
} unlock_token;

static int count_tensors(const mt_args *a)
{
    int n = 0;
    for (int p = 0; p < a->sig->nparams; p++)
        if (a->sig->params[p].type == MT_ARG_TENSOR)
            n += a->v[p].t != NULL;
        else if (a->sig->params[p].type == MT_ARG_TENSOR_LIST && a->v[p].obj)
            n += a->v[p].nints;
    return n;
}

static void pin(unlock_token *tok, mt_tensor *t)
{
    if (t && t->storage) {
        mt_storage_incref(t->storage);
        tok->pinned[tok->n++] = t->storage;
    }
}

void *mt_unlock(void)
{
    if (!mt_owner.unlock)
        return NULL;
    int n = running ? count_tensors(running) : 0;
    unlock_token *tok = malloc(sizeof *tok + sizeof(mt_storage *) * (size_t)n);
    /* without room for the pins the kernel keeps the lock: slower, not unsafe */
    if (!tok)
        return NULL;
    tok->n = 0;
    for (int p = 0; running && p < running->sig->nparams; p++) {
        const mt_value *v = &running->v[p];
        if (running->sig->params[p].type == MT_ARG_TENSOR)
            pin(tok, v->t);
        else if (running->sig->params[p].type == MT_ARG_TENSOR_LIST && v->obj)
            for (int k = 0; k < v->nints; k++)
                pin(tok, v->tensors[k]);
    }
    tok->host_token = mt_owner.unlock();
    return tok;
}

void mt_relock(void *token)
{
    unlock_token *tok = token;
    if (!tok)
        return;
    mt_owner.relock(tok->host_token);
    for (int i = 0; i < tok->n; i++)
        mt_storage_decref(tok->pinned[i]);
    free(tok);
}
