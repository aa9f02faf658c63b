/* Releasing the host lock around kernels with the running call's storages
 * pinned (see unlock.h). The running call is per thread: an impl may run
 * another row through mt_call, whose kernels pin that row's operands. */
#include "unlock.h"

#include "table.h"
#include "../../core/hot.h"

#include <stdlib.h>

static MT_HOT_TLS _Thread_local const mt_args *running;

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

static void pin(mt_storage **pins, int *n, unsigned *flags, const mt_tensor *t)
{
    if (t && t->storage) {
        mt_storage_incref(t->storage);
        pins[(*n)++] = t->storage;
        *flags |= t->flags;
    }
}

/* Pins the storages of a's tensor arguments into pins (room for
 * count_tensors(a)); how many. *flags gathers the tensors' flags. */
MT_HOT static int pin_call(mt_storage **pins, const mt_args *a, unsigned *flags)
{
    int n = 0;
    for (int p = 0; p < a->sig->nparams; p++) {
        const mt_value *v = &a->v[p];
        if (a->sig->params[p].type == MT_ARG_TENSOR)
            pin(pins, &n, flags, v->t);
        else if (a->sig->params[p].type == MT_ARG_TENSOR_LIST && v->obj)
            for (int k = 0; k < v->nints; k++)
                pin(pins, &n, flags, v->tensors[k]);
    }
    return n;
}

MT_HOT int mt_running_call_enter(mt_running_call *rc, const mt_args *a)
{
    /* the signature bounds the count but for a Tensor[] */
    const int room = (int)(sizeof rc->inline_pins / sizeof rc->inline_pins[0]);
    int n = a->sig->max_tensors >= 0 ? a->sig->max_tensors : count_tensors(a);
    rc->pins = n <= room ? rc->inline_pins : malloc(sizeof(mt_storage *) * (size_t)n);
    if (!rc->pins)
        return mt_error(MT_ERR_MEMORY, "out of memory");
    unsigned flags = 0;
    rc->n = pin_call(rc->pins, a, &flags);
    rc->conj = flags & MT_FLAG_CONJ;
    rc->outer = running;
    running = a;
    return 0;
}

const mt_args *mt_running_call_current(void) { return running; }

const mt_args *mt_running_call_swap(const mt_args *a)
{
    const mt_args *was = running;
    running = a;
    return was;
}

MT_HOT void mt_running_call_leave(mt_running_call *rc)
{
    running = rc->outer;
    for (int i = 0; i < rc->n; i++)
        mt_storage_decref(rc->pins[i]);
    if (rc->pins != rc->inline_pins)
        free(rc->pins);
}

void *mt_unlock(double work)
{
    if (work < MT_UNLOCK_MIN_WORK || !mt_owner.unlock)
        return NULL;
    int n = running ? count_tensors(running) : 0;
    unlock_token *tok = malloc(sizeof *tok + sizeof(mt_storage *) * (size_t)n);
    /* without room for the pins the kernel keeps the lock: slower, not unsafe */
    if (!tok)
        return NULL;
    unsigned flags = 0;
    tok->n = running ? pin_call(tok->pinned, running, &flags) : 0;
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
