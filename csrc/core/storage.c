/* Storage lifetime: one refcounted header per block of tensor memory. Big
 * buffers come from the caching allocator (core/allocator.h) with
 * cache-line alignment for the vector loops; small ones share one malloc with
 * the header, so a 1-element tensor costs a single allocation. Foreign memory
 * (NumPy, DLPack, shared memory) keeps its own release and never reaches the
 * allocator. */
#include "storage.h"
#include "allocator.h"
#include "error.h"
#include "hot.h"

#include <stdlib.h>
#include <string.h>

#define MT_BIG_ALIGN 64
#define MT_SMALL_LIMIT 256

void (*mt_storage_observer)(int64_t nbytes);

MT_HOT mt_storage *mt_storage_new(size_t nbytes, bool zeroed)
{
    if (nbytes > ((size_t)1 << 62))
        goto oom;
    if (nbytes <= MT_SMALL_LIMIT) {
        size_t head = (sizeof(mt_storage) + 15) & ~(size_t)15;
        mt_storage *s = malloc(head + (nbytes ? nbytes : 1));
        if (!s)
            goto oom;
        s->data = (char *)s + head;
        if (zeroed)
            memset(s->data, 0, nbytes);
        s->refcount = 1;
        s->nbytes = nbytes;
        s->release = NULL;
        s->release_ctx = NULL;
        s->version = 0;
        s->inference = false;
        s->counter = NULL;
        if (mt_storage_observer && nbytes)
            mt_storage_observer((int64_t)nbytes);
        return s;
    }
    mt_storage *s = malloc(sizeof(mt_storage));
    if (!s)
        goto oom;
    void *data;
    void *block = mt_alloc(nbytes, MT_BIG_ALIGN, zeroed, &data, &s->block_size);
    if (!block) {
        free(s);
        goto oom;
    }
    s->data = data;
    s->release = NULL;
    s->release_ctx = block;
    s->refcount = 1;
    s->nbytes = nbytes;
    s->version = 0;
    s->inference = false;
    s->counter = NULL;
    if (mt_storage_observer)
        mt_storage_observer((int64_t)nbytes);
    return s;
oom:
    mt_error(MT_ERR_MEMORY,
             "DefaultCPUAllocator: can't allocate memory: you tried to allocate %llu bytes.",
             (unsigned long long)nbytes); /* %zu is unknown to MinGW's msvcrt printf */
    return NULL;
}

mt_storage *mt_storage_wrap(void *data, size_t nbytes, mt_release_fn release, void *ctx)
{
    mt_storage *s = malloc(sizeof(mt_storage));
    if (!s) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    s->refcount = 1;
    s->data = data;
    s->nbytes = nbytes;
    s->release = release;
    s->release_ctx = ctx;
    s->version = 0;
    s->inference = false;
    s->counter = NULL;
    return s;
}

MT_HOT static void free_data(mt_storage *s)
{
    if (s->release)
        s->release(s->release_ctx, s->data);
    else if (s->release_ctx) /* NULL for the one-block small case */
        mt_alloc_free(s->release_ctx, s->block_size);
}

MT_HOT void mt_storage_decref(mt_storage *s)
{
    if (__atomic_sub_fetch(&s->refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    if (mt_storage_observer && !s->release && s->nbytes)
        mt_storage_observer(-(int64_t)s->nbytes);
    free_data(s);
    mt_version_counter_decref(s->counter);
    free(s);
}

void mt_storage_replace_data(mt_storage *s, void *data, mt_release_fn release, void *ctx)
{
    /* the small case's old bytes live in s's own block and go with it */
    free_data(s);
    s->data = data;
    s->release = release;
    s->release_ctx = ctx;
}

static void release_grown(void *ctx, void *data)
{
    (void)data;
    free(ctx);
}

int mt_storage_grow(mt_storage *s, size_t nbytes)
{
    if (nbytes <= s->nbytes)
        return 0;
    if (s->release && s->release != release_grown)
        return mt_error(MT_ERR_RUNTIME, "Trying to resize storage that is not resizable");
    if (nbytes > ((size_t)1 << 62))
        goto oom;
    void *raw = malloc(nbytes + MT_BIG_ALIGN);
    if (!raw)
        goto oom;
    void *data = (void *)(((uintptr_t)raw + MT_BIG_ALIGN - 1) & ~(uintptr_t)(MT_BIG_ALIGN - 1));
    memcpy(data, s->data, s->nbytes);
    mt_storage_replace_data(s, data, release_grown, raw);
    s->nbytes = nbytes;
    return 0;
oom:
    return mt_error(MT_ERR_MEMORY,
                    "DefaultCPUAllocator: can't allocate memory: you tried to allocate %llu bytes.",
                    (unsigned long long)nbytes);
}
