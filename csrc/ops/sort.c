/* sort, argsort, msort, topk, median, nanmedian, mode, kthvalue and unique of
 * the op table (csrc/ops/sort.def): shapes and torch's errors here, the line
 * sorting in kernels/sort.c. Plain C: it reads only typed arguments, makes
 * and drops tensors through core/owner.h, reports through core/error.h and
 * calls into core/ and kernels/; nothing here may touch the Python binding. */
#include "runtime/args.h"
#include "reduce.h"
#include "runtime/table.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../kernels/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sorted values and their positions along dim; both new references, or -1
 * with both NULL. */
static int sorted_pair(const mt_tensor *t, int64_t dim, bool descending, bool stable,
                       mt_tensor **values, mt_tensor **indices)
{
    int d = 0;
    *values = *indices = NULL;
    if (mt_wrap_dim(dim, t->ndim, &d) < 0)
        return -1;
    *values = mt_new(t->dtype, t->ndim, t->sizes, false);
    *indices = mt_new(MT_INT64, t->ndim, t->sizes, false);
    if (!*values || !*indices) {
        mt_xrelease(*values);
        mt_xrelease(*indices);
        *values = *indices = NULL;
        return -1;
    }
    mt_sort(*values, *indices, t, d, descending, stable);
    return 0;
}

/* The rows sort and argsort (not sort_1, argsort_1) put `stable` before dim
 * and descending; sort's is optional, None being unstable as in torch. */
int impl_sort(mt_args *a, mt_result *r)
{
    mt_tensor *v, *i;
    int o = a->op->id == MT_OP_sort;
    bool stable = o && !mt_is_none(a, 1) && a->v[1].b;
    if (sorted_pair(a->v[0].t, a->v[1 + o].i, a->v[2 + o].b, stable, &v, &i) < 0)
        return -1;
    return mt_result_pair(r, v, i);
}

int impl_argsort(mt_args *a, mt_result *r)
{
    mt_tensor *v, *i;
    int o = a->op->id == MT_OP_argsort;
    bool stable = o && a->v[1].b;
    if (sorted_pair(a->v[0].t, a->v[1 + o].i, a->v[2 + o].b, stable, &v, &i) < 0)
        return -1;
    mt_release(v);
    return mt_result_tensor(r, i);
}

int impl_msort(mt_args *a, mt_result *r)
{
    mt_tensor *v, *i;
    if (sorted_pair(a->v[0].t, 0, false, false, &v, &i) < 0)
        return -1;
    mt_release(i);
    return mt_result_tensor(r, v);
}

int impl_topk(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int64_t k = a->v[1].i;
    int d;
    if (mt_wrap_dim(a->v[2].i, t->ndim, &d) < 0)
        return -1;
    int64_t len = t->ndim ? t->sizes[d] : 1;
    if (k < 0 || k > len)
        return mt_error(MT_ERR_RUNTIME, "selected index k out of range");
    if (t->dtype == MT_BOOL)
        return mt_error(MT_ERR_RUNTIME, "topk does not support bool dtypes on CPU");
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    if (t->ndim)
        sizes[d] = k;
    mt_tensor *v = mt_new(t->dtype, t->ndim, sizes, false);
    mt_tensor *i = mt_new(MT_INT64, t->ndim, sizes, false);
    if (v && i)
        mt_topk(v, i, t, d, k, a->v[3].b, a->v[4].b);
    return mt_result_pair(r, v, i);
}

/* (values, indices) of one pick per line along dim (median, nanmedian,
 * mode, kthvalue), dim removed unless keepdim. kth is 1-based, as kthvalue's k. */
static int pick_along_dim(mt_result *r, mt_tensor *t, int64_t dim, bool keepdim, const char *name,
                          mt_pick_op pick, int64_t kth)
{
    int d;
    if (mt_wrap_dim(dim, t->ndim, &d) < 0)
        return -1;
    if (t->ndim && t->sizes[d] == 0)
        return mt_error(MT_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size.",
                        pick == MT_PICK_NANMEDIAN ? "median" : name, d); /* as torch words it */
    if (pick == MT_PICK_KTH) {
        if (kth < 1 || kth > (t->ndim ? t->sizes[d] : 1))
            return mt_error(MT_ERR_RUNTIME,
                            "kthvalue(): selected number k out of range for dimension %d", d);
        if (t->dtype == MT_BOOL)
            return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"kthvalue_cpu\" not implemented for 'Bool'");
    } else if (pick != MT_PICK_MODE && t->dtype == MT_BOOL) {
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"median_out\" not implemented for 'Bool'");
    }
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    if (t->ndim)
        sizes[d] = 1;
    mt_tensor *pair[2] = {mt_new(t->dtype, t->ndim, sizes, false),
                          mt_new(MT_INT64, t->ndim, sizes, false)};
    if (pair[0] && pair[1]) {
        mt_pick(pair[0], pair[1], t, d, pick, kth - 1);
        for (int k = 0; k < 2 && !keepdim && t->ndim; k++) {
            mt_tensor *x = pair[k];
            int64_t s[MT_MAX_DIMS], st[MT_MAX_DIMS];
            for (int j = 0, n = 0; j < x->ndim; j++) {
                if (j == d)
                    continue;
                s[n] = x->sizes[j];
                st[n++] = x->strides[j];
            }
            pair[k] = mt_new_view(x, x->ndim - 1, s, st, x->offset);
            mt_release(x);
        }
    }
    return mt_result_pair(r, pair[0], pair[1]);
}

/* median() and nanmedian() of all elements: the pick of the flat contiguous
 * copy's line; NaN when there are none. torch names their errors after median. */
static int pick_all(mt_result *r, const mt_tensor *t, mt_pick_op pick)
{
    int64_t n = t->numel;
    if (n && t->dtype == MT_BOOL)
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"median_cpu\" not implemented for 'Bool'");
    mt_tensor *flat = mt_contiguous_as(t, t->dtype);
    mt_tensor *v = mt_new(t->dtype, 0, NULL, false);
    mt_tensor *i = mt_new(MT_INT64, 1, (int64_t[]){1}, false);
    if (!flat || !v || !i) {
        mt_xrelease(v);
        v = NULL;
    } else if (n == 0) {
        mt_fill(v, NAN, 0, 0);
    } else {
        mt_tensor line = *flat, one = *i, val = *v;
        line.ndim = 1;
        line.sizes[0] = n;
        line.strides[0] = 1;
        val.ndim = 1;
        val.sizes[0] = 1;
        val.strides[0] = 1;
        mt_pick(&val, &one, &line, 0, pick, 0);
    }
    mt_xrelease(flat);
    mt_xrelease(i);
    return mt_result_tensor(r, v);
}

int impl_median(mt_args *a, mt_result *r)
{
    if (a->op->id == MT_OP_median)
        return pick_all(r, a->v[0].t, MT_PICK_MEDIAN);
    return pick_along_dim(r, a->v[0].t, a->v[1].i, a->v[2].b, "median", MT_PICK_MEDIAN, 1);
}

int impl_nanmedian(mt_args *a, mt_result *r)
{
    if (a->op->id == MT_OP_nanmedian)
        return pick_all(r, a->v[0].t, MT_PICK_NANMEDIAN);
    return pick_along_dim(r, a->v[0].t, a->v[1].i, a->v[2].b, "nanmedian", MT_PICK_NANMEDIAN, 1);
}

int impl_mode(mt_args *a, mt_result *r)
{
    return pick_along_dim(r, a->v[0].t, a->v[1].i, a->v[2].b, "mode", MT_PICK_MODE, 1);
}

int impl_kthvalue(mt_args *a, mt_result *r)
{
    return pick_along_dim(r, a->v[0].t, a->v[2].i, a->v[3].b, "kthvalue", MT_PICK_KTH, a->v[1].i);
}

/* (output, inverse, counts) packed as torch.unique returns them; consumes
 * the three. */
static int unique_result(mt_result *r, mt_tensor *out, mt_tensor *inv, mt_tensor *cnt, bool inverse,
                         bool counts)
{
    if (!inverse)
        mt_release(inv);
    if (!counts)
        mt_release(cnt);
    if (!inverse && !counts)
        return mt_result_tensor(r, out);
    if (mt_result_alloc(r, MT_RESULT_TUPLE, 1 + inverse + counts) < 0) {
        mt_release(out);
        if (inverse)
            mt_release(inv);
        if (counts)
            mt_release(cnt);
        return -1;
    }
    r->t[0] = out;
    r->t[1] = inverse ? inv : cnt;
    if (inverse && counts)
        r->t[2] = cnt;
    return 0;
}

/* unique slices along dim: the slices as rows of a contiguous copy with dim
 * moved first, sorted lexicographically; the result moved back. */
static int unique_dim(mt_result *r, const mt_tensor *t, int64_t dim, bool inverse, bool counts)
{
    int d;
    if (mt_wrap_dim(dim, t->ndim, &d) < 0)
        return -1;
    if (t->ndim == 0)
        return mt_error(MT_ERR_NOT_IMPLEMENTED,
                        "unique(): dim= on a 0-dim tensor is not supported by minitorch yet");
    if (t->numel == 0 && t->sizes[d] != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "There are 0 sized dimensions, and they aren't selected, so unique "
                        "cannot be applied");
    mt_tensor moved = *t;
    for (int j = 0, k = 1; j < t->ndim; j++) {
        if (j == d)
            continue;
        moved.sizes[k] = t->sizes[j];
        moved.strides[k++] = t->strides[j];
    }
    moved.sizes[0] = t->sizes[d];
    moved.strides[0] = t->strides[d];
    int64_t n = moved.sizes[0], m = 1;
    for (int j = 1; j < t->ndim; j++)
        m *= moved.sizes[j];
    mt_tensor *rows = mt_contiguous_as(&moved, t->dtype);
    mt_tensor *out_m = NULL, *out = NULL, *inv = NULL, *cnt = NULL;
    int rc = -1;
    int64_t *perm = malloc((size_t)(n ? n : 1) * 2 * sizeof(int64_t));
    if (!rows || !perm) {
        if (!perm)
            mt_error(MT_ERR_MEMORY, "out of memory");
        goto done;
    }
    int64_t *groups = perm + (n ? n : 1);
    int64_t ng = mt_sorted_rows(rows, n, m, perm, groups);
    if (ng < 0)
        goto done;
    int64_t msizes[MT_MAX_DIMS];
    memcpy(msizes, moved.sizes, sizeof msizes);
    msizes[0] = ng;
    out_m = mt_new(t->dtype, t->ndim, msizes, false);
    inv = mt_new(MT_INT64, 1, &n, false);
    cnt = mt_new(MT_INT64, 1, &ng, true);
    if (!out_m || !inv || !cnt)
        goto done;
    size_t row = (size_t)m * mt_itemsize(t->dtype);
    const char *src = mt_data(rows);
    char *dst = mt_data(out_m);
    int64_t *iv = (int64_t *)mt_data(inv), *cv = (int64_t *)mt_data(cnt);
    for (int64_t k = 0; k < n; k++) {
        if (k == 0 || groups[k] != groups[k - 1])
            memcpy(dst + groups[k] * row, src + perm[k] * row, row);
        iv[perm[k]] = groups[k];
        cv[groups[k]]++;
    }
    mt_tensor back = *out_m;
    for (int j = 0, k = 1; j < t->ndim; j++) {
        back.sizes[j] = j == d ? ng : out_m->sizes[k];
        back.strides[j] = j == d ? out_m->strides[0] : out_m->strides[k];
        k += j != d;
    }
    out = mt_contiguous_as(&back, t->dtype);
    if (!out)
        goto done;
    rc = unique_result(r, out, inv, cnt, inverse, counts);
    out = inv = cnt = NULL;
done:
    free(perm);
    mt_xrelease(rows);
    mt_xrelease(out_m);
    mt_xrelease(out);
    mt_xrelease(inv);
    mt_xrelease(cnt);
    return rc;
}

int impl_unique(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    bool inverse = a->v[2].b, counts = a->v[3].b;
    if (!mt_is_none(a, 4))
        return unique_dim(r, t, a->v[4].i, inverse, counts);
    int64_t n = t->numel;
    mt_tensor *flat = mt_new(t->dtype, 1, &n, false);
    mt_tensor *v = NULL, *i = NULL, *out = NULL, *inv = NULL, *cnt = NULL;
    int64_t *groups = NULL;
    int rc = -1;
    if (!flat)
        return -1;
    if (n) {
        /* a flat view of t's elements in C order, through a contiguous copy */
        mt_tensor *tmp = mt_contiguous_as(t, t->dtype);
        if (!tmp)
            goto done;
        memcpy(mt_data(flat), mt_data(tmp), (size_t)n * mt_itemsize(t->dtype));
        mt_release(tmp);
    }
    if (sorted_pair(flat, 0, false, true, &v, &i) < 0)
        goto done;
    groups = malloc((size_t)(n ? n : 1) * sizeof *groups);
    if (!groups) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        goto done;
    }
    int64_t ng = mt_sorted_groups(v, groups);
    if (ng < 0)
        goto done;
    out = mt_new(t->dtype, 1, &ng, false);
    inv = mt_new(MT_INT64, t->ndim, t->sizes, false);
    cnt = mt_new(MT_INT64, 1, &ng, true);
    if (!out || !inv || !cnt)
        goto done;
    int isz = mt_itemsize(t->dtype);
    const char *sv = mt_data(v);
    const int64_t *perm = (const int64_t *)mt_data(i);
    char *ov = mt_data(out);
    int64_t *iv = (int64_t *)mt_data(inv), *cv = (int64_t *)mt_data(cnt);
    for (int64_t k = 0; k < n; k++) {
        if (k == 0 || groups[k] != groups[k - 1])
            memcpy(ov + groups[k] * isz, sv + k * isz, isz);
        iv[perm[k]] = groups[k];
        cv[groups[k]]++;
    }
    rc = unique_result(r, out, inv, cnt, inverse, counts);
    out = inv = cnt = NULL;
done:
    free(groups);
    mt_release(flat);
    mt_xrelease(v);
    mt_xrelease(i);
    mt_xrelease(out);
    mt_xrelease(inv);
    mt_xrelease(cnt);
    return rc;
}
