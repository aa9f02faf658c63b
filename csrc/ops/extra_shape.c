/* hstack/vstack, diag, repeat_interleave, one_hot and constant pad: views of
 * the inputs copied into new tensors with mt_copy. Plain C: impls read typed
 * mt_args, make tensors through the owner hooks (core/owner.h), reach other
 * rows through the op table and report failures with mt_error; nothing here
 * may touch Python. */
#include "runtime/args.h"
#include "runtime/table.h"
#include "creation.h"
#include "shape.h"

#include "../core/shape.h"
#include "../kernels/copy.h"

#include <stdlib.h>
#include <string.h>

/* cat of the tensors seen with at least `rank` dims (1: [n]; 2: [1, n]). The
 * row's own node (HstackBackward, VstackBackward) records the call, so cat's
 * impl runs directly, without the runner recording a node of its own. */
static int stack_like(mt_args *a, mt_result *r, const char *name, int rank, bool horizontal)
{
    int n = a->v[0].nints;
    if (n == 0)
        return mt_error(MT_ERR_RUNTIME, "%s expects a non-empty TensorList", name);
    mt_tensor **seen = calloc((size_t)n, sizeof *seen);
    if (!seen)
        return mt_error(MT_ERR_MEMORY, "out of memory");
    int rc = -1;
    for (int i = 0; i < n; i++) {
        mt_tensor *t = a->v[0].tensors[i];
        if (t->ndim >= rank) {
            mt_retain(t);
            seen[i] = t;
        } else {
            int64_t sizes[2] = {1, t->ndim ? t->sizes[0] : 1};
            int64_t strides[2] = {0, t->ndim ? t->strides[0] : 1};
            seen[i] = mt_new_view(t, rank, sizes + 2 - rank, strides + 2 - rank, t->offset);
            if (!seen[i])
                goto done;
        }
    }
    const mt_op *cat = &mt_ops[MT_OP_cat];
    mt_args b;
    memset(&b, 0, sizeof b);
    b.op = cat;
    b.sig = cat->sig;
    b.overload = cat->overload;
    b.v[0].obj = MT_GIVEN;
    b.v[0].tensors = seen;
    b.v[0].nints = n;
    b.v[1].obj = MT_GIVEN;
    /* as torch's, the first tensor's rank picks the dim; cat refuses a mix */
    b.v[1].i = horizontal && seen[0]->ndim != 1 ? 1 : 0;
    rc = cat->impl(&b, r);
done:
    for (int i = 0; i < n; i++)
        mt_xrelease(seen[i]);
    free(seen);
    return rc;
}

int impl_hstack(mt_args *a, mt_result *r) { return stack_like(a, r, "hstack", 1, true); }
int impl_vstack(mt_args *a, mt_result *r) { return stack_like(a, r, "vstack", 2, false); }

/* The diagonal `k` of an [r, c] geometry: its length and element offset. */
static int64_t diag_geometry(int64_t r, int64_t c, int64_t k, int64_t sr, int64_t sc,
                             int64_t *offset)
{
    int64_t len = k >= 0 ? (c - k < r ? c - k : r) : (r + k < c ? r + k : c);
    *offset = k >= 0 ? k * sc : -k * sr;
    return len > 0 ? len : 0;
}

int impl_diag(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int64_t k = a->v[1].i;
    if (t->ndim != 1 && t->ndim != 2)
        return mt_error(MT_ERR_RUNTIME, "diag(): Supports 1D or 2D tensors. Got %dD", t->ndim);
    if (t->ndim == 1) {
        int64_t n = t->sizes[0] + (k >= 0 ? k : -k);
        mt_tensor *out = mt_new(t->dtype, 2, (int64_t[]){n, n}, true);
        if (!out || t->numel == 0)
            return mt_result_tensor(r, out);
        mt_tensor d = *out;
        int64_t off;
        d.ndim = 1;
        d.sizes[0] = diag_geometry(n, n, k, n, 1, &off);
        d.strides[0] = n + 1;
        d.offset += off;
        d.numel = d.sizes[0];
        mt_copy(&d, t);
        return mt_result_tensor(r, out);
    }
    mt_tensor d = *t;
    int64_t off;
    d.ndim = 1;
    d.sizes[0] = diag_geometry(t->sizes[0], t->sizes[1], k, t->strides[0], t->strides[1], &off);
    d.strides[0] = t->strides[0] + t->strides[1];
    d.offset += d.sizes[0] ? off : 0;
    d.numel = d.sizes[0];
    mt_tensor *out = mt_new(t->dtype, 1, d.sizes, false);
    if (out && d.numel)
        mt_copy(out, &d);
    return mt_result_tensor(r, out);
}

/* Repeat counts as int64, one per slice (a single count applies to all). */
static int64_t *repeat_counts(mt_args *a, int ri, int64_t len)
{
    int64_t *c = malloc((size_t)(len ? len : 1) * sizeof *c);
    if (!c) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    if (a->overload == 1) {
        if (a->v[ri].i < 0) {
            mt_error(MT_ERR_RUNTIME, "Repeats must be non-negative");
            goto fail;
        }
        for (int64_t i = 0; i < len; i++)
            c[i] = a->v[ri].i;
        return c;
    }
    const mt_tensor *r = a->v[ri].t;
    if (r->ndim > 1) {
        mt_error(MT_ERR_RUNTIME, "repeats must be 0-dim or 1-dim tensor");
        goto fail;
    }
    if (r->dtype != MT_INT64 && r->dtype != MT_INT32) {
        mt_error(MT_ERR_NOT_IMPLEMENTED, "\"repeat_interleave_cpu\" not implemented for '%s'",
                 mt_dtype_infos[r->dtype].scalar_name);
        goto fail;
    }
    int64_t rn = r->ndim ? r->sizes[0] : 1;
    if (rn != 1 && rn != len) {
        mt_error(MT_ERR_RUNTIME,
                 "repeats must have the same size as input along dim, but got "
                 "repeats.size(0) = %lld and input.size(0) = %lld",
                 (long long)rn, (long long)len);
        goto fail;
    }
    mt_tensor *tmp = mt_new(MT_INT64, 1, &rn, false);
    if (!tmp)
        goto fail;
    mt_tensor src = *r;
    src.ndim = 1;
    src.sizes[0] = rn;
    if (!r->ndim)
        src.strides[0] = 1;
    mt_copy(tmp, &src);
    const int64_t *v = (const int64_t *)mt_data(tmp);
    for (int64_t i = 0; i < len; i++) {
        c[i] = v[rn == 1 ? 0 : i];
        if (c[i] < 0) {
            mt_release(tmp);
            mt_error(MT_ERR_RUNTIME, "repeats can not be negative");
            goto fail;
        }
    }
    mt_release(tmp);
    return c;
fail:
    free(c);
    return NULL;
}

int impl_repeat_interleave(mt_args *a, mt_result *r)
{
    mt_tensor *owned = NULL, *out = NULL;
    mt_tensor in;
    int dim = 0, ri = 1;
    if (a->overload == 2) {
        /* repeat_interleave(repeats): arange(len(repeats)) repeated by them */
        mt_tensor *rep = a->v[0].t;
        int64_t n = rep->ndim ? rep->sizes[0] : 1;
        if (!(owned = mt_new(MT_INT64, 1, &n, false)))
            return -1;
        for (int64_t i = 0; i < n; i++)
            ((int64_t *)mt_data(owned))[i] = i;
        in = *owned;
        ri = 0;
    } else if (mt_is_none(a, 2)) {
        /* no dim: the flattened input */
        int64_t n = a->v[0].t->numel;
        owned = mt_new(a->v[0].t->dtype, a->v[0].t->ndim, a->v[0].t->sizes, false);
        if (!owned)
            return -1;
        mt_copy(owned, a->v[0].t);
        in = *owned;
        in.ndim = 1;
        in.sizes[0] = n;
        in.strides[0] = 1;
    } else {
        in = *a->v[0].t;
        if (mt_wrap_dim(a->v[2].i, in.ndim, &dim) < 0)
            return -1;
        if (in.ndim == 0) {
            in.ndim = 1;
            in.sizes[0] = 1;
            in.strides[0] = 1;
        }
    }
    int64_t len = in.sizes[dim];
    int64_t *c = repeat_counts(a, ri, len);
    if (!c)
        goto done;
    int64_t total = 0;
    for (int64_t i = 0; i < len; i++)
        total += c[i];
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, in.sizes, sizeof sizes);
    sizes[dim] = total;
    out = mt_new(in.dtype, in.ndim, sizes, false);
    if (out) {
        int64_t pos = 0;
        for (int64_t i = 0; i < len; i++) {
            if (c[i] == 0)
                continue;
            mt_tensor dst = mt_narrowed(out, dim, pos, c[i]);
            mt_tensor src = mt_narrowed(&in, dim, i, 1);
            if (dst.numel)
                mt_copy(&dst, &src);
            pos += c[i];
        }
    }
    free(c);
done:
    mt_xrelease(owned);
    return mt_result_tensor(r, out);
}

int impl_one_hot(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int64_t classes = a->v[1].i;
    if (t->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME,
                        "one_hot is only applicable to index tensor of type LongTensor.");
    mt_tensor *flat = mt_new(MT_INT64, t->ndim, t->sizes, false);
    if (!flat)
        return -1;
    mt_copy(flat, t);
    const int64_t *v = (const int64_t *)mt_data(flat);
    mt_tensor *out = NULL;
    int64_t mx = -1;
    for (int64_t i = 0; i < t->numel; i++) {
        if (v[i] < 0) {
            mt_error(MT_ERR_RUNTIME, "Class values must be non-negative.");
            goto done;
        }
        mx = v[i] > mx ? v[i] : mx;
    }
    if (t->numel == 0 && classes <= 0) {
        /* torch refuses any non-positive count here, not only the -1 it infers from */
        mt_error(MT_ERR_RUNTIME, "Can not infer total number of classes from empty tensor.");
        goto done;
    }
    if (classes == -1) {
        classes = mx + 1;
    } else if (mx >= classes) {
        mt_error(MT_ERR_RUNTIME, "Class values must be smaller than num_classes.");
        goto done;
    }
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof(int64_t) * t->ndim);
    sizes[t->ndim] = classes;
    out = mt_new(MT_INT64, t->ndim + 1, sizes, true);
    if (out) {
        int64_t *o = (int64_t *)mt_data(out);
        for (int64_t i = 0; i < t->numel; i++)
            o[i * classes + v[i]] = 1;
    }
done:
    mt_release(flat);
    return mt_result_tensor(r, out);
}

int impl_pad(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    const int64_t *pad = a->v[1].ints;
    int np = a->v[1].nints;
    const char *mode = a->v[2].str;
    if (strcmp(mode, "constant") != 0) {
        if (strcmp(mode, "reflect") && strcmp(mode, "replicate") && strcmp(mode, "circular"))
            return mt_error(MT_ERR_NOT_IMPLEMENTED, "Unrecognised padding mode %s", mode);
        return mt_error(MT_ERR_NOT_IMPLEMENTED,
                        "pad(): mode '%s' is not supported by minitorch yet", mode);
    }
    if (np % 2)
        return mt_error(MT_ERR_RUNTIME, "Padding length must be divisible by 2");
    if (np / 2 > t->ndim)
        return mt_error(MT_ERR_RUNTIME,
                        "Padding length should be less than or equal to two times the input "
                        "dimension but got padding length %d and input of dimension %d",
                        np, t->ndim);
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    mt_tensor src = *t;
    for (int k = 0; k < np / 2; k++) {
        int d = t->ndim - 1 - k;
        int64_t lo = pad[2 * k], hi = pad[2 * k + 1];
        sizes[d] = t->sizes[d] + lo + hi;
        /* torch narrows the input by the negative pads first */
        if (sizes[d] < 0 || t->sizes[d] - (lo < 0 ? -lo : 0) - (hi < 0 ? -hi : 0) < 0)
            return mt_error(MT_ERR_RUNTIME, "narrow(): length must be non-negative.");
    }
    /* torch converts the float value to the dtype checked: one out of its
     * range (a negative one for an unsigned dtype) is refused, not wrapped */
    double value = mt_is_none(a, 3) ? 0.0 : a->v[3].f;
    mt_scalar fill = {.kind = MT_SCALAR_FLOAT, .f = value};
    if (mt_check_scalar_fits(&fill, t->dtype) < 0)
        return -1;
    mt_tensor *out = mt_new(t->dtype, t->ndim, sizes, false);
    if (!out)
        return -1;
    if (mt_is_complex(t->dtype))
        mt_fill_complex(out, value, 0.0);
    else
        mt_fill(out, value, 0, 0); /* the cast table's float64 conversions, as torch's */
    mt_tensor dst = *out;
    for (int k = 0; k < np / 2; k++) {
        int d = t->ndim - 1 - k;
        int64_t lo = pad[2 * k], hi = pad[2 * k + 1];
        int64_t skip_lo = lo < 0 ? -lo : 0, skip_hi = hi < 0 ? -hi : 0;
        int64_t len = t->sizes[d] - skip_lo - skip_hi;
        if (len == 0)
            return mt_result_tensor(r, out);
        src = mt_narrowed(&src, d, skip_lo, len);
        dst = mt_narrowed(&dst, d, lo > 0 ? lo : 0, len);
    }
    if (src.numel)
        mt_copy(&dst, &src);
    return mt_result_tensor(r, out);
}
