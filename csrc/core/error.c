/* The core's error slot and warning sink. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local mt_error_kind err_kind = MT_OK;
static _Thread_local char err_msg[1024];

int (*mt_warn_hook)(const char *message);
bool mt_warn_always = false;

int mt_error(mt_error_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_msg, sizeof err_msg, fmt, ap);
    va_end(ap);
    err_kind = kind;
    return -1;
}

mt_error_kind mt_error_take(const char **message)
{
    mt_error_kind k = err_kind;
    *message = err_msg;
    err_kind = MT_OK;
    return k;
}

void mt_error_clear(void) { err_kind = MT_OK; }

int mt_warn(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!mt_warn_hook) {
        fprintf(stderr, "UserWarning: %s\n", msg);
        return 0;
    }
    if (mt_warn_hook(msg) < 0)
        return mt_error(MT_ERR_HOST, "%s", msg);
    return 0;
}
