/* Storages in memory other processes can map: share_memory_(), and the
 * storages a multiprocessing reduction rebuilds on the receiving side.
 * A shared storage is a MAP_SHARED mapping of an unnamed file (memfd, or a
 * POSIX shm object unlinked at once), so no name is ever left in /dev/shm;
 * the storage keeps the file's descriptor, which is what crosses to another
 * process (fork inherits the mapping, spawn and queues pass the descriptor). */
#ifndef MT_CORE_SHARED_MEMORY_H
#define MT_CORE_SHARED_MEMORY_H

#include <stdbool.h>

#include "storage.h"

/* Moves s's bytes into shared memory in place: every view of s sees the new
 * memory. A no-op for a storage that is already shared. */
int mt_storage_share(mt_storage *s);
bool mt_storage_is_shared(const mt_storage *s);
/* A new shared storage of nbytes (zeroed, as a fresh file is). */
mt_storage *mt_storage_new_shared(size_t nbytes);
/* The descriptor of a shared storage (owned by the storage), or -1. */
int mt_storage_shared_fd(const mt_storage *s);
/* A storage of nbytes mapping the file fd; takes ownership of fd (closed on
 * failure too). */
mt_storage *mt_storage_from_shared_fd(int fd, size_t nbytes);

#endif
