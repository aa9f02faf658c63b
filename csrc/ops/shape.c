/* Views and shape manipulation: new geometry over the input's storage, and
 * the copies torch falls back to when no view can give the result (reshape,
 * flatten, clone). Plain C: impls read typed mt_args, make tensors through
 * the owner hooks (core/owner.h), run the copy kernel and report failures
 * with mt_error; nothing here may touch Python. */
#include "shape.h"
#include "memory_format.h"

#include "runtime/args.h"
#include "runtime/signature.h"
#include "tensor.h"

#include "../core/shape.h"
#include "../kernels/copy.h"

#include <stdlib.h>
#include <string.h>

mt_tensor mt_narrowed(const mt_tensor *t, int dim, int64_t start, int64_t len)
{
    mt_tensor v = *t;
    v.offset += start * t->strides[dim];
    v.sizes[dim] = len;
    v.numel = t->sizes[dim] ? t->numel / t->sizes[dim] * len : 0;
    return v;
}

static int too_many_dims(void)
{
    return mt_error(MT_ERR_RUNTIME, "minitorch supports at most %d dimensions", MT_MAX_DIMS);
}

static mt_tensor *view_of(mt_args *a, int ndim, const int64_t *sizes, const int64_t *strides,
                          int64_t offset)
{
    return mt_new_view(a->v[0].t, ndim, sizes, strides, offset);
}

/* The input itself as the result: the runner then records nothing, as torch
 * returns self from these ops. */
static int same_tensor(mt_args *a, mt_result *r)
{
    mt_retain(a->v[0].t);
    return mt_result_tensor(r, a->v[0].t);
}

/* t's elements in C order in a fresh tensor of the given shape. */
static mt_tensor *reshaped_copy(const mt_tensor *t, int ndim, const int64_t *sizes)
{
    mt_tensor *out = mt_new(t->dtype, ndim, sizes, false);
    if (!out)
        return NULL;
    /* the copy pairs elements by position, so the output is seen with the
     * input's shape */
    mt_tensor dst = *out;
    dst.ndim = t->ndim;
    memcpy(dst.sizes, t->sizes, sizeof(int64_t) * t->ndim);
    mt_contiguous_strides(t->ndim, t->sizes, dst.strides);
    mt_copy(&dst, t);
    return out;
}

static int incompatible_view(void)
{
    return mt_error(MT_ERR_RUNTIME,
                    "view size is not compatible with input tensor's size and stride (at "
                    "least one dimension spans across two contiguous subspaces). Use "
                    ".reshape(...) instead.");
}

/* The size argument of view/reshape with its -1 filled in, into sizes;
 * its length, or -1 with an error. */
static int target_sizes(const mt_args *a, int64_t *sizes)
{
    int n = a->v[1].nints;
    if (n > MT_MAX_DIMS)
        return too_many_dims();
    memcpy(sizes, a->v[1].ints, sizeof(int64_t) * n);
    return mt_infer_size(n, sizes, a->v[0].t->numel) < 0 ? -1 : n;
}

int impl_view(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    int n = target_sizes(a, sizes);
    if (n < 0)
        return -1;
    if (!mt_view_strides(t->ndim, t->sizes, t->strides, n, sizes, strides))
        return incompatible_view();
    return mt_result_tensor(r, view_of(a, n, sizes, strides, t->offset));
}

int impl_reshape(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    int n = target_sizes(a, sizes);
    if (n < 0)
        return -1;
    if (mt_view_strides(t->ndim, t->sizes, t->strides, n, sizes, strides))
        return mt_result_tensor(r, view_of(a, n, sizes, strides, t->offset));
    return mt_result_tensor(r, reshaped_copy(t, n, sizes));
}

static mt_tensor *transposed(mt_args *a, int d0, int d1)
{
    mt_tensor *t = a->v[0].t;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof(int64_t) * t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * t->ndim);
    if (t->ndim) {
        int64_t s = sizes[d0];
        sizes[d0] = sizes[d1];
        sizes[d1] = s;
        s = strides[d0];
        strides[d0] = strides[d1];
        strides[d1] = s;
    }
    return view_of(a, t->ndim, sizes, strides, t->offset);
}

int impl_t(mt_args *a, mt_result *r)
{
    int nd = a->v[0].t->ndim;
    if (nd > 2)
        return mt_error(MT_ERR_RUNTIME,
                        "%s() expects a tensor with <= 2 dimensions, but self is %dD", a->sig->name,
                        nd);
    return mt_result_tensor(r, transposed(a, 0, nd == 2 ? 1 : 0));
}

int impl_transpose(mt_args *a, mt_result *r)
{
    int d0, d1, nd = a->v[0].t->ndim;
    if (mt_wrap_dim(a->v[1].i, nd, &d0) < 0 || mt_wrap_dim(a->v[2].i, nd, &d1) < 0)
        return -1;
    return mt_result_tensor(r, transposed(a, d0, d1));
}

int impl_permute(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    bool seen[MT_MAX_DIMS] = {false};
    if (a->v[1].nints != t->ndim)
        return mt_error(MT_ERR_RUNTIME,
                        "permute(sparse_coo): number of dimensions in the tensor input does "
                        "not match the length of the desired ordering of dimensions i.e. "
                        "input.dim() = %d is not equal to len(dims) = %d",
                        t->ndim, a->v[1].nints);
    for (int i = 0; i < t->ndim; i++) {
        int d;
        if (mt_wrap_dim(a->v[1].ints[i], t->ndim, &d) < 0)
            return -1;
        if (seen[d])
            return mt_error(MT_ERR_RUNTIME, "permute(): duplicate dims are not allowed.");
        seen[d] = true;
        sizes[i] = t->sizes[d];
        strides[i] = t->strides[d];
    }
    return mt_result_tensor(r, view_of(a, t->ndim, sizes, strides, t->offset));
}

int impl_unsqueeze(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int d;
    if (mt_wrap_dim(a->v[1].i, t->ndim + 1, &d) < 0)
        return -1;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    if (t->ndim + 1 > MT_MAX_DIMS)
        return too_many_dims();
    for (int i = 0, j = 0; i <= t->ndim; i++) {
        if (i == d) {
            sizes[i] = 1;
            strides[i] = j < t->ndim ? t->strides[j] * t->sizes[j] : 1;
            continue;
        }
        sizes[i] = t->sizes[j];
        strides[i] = t->strides[j];
        j++;
    }
    return mt_result_tensor(r, view_of(a, t->ndim + 1, sizes, strides, t->offset));
}

int impl_expand(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int n = a->v[1].nints;
    const int64_t *req = a->v[1].ints;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    if (n < t->ndim) {
        char want[256];
        mt_format_shape(want, sizeof want, n, req);
        return mt_error(MT_ERR_RUNTIME,
                        "expand(minitorch.FloatTensor{...}, size=%s): the number of sizes "
                        "provided (%d) must be greater or equal to the number of dimensions "
                        "in the tensor (%d)",
                        want, n, t->ndim);
    }
    if (n > MT_MAX_DIMS)
        return too_many_dims();
    for (int i = n - 1; i >= 0; i--) {
        int j = i - (n - t->ndim);
        int64_t have = j >= 0 ? t->sizes[j] : 1;
        int64_t want = req[i];
        if (j < 0 && want < 0)
            return mt_error(MT_ERR_RUNTIME,
                            "The expanded size of the tensor (%lld) isn't allowed in a "
                            "leading, non-existing dimension %d",
                            (long long)want, i);
        if (want == -1)
            want = have;
        if (have == want) {
            sizes[i] = want;
            strides[i] = j >= 0 ? t->strides[j] : 0;
        } else if (have == 1 && want >= 0) {
            sizes[i] = want;
            strides[i] = 0;
        } else {
            char target[256], current[256];
            mt_format_shape(target, sizeof target, n, req);
            mt_format_shape(current, sizeof current, t->ndim, t->sizes);
            return mt_error(MT_ERR_RUNTIME,
                            "The expanded size of the tensor (%lld) must match the existing "
                            "size (%lld) at non-singleton dimension %d.  Target sizes: %s.  "
                            "Tensor sizes: %s",
                            (long long)want, (long long)have, i, target, current);
        }
    }
    return mt_result_tensor(r, view_of(a, n, sizes, strides, t->offset));
}

/* clone(input, *, memory_format): preserve_format by default */
int impl_clone(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    mt_tensor *out = mt_new_in_format(t, t->dtype, mt_format_arg(a, 1, MT_FORMAT_PRESERVE));
    if (out)
        mt_copy(out, t);
    return mt_result_tensor(r, out);
}

/* contiguous(input, *, memory_format): self when already laid out so */
int impl_contiguous(mt_args *a, mt_result *r)
{
    mt_memory_format f = mt_format_arg(a, 1, MT_FORMAT_CONTIGUOUS);
    if (mt_is_contiguous_as(a->v[0].t, f))
        return same_tensor(a, r);
    if (f == MT_FORMAT_PRESERVE)
        return mt_error(MT_ERR_RUNTIME,
                        "preserve memory format is unsupported by the contiguous operator");
    mt_tensor *t = a->v[0].t;
    mt_tensor *out = mt_new_in_format(t, t->dtype, f);
    if (out)
        mt_copy(out, t);
    return mt_result_tensor(r, out);
}

int impl_detach(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    return mt_result_tensor(r, view_of(a, t->ndim, t->sizes, t->strides, t->offset));
}

/* Geometry being built for a view: starts as a copy of the input's. */
typedef struct {
    int ndim;
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    int64_t offset;
} geom;

static void geom_of(geom *g, const mt_tensor *t)
{
    g->ndim = t->ndim;
    memcpy(g->sizes, t->sizes, sizeof(int64_t) * t->ndim);
    memcpy(g->strides, t->strides, sizeof(int64_t) * t->ndim);
    g->offset = t->offset;
}

static void geom_drop(geom *g, int d)
{
    memmove(g->sizes + d, g->sizes + d + 1, sizeof(int64_t) * (g->ndim - d - 1));
    memmove(g->strides + d, g->strides + d + 1, sizeof(int64_t) * (g->ndim - d - 1));
    g->ndim--;
}

static mt_tensor *geom_view(mt_args *a, const geom *g)
{
    return view_of(a, g->ndim, g->sizes, g->strides, g->offset);
}

int impl_flatten(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int s, e;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &s) < 0 || mt_wrap_dim(a->v[2].i, t->ndim, &e) < 0)
        return -1;
    if (s > e)
        return mt_error(MT_ERR_RUNTIME,
                        "flatten() has invalid args: start_dim cannot come after end_dim");
    if (t->ndim == 0) {
        int64_t one = 1;
        return mt_result_tensor(r, view_of(a, 1, &one, &one, t->offset));
    }
    if (s == e)
        return same_tensor(a, r);
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (d > s && d <= e)
            sizes[n - 1] *= t->sizes[d];
        else
            sizes[n++] = t->sizes[d];
    }
    if (mt_view_strides(t->ndim, t->sizes, t->strides, n, sizes, strides))
        return mt_result_tensor(r, view_of(a, n, sizes, strides, t->offset));
    /* torch's flatten falls back to a copy (reshape semantics) */
    return mt_result_tensor(r, reshaped_copy(t, n, sizes));
}

int impl_unflatten(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int d, n = a->v[2].nints;
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d) < 0)
        return -1;
    if (n == 0)
        return mt_error(MT_ERR_RUNTIME, "unflatten: sizes must be non-empty");
    if (t->ndim - 1 + n > MT_MAX_DIMS)
        return too_many_dims();
    int64_t part[MT_MAX_DIMS];
    memcpy(part, a->v[2].ints, sizeof(int64_t) * n);
    int64_t have = t->ndim ? t->sizes[d] : 1;
    int64_t known = 1;
    int infer = -1;
    for (int i = 0; i < n; i++) {
        if (part[i] == -1) {
            if (infer >= 0)
                return mt_error(MT_ERR_RUNTIME, "only one dimension can be inferred");
            infer = i;
        } else {
            known *= part[i];
        }
    }
    if (infer >= 0 && known != 0 && have % known == 0)
        part[infer] = have / known;
    else if (infer >= 0 && known == 0 && have == 0)
        part[infer] = 0;
    if ((infer >= 0 && part[infer] == -1) || (infer < 0 && known != have)) {
        char buf[256];
        mt_format_shape(buf, sizeof buf, n, a->v[2].ints);
        return mt_error(MT_ERR_RUNTIME,
                        "unflatten: Provided sizes %s don't multiply up to the size of dim "
                        "%d (%lld) in the input tensor",
                        buf, d, (long long)have);
    }
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    int m = 0;
    for (int i = 0; i < t->ndim || (t->ndim == 0 && i == 0); i++) {
        if (i == d)
            for (int k = 0; k < n; k++)
                sizes[m++] = part[k];
        else
            sizes[m++] = t->sizes[i];
    }
    if (!mt_view_strides(t->ndim, t->sizes, t->strides, m, sizes, strides))
        return incompatible_view();
    return mt_result_tensor(r, view_of(a, m, sizes, strides, t->offset));
}

/* Drops the size-1 dims whose flags are set (all size-1 dims when mask is NULL). */
static int squeeze_dims(mt_args *a, mt_result *r, const bool *mask)
{
    geom g;
    geom_of(&g, a->v[0].t);
    for (int d = g.ndim - 1; d >= 0; d--)
        if (g.sizes[d] == 1 && (!mask || mask[d]))
            geom_drop(&g, d);
    return mt_result_tensor(r, geom_view(a, &g));
}

int impl_squeeze(mt_args *a, mt_result *r) { return squeeze_dims(a, r, NULL); }

int impl_squeeze_dim(mt_args *a, mt_result *r)
{
    bool mask[MT_MAX_DIMS] = {false};
    int d;
    if (mt_wrap_dim(a->v[1].i, a->v[0].t->ndim, &d) < 0)
        return -1;
    mask[d] = true;
    return squeeze_dims(a, r, mask);
}

int impl_squeeze_dims(mt_args *a, mt_result *r)
{
    bool mask[MT_MAX_DIMS] = {false};
    for (int i = 0; i < a->v[1].nints; i++) {
        int d;
        if (mt_wrap_dim(a->v[1].ints[i], a->v[0].t->ndim, &d) < 0)
            return -1;
        if (mask[d])
            return mt_error(MT_ERR_RUNTIME, "dim %d appears multiple times in the list of dims", d);
        mask[d] = true;
    }
    return squeeze_dims(a, r, mask);
}

int impl_adjoint(mt_args *a, mt_result *r)
{
    int nd = a->v[0].t->ndim;
    if (nd < 2)
        return mt_error(MT_ERR_RUNTIME,
                        "tensor.adjoint() is only supported on matrices or batches of "
                        "matrices. Got %d-D tensor.",
                        nd);
    /* the conjugate transpose: a complex input's view flips the conjugate bit */
    mt_tensor *v = transposed(a, nd - 2, nd - 1);
    if (v && mt_is_complex(v->dtype))
        v->flags ^= MT_FLAG_CONJ;
    return mt_result_tensor(r, v);
}

/* Runs impl with the other tensor's shape as its int[] argument. */
static int with_shape_of(mt_args *a, mt_result *r, int (*impl)(mt_args *, mt_result *))
{
    mt_tensor *o = a->v[1].t;
    memcpy(a->listbuf[1], o->sizes, sizeof(int64_t) * o->ndim);
    a->v[1].ints = a->listbuf[1];
    a->v[1].nints = o->ndim;
    return impl(a, r);
}

int impl_view_as(mt_args *a, mt_result *r) { return with_shape_of(a, r, impl_view); }
int impl_reshape_as(mt_args *a, mt_result *r) { return with_shape_of(a, r, impl_reshape); }
int impl_expand_as(mt_args *a, mt_result *r) { return with_shape_of(a, r, impl_expand); }

static mt_tensor *narrowed(mt_args *a, int d, int64_t start, int64_t length)
{
    mt_tensor g = mt_narrowed(a->v[0].t, d, start, length);
    return view_of(a, g.ndim, g.sizes, g.strides, g.offset);
}

/* narrow's view of a->v[0] along a->v[1] from start for a->v[3] elements */
static int narrow_from(mt_args *a, mt_result *r, int64_t start)
{
    mt_tensor *t = a->v[0].t;
    int d;
    if (t->ndim == 0)
        return mt_error(MT_ERR_RUNTIME, "narrow() cannot be applied to a 0-dim tensor.");
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d) < 0)
        return -1;
    int64_t length = a->v[3].i, size = t->sizes[d];
    if (length < 0)
        return mt_error(MT_ERR_RUNTIME, "narrow(): length must be non-negative.");
    if (start < -size || start > size)
        return mt_error(MT_ERR_INDEX,
                        "start out of range (expected to be in range of [%lld, %lld], but "
                        "got %lld)",
                        (long long)-size, (long long)size, (long long)start);
    if (start < 0)
        start += size;
    if (start > size - length)
        return mt_error(MT_ERR_RUNTIME,
                        "start (%lld) + length (%lld) exceeds dimension size (%lld).",
                        (long long)start, (long long)length, (long long)size);
    return mt_result_tensor(r, narrowed(a, d, start, length));
}

int impl_narrow(mt_args *a, mt_result *r) { return narrow_from(a, r, a->v[2].i); }

/* narrow(input, dim, start, length) with start a 0-dim integer tensor */
int impl_narrow_tensor(mt_args *a, mt_result *r)
{
    const mt_tensor *s = a->v[2].t;
    if (s->ndim != 0 || !mt_is_integral(s->dtype, false))
        return mt_error(MT_ERR_RUNTIME, "start must be an 0-dim integral Tensor.");
    return narrow_from(a, r, mt_scalar_at(s, mt_data(s)).i);
}

static mt_tensor *selected(mt_args *a, int d, int64_t index)
{
    geom g;
    geom_of(&g, a->v[0].t);
    g.offset += index * g.strides[d];
    geom_drop(&g, d);
    return geom_view(a, &g);
}

int impl_select(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int d;
    if (t->ndim == 0)
        return mt_error(MT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
    if (mt_wrap_dim(a->v[1].i, t->ndim, &d) < 0)
        return -1;
    int64_t i = a->v[2].i, size = t->sizes[d];
    if (i < -size || i >= size) {
        char buf[256];
        mt_format_shape(buf, sizeof buf, t->ndim, t->sizes);
        return mt_error(MT_ERR_INDEX,
                        "select(): index %lld out of range for tensor of size %s at "
                        "dimension %d",
                        (long long)i, buf, d);
    }
    return mt_result_tensor(r, selected(a, d, i < 0 ? i + size : i));
}

/* A tuple of the pieces along dim d with the given lengths (which sum to its size). */
static int pieces(mt_args *a, mt_result *r, int d, int n, const int64_t *lengths)
{
    if (mt_result_alloc(r, MT_RESULT_TUPLE, n) < 0)
        return -1;
    int64_t start = 0;
    for (int i = 0; i < n; i++) {
        if (!(r->t[i] = narrowed(a, d, start, lengths[i]))) {
            mt_result_clear(r);
            return -1;
        }
        start += lengths[i];
    }
    return 0;
}

static int dim_of(mt_args *a, int i, int *d)
{
    if (a->v[0].t->ndim == 0)
        return mt_error(MT_ERR_INDEX,
                        "Dimension specified as %lld but tensor has no "
                        "dimensions",
                        (long long)a->v[i].i);
    return mt_wrap_dim(a->v[i].i, a->v[0].t->ndim, d);
}

int impl_unbind(mt_args *a, mt_result *r)
{
    int d;
    if (dim_of(a, 1, &d) < 0)
        return -1;
    int n = (int)a->v[0].t->sizes[d];
    if (mt_result_alloc(r, MT_RESULT_TUPLE, n) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        if (!(r->t[i] = selected(a, d, i))) {
            mt_result_clear(r);
            return -1;
        }
    }
    return 0;
}

/* Equal pieces of `step` along d, the last one shorter. */
static int split_even(mt_args *a, mt_result *r, int d, int64_t step)
{
    int64_t size = a->v[0].t->sizes[d];
    int64_t n = step ? (size + step - 1) / step : 1;
    if (size == 0 && step)
        n = 1;
    int64_t *lengths = malloc(sizeof(int64_t) * (n ? n : 1));
    if (!lengths)
        return mt_error(MT_ERR_MEMORY, "out of memory");
    for (int64_t i = 0; i < n; i++)
        lengths[i] = i == n - 1 ? size - step * i : step;
    int rc = pieces(a, r, d, (int)n, lengths);
    free(lengths);
    return rc;
}

static int split_of_0d(void)
{
    return mt_error(MT_ERR_RUNTIME, "split expects at least a 1-dimensional tensor");
}

int impl_split(mt_args *a, mt_result *r)
{
    int d;
    if (a->v[0].t->ndim == 0)
        return split_of_0d();
    if (dim_of(a, 2, &d) < 0)
        return -1;
    int64_t step = a->v[1].i, size = a->v[0].t->sizes[d];
    if (step < 0)
        return mt_error(MT_ERR_RUNTIME,
                        "split expects split_size be non-negative, but got split_size=%lld",
                        (long long)step);
    if (step == 0 && size != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "split_size can only be 0 if dimension size is 0, but got dimension "
                        "size of %lld",
                        (long long)size);
    return split_even(a, r, d, step);
}

int impl_split_with_sizes(mt_args *a, mt_result *r)
{
    int d;
    if (a->v[0].t->ndim == 0)
        return split_of_0d();
    if (dim_of(a, 2, &d) < 0)
        return -1;
    int64_t sum = 0, size = a->v[0].t->sizes[d];
    bool negative = false;
    for (int i = 0; i < a->v[1].nints; i++) {
        sum += a->v[1].ints[i];
        negative |= a->v[1].ints[i] < 0;
    }
    if (sum != size || negative) {
        char buf[1024]; /* as long as any error message may be */
        mt_format_shape(buf, sizeof buf, a->v[1].nints, a->v[1].ints);
        if (negative)
            return mt_error(MT_ERR_RUNTIME,
                            "split_with_sizes expects split_sizes have only non-negative "
                            "entries, but got split_sizes=%s",
                            buf);
        return mt_error(MT_ERR_RUNTIME,
                        "split_with_sizes expects split_sizes to sum exactly to %lld (input "
                        "tensor's size at dimension %d), but got split_sizes=%s",
                        (long long)size, d, buf);
    }
    return pieces(a, r, d, a->v[1].nints, a->v[1].ints);
}

int impl_chunk(mt_args *a, mt_result *r)
{
    int64_t chunks = a->v[1].i;
    int d;
    if (a->v[0].t->ndim == 0)
        return mt_error(MT_ERR_RUNTIME, "chunk expects at least a 1-dimensional tensor");
    if (chunks <= 0)
        return mt_error(MT_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, got: %lld",
                        (long long)chunks);
    if (dim_of(a, 2, &d) < 0)
        return -1;
    int64_t size = a->v[0].t->sizes[d];
    int64_t step = (size + chunks - 1) / chunks;
    if (step == 0 && size == 0) {
        /* torch gives `chunks` empty pieces of an empty dim */
        int64_t *zeros = calloc(chunks, sizeof(int64_t));
        if (!zeros)
            return mt_error(MT_ERR_MEMORY, "out of memory");
        int rc = pieces(a, r, d, (int)chunks, zeros);
        free(zeros);
        return rc;
    }
    return split_even(a, r, d, step);
}

int impl_as_strided(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int n = a->v[1].nints;
    if (n != a->v[2].nints)
        return mt_error(MT_ERR_RUNTIME, "mismatch in length of strides and shape");
    if (n > MT_MAX_DIMS)
        return too_many_dims();
    int64_t offset = mt_is_none(a, 3) ? t->offset : a->v[3].i;
    if (offset < 0)
        return mt_error(MT_ERR_RUNTIME, "Tensor: invalid storage offset %lld", (long long)offset);
    int64_t last = offset;
    bool empty = false, overflow = false;
    for (int i = 0; i < n; i++) {
        int64_t sz = a->v[1].ints[i], st = a->v[2].ints[i], span;
        if (sz < 0)
            return mt_error(
                MT_ERR_RUNTIME,
                "Trying to create tensor with negative dimension %lld: ", (long long)sz);
        if (st < 0) {
            char buf[256];
            mt_format_shape(buf, sizeof buf, n, a->v[2].ints);
            return mt_error(MT_ERR_RUNTIME,
                            "as_strided: Negative strides are not supported at the moment, "
                            "got strides: %s",
                            buf);
        }
        empty |= sz == 0;
        if (sz > 0)
            overflow |= __builtin_mul_overflow(sz - 1, st, &span) ||
                        __builtin_add_overflow(last, span, &last);
    }
    int isz = mt_itemsize(t->dtype);
    int64_t need = 0;
    if (!empty)
        overflow |= __builtin_add_overflow(last, 1, &need) ||
                    __builtin_mul_overflow(need, (int64_t)isz, &need);
    char sz[256], st[256];
    mt_format_shape(sz, sizeof sz, n, a->v[1].ints);
    mt_format_shape(st, sizeof st, n, a->v[2].ints);
    if (overflow)
        return mt_error(MT_ERR_RUNTIME,
                        "Storage size calculation overflowed with sizes=%s and strides=%s", sz, st);
    if (need > (int64_t)t->storage->nbytes) {
        return mt_error(MT_ERR_RUNTIME,
                        "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize "
                        "%d requiring a storage size of %lld are out of bounds for storage "
                        "of size %lld",
                        sz, st, (long long)offset, isz, (long long)need,
                        (long long)t->storage->nbytes);
    }
    return mt_result_tensor(r, view_of(a, n, a->v[1].ints, a->v[2].ints, offset));
}

/* Fills perm so that source dims land at destination positions, the others keep order. */
static int movedim_perm(mt_args *a, int nsrc, const int64_t *src, const int64_t *dst, int64_t *perm)
{
    int nd = a->v[0].t->ndim;
    int s[MT_MAX_DIMS], t[MT_MAX_DIMS];
    bool used_src[MT_MAX_DIMS] = {false}, used_dst[MT_MAX_DIMS] = {false};
    for (int i = 0; i < nsrc; i++) {
        if (mt_wrap_dim(src[i], nd, &s[i]) < 0 || mt_wrap_dim(dst[i], nd, &t[i]) < 0)
            return -1;
    }
    for (int i = 0; i < nsrc; i++) {
        char buf[256];
        if (used_src[s[i]]) {
            mt_format_shape(buf, sizeof buf, nsrc, src);
            return mt_error(MT_ERR_RUNTIME, "movedim: repeated dim in `source` (%s)", buf);
        }
        used_src[s[i]] = true;
    }
    for (int i = 0; i < nsrc; i++) {
        char buf[256];
        if (used_dst[t[i]]) {
            mt_format_shape(buf, sizeof buf, nsrc, dst);
            return mt_error(MT_ERR_RUNTIME, "movedim: repeated dim in `destination` (%s)", buf);
        }
        used_dst[t[i]] = true;
    }
    for (int i = 0; i < nd; i++)
        perm[i] = -1;
    for (int i = 0; i < nsrc; i++)
        perm[t[i]] = s[i];
    for (int i = 0, k = 0; i < nd; i++) {
        if (perm[i] >= 0)
            continue;
        while (used_src[k])
            k++;
        perm[i] = k++;
    }
    return 0;
}

static int moved(mt_args *a, mt_result *r, int n, const int64_t *src, const int64_t *dst)
{
    mt_tensor *t = a->v[0].t;
    int64_t perm[MT_MAX_DIMS];
    if (t->ndim == 0 && n)
        return same_tensor(a, r);
    if (movedim_perm(a, n, src, dst, perm) < 0)
        return -1;
    geom g;
    geom_of(&g, t);
    for (int i = 0; i < t->ndim; i++) {
        g.sizes[i] = t->sizes[perm[i]];
        g.strides[i] = t->strides[perm[i]];
    }
    return mt_result_tensor(r, geom_view(a, &g));
}

int impl_movedim(mt_args *a, mt_result *r) { return moved(a, r, 1, &a->v[1].i, &a->v[2].i); }

int impl_movedim_list(mt_args *a, mt_result *r)
{
    int n = a->v[1].nints;
    if (n != a->v[2].nints) {
        char s[256], d[256];
        mt_format_shape(s, sizeof s, n, a->v[1].ints);
        mt_format_shape(d, sizeof d, a->v[2].nints, a->v[2].ints);
        return mt_error(MT_ERR_RUNTIME,
                        "movedim: Invalid source or destination dims: source (%s dims) should "
                        "contain the same number of dims as destination (%s dims)",
                        s, d);
    }
    return moved(a, r, n, a->v[1].ints, a->v[2].ints);
}

int impl_diagonal(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int d1, d2;
    if (mt_wrap_dim(a->v[2].i, t->ndim, &d1) < 0 || mt_wrap_dim(a->v[3].i, t->ndim, &d2) < 0)
        return -1;
    if (d1 == d2)
        return mt_error(MT_ERR_RUNTIME, "diagonal dimensions cannot be identical %lld, %lld",
                        (long long)a->v[2].i, (long long)a->v[3].i);
    int64_t off = a->v[1].i, len;
    geom g;
    geom_of(&g, t);
    if (off >= 0) {
        len = t->sizes[d1] < t->sizes[d2] - off ? t->sizes[d1] : t->sizes[d2] - off;
        if (len > 0)
            g.offset += off * t->strides[d2];
    } else {
        len = t->sizes[d1] + off < t->sizes[d2] ? t->sizes[d1] + off : t->sizes[d2];
        if (len > 0)
            g.offset -= off * t->strides[d1];
    }
    if (len < 0)
        len = 0;
    int64_t st = t->strides[d1] + t->strides[d2];
    geom_drop(&g, d1 > d2 ? d1 : d2);
    geom_drop(&g, d1 < d2 ? d1 : d2);
    g.sizes[g.ndim] = len;
    g.strides[g.ndim] = st;
    g.ndim++;
    return mt_result_tensor(r, geom_view(a, &g));
}

/* Reinterprets the bytes as another dtype; the last dim absorbs a size change. */
int impl_view_dtype(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    mt_dtype to = a->v[1].dtype;
    int from_sz = mt_itemsize(t->dtype), to_sz = mt_itemsize(to);
    const char *fn = mt_dtype_infos[t->dtype].scalar_name, *tn = mt_dtype_infos[to].scalar_name;
    /* torch refuses even the same dtype */
    if (mt_is_conj(t))
        return mt_error(MT_ERR_RUNTIME, "torch.Tensor.view is not supported for conjugate view "
                                        "tensors when converting to a different dtype.");
    geom g;
    geom_of(&g, t);
    if (from_sz == to_sz)
        goto done;
    if (t->ndim == 0)
        return mt_error(MT_ERR_RUNTIME,
                        "self.dim() cannot be 0 to view %s as %s (different element sizes)", fn,
                        tn);
    if (t->strides[t->ndim - 1] != 1)
        return mt_error(MT_ERR_RUNTIME,
                        "self.stride(-1) must be 1 to view %s as %s (different element "
                        "sizes), but got %lld",
                        fn, tn, (long long)t->strides[t->ndim - 1]);
    if (from_sz > to_sz) {
        int k = from_sz / to_sz;
        for (int d = 0; d < g.ndim - 1; d++)
            g.strides[d] *= k;
        g.sizes[g.ndim - 1] *= k;
        g.offset *= k;
    } else {
        int k = to_sz / from_sz;
        if (g.sizes[g.ndim - 1] % k)
            return mt_error(MT_ERR_RUNTIME,
                            "self.size(-1) must be divisible by %d to view %s as %s "
                            "(different element sizes), but got %lld",
                            k, fn, tn, (long long)g.sizes[g.ndim - 1]);
        if (g.offset % k)
            return mt_error(MT_ERR_RUNTIME,
                            "self.storage_offset() must be divisible by %d to view %s as %s "
                            "(different element sizes), but got %lld",
                            k, fn, tn, (long long)g.offset);
        for (int d = 0; d < g.ndim - 1; d++) {
            if (g.strides[d] % k)
                return mt_error(MT_ERR_RUNTIME,
                                "self.stride(%d) must be divisible by %d to view %s as %s "
                                "(different element sizes), but got %lld",
                                d, k, fn, tn, (long long)g.strides[d]);
            g.strides[d] /= k;
        }
        g.sizes[g.ndim - 1] /= k;
        g.offset /= k;
    }
done:;
    mt_tensor *out = geom_view(a, &g);
    if (out)
        out->dtype = to;
    return mt_result_tensor(r, out);
}
