/* threshold, threshold_ and nn.functional.threshold (x at or below t
 * becomes v), and _threshold_backward, their gradient. Composed of the
 * comparison and where rows (mt_exec): the elements keep input's dtype, t
 * and v taken in it (an integer input truncates them), as torch's kernel
 * casts its scalars. Plain C. */
#include "creation.h"
#include "runtime/call.h"
#include "runtime/table.h"

static bool integral(const mt_tensor *t) { return mt_is_integral(t->dtype, false); }

/* s as an element of integer dtype d holds it (a float truncated, a negative
 * int wrapped into an unsigned type) */
static int64_t as_element(const mt_scalar *s, mt_dtype d)
{
    int64_t v = s->kind == MT_SCALAR_FLOAT ? (int64_t)s->f : s->i;
    switch (d) {
    case MT_UINT8:
        return (uint8_t)v;
    case MT_INT8:
        return (int8_t)v;
    case MT_INT16:
        return (int16_t)v;
    case MT_INT32:
        return (int32_t)v;
    default:
        return v;
    }
}

/* x <= t, t read as x's dtype reads it */
static mt_tensor *at_or_below(const mt_tensor *x, const mt_scalar *t)
{
    return integral(x) ? mt_exec(MT_OP_le, "Ti", x, as_element(t, x->dtype))
                       : mt_exec(MT_OP_le, "Tf", x, t->f);
}

/* threshold(input, threshold, value) and its in-place forms (threshold_, and
 * nn.functional.threshold with inplace=True, whose node takes path 1) */
int impl_threshold(mt_args *a, mt_result *r)
{
    mt_tensor *x = a->v[0].t;
    bool inplace = mt_writes_inplace(a->op, a);
    /* torch's kernel has no bool or uint16/32/64 entry */
    if (x->dtype == MT_BOOL || mt_is_barebones(x->dtype))
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"threshold_cpu\" not implemented for '%s'",
                        mt_dtype_infos[x->dtype].scalar_name);
    a->path = inplace;
    mt_scalar t = a->v[1].s, value = a->v[2].s;
    if (mt_check_scalar_fits(&t, x->dtype) < 0 || mt_check_scalar_fits(&value, x->dtype) < 0)
        return -1;
    mt_tensor *below = at_or_below(x, &t), *out = NULL;
    if (below)
        out = integral(x) ? mt_exec(MT_OP_where, "TiT", below, as_element(&value, x->dtype), x)
                          : mt_exec(MT_OP_where, "TfT", below, value.f, x);
    if (below)
        mt_release(below);
    if (!out || !inplace)
        return mt_result_tensor(r, out);
    mt_tensor *written = mt_exec(MT_OP_copy_, "TT", x, out);
    mt_release(out);
    return mt_result_tensor(r, written);
}

/* _threshold_backward(grad_output, input, threshold) */
int impl_threshold_backward(mt_args *a, mt_result *r)
{
    mt_tensor *below = at_or_below(a->v[1].t, &a->v[2].s);
    mt_tensor *out = below ? mt_exec(MT_OP_where, "TfT", below, 0.0, a->v[0].t) : NULL;
    if (below)
        mt_release(below);
    return mt_result_tensor(r, out);
}
