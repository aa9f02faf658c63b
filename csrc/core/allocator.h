/* The caching allocator behind tensor storage (core/storage.c): freed blocks
 * are kept by size class and handed to the next tensor of that class, so a
 * training loop that makes the same shapes every step stops asking the kernel
 * for fresh pages (a page fault per 4 KiB on first touch, and the kernel
 * zeroing each page, cost several times a simple elementwise op).
 *
 * Classes are powers of two with four steps between (a block at most 25%
 * larger than asked). Cached bytes are capped (MINITORCH_CACHE_BYTES, default
 * an eighth of RAM and at most 2 GiB); past the cap the longest-kept blocks go
 * back to malloc. MINITORCH_ALLOCATOR=malloc turns the cache off, and so does
 * the sanitizer build (MT_NO_BLOCK_CACHE), so a use after free is caught
 * instead of landing in a reused block. Both knobs are read once, at the
 * first allocation. Only memory this file handed out comes back to it:
 * foreign and shared-memory storages have their own release. */
#ifndef MT_CORE_ALLOCATOR_H
#define MT_CORE_ALLOCATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A block of at least nbytes whose address is a multiple of align (a power of
 * two up to 4096), zero-filled when zeroed; *data receives the aligned
 * address, *size the block's size for mt_alloc_free. NULL when out of
 * memory (after the cache has been emptied and the request retried). */
void *mt_alloc(size_t nbytes, size_t align, bool zeroed, void **data, size_t *size);
/* Gives back a block from mt_alloc: kept for reuse or freed. */
void mt_alloc_free(void *block, size_t size);

typedef struct {
    bool enabled;
    uint64_t cap_bytes;    /* most bytes kept at once */
    uint64_t cached_bytes; /* bytes kept now, in cached_blocks blocks */
    uint64_t cached_blocks;
    uint64_t hits, misses; /* allocations served from the cache, and not */
    uint64_t evictions;    /* kept blocks freed to stay under the cap */
} mt_alloc_stats;

mt_alloc_stats mt_alloc_get_stats(void);
/* Frees every kept block (for tests, and under memory pressure). */
void mt_alloc_release(void);

#endif
