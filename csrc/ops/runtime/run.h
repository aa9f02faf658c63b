/* Running an op-table row below autograd: the one path every row's impl
 * runs on, whoever the caller. It refuses complex and barebones tensors to
 * the rows not written for them (dtype_gate.h), resolves conjugate views for the rows
 * that read values (conj_view.h), writes whose memory overlaps an
 * input (write_overlap.h), pins the storages of the call's tensors while the
 * impl may leave the host's lock (unlock.h), and runs the impl. It knows
 * nothing of autograd: callers that record (the binding, mt_call) go through
 * mt_op_run of autograd/record.h, which wraps this. Inline: it is the body
 * of every op call, and as a call of its own in another file it cost a
 * 1-element op about 5% (benchmarks/overhead_ab.py). */
#ifndef MT_OPS_RUN_H
#define MT_OPS_RUN_H

#include "../out_param.h"
#include "dtype_gate.h"
#include "conj_view.h"
#include "op_watch.h"
#include "profile_events.h"
#include "table.h"
#include "unlock.h"
#include "write_overlap.h"

/* The impl's run: by the runner's copy into out= for the rows that ask it. */
static inline int mt_op_run_impl(const mt_op *op, mt_args *a, mt_result *r)
{
    int p = a->sig->out_param;
    return op->out_rule && p >= 0 && a->v[p].obj ? mt_exec_out_by_copy(op, a, r) : op->impl(a, r);
}

/* mt_op_exec_into without the profiler's look. */
static inline int mt_op_exec_plain(const mt_op *op, mt_args *a, mt_result *r, mt_tensor *target)
{
    a->path = 0;
    r->kind = MT_RESULT_NONE;
    r->n = 0;
    r->host = NULL;
    r->t = r->inline_t;
    if (!op->impl)
        return mt_error(MT_ERR_RUNTIME, "%s() is implemented by the Python binding only",
                        op->sig->name);
    if (mt_dtype_gate(op, a) < 0)
        return -1;
    int p = a->sig->out_param;
    /* of a (values, indices) out=, torch checks the values only */
    mt_tensor *written = target;
    if (!written && p >= 0 && a->sig->params[p].type == MT_ARG_TENSOR_LIST && a->v[p].obj &&
        a->v[p].nints > 0)
        written = a->v[p].tensors[0];
    if (written && mt_check_write_overlap(op, a, written) < 0)
        return -1;
    mt_running_call running;
    if (mt_running_call_enter(&running, a) < 0)
        return -1;
    int rc = running.conj && !(op->tags & MT_TAG_CONJ_VIEW)
                 ? mt_exec_resolving_conj(op, a, r, target, mt_op_run_impl)
                 : mt_op_run_impl(op, a, r);
    mt_running_call_leave(&running);
    if (rc == 0 && op->alias == MT_ALIAS_UNTRACKED)
        rc = mt_result_own_counters(r);
    /* a failed impl holds nothing (it released what it made) */
    if (rc < 0)
        r->kind = MT_RESULT_NONE;
    return rc;
}

/* Runs op on a, whose op and sig are set and whose write target (an
 * in-place self or an out= tensor) is target, or NULL. On success r holds
 * the result; -1 with an mt_error set (r then holds nothing). While a
 * watcher is on (op_watch.h: the profiler, a dispatch mode) it sees the call. */
static inline int mt_op_exec_into(const mt_op *op, mt_args *a, mt_result *r, mt_tensor *target)
{
    if (mt_op_watchers)
        return mt_op_exec_watched(op, a, r, target);
    return mt_op_exec_plain(op, a, r, target);
}

/* Runs op on a (whose op, sig and path it fills): mt_op_exec_into with the
 * call's own write target. */
static inline int mt_op_exec(const mt_op *op, mt_args *a, mt_result *r)
{
    a->op = op;
    a->sig = op->sig;
    return mt_op_exec_into(op, a, r, mt_writes_inplace(op, a) ? a->v[0].t : mt_out_target(a));
}

#endif
