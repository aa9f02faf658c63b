#include "derivatives.h"
#include "backend.h"

#include <stdio.h>
#include <string.h>

/* MT_DERIV_AS(Key, Name, ...): a kind that op rows name Key and that shows as
 * Name, for torch's grad_fn classes shared by ops with different formulas. */
#define MT_DERIV(Name, fn, saves, save_out, mat) MT_DERIV_AS(Name, Name, fn, saves, save_out, mat)

#define MT_DERIV_AS(Key, Name, fn, saves, save_out, mat) int fn(mt_node *, mt_tensor **, mt_tensor **);
#include "derivatives.def"
#undef MT_DERIV_AS

static const mt_node_kind kinds[] = {
#define MT_DERIV_AS(Key, Name, fn, saves, save_out, mat) {#Name, fn, saves, save_out, mat},
#include "derivatives.def"
#undef MT_DERIV_AS
};

static const char *const keys[] = {
#define MT_DERIV_AS(Key, Name, fn, saves, save_out, mat) #Key,
#include "derivatives.def"
#undef MT_DERIV_AS
};

const mt_node_kind mt_nondifferentiable_kind = {"NonDifferentiable", NULL, 0, false, false};

const mt_node_kind *mt_derivative_kind(const char *name)
{
    if (strcmp(name, "NonDifferentiable") == 0)
        return &mt_nondifferentiable_kind;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(keys[i], name) == 0)
            return &kinds[i];
    return NULL;
}

static int not_implemented_backward(mt_node *n, mt_tensor **gin, mt_tensor **gout)
{
    char msg[160];
    snprintf(msg, sizeof msg, "the derivative for '%s' is not implemented.",
             n->op_name ? n->op_name : "?");
    mt_ad.set_error(msg);
    return -1;
}

const mt_node_kind mt_not_implemented_kind = {"NotImplemented", not_implemented_backward, 0,
                                              false, false};
