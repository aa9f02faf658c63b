/* torch's deprecated overloads forwarded to the rows they stand for
 * (deprecated_form.h): the target found by the parameters' names, the
 * arguments moved by name. Reads the op table only. */
#include "deprecated_form.h"

#include <string.h>

#include "../../core/error.h"
#include "run.h"

const mt_op *mt_deprecated_target(const mt_op *op)
{
    const mt_signature *s = op->sig;
    for (int r = 0; r < MT_OP_COUNT; r++) {
        const mt_op *t = &mt_ops[r];
        if (t == op || !t->sig || (t->tags & MT_TAG_DEPRECATED) || !(t->kinds & op->kinds) ||
            strcmp(t->sig->name, s->name) != 0)
            continue;
        bool all = true;
        for (int i = 0; all && i < s->nparams; i++)
            all = mt_signature_find(t->sig, s->params[i].name) >= 0;
        if (all)
            return t;
    }
    return NULL;
}

void mt_deprecated_forward(const mt_op *target, const mt_args *from, mt_args *to)
{
    const mt_signature *ts = target->sig;
    to->op = target;
    to->sig = ts;
    to->overload = target->overload;
    to->path = 0;
    to->host = from->host;
    for (int i = 0; i < ts->nparams; i++) {
        int j = mt_signature_find(from->sig, ts->params[i].name);
        if (j < 0) {
            mt_signature_default(&ts->params[i], &to->v[i], to->listbuf[i]);
            continue;
        }
        to->v[i] = from->v[j];
        if (from->v[j].ints == from->listbuf[j]) {
            memcpy(to->listbuf[i], from->listbuf[j], sizeof to->listbuf[i]);
            to->v[i].ints = to->listbuf[i];
        }
    }
}

/* The deprecated rows' impl, for C callers (the binding forwards before). */
int impl_deprecated_form(mt_args *a, mt_result *r)
{
    const mt_op *t = mt_deprecated_target(a->op);
    if (!t)
        return mt_error(MT_ERR_RUNTIME, "%s(): no overload for this deprecated form", a->sig->name);
    mt_args b;
    mt_deprecated_forward(t, a, &b);
    return mt_op_exec_plain(t, &b, r, NULL);
}
