/* The registry of custom ops: rows appended at run time after the static
 * table, each with an impl that calls the registrant's kernel. */
#include "custom.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mt_custom_op **customs;
static int ncustoms, capacity;

const mt_op *mt_op_row(int id)
{
    if (id >= 0 && id < MT_OP_COUNT)
        return &mt_ops[id];
    if (id >= MT_OP_COUNT && id - MT_OP_COUNT < ncustoms)
        return &customs[id - MT_OP_COUNT]->row;
    return NULL;
}

const mt_custom_op *mt_custom_of(const mt_op *op)
{
    return op->id >= MT_OP_COUNT ? (const mt_custom_op *)op : NULL;
}

int mt_op_find(const char *name)
{
    for (int k = ncustoms - 1; k >= 0; k--)
        if (strcmp(customs[k]->qualname, name) == 0)
            return MT_OP_COUNT + k;
    int any = -1;
    for (int r = 0; r < MT_OP_COUNT; r++) {
        if (!mt_ops[r].kinds || strcmp(mt_ops[r].sig->name, name) != 0)
            continue;
        if (mt_ops[r].kinds & MT_KIND_FUNCTION)
            return r;
        if (any < 0)
            any = r;
    }
    if (any < 0)
        return mt_error(MT_ERR_VALUE, "minitorch: no op named '%s'", name);
    return any;
}

int mt_custom_failure(const char *qualname, const char *what)
{
    const char *msg;
    char copy[512];
    mt_error_kind k = mt_error_take(&msg);
    if (k != MT_OK) {
        snprintf(copy, sizeof copy, "%s", msg);
        return mt_error(k, "%s", copy);
    }
    return mt_error(MT_ERR_RUNTIME, "%s: the %s failed without setting an error", qualname, what);
}

static int run_kernel(mt_args *a, mt_result *r)
{
    const mt_custom_op *c = (const mt_custom_op *)a->op;
    mt_tensor *t = c->kernel(a);
    if (!t)
        return mt_custom_failure(c->qualname, "kernel");
    return mt_result_tensor(r, t);
}

static bool is_name(const char *from, const char *to)
{
    if (from == to)
        return false;
    for (const char *p = from; p < to; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return false;
    return true;
}

/* "ns::name(" with both parts identifiers, one closing parenthesis, and a
 * C op returning one Tensor. */
static int check_schema(const char *schema, bool c_op)
{
    const char *sep = strstr(schema, "::"), *open = strchr(schema, '(');
    const char *close = open ? strchr(open, ')') : NULL;
    if (!sep || !open || sep > open || !is_name(schema, sep) || !is_name(sep + 2, open))
        return mt_error(MT_ERR_VALUE,
                        "a custom op's schema starts with 'namespace::name(', got '%s'", schema);
    if (open - schema >= 64)
        return mt_error(MT_ERR_VALUE, "custom op name too long (63 characters at most): '%s'",
                        schema);
    const char *ret = close ? close + 1 : NULL;
    while (ret && *ret == ' ')
        ret++;
    if (!close || (*ret && strncmp(ret, "->", 2) != 0))
        return mt_error(MT_ERR_VALUE, "malformed custom op schema '%s'", schema);
    if (c_op && *ret) {
        ret += 2;
        while (*ret == ' ')
            ret++;
        if (strcmp(ret, "Tensor") != 0)
            return mt_error(MT_ERR_VALUE,
                            "a custom op with a C kernel returns one Tensor, got '%s'", schema);
    }
    return 0;
}

static int append(mt_custom_op *c)
{
    if (ncustoms == capacity) {
        int cap = capacity ? 2 * capacity : 16;
        mt_custom_op **grown = realloc(customs, sizeof *grown * (size_t)cap);
        if (!grown)
            return mt_error(MT_ERR_MEMORY, "out of memory");
        customs = grown;
        capacity = cap;
    }
    customs[ncustoms] = c;
    return MT_OP_COUNT + ncustoms++;
}

int mt_custom_register(const char *schema, mt_custom_kernel kernel, mt_impl_fn host_impl,
                       void *host)
{
    if (check_schema(schema, kernel != NULL) < 0)
        return -1;
    mt_custom_op *c = calloc(1, sizeof *c);
    char *text = c ? malloc(strlen(schema) + 1) : NULL;
    if (!text) {
        free(c);
        return mt_error(MT_ERR_MEMORY, "out of memory");
    }
    strcpy(text, schema);
    mt_signature *sig = mt_signature_parse(text, MT_KIND_FUNCTION);
    if (!sig)
        goto fail;
    for (int p = 0; kernel && p < sig->nparams; p++)
        if (sig->params[p].type == MT_ARG_TENSOR_LIST || sig->params[p].type == MT_ARG_OBJECT) {
            mt_error(MT_ERR_VALUE, "a custom op with a C kernel takes no '%s' parameter",
                     sig->params[p].type_text);
            goto fail;
        }
    snprintf(c->qualname, sizeof c->qualname, "%s", sig->name);
    c->kernel = kernel;
    c->host = host;
    c->row.text = text;
    c->row.kinds = MT_KIND_FUNCTION;
    c->row.impl = kernel ? run_kernel : host_impl;
    c->row.derivative_name = "";
    c->row.form = MT_FORM_PLAIN;
    c->row.sig = sig;
    int id = append(c);
    if (id < 0)
        goto fail;
    c->row.id = (mt_op_id)id;
    c->row.base = (mt_op_id)id;
    return id;
fail:
    free(sig);
    free(text);
    free(c);
    return -1;
}
