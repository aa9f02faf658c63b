/* Data-movement ops of the op table (cat, stack, flip, roll, repeat, tile,
 * gathers, scatters, masks, nonzero, triangles) and the nonzero helper of
 * index.h, in plain C: impls read typed mt_args, make and drop tensors only
 * through core/owner.h and report failures with mt_error; nothing here may
 * touch Python. Joins and flips are copies between views; the rest use the
 * index kernel. Indexing by Python keys (x[key]) stays in the binding
 * (csrc/python/indexing.c): its keys are Python objects. */
#include "index.h"

#include "runtime/args.h"
#include "creation.h"
#include "runtime/table.h"
#include "shape.h"
#include "tensor.h"

#include "../core/overlap.h"
#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../kernels/index.h"

#include <stdio.h>
#include <string.h>

mt_tensor *mt_nonzero_indices(const mt_tensor *t)
{
    mt_tensor *b = mt_new(MT_BOOL, t->ndim, t->sizes, false);
    if (!b)
        return NULL;
    mt_copy(b, t);
    int64_t sizes[2] = {mt_count_set(b), t->ndim};
    mt_tensor *out = mt_new(MT_INT64, 2, sizes, false);
    if (out)
        mt_nonzero_positions(b, sizes[0], (int64_t *)mt_data(out));
    mt_release(b);
    return out;
}

static mt_tensor *clone_of(const mt_tensor *t)
{
    mt_tensor *out = mt_new(t->dtype, t->ndim, t->sizes, false);
    if (out)
        mt_copy(out, t);
    return out;
}

/* "minitorch.Size([2, 3])": how the binding prints a shape in messages. */
static const char *size_text(char *buf, size_t cap, int ndim, const int64_t *sizes)
{
    char shape[256];
    mt_format_shape(shape, sizeof shape, ndim, sizes);
    snprintf(buf, cap, "minitorch.Size(%s)", shape);
    return buf;
}

int impl_cat(mt_args *a, mt_result *r)
{
    int n = a->v[0].nints;
    mt_tensor *const *items = a->v[0].tensors;
    const mt_tensor *ref = NULL;
    mt_dtype out_dtype = MT_BOOL; /* all operands rank alike: promotion is a fold */
    int dim, ref_i = 0;
    if (n == 0)
        return mt_error(MT_ERR_VALUE, "torch.cat(): expected a non-empty list of Tensors");
    /* legacy: 1-d empty tensors are skipped whatever their neighbours' shapes */
    for (int i = 0; i < n; i++) {
        const mt_tensor *t = items[i];
        if (i && mt_check_promotion(out_dtype, t->dtype) < 0)
            return -1;
        out_dtype = i ? mt_promote_types(out_dtype, t->dtype) : t->dtype;
        if (!ref && !(t->ndim == 1 && t->numel == 0)) {
            ref = t;
            ref_i = i;
        }
    }
    if (!ref)
        ref = items[0];
    if (ref->ndim == 0)
        return mt_error(MT_ERR_RUNTIME,
                        "zero-dimensional tensor (at position %d) cannot be concatenated", ref_i);
    if (mt_wrap_dim(a->v[1].i, ref->ndim, &dim) < 0)
        return -1;
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, ref->sizes, sizeof(int64_t) * ref->ndim);
    sizes[dim] = 0;
    for (int i = 0; i < n; i++) {
        const mt_tensor *t = items[i];
        if (t->ndim == 1 && t->numel == 0)
            continue;
        if (t->ndim == 0)
            return mt_error(MT_ERR_RUNTIME,
                            "zero-dimensional tensor (at position %d) cannot be concatenated", i);
        if (t->ndim != ref->ndim)
            return mt_error(MT_ERR_RUNTIME,
                            "Tensors must have same number of dimensions: got %d and %d", ref->ndim,
                            t->ndim);
        for (int d = 0; d < t->ndim; d++)
            if (d != dim && t->sizes[d] != ref->sizes[d])
                return mt_error(MT_ERR_RUNTIME,
                                "Sizes of tensors must match except in dimension %d. Expected "
                                "size %lld but got size %lld for tensor number %d in the list.",
                                dim, (long long)ref->sizes[d], (long long)t->sizes[d], i);
        sizes[dim] += t->sizes[dim];
    }
    mt_tensor *out = mt_new(out_dtype, ref->ndim, sizes, false);
    if (!out)
        return -1;
    int64_t at = 0;
    for (int i = 0; i < n; i++) {
        const mt_tensor *t = items[i];
        if (t->ndim == 1 && t->numel == 0)
            continue;
        mt_tensor part = mt_narrowed(out, dim, at, t->sizes[dim]);
        mt_copy(&part, t);
        at += t->sizes[dim];
    }
    return mt_result_tensor(r, out);
}

int impl_stack(mt_args *a, mt_result *r)
{
    int n = a->v[0].nints;
    mt_tensor *const *items = a->v[0].tensors;
    mt_dtype out_dtype = MT_BOOL; /* all operands rank alike: promotion is a fold */
    int dim;
    if (n == 0)
        return mt_error(MT_ERR_RUNTIME, "stack expects a non-empty TensorList");
    const mt_tensor *ref = items[0];
    if (mt_wrap_dim(a->v[1].i, ref->ndim + 1, &dim) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        const mt_tensor *t = items[i];
        if (i && mt_check_promotion(out_dtype, t->dtype) < 0)
            return -1;
        out_dtype = i ? mt_promote_types(out_dtype, t->dtype) : t->dtype;
        bool same = t->ndim == ref->ndim;
        for (int d = 0; same && d < t->ndim; d++)
            same = t->sizes[d] == ref->sizes[d];
        if (!same) {
            char s0[256], s1[256];
            mt_format_shape(s0, sizeof s0, ref->ndim, ref->sizes);
            mt_format_shape(s1, sizeof s1, t->ndim, t->sizes);
            return mt_error(MT_ERR_RUNTIME,
                            "stack expects each tensor to be equal size, but got %s at entry 0 "
                            "and %s at entry %d",
                            s0, s1, i);
        }
    }
    int64_t sizes[MT_MAX_DIMS];
    for (int d = 0, j = 0; d <= ref->ndim; d++)
        sizes[d] = d == dim ? n : ref->sizes[j++];
    mt_tensor *out = mt_new(out_dtype, ref->ndim + 1, sizes, false);
    if (!out)
        return -1;
    for (int i = 0; i < n; i++) {
        mt_tensor part = mt_narrowed(out, dim, i, 1);
        mt_tensor src = *items[i];
        memmove(src.sizes + dim + 1, src.sizes + dim, sizeof(int64_t) * (src.ndim - dim));
        memmove(src.strides + dim + 1, src.strides + dim, sizeof(int64_t) * (src.ndim - dim));
        src.sizes[dim] = 1;
        src.strides[dim] = 0;
        src.ndim++;
        mt_copy(&part, &src);
    }
    return mt_result_tensor(r, out);
}

/* Whether torch's flip refuses t of a barebones dtype, flipping the dims
 * marked in flipped. Its kernel for these dtypes copies whole runs only: the
 * dim of size above 1 its iterator puts innermost (the one of stride 1 in a
 * dense t, whose layout the result keeps, else the last of size above 1)
 * must be unflipped and of stride 1; every other flip goes through a
 * kernel without entries for them. */
static bool flip_refuses_barebones(const mt_tensor *t, const bool *flipped)
{
    bool dense = mt_tensor_is_non_overlapping_and_dense(t);
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->sizes[d] <= 1 || (dense && t->strides[d] != 1))
            continue;
        return flipped[d] || t->strides[d] != 1;
    }
    return false;
}

int impl_flip(mt_args *a, mt_result *r)
{
    mt_tensor v = *a->v[0].t;
    bool seen[MT_MAX_DIMS] = {false};
    for (int i = 0; i < a->v[1].nints; i++) {
        int d;
        if (mt_wrap_dim(a->v[1].ints[i], v.ndim, &d) < 0)
            return -1;
        if (seen[d])
            return mt_error(MT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims", d);
        seen[d] = true;
        if (v.ndim && v.sizes[d] > 0) {
            v.offset += (v.sizes[d] - 1) * v.strides[d];
            v.strides[d] = -v.strides[d];
        }
    }
    if (mt_is_barebones(v.dtype) && flip_refuses_barebones(a->v[0].t, seen))
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"flip_cpu\" not implemented for '%s'",
                        mt_dtype_infos[v.dtype].scalar_name);
    return mt_result_tensor(r, clone_of(&v));
}

/* dst = src rolled by shift along d (of nonzero size): two copies between views. */
static void roll_into(const mt_tensor *dst, const mt_tensor *src, int d, int64_t shift)
{
    int64_t size = src->sizes[d], s = (shift % size + size) % size;
    mt_tensor d0 = mt_narrowed(dst, d, s, size - s), s0 = mt_narrowed(src, d, 0, size - s);
    mt_tensor d1 = mt_narrowed(dst, d, 0, s), s1 = mt_narrowed(src, d, size - s, s);
    mt_copy(&d0, &s0);
    mt_copy(&d1, &s1);
}

/* A contiguous t seen as 1-d. */
static mt_tensor flat_of(const mt_tensor *t)
{
    mt_tensor v = *t;
    v.ndim = 1;
    v.sizes[0] = v.numel;
    v.strides[0] = 1;
    return v;
}

int impl_roll(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int ns = a->v[1].nints, nd = a->v[2].nints;
    if (nd == 0) {
        if (ns != 1)
            return mt_error(MT_ERR_RUNTIME,
                            "`shifts` required to be of size 1 when `dims` is empty, but got %d",
                            ns);
        mt_tensor *flat = clone_of(t);
        if (!flat)
            return -1;
        mt_tensor f = flat_of(flat);
        mt_tensor *out = mt_new(t->dtype, t->ndim, t->sizes, false);
        if (out && f.numel) {
            mt_tensor o = flat_of(out);
            roll_into(&o, &f, 0, a->v[1].ints[0]);
        }
        mt_release(flat);
        return mt_result_tensor(r, out);
    }
    if (ns != nd)
        return mt_error(MT_ERR_RUNTIME, "shifts and dimensions must align. shifts: %d, dims:%d", ns,
                        nd);
    if (t->ndim == 0) /* torch wraps no dim of a 0-d tensor here */
        return mt_error(MT_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions",
                        (long long)a->v[2].ints[0]);
    mt_tensor *cur = clone_of(t);
    for (int i = 0; cur && i < nd; i++) {
        int d;
        if (mt_wrap_dim(a->v[2].ints[i], t->ndim, &d) < 0) {
            mt_release(cur);
            return -1;
        }
        int64_t size = t->sizes[d];
        mt_tensor *next = mt_new(t->dtype, t->ndim, t->sizes, false);
        if (next && size)
            roll_into(next, cur, d, a->v[1].ints[i]);
        else if (next)
            mt_copy(next, cur);
        mt_release(cur);
        cur = next;
    }
    return mt_result_tensor(r, cur);
}

static mt_tensor *repeat_with(const mt_tensor *t, int n, const int64_t *reps)
{
    if (n < t->ndim) {
        mt_error(MT_ERR_RUNTIME, "Number of dimensions of repeat dims can not be smaller than "
                                 "number of dimensions of tensor");
        return NULL;
    }
    if (2 * n > MT_MAX_DIMS) {
        mt_error(MT_ERR_RUNTIME, "minitorch repeats at most %d dims", MT_MAX_DIMS / 2);
        return NULL;
    }
    int64_t sizes[MT_MAX_DIMS];
    mt_tensor src = {.storage = t->storage,
                     .offset = t->offset,
                     .numel = t->numel,
                     .ndim = 2 * n,
                     .dtype = t->dtype};
    for (int i = 0; i < n; i++) {
        int j = i - (n - t->ndim);
        if (reps[i] < 0) {
            mt_error(MT_ERR_RUNTIME,
                     "Trying to create tensor with negative dimension %lld: ", (long long)reps[i]);
            return NULL;
        }
        int64_t s = j >= 0 ? t->sizes[j] : 1;
        sizes[i] = s * reps[i];
        src.sizes[2 * i] = reps[i];
        src.strides[2 * i] = 0;
        src.sizes[2 * i + 1] = s;
        src.strides[2 * i + 1] = j >= 0 ? t->strides[j] : 0;
    }
    mt_tensor *out = mt_new(t->dtype, n, sizes, false);
    if (!out)
        return NULL;
    mt_tensor dst = src;
    dst.storage = out->storage;
    dst.offset = 0;
    mt_contiguous_strides(dst.ndim, dst.sizes, dst.strides);
    mt_checked_numel(dst.ndim, dst.sizes, &dst.numel);
    mt_copy(&dst, &src);
    return out;
}

int impl_repeat(mt_args *a, mt_result *r)
{
    return mt_result_tensor(r, repeat_with(a->v[0].t, a->v[1].nints, a->v[1].ints));
}

int impl_tile(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int n = a->v[1].nints;
    int64_t reps[MT_MAX_DIMS];
    int pad = t->ndim > n ? t->ndim - n : 0;
    if (n + pad > MT_MAX_DIMS)
        return mt_error(MT_ERR_RUNTIME, "minitorch tiles at most %d dims", MT_MAX_DIMS);
    for (int i = 0; i < pad; i++)
        reps[i] = 1;
    memcpy(reps + pad, a->v[1].ints, sizeof(int64_t) * n);
    return mt_result_tensor(r, repeat_with(t, n + pad, reps));
}

/* An int64 copy of an index tensor, dense. */
static mt_tensor *dense_long(const mt_tensor *ix, const char *op)
{
    if (!mt_is_integral(ix->dtype, false)) {
        mt_error(MT_ERR_RUNTIME, "%s(): Expected dtype int64 for index", op);
        return NULL;
    }
    mt_tensor *o = mt_new(MT_INT64, ix->ndim, ix->sizes, false);
    if (o)
        mt_copy(o, ix);
    return o;
}

/* How an op treats indices outside [0, size): take counts negatives from
 * the end; index_select and index_add_ refuse them, in the words of the
 * torch kernel that a case goes to (index_select along dim 1 of 2 or more
 * dims; index_add_ of an int64 index along the first or last of 2 or more
 * dims, which torch runs as a scatter_add). */
typedef enum { WRAP_NEGATIVE, STRICT, STRICT_DIM1, STRICT_SCATTER } index_rule;

static int index_in_range(const mt_index_plan *p, int dim, int64_t size, index_rule rule)
{
    if (mt_index_all_below(p->index[0], p->index_numel, size))
        return 0;
    for (int64_t j = 0; j < p->index_numel; j++) {
        int64_t i = p->index[0][j];
        if (i >= 0 && i < size)
            continue;
        if (rule == STRICT_DIM1)
            return mt_error(MT_ERR_RUNTIME,
                            "INDICES element is out of DATA bounds, id=%lld axis_dim=%lld",
                            (long long)i, (long long)size);
        if (rule == STRICT_SCATTER)
            return mt_error(MT_ERR_RUNTIME,
                            "index %lld is out of bounds for dimension %d with size %lld",
                            (long long)i, dim, (long long)size);
        return mt_error(MT_ERR_INDEX, "index out of range in self");
    }
    return 0;
}

/* t gathered by one index array along dim: index_select and take. A strict
 * rule refuses negatives, so nothing is wrapped and a dense int64 index is
 * read where it is. */
static mt_tensor *select_along(const mt_tensor *t, int dim, const mt_tensor *index, index_rule rule)
{
    /* index may be a caller's view on its stack: read, never retained */
    mt_tensor *copy = NULL;
    if (rule == WRAP_NEGATIVE || index->dtype != MT_INT64 || !mt_tensor_is_contiguous(index)) {
        if (!(copy = mt_new(MT_INT64, index->ndim, index->sizes, false)))
            return NULL;
        mt_copy(copy, index);
    }
    mt_index_plan p = {.pre = dim,
                       .k = 1,
                       .index_ndim = index->ndim,
                       .index_numel = index->numel,
                       .index = {(int64_t *)mt_data(copy ? copy : index)}};
    memcpy(p.index_sizes, index->sizes, sizeof(int64_t) * index->ndim);
    mt_tensor *out = NULL;
    int nd;
    int64_t shape[MT_MAX_DIMS];
    if ((rule == WRAP_NEGATIVE ? mt_index_wrap(t, &p)
                               : index_in_range(&p, dim, t->ndim ? t->sizes[dim] : 1, rule)) == 0 &&
        mt_index_result_shape(t, &p, &nd, shape) == 0 && (out = mt_new(t->dtype, nd, shape, false)))
        mt_index_gather(t, &p, out);
    mt_xrelease(copy);
    return out;
}

mt_tensor *mt_index_select_backward(const mt_tensor *g, int ndim, const int64_t *sizes, int dim,
                                    const mt_tensor *index)
{
    mt_tensor *ix = dense_long(index, "index_select");
    mt_tensor *t = ix ? mt_new(g->dtype, ndim, sizes, false) : NULL;
    if (t) {
        mt_index_plan p = {.pre = dim,
                           .k = 1,
                           .index_ndim = 1,
                           .index_numel = ix->numel,
                           .index_sizes = {ix->numel},
                           .index = {(int64_t *)mt_data(ix)}};
        mt_index_add_into(t, NULL, &p, g, 1.0, 1);
    }
    mt_xrelease(ix);
    return t;
}

int impl_index_select(mt_args *a, mt_result *r)
{
    mt_tensor t = *a->v[0].t, *ix = a->v[2].t;
    int dim;
    if (mt_wrap_dim(a->v[1].i, t.ndim, &dim) < 0)
        return -1;
    if (ix->ndim > 1)
        return mt_error(MT_ERR_INDEX, "index_select(): Index is supposed to be a vector");
    if (ix->dtype != MT_INT32 && ix->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME, "index_select(): Expected dtype int32 or int64 for index");
    mt_tensor i1 = mt_at_least_1d(ix);
    if (t.ndim == 0) {
        t = mt_at_least_1d(&t);
        mt_tensor *out = select_along(&t, 0, &i1, STRICT);
        if (out)
            out->ndim = 0;
        return mt_result_tensor(r, out);
    }
    if (t.sizes[dim] == 0 && i1.numel > 0)
        return mt_error(MT_ERR_RUNTIME,
                        "index_select(): self indexing axis dim should be positive");
    bool dim1 = t.ndim > 1 && dim == 1 && t.numel > 0;
    return mt_result_tensor(r, select_along(&t, dim, &i1, dim1 ? STRICT_DIM1 : STRICT));
}

int impl_take(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    /* a contiguous input is read where it is */
    mt_tensor *flat = mt_tensor_is_contiguous(t) ? (mt_retain(t), t) : clone_of(t);
    if (!flat)
        return -1;
    mt_tensor f = flat_of(flat);
    mt_tensor *out = NULL;
    if (!mt_is_integral(a->v[1].t->dtype, false))
        mt_error(MT_ERR_RUNTIME, "take(): Expected a long tensor for index, but got Float");
    else if (f.numel == 0 && a->v[1].t->numel > 0)
        mt_error(MT_ERR_INDEX, "take(): tried to take from an empty tensor");
    else
        out = select_along(&f, 0, a->v[1].t, WRAP_NEGATIVE);
    mt_release(flat);
    return mt_result_tensor(r, out);
}

/* The index as the kernels read it, int64 (gather and scatter take int32
 * too): a new reference. */
static mt_tensor *kernel_index(mt_tensor *ix, const char *op)
{
    if (ix->dtype != MT_INT64)
        return dense_long(ix, op);
    mt_retain(ix);
    return ix;
}

int impl_gather(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t, *ix = a->v[2].t;
    int dim;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &dim) < 0)
        return -1;
    /* torch reads neither the dtype nor the shape of an empty index */
    if (ix->numel == 0)
        return mt_result_tensor(r, mt_new(t->dtype, ix->ndim, ix->sizes, false));
    if (ix->dtype != MT_INT64 && ix->dtype != MT_INT32)
        return mt_error(MT_ERR_RUNTIME, "gather(): Expected dtype int32/int64 for index");
    if (ix->ndim != t->ndim && !(t->ndim <= 1 && ix->ndim <= 1))
        return mt_error(MT_ERR_RUNTIME,
                        "Index tensor must have the same number of dimensions as input tensor");
    for (int d = 0; d < ix->ndim && d < t->ndim; d++)
        if (d != dim && ix->sizes[d] > t->sizes[d]) {
            char is[300], ts[300];
            return mt_error(MT_ERR_RUNTIME,
                            "Size does not match at dimension %d expected index %s to be no "
                            "larger than self %s apart from dimension %d",
                            d, size_text(is, sizeof is, ix->ndim, ix->sizes),
                            size_text(ts, sizeof ts, t->ndim, t->sizes), dim);
        }
    mt_tensor *out = mt_new(t->dtype, ix->ndim, ix->sizes, false);
    mt_tensor *wide = out ? kernel_index(ix, "gather") : NULL;
    if (out && (!wide || mt_gather_dim(t, dim, wide, out) < 0)) {
        mt_release(out);
        out = NULL;
    }
    mt_xrelease(wide);
    return mt_result_tensor(r, out);
}

mt_tensor *mt_gather_backward(const mt_tensor *g, int ndim, const int64_t *sizes, int dim,
                              const mt_tensor *index)
{
    mt_tensor *t = mt_new(g->dtype, ndim, sizes, false);
    mt_tensor *wide = t ? kernel_index((mt_tensor *)index, "gather") : NULL;
    if (t && (!wide || mt_scatter_dim_into(t, NULL, dim, wide, g, MT_PUT_ADD) < 0)) {
        mt_release(t);
        t = NULL;
    }
    mt_xrelease(wide);
    return t;
}

/* src_first: each position the index names first takes one of its src
 * values, then the op combines the rest (self's value left out, for an
 * idempotent op: max, min). */
static int scatter_common(mt_args *a, mt_result *r, mt_put_op op, bool has_reduce, bool src_first)
{
    bool inplace = mt_inplace_target(a) != NULL;
    mt_tensor *t = a->v[0].t, *ix = a->v[2].t;
    int dim;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &dim) < 0)
        return -1;
    bool empty = ix->numel == 0;
    if (!empty && ix->dtype != MT_INT64 && ix->dtype != MT_INT32)
        return mt_error(MT_ERR_RUNTIME, "scatter(): Expected dtype int32/int64 for index");
    const mt_value *v = &a->v[3];
    if (!v->is_scalar && v->t->dtype != t->dtype)
        return mt_error(MT_ERR_RUNTIME, "scatter(): Expected self.dtype to be equal to src.dtype");
    /* nothing to write, and torch checks no shape of an empty index */
    if (empty) {
        mt_tensor *same = inplace ? (mt_retain(t), t) : mt_new(t->dtype, t->ndim, t->sizes, false);
        if (same && !inplace)
            mt_copy(same, t);
        return mt_result_tensor(r, same);
    }
    if (ix->ndim != t->ndim && !(t->ndim <= 1 && ix->ndim <= 1))
        return mt_error(MT_ERR_RUNTIME,
                        "Index tensor must have the same number of dimensions as self tensor");
    if (!v->is_scalar && v->t->ndim != ix->ndim && !(v->t->ndim <= 1 && ix->ndim <= 1))
        return mt_error(MT_ERR_RUNTIME,
                        "Index tensor must have the same number of dimensions as src tensor");
    /* the kernel writes at the index's positions in self and reads src there */
    for (int d = 0; d < ix->ndim; d++) {
        bool over_self = d != dim && d < t->ndim && ix->sizes[d] > t->sizes[d];
        bool over_src = !v->is_scalar && d < v->t->ndim && ix->sizes[d] > v->t->sizes[d];
        if (over_self || over_src) {
            char is[300], ts[300], ss[300];
            mt_format_shape(is, sizeof is, ix->ndim, ix->sizes);
            mt_format_shape(ts, sizeof ts, t->ndim, t->sizes);
            if (v->is_scalar)
                return mt_error(MT_ERR_RUNTIME,
                                "Expected index %s to be no larger than self %s apart from "
                                "dimension %d",
                                is, ts, dim);
            mt_format_shape(ss, sizeof ss, v->t->ndim, v->t->sizes);
            return mt_error(MT_ERR_RUNTIME,
                            "Expected index %s to be no larger than self %s apart from "
                            "dimension %d and to be no larger size than src %s",
                            is, ts, dim, ss);
        }
    }
    /* out of place, self is copied into out by the scatter itself */
    mt_tensor *out = t;
    if (inplace)
        mt_retain(out);
    else if (!(out = mt_new(t->dtype, t->ndim, t->sizes, false)))
        return -1;
    /* src read in place through its part the index covers, unless it must
     * be made (a scalar), converted, or shares the written memory */
    mt_tensor part = v->is_scalar ? *t : *v->t;
    for (int d = 0; d < ix->ndim && d < part.ndim; d++)
        part.sizes[d] = ix->sizes[d];
    mt_checked_numel(part.ndim, part.sizes, &part.numel);
    mt_tensor *src = NULL;
    if (v->is_scalar || part.dtype != t->dtype || part.storage == out->storage) {
        if (!(src = mt_new(t->dtype, ix->ndim, ix->sizes, false))) {
            mt_release(out);
            return -1;
        }
        if (v->is_scalar)
            mt_fill_scalar(src, &v->s);
        else
            mt_copy(src, &part);
    }
    if (has_reduce && !mt_is_none(a, 4)) {
        if (!strcmp(a->v[4].str, "add"))
            op = MT_PUT_ADD;
        else if (!strcmp(a->v[4].str, "multiply"))
            op = MT_PUT_MUL;
        else {
            mt_release(out);
            mt_xrelease(src);
            return mt_error(MT_ERR_RUNTIME, "reduce argument must be either add or multiply.");
        }
    }
    mt_tensor *wide = kernel_index(ix, "scatter");
    const mt_tensor *vals = src ? src : &part;
    mt_put_op first = src_first ? MT_PUT_SET : op;
    int rc = !wide     ? -1
             : inplace ? mt_scatter_dim(out, dim, wide, vals, first)
                       : mt_scatter_dim_into(out, t, dim, wide, vals, first);
    if (rc == 0 && first != op)
        rc = mt_scatter_dim(out, dim, wide, vals, op);
    mt_xrelease(wide);
    mt_xrelease(src);
    if (rc < 0) {
        mt_release(out);
        return -1;
    }
    mt_bump_version(out);
    return mt_result_tensor(r, out);
}

int impl_scatter(mt_args *a, mt_result *r) { return scatter_common(a, r, MT_PUT_SET, true, false); }

int impl_scatter_add(mt_args *a, mt_result *r)
{
    return scatter_common(a, r, MT_PUT_ADD, false, false);
}

/* scatter_reduce's amax / amin values (its checks and gradient are in
 * minitorch/composites_scatter_reduce.py) */
int impl_scatter_extreme(mt_args *a, mt_result *r)
{
    bool largest = a->v[4].b, include_self = a->v[5].b;
    return scatter_common(a, r, largest ? MT_PUT_MAX : MT_PUT_MIN, false, !include_self);
}

/* torch's checks of index_add before it reads an index, in its order and
 * words (index_func_meta_impl). A 0-dim source stands for one slice;
 * torch words a count that does not match it by failing to read its size. */
static int index_add_checks(const mt_tensor *t, int dim, const mt_tensor *ix, const mt_tensor *src)
{
    char s0[256], s1[256];
    if (ix->ndim > 1) {
        mt_format_shape(s0, sizeof s0, ix->ndim, ix->sizes);
        return mt_error(MT_ERR_INDEX,
                        "index_add_(): Index is supposed to be a vector, but got dim: %d with "
                        "type: %s and size: %s",
                        ix->ndim, mt_dtype_infos[ix->dtype].scalar_name, s0);
    }
    if (ix->dtype != MT_INT64 && ix->dtype != MT_INT32)
        return mt_error(MT_ERR_RUNTIME,
                        "index_add_(): Expected dtype int32/int64 for index but got: %s",
                        mt_dtype_infos[ix->dtype].scalar_name);
    if (src->dtype != t->dtype)
        return mt_error(MT_ERR_RUNTIME,
                        "index_add_(): self (%s) and source (%s) must have the same scalar type",
                        mt_dtype_infos[t->dtype].scalar_name,
                        mt_dtype_infos[src->dtype].scalar_name);
    if (dim != 0 && dim >= src->ndim)
        return mt_error(MT_ERR_RUNTIME,
                        "index_add_(): Indexing dim %d is out of bounds of the source tensor "
                        "with dim %d",
                        dim, src->ndim);
    if (src->ndim == 0 && ix->numel != 1)
        return mt_error(MT_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
    if (src->ndim && ix->numel != src->sizes[dim])
        return mt_error(MT_ERR_RUNTIME,
                        "index_add_(): Number of indices (%lld) should be equal to "
                        "source.size(dim): (%lld), for dim: %d",
                        (long long)ix->numel, (long long)src->sizes[dim], dim);
    /* the shapes match apart from dim, or whole when either is 0-dim */
    bool cut = t->ndim && src->ndim, same = t->ndim == src->ndim;
    for (int d = 0; same && d < t->ndim; d++)
        same = (cut && d == dim) || t->sizes[d] == src->sizes[d];
    if (same)
        return 0;
    mt_format_shape(s0, sizeof s0, t->ndim, t->sizes);
    mt_format_shape(s1, sizeof s1, src->ndim, src->sizes);
    return mt_error(MT_ERR_RUNTIME,
                    "source tensor shape must match self tensor shape, excluding the specified "
                    "dimension. Got self.shape = %s source.shape = %s",
                    s0, s1);
}

/* index_add and index_add_: out = self (a copy, or self itself in place),
 * out[.., index[j], ..] += alpha * source[.., j, ..] in index order. */
int impl_index_add(mt_args *a, mt_result *r)
{
    bool inplace = mt_inplace_target(a) != NULL;
    mt_tensor t = *a->v[0].t, *ix = a->v[2].t, s = *a->v[3].t;
    const mt_scalar *alpha = &a->v[4].s;
    int dim;
    if (mt_wrap_dim(a->v[1].i, t.ndim, &dim) < 0 || index_add_checks(&t, dim, ix, &s) < 0 ||
        mt_check_scalar_fits(alpha, t.dtype) < 0)
        return -1;
    if (alpha->kind == MT_SCALAR_COMPLEX && alpha->im != 0)
        return mt_error(MT_ERR_NOT_IMPLEMENTED,
                        "index_add_(): minitorch takes no complex alpha with an imaginary part");
    /* torch converts alpha to self's dtype (bool: nonzero); a float alpha
     * fits an integer dtype here, and a floating one never reads alpha_i */
    int64_t alpha_i = alpha->kind != MT_SCALAR_FLOAT ? alpha->i : 0;
    if (t.dtype == MT_BOOL)
        alpha_i = alpha->kind != MT_SCALAR_FLOAT ? alpha->i != 0 : alpha->f != 0;
    else if (alpha->kind == MT_SCALAR_FLOAT && !mt_is_floating(t.dtype))
        alpha_i = (int64_t)alpha->f;
    /* a 0-dim self and source are one slice of one element */
    t = mt_at_least_1d(&t);
    s = mt_at_least_1d(&s);
    mt_tensor *ixl = dense_long(ix, "index_add_");
    if (!ixl)
        return -1;
    mt_index_plan p = {.pre = dim,
                       .k = 1,
                       .index_ndim = 1,
                       .index_numel = ix->numel,
                       .index_sizes = {ix->numel},
                       .index = {(int64_t *)mt_data(ixl)}};
    /* torch checks no index of an empty self of 2 or more dims; the rest in
     * the words of the kernel a case goes to (see index_rule) */
    bool checked = !(t.ndim > 1 && (t.numel == 0 || ix->numel == 0));
    bool as_scatter =
        t.ndim > 1 && ix->dtype == MT_INT64 && alpha->f == 1.0 && (dim == 0 || dim == t.ndim - 1);
    mt_tensor *out = NULL;
    if (checked && index_in_range(&p, dim, t.sizes[dim], as_scatter ? STRICT_SCATTER : STRICT) < 0)
        goto done;
    if (inplace) {
        if (checked)
            mt_index_put(&t, &p, &s, MT_PUT_ADD, alpha->f, alpha_i);
        out = a->v[0].t;
        mt_bump_version(out);
        mt_retain(out);
    } else if ((out = mt_new(t.dtype, a->v[0].t->ndim, a->v[0].t->sizes, false))) {
        mt_tensor o = mt_at_least_1d(out);
        if (checked)
            mt_index_add_into(&o, &t, &p, &s, alpha->f, alpha_i);
        else
            mt_copy(out, a->v[0].t);
    }
done:
    mt_release(ixl);
    return mt_result_tensor(r, out);
}

static int masked_fill_into(mt_tensor *dst, mt_args *a)
{
    mt_tensor *mask = a->v[1].t;
    if (mask->dtype != MT_BOOL)
        return mt_error(MT_ERR_RUNTIME,
                        "masked_fill_ only supports boolean masks, but got mask with dtype %s",
                        mt_dtype_infos[mask->dtype].name);
    int nd = dst->ndim;
    int64_t shape[MT_MAX_DIMS];
    memcpy(shape, dst->sizes, sizeof(int64_t) * nd);
    if (mt_broadcast_into(&nd, shape, mask->ndim, mask->sizes) < 0)
        return -1;
    if (nd != dst->ndim || memcmp(shape, dst->sizes, sizeof(int64_t) * nd)) {
        char ds[300], bs[300];
        return mt_error(MT_ERR_RUNTIME, "output with shape %s doesn't match the broadcast shape %s",
                        size_text(ds, sizeof ds, dst->ndim, dst->sizes),
                        size_text(bs, sizeof bs, nd, shape));
    }
    const mt_value *v = &a->v[2];
    if (!v->is_scalar && v->t->ndim != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "masked_fill_ only supports a 0-dimensional value tensor, but got "
                        "tensor with %d dimension(s).",
                        v->t->ndim);
    /* torch reads a value tensor as a number, then converts it with checks */
    mt_scalar num = v->is_scalar ? v->s : mt_scalar_at(v->t, mt_data(v->t));
    if (mt_check_scalar_fits(&num, dst->dtype) < 0)
        return -1;
    mt_tensor *val = mt_new(dst->dtype, 0, NULL, false);
    if (!val)
        return -1;
    if (v->is_scalar)
        mt_fill_scalar(val, &v->s);
    else
        mt_copy(val, v->t);
    mt_masked_fill(dst, mask, val);
    mt_release(val);
    mt_bump_version(dst);
    return 0;
}

int impl_masked_fill(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    if (mt_inplace_target(a)) {
        if (masked_fill_into(t, a) < 0)
            return -1;
        mt_retain(t);
        return mt_result_tensor(r, t);
    }
    int nd = t->ndim;
    int64_t shape[MT_MAX_DIMS];
    memcpy(shape, t->sizes, sizeof(int64_t) * nd);
    if (mt_broadcast_into(&nd, shape, a->v[1].t->ndim, a->v[1].t->sizes) < 0)
        return -1;
    mt_tensor *out = mt_new(t->dtype, nd, shape, false);
    if (!out)
        return -1;
    mt_copy(out, t);
    if (masked_fill_into(out, a) < 0) {
        mt_release(out);
        return -1;
    }
    return mt_result_tensor(r, out);
}

static int nonzero(const mt_tensor *t, bool as_tuple, mt_result *r)
{
    mt_tensor *pos = mt_nonzero_indices(t);
    if (!pos || !as_tuple)
        return mt_result_tensor(r, pos);
    int n = t->ndim ? t->ndim : 1;
    if (mt_result_alloc(r, MT_RESULT_TUPLE, n) < 0) {
        mt_release(pos);
        return -1;
    }
    for (int j = 0; j < n; j++) {
        int64_t cs = pos->sizes[0], st = t->ndim;
        mt_tensor col = *pos;
        col.ndim = 1;
        col.sizes[0] = cs;
        col.strides[0] = st;
        col.offset = t->ndim ? j : 0;
        col.numel = cs;
        if (!(r->t[j] = mt_new(MT_INT64, 1, &cs, true))) {
            mt_result_clear(r);
            mt_release(pos);
            return -1;
        }
        if (t->ndim)
            mt_copy(r->t[j], &col);
    }
    mt_release(pos);
    return 0;
}

int impl_nonzero(mt_args *a, mt_result *r) { return nonzero(a->v[0].t, a->v[1].b, r); }

/* where(condition) is nonzero(condition, as_tuple=True) */
int impl_where_condition(mt_args *a, mt_result *r) { return nonzero(a->v[0].t, true, r); }

int impl_masked_select(mt_args *a, mt_result *r)
{
    mt_tensor t = *a->v[0].t, m = *a->v[1].t;
    if (m.dtype != MT_BOOL)
        return mt_error(MT_ERR_RUNTIME, "masked_select: expected BoolTensor for mask");
    int nd = t.ndim;
    int64_t shape[MT_MAX_DIMS];
    memcpy(shape, t.sizes, sizeof(int64_t) * nd);
    if (mt_broadcast_into(&nd, shape, m.ndim, m.sizes) < 0)
        return -1;
    mt_tensor *tb = mt_new(t.dtype, nd, shape, false);
    mt_tensor *mb = tb ? mt_new(MT_BOOL, nd, shape, false) : NULL;
    mt_tensor *out = NULL;
    if (tb && mb) {
        mt_copy(tb, &t);
        mt_copy(mb, &m);
        int64_t n = mt_count_set(mb);
        if ((out = mt_new(t.dtype, 1, &n, false))) {
            const uint8_t *mp = (const uint8_t *)mt_data(mb);
            const char *sp = mt_data(tb);
            char *op = mt_data(out);
            int isz = mt_itemsize(t.dtype);
            for (int64_t i = 0; i < mb->numel; i++)
                if (mp[i]) {
                    memcpy(op, sp + i * isz, isz);
                    op += isz;
                }
        }
    }
    mt_xrelease(tb);
    mt_xrelease(mb);
    return mt_result_tensor(r, out);
}

static int triangle(mt_args *a, mt_result *r, bool lower)
{
    mt_tensor *t = a->v[0].t;
    if (t->ndim < 2)
        return mt_error(MT_ERR_RUNTIME, "%s: input tensor must have at least 2 dimensions",
                        lower ? "tril" : "triu");
    mt_tensor *out = clone_of(t);
    if (out)
        mt_triangle_zero(out, a->v[1].i, lower);
    return mt_result_tensor(r, out);
}

int impl_tril(mt_args *a, mt_result *r) { return triangle(a, r, true); }
int impl_triu(mt_args *a, mt_result *r) { return triangle(a, r, false); }
