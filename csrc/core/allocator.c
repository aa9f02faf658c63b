/* madvise and MADV_HUGEPAGE are outside strict C11 */
#define _DEFAULT_SOURCE

#include "allocator.h"

#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "threads.h"

#define CLASSES (64 * 4)
#define DEFAULT_CAP_MAX ((uint64_t)2 << 30)
#define HUGEPAGE_MIN ((size_t)4 << 20)

/* A kept block carries its own links: it is free, so its first bytes are
 * ours. Requests start above core/storage.c's small limit, so every block is
 * far larger than this. */
typedef struct node {
    struct node *next, *prev;   /* its class's blocks, newest first */
    struct node *newer, *older; /* all kept blocks, by when they were kept */
    size_t size;
    int cls;
} node;

static mt_mutex lock = MT_MUTEX_INIT;
static bool ready, enabled;
static uint64_t cap;
static node *classes[CLASSES];
static node *newest, *oldest;
static mt_alloc_stats stats;

/* The block size for a request of s bytes (s > 1): s rounded up to a quarter
 * of its power of two; *cls its class number. */
static size_t class_of(size_t s, int *cls)
{
    int k = 63 - __builtin_clzll((unsigned long long)(s - 1));
    size_t step = k >= 2 ? (size_t)1 << (k - 2) : 1;
    size_t size = (s + step - 1) & ~(step - 1);
    int kk = 63 - __builtin_clzll((unsigned long long)size);
    *cls = kk * 4 + (kk >= 2 ? (int)((size >> (kk - 2)) & 3) : 0);
    return size;
}

static uint64_t physical_memory(void)
{
#ifdef _WIN32
    MEMORYSTATUSEX m;
    m.dwLength = sizeof m;
    return GlobalMemoryStatusEx(&m) ? (uint64_t)m.ullTotalPhys : 0;
#else
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
#endif
}

/* "123", "64M", "2G": bytes with an optional K/M/G (powers of 1024); a value
 * that does not parse leaves the default. */
static bool parse_bytes(const char *text, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text)
        return false;
    int shift = 0;
    switch (*end) {
    case 'k':
    case 'K':
        shift = 10;
        end++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        end++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        end++;
        break;
    default:
        break;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end)
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

/* A fork's child has only the forking thread: another thread may have held
 * the lock, mid-way through the lists. The child starts with a fresh lock and
 * an empty cache; the kept blocks it inherited are left alone (copies of the
 * parent's pages, never touched). */
static void after_fork_child(void)
{
    mt_mutex_init(&lock);
    memset(classes, 0, sizeof classes);
    newest = oldest = NULL;
    stats.cached_bytes = stats.cached_blocks = 0;
}

static void read_settings(void)
{
    ready = true;
    mt_at_fork_child(after_fork_child);
#ifdef MT_NO_BLOCK_CACHE
    enabled = false;
#else
    const char *mode = getenv("MINITORCH_ALLOCATOR");
    enabled = !(mode && strcmp(mode, "malloc") == 0);
#endif
    uint64_t ram = physical_memory() / 8;
    cap = ram && ram < DEFAULT_CAP_MAX ? ram : DEFAULT_CAP_MAX;
    const char *text = getenv("MINITORCH_CACHE_BYTES");
    if (text)
        parse_bytes(text, &cap);
    stats.enabled = enabled;
    stats.cap_bytes = cap;
}

static void unlink_node(node *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        classes[n->cls] = n->next;
    if (n->next)
        n->next->prev = n->prev;
    if (n->newer)
        n->newer->older = n->older;
    else
        newest = n->older;
    if (n->older)
        n->older->newer = n->newer;
    else
        oldest = n->newer;
    stats.cached_bytes -= n->size;
    stats.cached_blocks--;
}

/* Unlinks the oldest kept blocks until `room` more bytes fit under the cap;
 * returns them chained through ->next, to be freed outside the lock. */
static node *evict_for(uint64_t room)
{
    node *out = NULL;
    while (oldest && stats.cached_bytes + room > cap) {
        node *n = oldest;
        unlink_node(n);
        n->next = out;
        out = n;
        stats.evictions++;
    }
    return out;
}

static void free_chain(node *n)
{
    while (n) {
        node *next = n->next;
        free(n);
        n = next;
    }
}

static void *fresh(size_t size, bool zeroed)
{
    void *block = zeroed ? calloc(1, size) : malloc(size);
    if (!block) {
        /* memory is short: what the cache holds goes first */
        mt_alloc_release();
        block = zeroed ? calloc(1, size) : malloc(size);
    }
#ifdef MADV_HUGEPAGE
    /* Fresh big blocks are fresh pages from the kernel: huge pages make their
     * first touch far cheaper, as NumPy asks too. Advice only. */
    if (block && size >= HUGEPAGE_MIN) {
        uintptr_t page = 4096, start = ((uintptr_t)block + page - 1) & ~(page - 1);
        uintptr_t end = ((uintptr_t)block + size) & ~(page - 1);
        if (end > start)
            madvise((void *)start, end - start, MADV_HUGEPAGE);
    }
#endif
    return block;
}

void *mt_alloc(size_t nbytes, size_t align, bool zeroed, void **data, size_t *size)
{
    size_t want = nbytes + align;
    int cls = 0;
    mt_mutex_lock(&lock);
    if (!ready)
        read_settings();
    bool keep = enabled;
    size_t block_size = keep ? class_of(want, &cls) : want;
    node *hit = keep ? classes[cls] : NULL;
    if (hit) {
        unlink_node(hit);
        stats.hits++;
    } else {
        stats.misses++;
    }
    mt_mutex_unlock(&lock);
    void *block = hit;
    if (!block)
        block = fresh(block_size, zeroed);
    if (!block)
        return NULL;
    uintptr_t aligned = ((uintptr_t)block + align - 1) & ~(uintptr_t)(align - 1);
    *data = (void *)aligned;
    *size = block_size;
    if (hit && zeroed)
        memset(*data, 0, nbytes);
    return block;
}

void mt_alloc_free(void *block, size_t size)
{
    int cls;
    mt_mutex_lock(&lock);
    /* a block from the uncached path has no class size: it is freed */
    if (!enabled || size > cap || class_of(size, &cls) != size) {
        mt_mutex_unlock(&lock);
        free(block);
        return;
    }
    node *evicted = evict_for(size);
    node *n = block;
    n->size = size;
    n->cls = cls;
    n->prev = NULL;
    n->next = classes[cls];
    if (n->next)
        n->next->prev = n;
    classes[cls] = n;
    n->older = newest;
    n->newer = NULL;
    if (newest)
        newest->newer = n;
    newest = n;
    if (!oldest)
        oldest = n;
    stats.cached_bytes += size;
    stats.cached_blocks++;
    mt_mutex_unlock(&lock);
    free_chain(evicted);
}

mt_alloc_stats mt_alloc_get_stats(void)
{
    mt_mutex_lock(&lock);
    if (!ready)
        read_settings();
    mt_alloc_stats s = stats;
    mt_mutex_unlock(&lock);
    return s;
}

void mt_alloc_release(void)
{
    mt_mutex_lock(&lock);
    node *all = NULL;
    while (oldest) {
        node *n = oldest;
        unlink_node(n);
        n->next = all;
        all = n;
    }
    mt_mutex_unlock(&lock);
    free_chain(all);
}
