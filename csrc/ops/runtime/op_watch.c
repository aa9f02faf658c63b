/* The runner's watched path: contract in op_watch.h. */
#include "op_watch.h"

#include "run.h"

unsigned char mt_op_watchers;

static mt_dispatch_handler dispatch_handler;

void mt_dispatch_handler_set(mt_dispatch_handler handler)
{
    dispatch_handler = handler;
    if (handler)
        mt_op_watchers |= MT_WATCH_DISPATCH;
    else
        mt_op_watchers &= (unsigned char)~MT_WATCH_DISPATCH;
}

int mt_op_exec_watched(const mt_op *op, mt_args *a, mt_result *r, mt_tensor *target)
{
    if ((mt_op_watchers & MT_WATCH_DISPATCH) && dispatch_handler && !mt_running_call_current()) {
        int rc = dispatch_handler(op, a, r);
        if (rc <= 0)
            return rc;
    }
    if (mt_op_watchers & MT_WATCH_PROFILE)
        return mt_op_exec_profiled(op, a, r, target);
    return mt_op_exec_plain(op, a, r, target);
}
