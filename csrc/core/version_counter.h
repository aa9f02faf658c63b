/* Version counters: the count of in-place writes autograd compares a saved
 * tensor's against. As torch's, one counter is shared by a tensor and its
 * views; `.data` and unsafe_split's pieces start their own, and a tensor
 * that moves to other memory (x.data = y, an out= resized) keeps its own.
 * A storage holds the counter its tensors share by default, so making a
 * tensor allocates none; only a tensor whose counter is not its storage's
 * points to one of these (refcounted, freed with its last holder). */
#ifndef MT_CORE_VERSION_COUNTER_H
#define MT_CORE_VERSION_COUNTER_H

#include <stdint.h>

typedef struct mt_version_counter {
    int64_t refcount;
    int64_t value;
} mt_version_counter;

/* A counter reading value, held once; NULL with an error when out of memory. */
mt_version_counter *mt_version_counter_new(int64_t value);

static inline mt_version_counter *mt_version_counter_incref(mt_version_counter *c)
{
    if (c)
        __atomic_add_fetch(&c->refcount, 1, __ATOMIC_RELAXED);
    return c;
}

void mt_version_counter_decref(mt_version_counter *c);

#endif
