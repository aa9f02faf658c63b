/* norm(input, 'nuc', dim): the singular values of the matrices over two
 * dims, by LAPACK's gesdd (the _lapack_gesdd row) on a view with those dims
 * last, summed; and U Vh of the same factorisation, the gradient of the norm
 * (torch's svd backward for a gradient of S only, U diag(g) Vh, with g the
 * same for every singular value). No interpreter anywhere on the path. */
#include "nuclear_norm.h"
#include "runtime/call.h"
#include "runtime/table.h"
#include "../core/shape.h"

#include <stdarg.h>

/* t with dims d0, d1 moved last (a view); perm gets the order taken. */
static mt_tensor *moved_last(const mt_tensor *t, int d0, int d1, int64_t *perm)
{
    int k = 0;
    for (int d = 0; d < t->ndim; d++)
        if (d != d0 && d != d1)
            perm[k++] = d;
    perm[k++] = d0;
    perm[k++] = d1;
    return mt_exec(MT_OP_permute, "TL", t, t->ndim, perm);
}

static int args_of(const mt_op *op, mt_args *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = mt_args_from_format(op, a, fmt, ap);
    va_end(ap);
    return rc;
}

/* gesdd of a's matrices (reduced): S, and U Vh when uvh is given. */
static mt_tensor *singular(mt_tensor *a, mt_tensor **uvh)
{
    const mt_op *op = &mt_ops[MT_OP__lapack_gesdd];
    mt_args args;
    mt_result r;
    if (args_of(op, &args, "Tbb", a, 0, uvh != NULL) < 0 || mt_op_exec(op, &args, &r) < 0)
        return NULL;
    mt_tensor *s = r.t[1];
    mt_retain(s);
    if (uvh && !(*uvh = mt_exec(MT_OP_matmul, "TT", r.t[0], r.t[2]))) {
        mt_release(s);
        s = NULL;
    }
    mt_result_clear(&r);
    return s;
}

mt_tensor *mt_nuclear_norm(const mt_tensor *t, int d0, int d1, bool keepdim)
{
    int64_t perm[MT_MAX_DIMS], last = -1;
    mt_tensor *m = moved_last(t, d0, d1, perm);
    mt_tensor *s = m ? singular(m, NULL) : NULL;
    mt_tensor *sum = s ? mt_exec(MT_OP_sum_dim, "TL", s, 1, &last) : NULL;
    mt_xrelease(m);
    mt_xrelease(s);
    for (int k = 0; sum && keepdim && k < 2; k++) {
        mt_tensor *u = mt_exec(MT_OP_unsqueeze, "Ti", sum,
                               (int64_t)(k ? (d0 > d1 ? d0 : d1) : (d0 < d1 ? d0 : d1)));
        mt_release(sum);
        sum = u;
    }
    return sum;
}

mt_tensor *mt_nuclear_norm_factor(const mt_tensor *t, int d0, int d1)
{
    int64_t perm[MT_MAX_DIMS], back[MT_MAX_DIMS];
    mt_tensor *m = moved_last(t, d0, d1, perm), *p = NULL;
    mt_tensor *s = m ? singular(m, &p) : NULL;
    bool ok = s != NULL;
    mt_xrelease(m);
    mt_xrelease(s);
    if (!ok)
        return NULL;
    for (int k = 0; k < t->ndim; k++)
        back[perm[k]] = k;
    mt_tensor *r = mt_exec(MT_OP_permute, "TL", p, t->ndim, back);
    mt_release(p);
    return r;
}

int impl_nuclear_norm_factor(mt_args *a, mt_result *r)
{
    const mt_tensor *t = a->v[0].t;
    int d0, d1;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d0) < 0 || mt_wrap_dim(a->v[2].i, t->ndim, &d1) < 0)
        return -1;
    return mt_result_tensor(r, mt_nuclear_norm_factor(t, d0, d1));
}
