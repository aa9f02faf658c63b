/* The rows of fft.def: torch's private FFT primitives (_fft_c2c, _fft_r2c,
 * _fft_c2r) over kernels/fft.c, on which minitorch/fft.py builds the public
 * functions. Each transforms a fresh contiguous complex copy of its input in
 * place, dim by dim, and scales the last dim's pass by the normalization
 * (0 none, 1 by 1/sqrt(n), 2 by 1/n, n the product of the signal sizes), as
 * aten's fft_norm_mode. The kernel runs without the interpreter lock. Plain
 * C, no Python. */
#include "creation.h"
#include "runtime/table.h"
#include "runtime/call.h"
#include "runtime/unlock.h"

#include "../core/shape.h"
#include "../kernels/copy.h"
#include "../kernels/fft.h"

#include <math.h>
#include <string.h>

static const char *sname(mt_dtype d) { return mt_dtype_infos[d].scalar_name; }

/* The elements before and after dim d of a (ndim, sizes) shape: the
 * transform's batch (outer) and its stride (inner). */
static void split_at(int ndim, const int64_t *sizes, int d, int64_t *outer, int64_t *inner)
{
    *outer = *inner = 1;
    for (int j = 0; j < d; j++)
        *outer *= sizes[j];
    for (int j = d + 1; j < ndim; j++)
        *inner *= sizes[j];
}

/* The wrapped, distinct dims of v into dims (their count), in order. */
static int read_dims(const mt_tensor *t, const mt_value *v, int *dims)
{
    bool seen[MT_MAX_DIMS] = {false};
    for (int k = 0; k < v->nints; k++) {
        if (mt_wrap_dim(v->ints[k], t->ndim, &dims[k]) < 0)
            return -1;
        if (seen[dims[k]])
            return mt_error(MT_ERR_RUNTIME, "dims must be unique");
        seen[dims[k]] = true;
    }
    return v->nints;
}

static double norm_scale(int64_t mode, double n)
{
    if (mode == 1)
        return 1.0 / sqrt(n);
    if (mode == 2)
        return 1.0 / n;
    return 1.0;
}

static int check_norm(int64_t mode)
{
    if (mode < 0 || mode > 2)
        return mt_error(MT_ERR_RUNTIME, "Invalid normalization mode: %lld", (long long)mode);
    return 0;
}

/* Transforms contiguous complex t along dims[0..nd), the last pass scaled by
 * scale: the first pass reads src (t's values, or t itself for in place),
 * a contiguous buffer of t's dtype and shape, so a copy need not come first.
 * The dims go in the order given, as torch's: another order rounds
 * otherwise (hfft2's float32 samples moved past the conformance tolerance
 * innermost first) for a gain within noise at 1000x1000. */
static int transform_dims(mt_tensor *t, const void *src, const int *dims, int nd, bool inverse,
                          double scale)
{
    bool single = t->dtype == MT_COMPLEX64;
    int rc = 0;
    void *tok = mt_unlock((double)t->numel * 8.0);
    for (int k = 0; k < nd && rc == 0; k++) {
        int d = dims[k];
        int64_t outer, inner;
        split_at(t->ndim, t->sizes, d, &outer, &inner);
        rc = mt_fft_c2c(k == 0 ? src : mt_data(t), mt_data(t), single, outer, t->sizes[d], inner,
                        inverse, k == nd - 1 ? scale : 1.0);
    }
    mt_relock(tok);
    return rc < 0 ? mt_error(MT_ERR_MEMORY, "fft: out of memory") : 0;
}

/* A new contiguous tensor of dtype cd holding t's values. */
static mt_tensor *complex_copy(const mt_tensor *t, mt_dtype cd)
{
    mt_tensor *out = mt_new(cd, t->ndim, t->sizes, false);
    if (out)
        mt_copy(out, t);
    return out;
}

static double signal_numel(const int64_t *sizes, const int *dims, int nd)
{
    double n = 1;
    for (int k = 0; k < nd; k++)
        n *= (double)sizes[dims[k]];
    return n;
}

/* The dims a complex-input row (c2c, c2r) transforms, into dims, after its
 * checks of the input and the normalization; -1 with an error. */
static int complex_input_dims(const mt_args *a, int *dims)
{
    const mt_tensor *t = a->v[0].t;
    if (!mt_is_complex(t->dtype))
        return mt_error(MT_ERR_RUNTIME, "expects a complex input tensor, but got %s",
                        sname(t->dtype));
    int nd = read_dims(t, &a->v[1], dims);
    if (nd < 0 || check_norm(a->v[2].i) < 0)
        return -1;
    return nd;
}

int impl_fft_c2c(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int dims[MT_MAX_DIMS];
    int nd = complex_input_dims(a, dims);
    if (nd < 0)
        return -1;
    /* a contiguous input is read by the first pass itself, a copy saved */
    bool direct = nd > 0 && mt_tensor_is_contiguous(t);
    mt_tensor *out =
        direct ? mt_new(t->dtype, t->ndim, t->sizes, false) : complex_copy(t, t->dtype);
    if (!out)
        return -1;
    double scale = norm_scale(a->v[2].i, signal_numel(t->sizes, dims, nd));
    if (transform_dims(out, direct ? mt_data(t) : mt_data(out), dims, nd, !a->v[3].b, scale) < 0) {
        mt_release(out);
        return -1;
    }
    return mt_result_tensor(r, out);
}

/* The one-sided r2c through a transform of half the last dim's length, then
 * the other dims on the half spectrum: 0 with the result, 1 when the length
 * does not allow it, -1 with an error. */
static int half_spectrum(const mt_tensor *t, const int *dims, int nd, double scale, mt_result *r)
{
    int last = dims[nd - 1];
    int64_t n = t->sizes[last], sizes[MT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    sizes[last] = n / 2 + 1;
    mt_tensor *src = mt_exec(MT_OP_contiguous, "T", t);
    mt_tensor *out = src ? mt_new(mt_complex_of(t->dtype), t->ndim, sizes, false) : NULL;
    if (!out) {
        mt_xrelease(src);
        return -1;
    }
    int64_t outer, inner;
    split_at(t->ndim, sizes, last, &outer, &inner);
    void *tok = mt_unlock((double)t->numel * 4.0);
    int rc =
        mt_fft_r2c_half(mt_data(src), mt_data(out), t->dtype == MT_FLOAT32, outer, n, inner, scale);
    mt_relock(tok);
    mt_release(src);
    if (rc == 0)
        rc = transform_dims(out, mt_data(out), dims, nd - 1, false, 1.0);
    else if (rc < 0)
        mt_error(MT_ERR_MEMORY, "fft: out of memory");
    if (rc != 0) {
        mt_release(out);
        return rc;
    }
    return mt_result_tensor(r, out);
}

int impl_fft_r2c(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int dims[MT_MAX_DIMS];
    if (t->dtype != MT_FLOAT32 && t->dtype != MT_FLOAT64)
        return mt_error(MT_ERR_RUNTIME, "expects a floating point tensor, but got %s",
                        sname(t->dtype));
    int nd = read_dims(t, &a->v[1], dims);
    if (nd < 0 || check_norm(a->v[2].i) < 0)
        return -1;
    if (nd == 0)
        return mt_error(MT_ERR_RUNTIME, "_fft_r2c: expected at least one dim");
    double scale = norm_scale(a->v[2].i, signal_numel(t->sizes, dims, nd));
    if (a->v[3].b) {
        int rc = half_spectrum(t, dims, nd, scale, r);
        if (rc <= 0)
            return rc;
    }
    mt_tensor *full = complex_copy(t, mt_complex_of(t->dtype));
    if (!full)
        return -1;
    if (transform_dims(full, mt_data(full), dims, nd, false, scale) < 0) {
        mt_release(full);
        return -1;
    }
    if (!a->v[3].b)
        return mt_result_tensor(r, full);
    int last = dims[nd - 1];
    mt_tensor *half =
        mt_exec(MT_OP_narrow, "Tiii", full, (int64_t)last, (int64_t)0, t->sizes[last] / 2 + 1);
    mt_release(full);
    mt_tensor *out = half ? mt_exec(MT_OP_contiguous, "T", half) : NULL;
    mt_xrelease(half);
    return mt_result_tensor(r, out);
}

int impl_fft_c2r(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    int dims[MT_MAX_DIMS];
    int nd = complex_input_dims(a, dims);
    if (nd < 0)
        return -1;
    int64_t n = a->v[3].i;
    if (nd == 0)
        return mt_error(MT_ERR_RUNTIME, "_fft_c2r: expected at least one dim");
    if (n < 1)
        return mt_error(MT_ERR_RUNTIME, "Invalid number of data points (%lld) specified",
                        (long long)n);
    int last = dims[nd - 1];
    mt_tensor *half = complex_copy(t, t->dtype);
    if (!half)
        return -1;
    /* the other dims first, then the last one's Hermitian inverse */
    if (transform_dims(half, mt_data(half), dims, nd - 1, true, 1.0) < 0) {
        mt_release(half);
        return -1;
    }
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    sizes[last] = n;
    mt_tensor *full = mt_new(t->dtype, t->ndim, sizes, false);
    if (!full) {
        mt_release(half);
        return -1;
    }
    int64_t outer, inner;
    split_at(t->ndim, sizes, last, &outer, &inner);
    mt_fft_hermitian_fill(mt_data(full), mt_data(half), t->dtype == MT_COMPLEX64, outer,
                          t->sizes[last], n, inner);
    mt_release(half);
    double scale = norm_scale(a->v[2].i, signal_numel(sizes, dims, nd));
    if (transform_dims(full, mt_data(full), &last, 1, true, scale) < 0) {
        mt_release(full);
        return -1;
    }
    mt_tensor *re = mt_exec(MT_OP_real, "T", full);
    mt_release(full);
    mt_tensor *out = re ? mt_exec(MT_OP_contiguous, "T", re) : NULL;
    mt_xrelease(re);
    return mt_result_tensor(r, out);
}
