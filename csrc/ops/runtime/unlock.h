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

/* The runner marks the call whose impl runs, and keeps the storages its
 * tensor arguments view as the impl starts alive for the whole run: an impl
 * copies tensor structs early, and allocating its result may run host code
 * (a garbage collection) that lets another thread replace an argument's
 * storage before the kernel unlocks. */
typedef struct {
    const mt_args *outer;
    int n;
    bool conj; /* a tensor argument carries the conjugate bit */
    mt_storage **pins;
    mt_storage *inline_pins[6];
} mt_running_call;

/* -1 with an mt_error when the pins find no memory. */
int mt_running_call_enter(mt_running_call *rc, const mt_args *a);
void mt_running_call_leave(mt_running_call *rc);
/* The call whose impl runs on this thread, or NULL outside any impl. */
const mt_args *mt_running_call_current(void);
/* Makes a the call running on this thread and returns the one that was:
 * a host impl (a custom op written in Python) runs its code outside any
 * call, so its ops are seen as the host's own (by dispatch modes), then
 * puts the call back. */
const mt_args *mt_running_call_swap(const mt_args *a);

/* Brackets pure-C work inside an impl; touch no host object between the
 * two. The token from mt_unlock goes back to mt_relock. work is the
 * kernel's size: the elements it reads or writes, or for a product its
 * multiply-adds over MT_MULADDS_PER_STEP (they run vectorized). The lock is
 * released only from MT_UNLOCK_MIN_WORK up: for less, dropping and taking
 * it back costs more than another thread could gain (a 1-element sum spent
 * a sixth of its time on it). */
#define MT_UNLOCK_MIN_WORK 65536.0
#define MT_MULADDS_PER_STEP 8.0
void *mt_unlock(double work);
void mt_relock(void *token);

#endif
