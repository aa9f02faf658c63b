/* Building mt_args from a format string for C callers of op rows, and the
 * plain call of a row below autograd for impls that compose rows. Knows
 * nothing of autograd: the recording call (mt_call) is autograd/call.c,
 * built on mt_args_from_format. */
#include "call.h"
#include "custom.h"

#include <string.h>

static int bad_arg(const mt_op *op, int p, char c)
{
    return mt_error(MT_ERR_TYPE, "%s(): argument %d cannot take a '%c' value", op->sig->name, p + 1,
                    c);
}

/* A number ('i', 'b' or 'f') goes where the row takes one: an int, bool,
 * float, Scalar or int[2] parameter, or a `Tensor|Scalar` one. */
static int put_number(const mt_op *op, mt_args *a, int p, char c, va_list *ap)
{
    const mt_param *prm = &op->sig->params[p];
    mt_value *v = &a->v[p];
    mt_scalar s;
    if (c == 'f') {
        s = (mt_scalar){MT_SCALAR_FLOAT, 0, va_arg(*ap, double)};
    } else if (c == 'c') {
        double re = va_arg(*ap, double), im = va_arg(*ap, double);
        s = (mt_scalar){MT_SCALAR_COMPLEX, 0, re, im};
        if (prm->type != MT_ARG_SCALAR && !(prm->type == MT_ARG_TENSOR && prm->numbers))
            return bad_arg(op, p, c);
    } else {
        int64_t x = c == 'i' ? va_arg(*ap, int64_t) : (int64_t)(va_arg(*ap, int) != 0);
        s = (mt_scalar){c == 'b' ? MT_SCALAR_BOOL : MT_SCALAR_INT, x, (double)x};
    }
    bool integral = c != 'f';
    switch (prm->type) {
    case MT_ARG_INT:
        if (!integral)
            break;
        v->i = s.i;
        return 0;
    case MT_ARG_INT_LIST:
        /* int[2] params take one int for every element */
        if (c != 'i' || !prm->list_len)
            break;
        for (int k = 0; k < prm->list_len; k++)
            a->listbuf[p][k] = s.i;
        v->ints = a->listbuf[p];
        v->nints = prm->list_len;
        return 0;
    case MT_ARG_BOOL:
        if (!integral)
            break;
        v->b = s.i != 0;
        return 0;
    case MT_ARG_FLOAT:
        v->f = s.f;
        return 0;
    case MT_ARG_SCALAR:
        v->s = s;
        return 0;
    case MT_ARG_TENSOR:
        if (!prm->numbers)
            break;
        v->is_scalar = true;
        v->s = s;
        return 0;
    default:
        break;
    }
    return bad_arg(op, p, c);
}

/* Stores one formatted value into parameter p of a. */
static int put(const mt_op *op, mt_args *a, int p, char c, va_list *ap)
{
    const mt_param *prm = &op->sig->params[p];
    mt_value *v = &a->v[p];
    memset(v, 0, sizeof *v);
    v->obj = MT_GIVEN;
    switch (c) {
    case 'T':
        if (prm->type != MT_ARG_TENSOR)
            return bad_arg(op, p, c);
        v->t = va_arg(*ap, mt_tensor *);
        /* NULL is None where the row takes None, as an undefined C++ tensor */
        if (!v->t && !prm->optional)
            return mt_error(MT_ERR_TYPE,
                            "%s(): argument '%s' (position %d) must be Tensor, not NULL",
                            op->sig->name, prm->name, p + 1);
        if (!v->t)
            v->obj = NULL;
        return 0;
    case 'N':
        v->obj = NULL;
        if (!prm->optional)
            return bad_arg(op, p, c);
        return 0;
    case 'i':
    case 'b':
    case 'f':
    case 'c':
        return put_number(op, a, p, c, ap);
    case 'O':
        if (prm->type != MT_ARG_OBJECT || !(v->obj = va_arg(*ap, void *)))
            return bad_arg(op, p, c);
        return 0;
    case 'D': {
        if (prm->type != MT_ARG_DTYPE)
            return bad_arg(op, p, c);
        int d = va_arg(*ap, int);
        if (d < 0 || d >= MT_NUM_DTYPES)
            return mt_error(MT_ERR_VALUE, "%s(): argument '%s' (position %d): invalid dtype %d",
                            op->sig->name, prm->name, p + 1, d);
        v->dtype = (mt_dtype)d;
        return 0;
    }
    case 's':
        if (prm->type != MT_ARG_STR)
            return bad_arg(op, p, c);
        v->str = va_arg(*ap, const char *);
        if (!v->str && !prm->optional)
            return mt_error(MT_ERR_TYPE, "%s(): argument '%s' (position %d) must be str, not NULL",
                            op->sig->name, prm->name, p + 1);
        if (!v->str)
            v->obj = NULL;
        return 0;
    case 'L': {
        int n = va_arg(*ap, int);
        const int64_t *src = va_arg(*ap, const int64_t *);
        if (prm->type != MT_ARG_INT_LIST || n < 0 || n > MT_MAX_LIST || (n && !src))
            return bad_arg(op, p, c);
        if (n)
            memcpy(a->listbuf[p], src, sizeof(int64_t) * n);
        v->ints = a->listbuf[p];
        v->nints = n;
        return 0;
    }
    default:
        return mt_error(MT_ERR_RUNTIME, "%s(): bad argument format '%c'", op->sig->name, c);
    }
}

int mt_args_from_format(const mt_op *op, mt_args *a, const char *fmt, va_list ap)
{
    const mt_signature *s = op->sig;
    bool given[MT_MAX_PARAMS] = {false};
    va_list cur;
    va_copy(cur, ap);
    int next = 0, status = 0;
    for (const char *c = fmt; *c && status == 0; c++) {
        int p = next;
        if (*c == 'k') {
            const char *name = va_arg(cur, const char *);
            if (!name) {
                status = mt_error(MT_ERR_TYPE, "%s(): keyword argument name is NULL", s->name);
                break;
            }
            if ((p = mt_signature_find(s, name)) < 0) {
                status = mt_error(MT_ERR_TYPE, "%s() got an unexpected keyword argument '%s'",
                                  s->name, name);
                break;
            }
            c++;
        } else if (next++ >= s->nparams) {
            status = mt_error(MT_ERR_TYPE, "%s() takes %d arguments", s->name, s->nparams);
            break;
        }
        if (given[p]) {
            status = mt_error(MT_ERR_TYPE, "%s() got multiple values for argument '%s'", s->name,
                              s->params[p].name);
            break;
        }
        status = put(op, a, p, *c, &cur);
        given[p] = true;
    }
    va_end(cur);
    if (status < 0)
        return -1;
    for (int p = 0; p < s->nparams; p++) {
        if (given[p])
            continue;
        if (!s->params[p].has_default)
            return mt_error(MT_ERR_TYPE, "%s() missing required argument '%s'", s->name,
                            s->params[p].name);
        mt_signature_default(&s->params[p], &a->v[p], a->listbuf[p]);
    }
    a->overload = op->overload;
    a->host = NULL;
    return 0;
}

mt_tensor *mt_result_single(const mt_op *op, mt_result *r)
{
    if (r->kind != MT_RESULT_TENSOR || r->host) {
        mt_result_clear(r);
        mt_error(MT_ERR_RUNTIME, "%s() did not return a tensor", op->sig->name);
        return NULL;
    }
    return r->t[0];
}

mt_tensor *mt_exec(mt_op_id id, const char *fmt, ...)
{
    const mt_op *op = &mt_ops[id];
    mt_args a;
    mt_result r;
    va_list ap;
    va_start(ap, fmt);
    int rc = mt_args_from_format(op, &a, fmt, ap);
    va_end(ap);
    if (rc < 0 || mt_op_exec(op, &a, &r) < 0)
        return NULL;
    return mt_result_single(op, &r);
}
