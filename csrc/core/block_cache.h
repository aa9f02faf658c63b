/* A few big freed blocks kept for the next tensor of about their size. Fresh
 * memory from the kernel costs a page fault per 4 KiB on first touch, several
 * times the work of a simple elementwise op, and glibc hands big freed blocks
 * straight back to the kernel. */
#ifndef MT_CORE_BLOCK_CACHE_H
#define MT_CORE_BLOCK_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/* A kept block of at least need bytes (and not much more), its size in
 * *size; NULL when none fits. */
void *mt_block_take(size_t need, size_t *size);
/* Keeps block (of size bytes) for later; false when the cache is full or the
 * block too small to be worth it, and the caller frees it. */
bool mt_block_keep(void *block, size_t size);

#endif
