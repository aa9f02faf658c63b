/* searchsorted and bucketize (rows in csrc/ops/sort.def): torch's checks and
 * the contiguous operands here, the binary search in kernels/sort_search.c. Plain
 * C: it reads only typed arguments, makes and drops tensors through
 * core/owner.h, reports through core/error.h and calls into core/ and
 * kernels/; nothing here may touch the Python binding. */
#include "runtime/args.h"
#include "creation.h"
#include "reduce.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../kernels/sort_search.h"

#include <string.h>

/* The input operand as a tensor (a number becomes a 0-d one). */
static mt_tensor *value_tensor(const mt_value *v)
{
    if (!v->is_scalar) {
        mt_retain(v->t);
        return v->t;
    }
    mt_dtype d = v->s.kind == MT_SCALAR_BOOL  ? MT_BOOL
                 : v->s.kind == MT_SCALAR_INT ? MT_INT64
                                              : MT_FLOAT64;
    mt_tensor *r = mt_new(d, 0, NULL, false);
    if (r)
        mt_fill_scalar(r, &v->s);
    return r;
}

static int search(mt_result *r, const mt_tensor *bounds, const mt_value *value,
                  const mt_tensor *sorter, bool out_int32, bool right)
{
    char bs[128], vs[128];
    if ((value->is_scalar || value->t->ndim == 0) && bounds->ndim != 1)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.searchsorted(): input value can be a scalar only when "
                        "boundaries tensor dimension is 1, but we got boundaries tensor "
                        "dim(%d) and input value's dim(0) numel(1)",
                        bounds->ndim);
    if (bounds->ndim == 0)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.searchsorted(): boundaries tensor should have positive "
                        "dimension, but got 0 dimension");
    const mt_tensor *in = value->is_scalar ? NULL : value->t;
    if (in && bounds->ndim != 1 &&
        (in->ndim != bounds->ndim ||
         memcmp(in->sizes, bounds->sizes, sizeof(int64_t) * (in->ndim - 1)))) {
        mt_format_shape(bs, sizeof bs, bounds->ndim, bounds->sizes);
        mt_format_shape(vs, sizeof vs, in->ndim, in->sizes);
        return mt_error(MT_ERR_RUNTIME,
                        "torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                        "first N-1 dimensions of boundaries tensor and input value tensor "
                        "must match, but we got boundaries tensor %s and input value tensor "
                        "%s",
                        bs, vs);
    }
    mt_tensor *v = value_tensor(value), *bc = NULL, *vc = NULL, *sc = NULL, *out = NULL;
    if (!v)
        return -1;
    mt_dtype common = mt_promote_types(bounds->dtype, v->dtype);
    if (common == MT_BOOL) {
        mt_error(MT_ERR_NOT_IMPLEMENTED, "\"searchsorted_out_cpu\" not implemented for 'Bool'");
        goto done;
    }
    bc = mt_contiguous_as(bounds, common);
    vc = mt_contiguous_as(v, common);
    sc = sorter ? mt_contiguous_as(sorter, MT_INT64) : NULL;
    out = mt_new(out_int32 ? MT_INT32 : MT_INT64, v->ndim, v->sizes, false);
    if (!bc || !vc || (sorter && !sc) || !out) {
        mt_xrelease(out);
        out = NULL;
        goto done;
    }
    if (sc) {
        /* the kernel reads the boundaries at the sorter's values */
        const int64_t *idx = (const int64_t *)mt_data(sc);
        int64_t n = bounds->sizes[bounds->ndim - 1];
        for (int64_t i = 0; i < sc->numel; i++)
            if (idx[i] < 0 || idx[i] >= n) {
                mt_error(MT_ERR_RUNTIME, "torch.searchsorted(): sorter index out of range");
                mt_release(out);
                out = NULL;
                goto done;
            }
    }
    int64_t m = v->ndim ? v->sizes[v->ndim - 1] : 1;
    int64_t rows = bounds->ndim == 1 ? 1 : (m ? v->numel / m : 0);
    if (bounds->ndim == 1)
        m = v->numel;
    mt_searchsorted(out, bc, vc, sc ? (const int64_t *)mt_data(sc) : NULL, rows, m, right);
done:
    mt_release(v);
    mt_xrelease(bc);
    mt_xrelease(vc);
    mt_xrelease(sc);
    return mt_result_tensor(r, out);
}

int impl_searchsorted(mt_args *a, mt_result *r)
{
    const mt_tensor *bounds = a->v[0].t;
    bool right = a->v[3].b;
    char bs[128], ss[128];
    if (!mt_is_none(a, 4)) {
        const char *side = a->v[4].str;
        if (strcmp(side, "left") && strcmp(side, "right"))
            return mt_error(MT_ERR_RUNTIME,
                            "torch.searchsorted(): side can only be 'left' or 'right' but got %s",
                            side);
        if (right && !strcmp(side, "left"))
            return mt_error(MT_ERR_RUNTIME,
                            "torch.searchsorted(): side and right can't be set to opposites, got "
                            "side of left while right was True");
        right = !strcmp(side, "right");
    }
    const mt_tensor *sorter = mt_is_none(a, 5) ? NULL : a->v[5].t;
    if (sorter && (sorter->ndim != bounds->ndim ||
                   memcmp(sorter->sizes, bounds->sizes, sizeof(int64_t) * bounds->ndim))) {
        mt_format_shape(bs, sizeof bs, bounds->ndim, bounds->sizes);
        mt_format_shape(ss, sizeof ss, sorter->ndim, sorter->sizes);
        return mt_error(MT_ERR_RUNTIME,
                        "torch.searchsorted(): boundary and sorter must have the same size, but "
                        "got boundary tensor %sand got sorter tensor %s",
                        bs, ss);
    }
    if (sorter && sorter->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME,
                        "torch.searchsorted(): sorter must be a tensor of long dtype but got "
                        "dtype %s",
                        mt_dtype_infos[sorter->dtype].scalar_name);
    return search(r, bounds, &a->v[1], sorter, a->v[2].b, right);
}

int impl_bucketize(mt_args *a, mt_result *r)
{
    const mt_tensor *bounds = a->v[1].t;
    if (bounds->ndim != 1)
        return mt_error(MT_ERR_RUNTIME, "boundaries tensor must be 1 dimension, but got dim(%d)",
                        bounds->ndim);
    return search(r, bounds, &a->v[0], NULL, a->v[2].b, a->v[3].b);
}
