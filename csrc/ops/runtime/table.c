/* The rows of csrc/ops.def as mt_op entries, their signatures parsed once at
 * start-up. A row names its derivative; the autograd floor resolves the
 * name (autograd/derivatives.c). A MT_PYOP row's impl is the host's: the
 * binding installs it (mt_op_install_host_impl) before the rows are used. */
#include "table.h"
#include "write_overlap.h"

#include <stdlib.h>
#include <string.h>

#define MT_OP(id, kinds, impl, sig, ...) int impl(mt_args *, mt_result *);
#define MT_OPERATOR(id, stem, forms, kinds, impl, ...) int impl(mt_args *, mt_result *);
#include "../../ops.def"
#undef MT_OP
#undef MT_OPERATOR

/* An operator's forms are methods; the in-place one may also be a function. */
#define FORM_KINDS(forms, f, kinds)                                   \
    (!((forms) & (f)) ? 0u                                            \
     : (f) == MT_FORM_INPLACE && ((forms) & MT_FORM_INPLACE_FUNCTION) \
         ? ((kinds) & ~MT_KIND_NN) | MT_KIND_METHOD                   \
         : MT_KIND_METHOD)

/* one initializer per form, laid out as the row is */
/* clang-format off */
mt_op mt_ops[MT_OP_COUNT] = {
#define MT_OP(id, kinds, impl, sig, ...) \
    {MT_OP_##id, sig, kinds, impl, false, #__VA_ARGS__, MT_FORM_PLAIN, MT_OP_##id},
#define MT_PYOP(id, kinds, impl, sig, ...) \
    {MT_OP_##id, sig, kinds, NULL, true, #__VA_ARGS__, MT_FORM_PLAIN, MT_OP_##id},
#define MT_OPERATOR(id, stem, forms, kinds, impl, sig, deriv, rderiv)                             \
    {MT_OP_##id, sig, kinds, impl, false, #deriv, MT_FORM_PLAIN, MT_OP_##id},                    \
    {MT_OP_##id##_, NULL, FORM_KINDS(forms, MT_FORM_INPLACE, kinds), impl, false, #deriv,        \
     MT_FORM_INPLACE, MT_OP_##id, NULL},                                                         \
    {MT_OP_##id##_dunder, NULL, FORM_KINDS(forms, MT_FORM_DUNDER, kinds), impl, false, #deriv,    \
     MT_FORM_DUNDER, MT_OP_##id, "__" #stem "__"},                                               \
    {MT_OP_##id##_idunder, NULL, FORM_KINDS(forms, MT_FORM_IDUNDER, kinds), impl, false, #deriv,  \
     MT_FORM_IDUNDER, MT_OP_##id, "__i" #stem "__"},                                             \
    {MT_OP_##id##_rdunder, NULL, FORM_KINDS(forms, MT_FORM_RDUNDER, kinds), impl, false, #rderiv, \
     MT_FORM_RDUNDER, MT_OP_##id, "__r" #stem "__"},
#include "../../ops.def"
#undef MT_OP
#undef MT_PYOP
#undef MT_OPERATOR
};
/* clang-format on */

/* The MT_ALIAS rows. */
static const struct {
    mt_op_id id;
    mt_alias_rule rule;
} alias_rows[] = {
#define MT_ALIAS(id, rule) {MT_OP_##id, rule},
#include "../../ops.def"
#undef MT_ALIAS
};

/* The MT_COMPUTES_AS rows: aliases taking their operator's complex tag. */
static const struct {
    mt_op_id id, as;
} computes_as_rows[] = {
#define MT_COMPUTES_AS(id, as) {MT_OP_##id, MT_OP_##as},
#include "../../ops.def"
#undef MT_COMPUTES_AS
};

/* The MT_OUT_BY_COPY rows. */
static const struct {
    mt_op_id id;
    mt_out_rule rule;
    unsigned overlap;
} out_rows[] = {
#define MT_OUT_BY_COPY(id, rule, overlap) {MT_OP_##id, rule, overlap},
#include "../../ops.def"
#undef MT_OUT_BY_COPY
};

/* The MT_TAGS rows; a row may be tagged by several (its family's, and one
 * of its own), which add up. */
static const struct {
    mt_op_id id;
    unsigned tags;
} tag_rows[] = {
#define MT_TAGS(id, tags) {MT_OP_##id, (tags)},
#include "../../ops.def"
#undef MT_TAGS
};

static size_t name_len(const char *sig) { return strchr(sig, '(') - sig; }

static bool same_name(const char *a, const char *b)
{
    size_t n = name_len(a);
    return n == name_len(b) && strncmp(a, b, n) == 0;
}

/* `add_`, the `__iadd__` family and `__setitem__` write into their first
 * argument. resize_ and resize_as_ change its shape, not its elements, and
 * refuse a tensor requiring grad themselves with torch's own message. */
static bool is_inplace_name(const char *name)
{
    size_t n = strlen(name);
    if (strcmp(name, "__setitem__") == 0)
        return true;
    if (strcmp(name, "resize_") == 0 || strcmp(name, "resize_as_") == 0)
        return false;
    if (n > 4 && name[0] == '_' && name[1] == '_')
        return name[2] == 'i' && strcmp(name, "__index__") != 0 && strcmp(name, "__int__") != 0 &&
               strcmp(name, "__invert__") != 0 && strcmp(name, "__init__") != 0;
    return n > 1 && name[n - 1] == '_' && name[0] != '_';
}

/* The index the binding gives the row within the callable of its name:
 * among the function rows if it is one, else among the method rows, else
 * the nn.functional rows. */
static int overload_index(int r)
{
    unsigned k = mt_ops[r].kinds;
    unsigned group = k & MT_KIND_FUNCTION ? MT_KIND_FUNCTION
                     : k & MT_KIND_METHOD ? MT_KIND_METHOD
                                          : MT_KIND_NN;
    int n = 0;
    for (int q = 0; q < r; q++)
        if ((mt_ops[q].kinds & group) && same_name(mt_ops[q].text, mt_ops[r].text))
            n++;
    return n;
}

/* Appends text[from, to) to buf at *len (buf holds 256). */
static void append(char *buf, size_t *len, const char *from, size_t n)
{
    if (*len + n < 256) {
        memcpy(buf + *len, from, n);
        *len += n;
        buf[*len] = 0;
    }
}

/* The signature of a form, from its operator's: the in-place method keeps
 * every parameter but out=, its target a tensor even where the operator's
 * first operand may be a number; Python's operators take the two operands. */
static const char *form_text(const mt_op *op)
{
    const char *base = mt_ops[op->base].text;
    const char *open = strchr(base, '(');
    char buf[256] = "";
    size_t len = 0;
    if (op->form == MT_FORM_INPLACE) {
        append(buf, &len, base, (size_t)(open - base));
        append(buf, &len, "_", 1);
    } else {
        append(buf, &len, op->form_name, strlen(op->form_name));
    }
    append(buf, &len, "(", 1);
    int kept = 0;
    for (const char *p = open + 1; *p && *p != ')';) {
        const char *end = p + strcspn(p, ",)");
        bool star = end - p == 1 && *p == '*';
        bool out = strncmp(p, "Tensor? out=", 12) == 0;
        bool operand = kept < 2 && !star;
        if (op->form == MT_FORM_INPLACE ? !out : operand) {
            const char *from = p;
            if (kept)
                append(buf, &len, ", ", 2);
            else if (op->form == MT_FORM_INPLACE && strncmp(p, "Tensor|", 7) == 0) {
                append(buf, &len, "Tensor", 6);
                from = strchr(p, ' ');
            }
            append(buf, &len, from, (size_t)(end - from));
            kept++;
        }
        p = *end == ',' ? end + 2 : end;
    }
    /* a `*` left with nothing after it goes */
    if (len >= 3 && strcmp(buf + len - 3, ", *") == 0)
        buf[len -= 3] = 0;
    append(buf, &len, ")", 1);
    char *text = malloc(len + 1);
    if (text)
        memcpy(text, buf, len + 1);
    return text;
}

/* A MT_PYOP row taking a Python operand stands beside the plain-C row of
 * its name (__add__ with an array beside __add__ with a tensor). */
static mt_op_id plain_twin(const mt_op *op)
{
    for (int r = 0; r < MT_OP_COUNT; r++)
        if (!mt_ops[r].host_impl && mt_ops[r].kinds && mt_ops[r].sig &&
            strcmp(mt_ops[r].sig->name, op->sig->name) == 0)
            return (mt_op_id)r;
    return op->id;
}

int mt_ops_init(void)
{
    for (int r = 0; r < MT_OP_COUNT; r++) {
        mt_op *op = &mt_ops[r];
        if (op->form != MT_FORM_PLAIN && !(op->text = form_text(op)))
            return mt_error(MT_ERR_MEMORY, "out of memory");
        if (!(op->sig = mt_signature_parse(op->text, op->kinds)))
            return -1;
        op->inplace = is_inplace_name(op->sig->name);
        op->write_overlap = mt_write_overlap_rule(op->sig->name);
    }
    for (size_t i = 0; i < sizeof alias_rows / sizeof alias_rows[0]; i++) {
        mt_op *op = &mt_ops[alias_rows[i].id];
        op->alias = alias_rows[i].rule;
        /* a new geometry over the same elements writes none of them */
        if (op->alias == MT_ALIAS_INPLACE_VIEW)
            op->write_overlap = 0;
    }
    for (size_t i = 0; i < sizeof out_rows / sizeof out_rows[0]; i++) {
        mt_ops[out_rows[i].id].out_rule = out_rows[i].rule;
        mt_ops[out_rows[i].id].write_overlap = out_rows[i].overlap;
    }
    for (size_t i = 0; i < sizeof tag_rows / sizeof tag_rows[0]; i++)
        mt_ops[tag_rows[i].id].tags |= tag_rows[i].tags;
    for (size_t i = 0; i < sizeof computes_as_rows / sizeof computes_as_rows[0]; i++)
        mt_ops[computes_as_rows[i].id].tags |=
            mt_ops[computes_as_rows[i].as].tags & (MT_TAG_COMPLEX | MT_TAG_UNSIGNED);
    for (int r = 0; r < MT_OP_COUNT; r++) {
        /* an operator's forms (add_, __add__, ...) are tagged as the operator */
        mt_ops[r].tags |= mt_ops[mt_ops[r].base].tags;
        if (mt_ops[r].tags & MT_TAG_DEPRECATED)
            mt_ops[r].sig->deprecated = true;
        mt_ops[r].overload = overload_index(r);
        if (mt_ops[r].host_impl)
            mt_ops[r].base = plain_twin(&mt_ops[r]);
    }
    return 0;
}

void mt_op_install_host_impl(mt_op_id id, mt_impl_fn impl)
{
    if (mt_ops[id].host_impl)
        mt_ops[id].impl = impl;
}
