/* Thread-local error state of the layers below the binding: they report
 * failures here and the host turns them into its own errors (csrc/python:
 * the matching Python exception). Warnings go through a hook the host
 * installs, since a warning may be turned into an error there. */
#ifndef MT_CORE_ERROR_H
#define MT_CORE_ERROR_H

#include <stdbool.h>

typedef enum {
    MT_OK = 0,
    MT_ERR_RUNTIME,         /* RuntimeError */
    MT_ERR_INDEX,           /* IndexError */
    MT_ERR_VALUE,           /* ValueError */
    MT_ERR_TYPE,            /* TypeError */
    MT_ERR_MEMORY,          /* MemoryError */
    MT_ERR_NOT_IMPLEMENTED, /* NotImplementedError */
    /* The host already holds the error (a Python callback raised); the core
     * only carries the failure up. */
    MT_ERR_HOST,
} mt_error_kind;

/* Always returns -1 so callers can write `return mt_error(...)`. */
int mt_error(mt_error_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
mt_error_kind mt_error_take(const char **message);
void mt_error_clear(void);

/* Emits a UserWarning; -1 (with an error set) when the host made it an error. */
int mt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The host's warning sink; NULL prints to stderr. */
extern int (*mt_warn_hook)(const char *message);
/* torch.set_warn_always: warnings torch gives once per process are given
 * every time while it is on. */
extern bool mt_warn_always;

#endif
