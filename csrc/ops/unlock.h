/* Long kernels without the host's lock (the GIL). While an impl's kernel
 * runs unlocked, other host threads may replace or resize the tensors of the
 * call (x.data = y, x.set_(...)); mt_unlock keeps the storages they view at
 * that moment alive until mt_relock, so the kernel never reads or writes
 * freed memory. The kernel must reach tensors only through what it captured
 * before mt_unlock (an iterator, or copies of the mt_tensor structs): a
 * tensor's metadata may change under it. */
#ifndef MT_OPS_UNLOCK_H
#define MT_OPS_UNLOCK_H

#include "args.h"

/* The runner marks the call whose impl runs (returns the enclosing one). */
const mt_args *mt_running_call_enter(const mt_args *a);
void mt_running_call_leave(const mt_args *outer);

/* Brackets long pure-C work inside an impl; touch no host object between
 * the two. The token from mt_unlock goes back to mt_relock. */
void *mt_unlock(void);
void mt_relock(void *token);

#endif
