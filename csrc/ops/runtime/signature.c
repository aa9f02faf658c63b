/* Reading signature strings into mt_signature tables. Runs once per row at
 * start-up; nothing here is on a call's path. */
#include "signature.h"
#include "../../core/hot.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char mt_given_marker = 1;

static const struct {
    const char *text;
    mt_argtype type;
} type_names[] = {
    {"Tensor|Scalar", MT_ARG_TENSOR},
    {"Tensor|Number", MT_ARG_TENSOR},
    {"Tensor[]", MT_ARG_TENSOR_LIST},
    {"Tensor", MT_ARG_TENSOR},
    {"int[]", MT_ARG_INT_LIST},
    {"int", MT_ARG_INT},
    {"float", MT_ARG_FLOAT},
    {"Scalar", MT_ARG_SCALAR},
    {"bool", MT_ARG_BOOL},
    {"dtype", MT_ARG_DTYPE},
    {"str", MT_ARG_STR},
    {"Generator", MT_ARG_GENERATOR},
    {"Device", MT_ARG_DEVICE},
    {"Layout", MT_ARG_LAYOUT},
    {"MemoryFormat", MT_ARG_MEMORY_FORMAT},
    {"object", MT_ARG_OBJECT},
};
#define NTYPES (sizeof type_names / sizeof type_names[0])

static int parse_default(mt_param *p, const char *d)
{
    snprintf(p->default_text, sizeof p->default_text, "%s", d);
    p->has_default = true;
    if (strcmp(d, "None") == 0) {
        p->default_none = true;
        p->optional = true;
        return 0;
    }
    switch (p->type) {
    case MT_ARG_INT:
        p->def.i = strtoll(d, NULL, 10);
        return 0;
    case MT_ARG_FLOAT:
        p->def.f = strtod(d, NULL);
        return 0;
    case MT_ARG_BOOL:
        p->def.b = strcmp(d, "True") == 0;
        return 0;
    case MT_ARG_SCALAR:
        if (strchr(d, '.') || strchr(d, 'e')) {
            p->def.s.kind = MT_SCALAR_FLOAT;
            p->def.s.f = strtod(d, NULL);
            p->def.s.i = 0;
        } else {
            p->def.s.kind = MT_SCALAR_INT;
            p->def.s.i = strtoll(d, NULL, 10);
            p->def.s.f = (double)p->def.s.i;
        }
        return 0;
    case MT_ARG_INT_LIST: {
        /* "[]", "[0, 1]" or a bare int repeated list_len times */
        const char *c = d;
        int n = 0;
        if (*c == '[')
            c++;
        while (*c && *c != ']' && n < MT_MAX_LIST) {
            char *end;
            long long v = strtoll(c, &end, 10);
            if (end == c)
                break;
            p->def_list[n++] = v;
            c = end;
            while (*c == ',' || *c == ' ')
                c++;
        }
        if (d[0] != '[')
            for (; n < p->list_len; n++)
                p->def_list[n] = p->def_list[0];
        p->def.i = n;
        return 0;
    }
    case MT_ARG_STR: {
        /* 'floor' or "floor": keep the unquoted text in default_text */
        size_t len = strlen(d);
        if (len >= 2 && (d[0] == '\'' || d[0] == '"')) {
            memmove(p->default_text, d + 1, len - 2);
            p->default_text[len - 2] = 0;
        }
        p->def.str = p->default_text;
        return 0;
    }
    case MT_ARG_DEVICE:
    case MT_ARG_LAYOUT:
    case MT_ARG_MEMORY_FORMAT:
    case MT_ARG_OBJECT:
        return 0;
    default:
        return -1;
    }
}

static const char *numpy_alias(const char *name)
{
    if (strcmp(name, "dim") == 0)
        return "axis";
    if (strcmp(name, "keepdim") == 0)
        return "keepdims";
    return NULL;
}

/* How messages show a type: torch's names, so `Tensor|Scalar` shows as Tensor. */
static const char *type_text_of(mt_argtype t)
{
    for (size_t k = 0; k < NTYPES; k++)
        if (type_names[k].type == t && !strchr(type_names[k].text, '|'))
            return type_names[k].text;
    return "?";
}

/* Reads one parameter at *cp; -1 when it is malformed. */
static int parse_param(mt_param *p, const char **cp, bool kwonly)
{
    const char *c = *cp;
    size_t k;
    for (k = 0; k < NTYPES; k++) {
        size_t len = strlen(type_names[k].text);
        if (strncmp(c, type_names[k].text, len) == 0 &&
            (c[len] == ' ' || c[len] == '?' || type_names[k].type == MT_ARG_INT_LIST ||
             c[len] == '[')) {
            p->type = type_names[k].type;
            p->numbers = k <= 1;
            p->numbers_alone = k == 1;
            c += len;
            break;
        }
    }
    if (k == NTYPES)
        return -1;
    if (p->type == MT_ARG_INT && *c == '[') { /* int[2] */
        p->type = MT_ARG_INT_LIST;
        p->list_len = (int)strtol(c + 1, (char **)&c, 10);
        c++;
    }
    if (*c == '?') {
        p->optional = true;
        c++;
    }
    while (*c == ' ')
        c++;
    const char *nstart = c;
    while (isalnum((unsigned char)*c) || *c == '_')
        c++;
    if (c == nstart || (size_t)(c - nstart) >= sizeof p->name)
        return -1;
    memcpy(p->name, nstart, c - nstart);
    p->name[c - nstart] = 0;
    p->alias = numpy_alias(p->name);
    p->kwonly = kwonly;
    if (p->type == MT_ARG_INT_LIST && p->list_len)
        snprintf(p->type_text, sizeof p->type_text, "int[%d]%s", p->list_len,
                 p->optional ? "?" : "");
    else
        snprintf(p->type_text, sizeof p->type_text, "%s%s", type_text_of(p->type),
                 p->optional ? "?" : "");
    if (*c == '=') {
        c++;
        const char *dstart = c;
        int depth = 0;
        while (*c && (depth > 0 || (*c != ',' && *c != ')'))) {
            if (*c == '[')
                depth++;
            if (*c == ']')
                depth--;
            c++;
        }
        char d[32];
        if ((size_t)(c - dstart) >= sizeof d)
            return -1;
        memcpy(d, dstart, c - dstart);
        d[c - dstart] = 0;
        if (parse_default(p, d) < 0)
            return -1;
    }
    *cp = c;
    return 0;
}

mt_signature *mt_signature_parse(const char *text, unsigned flags)
{
    mt_signature *s = calloc(1, sizeof(mt_signature));
    if (!s) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    s->text = text;
    s->flags = flags;
    s->varargs_param = -1;
    const char *c = strchr(text, '(');
    if (!c || (size_t)(c - text) >= sizeof s->name)
        goto bad;
    memcpy(s->name, text, c - text);
    c++;
    bool kwonly = false;
    while (*c && *c != ')') {
        while (*c == ' ' || *c == ',')
            c++;
        if (*c == ')')
            break;
        if (*c == '*') {
            kwonly = true;
            c++;
            continue;
        }
        if (s->nparams == MT_MAX_PARAMS)
            goto bad;
        mt_param *p = &s->params[s->nparams];
        if (parse_param(p, &c, kwonly) < 0)
            goto bad;
        if (!p->has_default && !kwonly)
            s->nrequired = s->nparams + 1;
        if (!kwonly)
            s->npositional = s->nparams + 1;
        s->nparams++;
    }
    if (*c != ')')
        goto bad;
    c++;
    while (*c == ' ')
        c++;
    if (*c) {
        if (strncmp(c, "->", 2) != 0)
            goto bad;
        c += 2;
        while (*c == ' ')
            c++;
        if (!*c)
            goto bad;
        s->returns = c;
    }
    /* A lone positional int[] (after an optional self) also takes varargs. */
    int nlist = 0, last_list = -1;
    for (int i = 0; i < s->npositional; i++)
        if (s->params[i].type == MT_ARG_INT_LIST) {
            nlist++;
            last_list = i;
        }
    if (nlist == 1 && last_list == s->npositional - 1)
        s->varargs_param = last_list;
    s->inplace_param = -1;
    s->out_param = -1;
    s->dtype_param = -1;
    s->max_tensors = 0;
    for (int i = 0; i < s->nparams; i++) {
        if (s->max_tensors >= 0 && s->params[i].type == MT_ARG_TENSOR)
            s->max_tensors++;
        if (s->params[i].type == MT_ARG_TENSOR_LIST)
            s->max_tensors = -1;
        if (s->params[i].type == MT_ARG_BOOL && strcmp(s->params[i].name, "inplace") == 0)
            s->inplace_param = i;
        if (strcmp(s->params[i].name, "out") == 0)
            s->out_param = i;
        if (s->params[i].type == MT_ARG_DTYPE && strcmp(s->params[i].name, "dtype") == 0)
            s->dtype_param = i;
    }
    return s;
bad:
    free(s);
    mt_error(MT_ERR_RUNTIME, "minitorch: malformed signature '%s'", text);
    return NULL;
}

MT_HOT void mt_signature_default(const mt_param *p, mt_value *v, int64_t *listbuf)
{
    *v = p->def;
    v->obj = NULL;
    v->t = NULL;
    v->is_scalar = false;
    v->tensors = NULL;
    if (p->type == MT_ARG_INT_LIST && !p->default_none) {
        int n = (int)p->def.i;
        memcpy(listbuf, p->def_list, sizeof(int64_t) * n);
        v->ints = listbuf;
        v->nints = n;
    }
}

int mt_signature_find(const mt_signature *s, const char *name)
{
    for (int i = 0; i < s->nparams; i++)
        if (strcmp(s->params[i].name, name) == 0)
            return i;
    return -1;
}

/* Walks the results of "(Type name, Type name)": the k-th one's name span
 * into *name and *len; -1 when a result before or at k has no name (or
 * returns is no tuple), 0 past the last result, 1 found. */
static int result_span(const char *returns, int k, const char **name, size_t *len)
{
    if (!returns || returns[0] != '(')
        return -1;
    const char *p = returns + 1;
    for (int i = 0; *p && *p != ')'; i++) {
        const char *end = p;
        while (*end && *end != ',' && *end != ')')
            end++;
        const char *last = end;
        while (last > p && last[-1] == ' ')
            last--;
        const char *word = last;
        while (word > p && word[-1] != ' ')
            word--;
        if (word == p)
            return -1;
        if (i == k) {
            *name = word;
            *len = (size_t)(last - word);
            return 1;
        }
        p = *end == ',' ? end + 1 : end;
        while (*p == ' ')
            p++;
    }
    return 0;
}

int mt_signature_named_results(const mt_signature *s)
{
    const char *name;
    size_t len;
    int k = 0, found;
    while ((found = result_span(s->returns, k, &name, &len)) == 1)
        k++;
    return found < 0 ? 0 : k;
}

bool mt_signature_result_name(const mt_signature *s, int k, char *buf, size_t size)
{
    const char *name;
    size_t len;
    if (!size || result_span(s->returns, k, &name, &len) != 1)
        return false;
    len = len < size - 1 ? len : size - 1;
    memcpy(buf, name, len);
    buf[len] = '\0';
    return true;
}
