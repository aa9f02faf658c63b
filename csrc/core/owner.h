/* Who owns tensor objects. Every mt_tensor lives inside an object made by the
 * layer that hosts the library: the Python binding (a minitorch.Tensor) or,
 * for plain C programs, standalone/standalone.c. Code below the binding makes,
 * keeps and drops tensors only through these hooks, so it never needs to
 * know which host it runs under.
 *
 * Functions returning a tensor return a new reference, or NULL with an
 * mt_error set. */
#ifndef MT_CORE_OWNER_H
#define MT_CORE_OWNER_H

#include "tensor.h"

typedef struct {
    /* A tensor with no storage yet, in a new host object (one reference). */
    mt_tensor *(*make)(void);
    void (*retain)(mt_tensor *t);
    void (*release)(mt_tensor *t);
    /* Only the caller refers to t and t alone uses its memory. */
    bool (*unshared)(mt_tensor *t);
    /* Around long pure-C work: lets other host threads run (the GIL). The
     * token from unlock goes back to relock. Called through ops/runtime/unlock.h,
     * which keeps the running call's storages alive meanwhile. */
    void *(*unlock)(void);
    void (*relock)(void *token);
    /* Objects of the host's own that the core keeps without reading them
     * (an indexing key saved for backward, a result only the host can make). */
    void (*retain_object)(void *obj);
    void (*release_object)(void *obj);
} mt_owner_hooks;

extern mt_owner_hooks mt_owner;

static inline void mt_retain(mt_tensor *t) { mt_owner.retain(t); }
static inline void mt_release(mt_tensor *t) { mt_owner.release(t); }
static inline void mt_xrelease(mt_tensor *t)
{
    if (t)
        mt_owner.release(t);
}

/* A new contiguous tensor; zeroed or left uninitialised. */
mt_tensor *mt_new(mt_dtype dtype, int ndim, const int64_t *sizes, bool zeroed);
/* A new tensor with the given strides over fresh memory. The strides must
 * describe a dense layout of sizes (a permutation of contiguous ones). */
mt_tensor *mt_new_strided(mt_dtype dtype, int ndim, const int64_t *sizes, const int64_t *strides);
/* A view of base's storage (same dtype) with the given geometry. */
mt_tensor *mt_new_view(const mt_tensor *base, int ndim, const int64_t *sizes,
                       const int64_t *strides, int64_t offset);
/* A tensor sharing t's storage and geometry, with no autograd history. */
mt_tensor *mt_alias(const mt_tensor *t);

#endif
