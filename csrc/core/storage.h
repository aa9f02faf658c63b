/* Refcounted memory shared by a tensor and all of its views. */
#ifndef MT_CORE_STORAGE_H
#define MT_CORE_STORAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "version_counter.h"

typedef void (*mt_release_fn)(void *ctx, void *data);

typedef struct mt_storage {
    int64_t refcount;
    void *data;
    size_t nbytes;
    /* Foreign memory (a NumPy array, a DLPack capsule) is handed back through
     * release; NULL means data lives in the same block as this header. */
    mt_release_fn release;
    void *release_ctx;
    size_t block_size; /* of release_ctx's block when this file allocated it */
    /* The version counter of the tensors over this memory that have none of
     * their own (core/version_counter.h): counter when set, else version. */
    int64_t version;
    /* Made in inference mode (set by the recording runner): its tensors and
     * their views are inference tensors, as torch's. */
    bool inference;
    /* Set when a tensor moved to other memory keeping its counter while its
     * views stayed here: they go on sharing it (mt_tensor_keep_counter). */
    mt_version_counter *counter;
} mt_storage;

mt_storage *mt_storage_new(size_t nbytes, bool zeroed);
/* Told the size of every storage this file allocates (positive) and frees
 * (negative) while set: the profiler's memory columns (ops/runtime/
 * profile_events.c sets it for a session with profile_memory). */
extern void (*mt_storage_observer)(int64_t nbytes);
mt_storage *mt_storage_wrap(void *data, size_t nbytes, mt_release_fn release, void *ctx);

static inline void mt_storage_incref(mt_storage *s)
{
    __atomic_add_fetch(&s->refcount, 1, __ATOMIC_RELAXED);
}
void mt_storage_decref(mt_storage *s);
/* Gives s new memory (already holding its bytes) with its release, and
 * frees the old memory; views keep seeing s. */
void mt_storage_replace_data(mt_storage *s, void *data, mt_release_fn release, void *ctx);

/* Grows s to at least nbytes, keeping its bytes (views keep seeing s); a
 * storage is never shrunk. -1 with an error for memory this file did not
 * allocate (NumPy's, a shared mapping), which cannot be resized. */
int mt_storage_grow(mt_storage *s, size_t nbytes);

#endif
