/* Allocation and release of the version counters of version_counter.h; the
 * counting itself is inline in tensor.h. */
#include "version_counter.h"
#include "error.h"

#include <stdlib.h>

mt_version_counter *mt_version_counter_new(int64_t value)
{
    mt_version_counter *c = malloc(sizeof *c);
    if (!c) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    c->refcount = 1;
    c->value = value;
    return c;
}

void mt_version_counter_decref(mt_version_counter *c)
{
    if (c && __atomic_sub_fetch(&c->refcount, 1, __ATOMIC_ACQ_REL) == 0)
        free(c);
}
