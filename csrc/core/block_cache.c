#include "block_cache.h"

#include "threads.h"

#ifdef MT_NO_BLOCK_CACHE
/* Sanitizer builds: every block goes back to malloc, so a use after free is
 * caught instead of landing in a reused block. */
void *mt_block_take(size_t need, size_t *size)
{
    (void)need;
    (void)size;
    return NULL;
}

bool mt_block_keep(void *block, size_t size)
{
    (void)block;
    (void)size;
    return false;
}
#else
/* Blocks below this come from malloc's own free lists cheaply enough. */
#define MIN_BLOCK ((size_t)64 << 10)
#define SLOTS 8
#define MAX_BYTES ((size_t)96 << 20)

static struct {
    void *block;
    size_t size;
} slots[SLOTS];
static size_t kept_bytes;
static mt_mutex lock = MT_MUTEX_INIT;

void *mt_block_take(size_t need, size_t *size)
{
    if (need < MIN_BLOCK)
        return NULL;
    mt_mutex_lock(&lock);
    int best = -1;
    /* the smallest that fits, and no more than a quarter wasted */
    for (int i = 0; i < SLOTS; i++)
        if (slots[i].block && slots[i].size >= need && slots[i].size - need <= need / 4 &&
            (best < 0 || slots[i].size < slots[best].size))
            best = i;
    void *block = NULL;
    if (best >= 0) {
        block = slots[best].block;
        *size = slots[best].size;
        kept_bytes -= slots[best].size;
        slots[best].block = NULL;
    }
    mt_mutex_unlock(&lock);
    return block;
}

bool mt_block_keep(void *block, size_t size)
{
    if (size < MIN_BLOCK || size > MAX_BYTES)
        return false;
    bool kept = false;
    mt_mutex_lock(&lock);
    for (int i = 0; i < SLOTS && !kept; i++)
        if (!slots[i].block && kept_bytes + size <= MAX_BYTES) {
            slots[i].block = block;
            slots[i].size = size;
            kept_bytes += size;
            kept = true;
        }
    mt_mutex_unlock(&lock);
    return kept;
}
#endif
