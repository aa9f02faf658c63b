/* Thread-local error state of the core: the layers below csrc/python report
 * failures here and csrc/python turns them into the matching Python exception. */
#ifndef MT_CORE_ERROR_H
#define MT_CORE_ERROR_H

typedef enum {
    MT_OK = 0,
    MT_ERR_RUNTIME,  /* RuntimeError */
    MT_ERR_INDEX,    /* IndexError */
    MT_ERR_VALUE,    /* ValueError */
    MT_ERR_TYPE,     /* TypeError */
    MT_ERR_MEMORY,   /* MemoryError */
} mt_error_kind;

/* Always returns -1 so callers can write `return mt_error(...)`. */
int mt_error(mt_error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
mt_error_kind mt_error_take(const char **message);
void mt_error_clear(void);

#endif
