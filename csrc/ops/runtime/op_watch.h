/* Who watches the runner's row calls besides running them: the profiler
 * (profile_events.h) and a dispatch mode (torch's TorchDispatchMode, whose
 * handler the host installs). The runner reads one byte per call, and only
 * when a bit is set takes the out-of-line watched path. A dispatch handler
 * sees the rows called from outside any impl: the calls autograd records
 * (the forward's rows) and the rows the engine's formulas run (the
 * backward's), not the rows an impl composes inside its own kernel, as
 * torch's modes see ops below autograd but not inside kernels. Plain C. */
#ifndef MT_OPS_OP_WATCH_H
#define MT_OPS_OP_WATCH_H

#include "args.h"

struct mt_op;

enum { MT_WATCH_PROFILE = 1u << 0, MT_WATCH_DISPATCH = 1u << 1 };
extern unsigned char mt_op_watchers;

/* The host's dispatch handler: 0 when it ran the call (r holds the
 * result), 1 when it leaves the call to the runner (no mode wants it), -1
 * with an mt_error. */
typedef int (*mt_dispatch_handler)(const struct mt_op *op, mt_args *a, mt_result *r);
/* Installs handler (NULL: none) and sets or clears MT_WATCH_DISPATCH. */
void mt_dispatch_handler_set(mt_dispatch_handler handler);

/* The runner's path while a watcher is on. */
int mt_op_exec_watched(const struct mt_op *op, mt_args *a, mt_result *r, mt_tensor *target);

#endif
