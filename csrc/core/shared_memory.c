/* Shared-memory storages (see shared_memory.h). The POSIX calls stay in five
 * small functions (opening the unnamed file, mapping it, reading its length,
 * unmapping and closing); elsewhere the first three fail with a clear error
 * and the other two only free what they were given. */
#if defined(__linux__)
#define _GNU_SOURCE /* memfd_create */
#else
#define _DEFAULT_SOURCE
#endif

#include "shared_memory.h"
#include "error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#define MT_HAVE_SHARED_MEMORY 1
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#endif

typedef struct {
    int fd;
    size_t length; /* of the mapping: at least one byte, as mmap needs */
} shared_ctx;

#ifdef MT_HAVE_SHARED_MEMORY

/* A file with no name, so nothing is left behind in /dev/shm. On Linux,
 * memfd_create through syscall() and else an unlinked mkostemp file in /dev/shm:
 * neither needs a glibc symbol newer than manylinux2014's 2.17 (memfd_create's
 * wrapper is 2.27, shm_open moved into libc at 2.34). Elsewhere shm_open, then
 * unlink at once. */
static int open_unnamed_file(size_t length)
{
    int fd = -1;
#if defined(__linux__)
#if defined(SYS_memfd_create) && defined(MFD_CLOEXEC)
    fd = (int)syscall(SYS_memfd_create, "minitorch", MFD_CLOEXEC);
#endif
    if (fd < 0) {
        char name[] = "/dev/shm/minitorch-XXXXXX";
        fd = mkostemp(name, O_CLOEXEC);
        if (fd >= 0)
            unlink(name);
    }
#else
    static unsigned counter;
    char name[32];
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        snprintf(name, sizeof name, "/mt_%ld_%u", (long)getpid(),
                 __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd >= 0)
        shm_unlink(name);
#endif
    if (fd < 0)
        return mt_error(MT_ERR_RUNTIME, "unable to create a shared memory file: %s",
                        strerror(errno));
    if (ftruncate(fd, (off_t)length) < 0) {
        int err = errno;
        close(fd);
        return mt_error(MT_ERR_RUNTIME, "unable to resize a shared memory file to %llu bytes: %s",
                        (unsigned long long)length, strerror(err));
    }
    return fd;
}

static void *map_file(int fd, size_t length)
{
    void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        mt_error(MT_ERR_RUNTIME, "unable to map %llu bytes of shared memory: %s",
                 (unsigned long long)length, strerror(errno));
        return NULL;
    }
    return p;
}

/* A mapping shorter than the storage would fault on access: refuse it. The
 * size comes from lseek, not fstat, whose glibc symbol is 2.33. */
static int file_length(int fd, size_t *length)
{
    off_t end = lseek(fd, 0, SEEK_END);
    if (end < 0)
        return mt_error(MT_ERR_RUNTIME, "unable to read a shared memory file: %s", strerror(errno));
    *length = (size_t)end;
    return 0;
}

static void release_shared(void *ctx, void *data)
{
    shared_ctx *c = ctx;
    munmap(data, c->length);
    close(c->fd);
    free(c);
}

static void close_fd(int fd) { close(fd); }

#else

static int open_unnamed_file(size_t length)
{
    (void)length;
    return mt_error(MT_ERR_RUNTIME, "shared memory is not supported on this platform");
}

static void *map_file(int fd, size_t length)
{
    (void)fd;
    (void)length;
    mt_error(MT_ERR_RUNTIME, "shared memory is not supported on this platform");
    return NULL;
}

static int file_length(int fd, size_t *length)
{
    (void)fd;
    (void)length;
    return mt_error(MT_ERR_RUNTIME, "shared memory is not supported on this platform");
}

static void release_shared(void *ctx, void *data)
{
    (void)data;
    free(ctx);
}

static void close_fd(int fd) { (void)fd; }

#endif

bool mt_storage_is_shared(const mt_storage *s) { return s->release == release_shared; }

int mt_storage_shared_fd(const mt_storage *s)
{
    return mt_storage_is_shared(s) ? ((const shared_ctx *)s->release_ctx)->fd : -1;
}

/* A new mapping of nbytes of a new unnamed file, its context in *ctx. */
static void *new_mapping(size_t nbytes, shared_ctx **ctx)
{
    shared_ctx *c = malloc(sizeof *c);
    if (!c) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    c->length = nbytes ? nbytes : 1;
    c->fd = open_unnamed_file(c->length);
    void *data = c->fd < 0 ? NULL : map_file(c->fd, c->length);
    if (!data) {
        if (c->fd >= 0)
            close_fd(c->fd);
        free(c);
        return NULL;
    }
    *ctx = c;
    return data;
}

int mt_storage_share(mt_storage *s)
{
    if (mt_storage_is_shared(s))
        return 0;
    shared_ctx *c = NULL;
    void *data = new_mapping(s->nbytes, &c);
    if (!data)
        return -1;
    memcpy(data, s->data, s->nbytes);
    mt_storage_replace_data(s, data, release_shared, c);
    return 0;
}

mt_storage *mt_storage_new_shared(size_t nbytes)
{
    shared_ctx *c = NULL;
    void *data = new_mapping(nbytes, &c);
    if (!data)
        return NULL;
    mt_storage *s = mt_storage_wrap(data, nbytes, release_shared, c);
    if (!s)
        release_shared(c, data);
    return s;
}

mt_storage *mt_storage_from_shared_fd(int fd, size_t nbytes)
{
    shared_ctx *c = malloc(sizeof *c);
    size_t have = 0;
    void *data = NULL;
    mt_storage *s = NULL;
    if (!c) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        goto fail;
    }
    c->fd = fd;
    c->length = nbytes ? nbytes : 1;
    if (file_length(fd, &have) < 0)
        goto fail;
    if (have < c->length) {
        mt_error(MT_ERR_RUNTIME, "shared memory file holds %llu bytes, but the storage needs %llu",
                 (unsigned long long)have, (unsigned long long)nbytes);
        goto fail;
    }
    data = map_file(fd, c->length);
    if (!data)
        goto fail;
    s = mt_storage_wrap(data, nbytes, release_shared, c);
    if (!s)
        goto fail;
    return s;
fail:
    if (data)
        release_shared(c, data);
    else {
        close_fd(fd);
        free(c);
    }
    return NULL;
}
