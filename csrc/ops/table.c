/* The rows of csrc/ops.def as mt_op entries, their signatures parsed and
 * their derivative kinds resolved once at start-up. */
#include "table.h"

#include "../autograd/derivatives.h"

#include <string.h>

#define MT_OP(id, kinds, impl, sig, ...) int impl(mt_args *, mt_result *);
#define MT_PYOP(id, kinds, impl, sig, ...) \
    int mtpy_row_##id(mt_args *, mt_result *) __attribute__((weak));
#include "../ops.def"
#undef MT_OP
#undef MT_PYOP

mt_op mt_ops[MT_OP_COUNT] = {
#define MT_OP(id, kinds, impl, sig, ...) {MT_OP_##id, sig, kinds, impl, false, #__VA_ARGS__},
#define MT_PYOP(id, kinds, impl, sig, ...) \
    {MT_OP_##id, sig, kinds, mtpy_row_##id, true, #__VA_ARGS__},
#include "../ops.def"
#undef MT_OP
#undef MT_PYOP
};

static size_t name_len(const char *sig)
{
    return strchr(sig, '(') - sig;
}

static bool same_name(const char *a, const char *b)
{
    size_t n = name_len(a);
    return n == name_len(b) && strncmp(a, b, n) == 0;
}

/* `add_`, the `__iadd__` family and `__setitem__` write into their first
 * argument. */
static bool is_inplace_name(const char *name)
{
    size_t n = strlen(name);
    if (strcmp(name, "__setitem__") == 0)
        return true;
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

int mt_ops_init(void)
{
    for (int r = 0; r < MT_OP_COUNT; r++) {
        mt_op *op = &mt_ops[r];
        if (!(op->sig = mt_signature_parse(op->text, op->kinds)))
            return -1;
        if (op->derivative_name[0] &&
            !(op->derivative = mt_derivative_kind(op->derivative_name)))
            return mt_error(MT_ERR_RUNTIME, "minitorch: unknown derivative '%s' for '%s'",
                            op->derivative_name, op->text);
        op->inplace = is_inplace_name(op->sig->name);
    }
    for (int r = 0; r < MT_OP_COUNT; r++)
        mt_ops[r].overload = overload_index(r);
    return 0;
}

const mt_op *mt_op_named(const char *name)
{
    for (int r = 0; r < MT_OP_COUNT; r++)
        if (strcmp(mt_ops[r].sig->name, name) == 0)
            return &mt_ops[r];
    return NULL;
}
