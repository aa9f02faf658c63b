/* The forward rows of nn.def: convolution and 2-d pooling. Each impl checks
 * its arguments in torch's words, views 1-d and unbatched inputs as
 * (N, C, H, W), and runs a kernel of kernels/nn_conv.c on a tensor it makes.
 * Plain C: impls read typed mt_args, make tensors through the owner hooks
 * (core/owner.h), run the conv and pool kernels (convolution after
 * mt_blas_prepare, the host's hook) and report failures with mt_error;
 * nothing here may touch Python. */
#include "complex_bilinear.h"
#include "runtime/args.h"
#include "runtime/call.h"
#include "nn_geometry.h"
#include "runtime/unlock.h"

#include "../core/shape.h"
#include "../kernels/gemm/blas.h"
#include "../kernels/nn_conv.h"
#include "../kernels/copy.h"

#include <string.h>

/* "[2, 3, 3, 3]" of any tensor: a sign and 19 digits per size, the
 * separators and the brackets. */
typedef struct {
    char s[MT_MAX_DIMS * 22 + 3];
} shape_text;

/* Lives until the end of the full expression that calls it, long enough to
 * be an argument of mt_error. */
static shape_text shape_of(const mt_tensor *t)
{
    shape_text b;
    mt_format_shape(b.s, sizeof b.s, t->ndim, t->sizes);
    return b;
}

/* torch's words for a weight of another dtype than the input: the scalar
 * types for a real input; a complex one (checked first on torch's complex
 * path) names the tensor types, a real weight's in the legacy form. */
static int weight_type_mismatch(mt_dtype x, mt_dtype w)
{
    const char *xs = mt_dtype_infos[x].scalar_name, *ws = mt_dtype_infos[w].scalar_name;
    if (!mt_is_complex(x))
        return mt_error(MT_ERR_RUNTIME, "expected scalar type %s but found %s", xs, ws);
    return mt_error(MT_ERR_RUNTIME,
                    "Input type (CPU%sType) and weight type (%s%s%s) should be the same", xs,
                    mt_is_complex(w) ? "CPU" : "torch.", ws, mt_is_complex(w) ? "Type" : "Tensor");
}

static const char *const batch_names[] = {"", "1D", "2D", "3D", "4D"};

/* An int[N] argument (of 1 or nsp values: conv_geometry_checks) as nsp
 * values: one value repeats. */
static void spatial(const mt_value *v, int nsp, int64_t *out)
{
    for (int i = 0; i < nsp; i++)
        out[i] = v->ints[v->nints == 1 ? 0 : i];
}

/* ------------------------------------------------------------------ conv */

/* torch spreads stride, padding and dilation over the weight's dim spatial
 * dims: an int (which the nsp-d signature made nsp copies of) or a list of
 * one value spreads, another list must have dim values. */
static int spreads(const mt_value *v, int nsp, int dim, const char *name)
{
    int n = v->nints == 1 ? nsp : v->nints;
    if (n == 1 || n == dim)
        return 0;
    int64_t shown[MT_MAX_LIST];
    for (int i = 0; i < n; i++)
        shown[i] = v->ints[v->nints == 1 ? 0 : i];
    char given[MT_MAX_LIST * 22 + 3];
    mt_format_shape(given, sizeof given, n, shown);
    return mt_error(MT_ERR_RUNTIME,
                    "expected %s to be a single integer value or a list of %d values to match "
                    "the convolution dimensions, but got %s=%s",
                    name, dim, name, given);
}

static bool any_below(const mt_value *v, int64_t least)
{
    for (int i = 0; i < v->nints; i++)
        if (v->ints[i] < least)
            return true;
    return false;
}

/* torch's checks of a convolution's weight and geometry before its shapes
 * are compared, in its order: the weight's rank, groups, the spreading of
 * the int lists over the weight's spatial dims ('same' padding checks the
 * ranks and the stride first), their signs, then the ranks. x is the
 * batched input. */
static int conv_geometry_checks(mt_args *a, int nsp, bool str_padding, bool same,
                                const mt_tensor *x, const mt_tensor *wt)
{
    int64_t groups = a->v[6].i;
    if (wt->ndim < 3)
        return mt_error(MT_ERR_RUNTIME, "weight should have at least three dimensions");
    if (groups <= 0)
        return mt_error(MT_ERR_RUNTIME, "non-positive groups is not supported");
    int dim = wt->ndim - 2;
    if (same) {
        if (wt->ndim != x->ndim)
            return mt_error(MT_ERR_RUNTIME,
                            "Expected %d-dimensional input for %d-dimensional weight%s, but got "
                            "%d-dimensional input of size %s instead",
                            wt->ndim, wt->ndim, shape_of(wt).s, x->ndim, shape_of(x).s);
        for (int i = 0; i < a->v[3].nints; i++)
            if (a->v[3].ints[i] != 1)
                return mt_error(MT_ERR_RUNTIME, "padding='same' is not supported for strided "
                                                "convolutions");
    }
    if (spreads(&a->v[3], nsp, dim, "stride") < 0 ||
        (!str_padding && spreads(&a->v[4], nsp, dim, "padding") < 0) ||
        spreads(&a->v[5], nsp, dim, "dilation") < 0)
        return -1;
    /* the output_padding torch passes a forward convolution: nsp zeros */
    if (nsp != 1 && nsp != dim) {
        int64_t zeros[2] = {0, 0};
        mt_value op = {.nints = nsp, .ints = zeros};
        if (spreads(&op, nsp, dim, "output_padding") < 0)
            return -1;
    }
    if (!str_padding && any_below(&a->v[4], 0))
        return mt_error(MT_ERR_RUNTIME, "negative padding is not supported");
    if (any_below(&a->v[3], 1))
        return mt_error(MT_ERR_RUNTIME, "non-positive stride is not supported");
    if (any_below(&a->v[5], 1))
        return mt_error(MT_ERR_RUNTIME, "dilation should be greater than zero");
    if (wt->ndim != x->ndim)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected %d-dimensional input for %d-dimensional weight %s, but got "
                        "%d-dimensional input of size %s instead",
                        wt->ndim, wt->ndim, shape_of(wt).s, x->ndim, shape_of(x).s);
    if (wt->sizes[0] < groups)
        return mt_error(MT_ERR_RUNTIME,
                        "Given groups=%lld, expected weight to be at least %lld at dimension 0, "
                        "but got weight of size %s instead",
                        (long long)groups, (long long)groups, shape_of(wt).s);
    return 0;
}

int impl_conv2d(mt_args *a, mt_result *r);
int impl_conv2d_str(mt_args *a, mt_result *r);
int impl_conv1d(mt_args *a, mt_result *r);
int impl_conv1d_str(mt_args *a, mt_result *r);

/* A checked convolution of complex input and weight, as torch's: the real
 * convolution of the parts (mt_complex_bilinear) without the bias, which is
 * added after, one value per output channel. */
static int conv_complex(const mt_args *a, mt_result *r, int nsp, bool str_padding)
{
    mt_impl_fn impl = nsp == 1 ? (str_padding ? impl_conv1d_str : impl_conv1d)
                               : (str_padding ? impl_conv2d_str : impl_conv2d);
    mt_args b = *a;
    b.v[2].obj = NULL;
    b.v[2].t = NULL;
    if (mt_complex_bilinear(&b, r, impl) < 0)
        return -1;
    if (mt_is_none(a, 2))
        return 0;
    int64_t shape[3] = {a->v[2].t->sizes[0], 1, 1};
    mt_tensor *bias = mt_exec(MT_OP_reshape, "TL", a->v[2].t, 1 + nsp, shape);
    mt_tensor *sum = bias ? mt_exec(MT_OP_add, "TT", r->t[0], bias) : NULL;
    mt_xrelease(bias);
    mt_result_clear(r);
    return mt_result_tensor(r, sum);
}

static int conv_nd(mt_args *a, mt_result *r, int nsp, const char *op, bool str_padding)
{
    mt_tensor *in = a->v[0].t, *wt = a->v[1].t, *bias = mt_is_none(a, 2) ? NULL : a->v[2].t;
    int64_t groups = a->v[6].i;
    int64_t stride[2] = {1, 1}, pad[2] = {0, 0}, dil[2] = {1, 1};
    /* torch's conv1d and conv2d check the bias's dtype before anything else */
    if (bias && bias->dtype != in->dtype)
        return mt_error(MT_ERR_RUNTIME, "Input type (%s) and bias type (%s) should be the same",
                        mt_dtype_infos[in->dtype].cpp_name, mt_dtype_infos[bias->dtype].cpp_name);
    if (in->ndim != nsp + 1 && in->ndim != nsp + 2)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected %s (unbatched) or %s (batched) input to %s, but got input "
                        "of size: %s",
                        batch_names[nsp + 1], batch_names[nsp + 2], op, shape_of(in).s);
    bool batched = in->ndim == nsp + 2;
    bool same = str_padding && strcmp(a->v[4].str, "same") == 0;
    mt_tensor shown = batched ? *in : insert_dim(in, 0);
    if (str_padding && !same && strcmp(a->v[4].str, "valid") != 0)
        return mt_error(MT_ERR_RUNTIME, "Invalid padding string: '%s'", a->v[4].str);
    if (conv_geometry_checks(a, nsp, str_padding, same, &shown, wt) < 0)
        return -1;
    spatial(&a->v[3], nsp, stride);
    spatial(&a->v[5], nsp, dil);
    if (!str_padding)
        spatial(&a->v[4], nsp, pad);

    mt_tensor x = batched ? *in : insert_dim(in, 0), w = *wt;
    if (nsp == 1) {
        x = insert_dim(&x, 2);
        w = insert_dim(&w, 2);
    }
    int64_t full_stride[2] = {1, 1}, full_pad[2] = {0, 0}, full_dil[2] = {1, 1};
    for (int i = 0; i < nsp; i++) {
        full_stride[2 - nsp + i] = stride[i];
        full_dil[2 - nsp + i] = dil[i];
    }
    if (same) {
        /* The odd padding element goes to the far side, as in torch. */
        for (int i = 0; i < 2; i++)
            full_pad[i] = full_dil[i] * (w.sizes[2 + i] - 1) / 2;
    } else if (!str_padding) {
        for (int i = 0; i < nsp; i++)
            full_pad[2 - nsp + i] = pad[i];
    }

    int64_t O = w.sizes[0];
    if (O % groups != 0)
        /* torch brackets the bracketed shape again */
        return mt_error(MT_ERR_RUNTIME,
                        "Given groups=%lld, expected weight to be divisible by %lld at "
                        "dimension 0, but got weight of size [%s] instead",
                        (long long)groups, (long long)groups, shape_of(wt).s);
    if (x.sizes[1] != w.sizes[1] * groups)
        return mt_error(MT_ERR_RUNTIME,
                        "Given groups=%lld, weight of size %s, expected input%s to have %lld "
                        "channels, but got %lld channels instead",
                        (long long)groups, shape_of(wt).s, shape_of(&shown).s,
                        (long long)(w.sizes[1] * groups), (long long)x.sizes[1]);
    if (bias && (bias->ndim != 1 || bias->sizes[0] != O))
        return mt_error(MT_ERR_RUNTIME,
                        "Given weight of size %s, expected bias to be 1-dimensional with %lld "
                        "elements, but got bias of size %s instead",
                        shape_of(wt).s, (long long)O, shape_of(bias).s);
    if (x.dtype != w.dtype)
        return weight_type_mismatch(x.dtype, w.dtype);
    if (mt_is_complex(x.dtype))
        return conv_complex(a, r, nsp, str_padding);

    mt_window win = {w.sizes[2],
                     w.sizes[3],
                     full_stride[0],
                     full_stride[1],
                     full_pad[0],
                     full_pad[1],
                     full_dil[0],
                     full_dil[1],
                     0,
                     0};
    int64_t out_sp[2];
    for (int i = 0; i < 2; i++) {
        int64_t padded = x.sizes[2 + i] + 2 * full_pad[i];
        int64_t ext = full_dil[i] * (w.sizes[2 + i] - 1) + 1;
        if (same)
            padded = x.sizes[2 + i] + full_dil[i] * (w.sizes[2 + i] - 1);
        if (padded < ext) {
            if (nsp == 1)
                return mt_error(MT_ERR_RUNTIME,
                                "Calculated padded input size per channel: (%lld). Kernel "
                                "size: (%lld). Kernel size can't be greater than actual "
                                "input size",
                                (long long)padded, (long long)ext);
            int64_t ph = x.sizes[2] + 2 * full_pad[0], pw = x.sizes[3] + 2 * full_pad[1];
            return mt_error(MT_ERR_RUNTIME,
                            "Calculated padded input size per channel: (%lld x %lld). "
                            "Kernel size: (%lld x %lld). Kernel size can't be greater "
                            "than actual input size",
                            (long long)ph, (long long)pw,
                            (long long)(full_dil[0] * (w.sizes[2] - 1) + 1),
                            (long long)(full_dil[1] * (w.sizes[3] - 1) + 1));
        }
        out_sp[i] = (padded - ext) / full_stride[i] + 1;
    }
    win.oh = out_sp[0];
    win.ow = out_sp[1];

    int64_t sizes4[4] = {x.sizes[0], O, win.oh, win.ow};
    int64_t final_sizes[4];
    int nfinal = 0;
    if (batched)
        final_sizes[nfinal++] = sizes4[0];
    final_sizes[nfinal++] = O;
    if (nsp == 2)
        final_sizes[nfinal++] = win.oh;
    final_sizes[nfinal++] = win.ow;

    mt_tensor *wc = NULL;
    if (!mt_tensor_is_contiguous(wt)) {
        if (!(wc = mt_new(wt->dtype, wt->ndim, wt->sizes, false)))
            return -1;
        mt_copy(wc, wt);
        w = contiguous_as(wc, 4, w.sizes);
    }
    mt_tensor *out = mt_new(x.dtype, nfinal, final_sizes, false);
    if (!out) {
        mt_xrelease(wc);
        return -1;
    }
    mt_tensor o4 = contiguous_as(out, 4, sizes4);
    mt_blas_prepare();
    mt_tensor b = bias ? *bias : (mt_tensor){0}; /* bias may change while unlocked */
    double muladds = (double)o4.numel * (double)w.numel / (double)w.sizes[0];
    void *tok = mt_unlock(muladds / MT_MULADDS_PER_STEP);
    int rc = mt_conv2d_forward(&x, &w, bias ? &b : NULL, &win, groups, &o4);
    mt_relock(tok);
    mt_xrelease(wc);
    return kernel_result(r, out, rc);
}

int impl_conv2d(mt_args *a, mt_result *r) { return conv_nd(a, r, 2, "conv2d", false); }
int impl_conv2d_str(mt_args *a, mt_result *r) { return conv_nd(a, r, 2, "conv2d", true); }
int impl_conv1d(mt_args *a, mt_result *r) { return conv_nd(a, r, 1, "conv1d", false); }
int impl_conv1d_str(mt_args *a, mt_result *r) { return conv_nd(a, r, 1, "conv1d", true); }

/* --------------------------------------------------------------- pooling */

/* int[2] pooling arguments: one value repeats; otherwise exactly two. */
static int pair(const mt_value *v, int64_t *out, const char *op, const char *what)
{
    if (v->nints != 1 && v->nints != 2) {
        /* not `return mt_error(...)`: the compiler must see out unset only on -1 */
        mt_error(MT_ERR_RUNTIME, "%s: %s", op, what);
        return -1;
    }
    out[0] = v->ints[0];
    out[1] = v->ints[v->nints - 1];
    return window_pair_fits(out);
}

/* Parses and checks the window of a pooling call; x becomes the 4-d view of
 * the input and win its window. Arguments from index 1: kernel_size, stride,
 * padding, then dilation when has_dilation. */
static int pool_window(mt_args *a, const char *op, bool has_dilation, bool ceil_mode, mt_tensor *x,
                       mt_window *win)
{
    mt_tensor *in = a->v[0].t;
    int64_t k[2], s[2], p[2], d[2] = {1, 1};
    if (pair(&a->v[1], k, op, "kernel_size must either be a single int, or a tuple of two ints") <
        0)
        return -1;
    if (mt_is_none(a, 2) || a->v[2].nints == 0) {
        s[0] = k[0];
        s[1] = k[1];
    } else if (pair(&a->v[2], s, op,
                    "stride must either be omitted, a single int, or a tuple of two ints") < 0) {
        return -1;
    }
    if (pair(&a->v[3], p, op, "padding must either be a single int, or a tuple of two ints") < 0)
        return -1;
    if (has_dilation &&
        pair(&a->v[4], d, op, "dilation must be either a single int, or a tuple of two ints") < 0)
        return -1;
    if (k[0] <= 0 || k[1] <= 0)
        return mt_error(MT_ERR_RUNTIME,
                        "kernel size should be greater than zero, but got kH: %lld kW: %lld",
                        (long long)k[0], (long long)k[1]);
    if (s[0] <= 0 || s[1] <= 0)
        return mt_error(MT_ERR_RUNTIME,
                        "stride should be greater than zero, but got dH: %lld dW: %lld",
                        (long long)s[0], (long long)s[1]);
    if (d[0] <= 0 || d[1] <= 0)
        return mt_error(MT_ERR_RUNTIME,
                        "dilation should be greater than zero, but got dilationH: %lld "
                        "dilationW: %lld",
                        (long long)d[0], (long long)d[1]);
    bool empty_plane =
        in->ndim >= 3 && (in->sizes[in->ndim - 1] == 0 || in->sizes[in->ndim - 2] == 0 ||
                          (in->ndim == 4 && in->sizes[1] == 0));
    if (in->ndim < 3 && !has_dilation)
        return mt_error(MT_ERR_INDEX,
                        "Dimension out of range (expected to be in range of [%d, %d], but got -3)",
                        -in->ndim, in->ndim - 1);
    /* torch checks the padding before the input's shape */
    for (int i = 0; i < 2; i++)
        if (p[i] < 0)
            return mt_error(MT_ERR_RUNTIME, "pad must be non-negative, but got pad: %lld",
                            (long long)p[i]);
    for (int i = 0; i < 2; i++)
        if (!pool_pad_ok(p[i], k[i], d[i]))
            return mt_error(MT_ERR_RUNTIME,
                            "pad should be at most half of effective kernel size, but got "
                            "pad=%lld, kernel_size=%lld and dilation=%lld",
                            (long long)p[i], (long long)k[i], (long long)d[i]);
    /* max pooling words a wrong rank otherwise than an empty plane; average
     * pooling words both alike */
    bool rank_ok = in->ndim == 3 || in->ndim == 4;
    if (!rank_ok && has_dilation)
        return mt_error(MT_ERR_RUNTIME,
                        "non-empty 3D or 4D (batch mode) tensor expected for input");
    if (!rank_ok || empty_plane)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                        "for input, but got:%s",
                        shape_of(in).s);
    *x = in->ndim == 4 ? *in : insert_dim(in, 0);
    int64_t H = x->sizes[2], W = x->sizes[3];
    int64_t oh = pooled_size(H, k[0], p[0], s[0], d[0], ceil_mode);
    int64_t ow = pooled_size(W, k[1], p[1], s[1], d[1], ceil_mode);
    if (oh < 1 || ow < 1)
        return mt_error(MT_ERR_RUNTIME,
                        "Given input size: (%lldx%lldx%lld). Calculated output size: "
                        "(%lldx%lldx%lld). Output size is too small",
                        (long long)x->sizes[1], (long long)H, (long long)W, (long long)x->sizes[1],
                        (long long)oh, (long long)ow);
    mt_window w = {k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], oh, ow};
    *win = w;
    return 0;
}

/* A contiguous output shaped like the input with the window's plane size. */
static mt_tensor *pooled_output(const mt_tensor *in, mt_dtype dtype, int64_t oh, int64_t ow,
                                mt_tensor *o4)
{
    int64_t sizes[4];
    int n = 0;
    if (in->ndim == 4)
        sizes[n++] = in->sizes[0];
    sizes[n++] = in->sizes[in->ndim - 3];
    sizes[n++] = oh;
    sizes[n++] = ow;
    mt_tensor *out = mt_new(dtype, n, sizes, false);
    if (out) {
        int64_t s4[4] = {in->ndim == 4 ? in->sizes[0] : 1, in->sizes[in->ndim - 3], oh, ow};
        *o4 = contiguous_as(out, 4, s4);
    }
    return out;
}

/* Runs max pooling with the arguments of a row whose index 5 is ceil_mode;
 * *idx gets the indices when idx is not NULL. */
static mt_tensor *max_pool(mt_args *a, mt_tensor **idx)
{
    mt_tensor x, o4, i4;
    mt_window win;
    if (pool_window(a, "max_pool2d", true, a->v[5].b, &x, &win) < 0)
        return NULL;
    mt_tensor *in = a->v[0].t;
    mt_tensor *out = pooled_output(in, in->dtype, win.oh, win.ow, &o4);
    if (out && idx && !(*idx = pooled_output(in, MT_INT64, win.oh, win.ow, &i4))) {
        mt_release(out);
        out = NULL;
    }
    if (!out)
        return NULL;
    void *tok = mt_unlock((double)o4.numel * (double)(win.kh * win.kw));
    int rc = mt_max_pool2d_forward(&x, &win, &o4, idx ? &i4 : NULL);
    mt_relock(tok);
    if (rc < 0) {
        mt_release(out);
        if (idx) {
            mt_release(*idx);
            *idx = NULL;
        }
        return NULL;
    }
    return out;
}

int impl_max_pool2d(mt_args *a, mt_result *r)
{
    if (!a->v[6].b) /* return_indices */
        return mt_result_tensor(r, max_pool(a, NULL));
    mt_tensor *idx = NULL, *out = max_pool(a, &idx);
    if (!out || mt_result_alloc(r, MT_RESULT_TUPLE, 2) < 0) {
        mt_xrelease(out);
        mt_xrelease(idx);
        return -1;
    }
    r->t[0] = out;
    r->t[1] = idx;
    return 0;
}

int impl_max_pool2d_indices(mt_args *a, mt_result *r)
{
    mt_tensor *idx = NULL, *out = max_pool(a, &idx);
    if (!out)
        return -1;
    mt_release(out);
    return mt_result_tensor(r, idx);
}

int impl_avg_pool2d(mt_args *a, mt_result *r)
{
    bool ceil_mode = a->v[4].b, count_include_pad = a->v[5].b;
    int64_t divisor = mt_is_none(a, 6) ? 0 : a->v[6].i;
    if (!mt_is_none(a, 6) && divisor == 0)
        return mt_error(MT_ERR_RUNTIME, "divisor must be not zero");
    mt_tensor x, o4;
    mt_window win;
    if (pool_window(a, "avg_pool2d", false, ceil_mode, &x, &win) < 0)
        return -1;
    mt_tensor *in = a->v[0].t;
    mt_tensor *out = pooled_output(in, in->dtype, win.oh, win.ow, &o4);
    if (!out)
        return -1;
    void *tok = mt_unlock((double)o4.numel * (double)(win.kh * win.kw));
    int rc = mt_avg_pool2d_forward(&x, &win, count_include_pad, divisor, &o4);
    mt_relock(tok);
    return kernel_result(r, out, rc);
}

int impl_adaptive_avg_pool2d(mt_args *a, mt_result *r)
{
    mt_tensor *in = a->v[0].t;
    int64_t size[2];
    if (in->ndim != 3 && in->ndim != 4)
        return mt_error(MT_ERR_RUNTIME,
                        "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got %s",
                        shape_of(in).s);
    if (pair(&a->v[1], size, "adaptive_avg_pool2d", "output_size must be 2") < 0)
        return -1;
    for (int d = 1; d < in->ndim; d++)
        if (in->sizes[d] == 0)
            return mt_error(MT_ERR_RUNTIME,
                            "adaptive_avg_pool2d(): Expected input to have non-zero size for "
                            "non-batch dimensions, but input has sizes %s with dimension %d "
                            "being empty",
                            shape_of(in).s, d);
    if (size[0] < 0 || size[1] < 0)
        return mt_error(MT_ERR_RUNTIME,
                        "adaptive_avg_pool2d: elements of output_size must be greater than "
                        "or equal to 0 but received {%lld, %lld}",
                        (long long)size[0], (long long)size[1]);
    mt_tensor x = in->ndim == 4 ? *in : insert_dim(in, 0), o4;
    mt_tensor *out = pooled_output(in, in->dtype, size[0], size[1], &o4);
    if (!out)
        return -1;
    void *tok = mt_unlock((double)x.numel);
    int rc = mt_adaptive_avg_pool2d_forward(&x, &o4);
    mt_relock(tok);
    return kernel_result(r, out, rc);
}
