/* The recording call of op rows from C: mt_args_from_format's arguments run
 * through mt_op_run. */
#include "call.h"
#include "../ops/runtime/custom.h"

int mt_call_v(mt_op_id id, mt_result *r, const char *fmt, va_list ap)
{
    const mt_op *op = mt_op_row((int)id);
    if (!op)
        return mt_error(MT_ERR_RUNTIME, "minitorch: no op with id %d", (int)id);
    mt_args a;
    if (mt_args_from_format(op, &a, fmt, ap) < 0)
        return -1;
    return mt_op_run(op, &a, r);
}

mt_tensor *mt_call_tensor_v(mt_op_id id, const char *fmt, va_list ap)
{
    mt_result r;
    if (mt_call_v(id, &r, fmt, ap) < 0)
        return NULL;
    return mt_result_single(mt_op_row((int)id), &r);
}

int mt_call_result(mt_op_id id, mt_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = mt_call_v(id, r, fmt, ap);
    va_end(ap);
    return rc;
}

mt_tensor *mt_call(mt_op_id id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mt_tensor *t = mt_call_tensor_v(id, fmt, ap);
    va_end(ap);
    return t;
}
