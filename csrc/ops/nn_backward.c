/* The backward rows of nn.def (_convolution_backward_input, ...): the
 * derivative formulas of autograd/formulas_nn.c call them with the forward's
 * geometry resolved to explicit values, so they only check shapes before
 * running a kernel of kernels/nn_conv.c on a tensor they make. Plain C: impls
 * read typed mt_args, make tensors through the owner hooks (core/owner.h),
 * run the conv and pool kernels (convolution after mt_blas_prepare, the
 * host's hook) and report failures with mt_error; nothing here may touch
 * Python. */
#include "complex_bilinear.h"
#include "runtime/args.h"
#include "nn_geometry.h"
#include "runtime/unlock.h"

#include "../kernels/gemm/blas.h"
#include "../kernels/nn_conv.h"
#include "../kernels/copy.h"

/* A tensor of rank nsp + 1 (unbatched) or nsp + 2 seen as (N, C, H, W). */
static mt_tensor as4d(const mt_tensor *t, int nsp)
{
    mt_tensor v = t->ndim == nsp + 1 ? insert_dim(t, 0) : *t;
    return nsp == 1 ? insert_dim(&v, 2) : v;
}

/* t itself when contiguous, else a contiguous copy; a new reference. */
static mt_tensor *contiguous(mt_tensor *t)
{
    if (mt_tensor_is_contiguous(t)) {
        mt_retain(t);
        return t;
    }
    mt_tensor *c = mt_new(t->dtype, t->ndim, t->sizes, false);
    if (c)
        mt_copy(c, t);
    return c;
}

/* nsp values of an int[] argument (one value repeats) into the last nsp of
 * two slots, the others keeping their defaults. */
static int spatial(const mt_value *v, int nsp, int64_t *out, const char *name)
{
    if (v->nints != 1 && v->nints != nsp)
        return mt_error(MT_ERR_RUNTIME, "expected %s to have %d values", name, nsp);
    for (int i = 0; i < nsp; i++)
        out[2 - nsp + i] = v->ints[v->nints == 1 ? 0 : i];
    return 0;
}

/* The window of a convolution with weight w4 (4-d) whose output grad4 is. */
static int conv_window(mt_args *a, int nsp, const mt_tensor *w4, const mt_tensor *g4,
                       mt_window *win)
{
    int64_t s[2] = {1, 1}, p[2] = {0, 0}, d[2] = {1, 1};
    if (spatial(&a->v[3], nsp, s, "stride") < 0 || spatial(&a->v[4], nsp, p, "padding") < 0 ||
        spatial(&a->v[5], nsp, d, "dilation") < 0)
        return -1;
    for (int i = 0; i < 2; i++)
        if (s[i] <= 0 || d[i] <= 0 || p[i] < 0)
            return mt_error(MT_ERR_RUNTIME,
                            "convolution backward: stride and dilation must be positive and "
                            "padding non-negative");
    if (a->v[6].i <= 0 || w4->sizes[0] % a->v[6].i != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "convolution backward: groups must be positive and divide the "
                        "output channels");
    mt_window w = {w4->sizes[2], w4->sizes[3], s[0], s[1],         p[0],
                   p[1],         d[0],         d[1], g4->sizes[2], g4->sizes[3]};
    *win = w;
    return 0;
}

/* Checks that grad (N, O, ...) and input (N, C, ...) fit weight (O, C/groups, ...). */
static int conv_shapes(const mt_tensor *g4, const mt_tensor *x4, const mt_tensor *w4,
                       int64_t groups, int grad_ndim, int input_ndim)
{
    if (grad_ndim != input_ndim || g4->sizes[0] != x4->sizes[0] || g4->sizes[1] != w4->sizes[0] ||
        x4->sizes[1] != w4->sizes[1] * groups)
        return mt_error(MT_ERR_RUNTIME,
                        "convolution backward: grad_output, input and weight shapes do not "
                        "match");
    return 0;
}

static int same_dtype(const mt_tensor *a, const mt_tensor *b)
{
    if (a->dtype == b->dtype)
        return 0;
    return mt_error(MT_ERR_RUNTIME, "expected scalar type %s but found %s",
                    mt_dtype_infos[a->dtype].scalar_name, mt_dtype_infos[b->dtype].scalar_name);
}

/* The rank the weight implies: 1 or 2 spatial dims, with input rank checked. */
static int conv_nsp(int weight_ndim, int input_ndim)
{
    int nsp = weight_ndim - 2;
    if ((nsp == 1 || nsp == 2) && (input_ndim == nsp + 1 || input_ndim == nsp + 2))
        return nsp;
    return mt_error(MT_ERR_RUNTIME,
                    "convolution backward: expected a 3-d or 4-d weight and an input of its "
                    "rank or one less, got %d-d weight and %d-d input",
                    weight_ndim, input_ndim);
}

int impl_convolution_backward_input(mt_args *a, mt_result *r);
int impl_convolution_backward_weight(mt_args *a, mt_result *r);

typedef int (*conv_backward_kernel)(const mt_tensor *, const mt_tensor *, const mt_window *,
                                    int64_t, mt_tensor *);

/* Both convolution gradients: the result has the shape of the int[] param 2
 * (input_size or weight_size); param 1 is the other operand (weight or input). */
static int conv_backward(mt_args *a, mt_result *r, bool wants_input)
{
    mt_tensor *grad = a->v[0].t, *t1 = a->v[1].t;
    const mt_value *size = &a->v[2];
    int64_t groups = a->v[6].i;
    if (same_dtype(grad, t1) < 0)
        return -1;
    if (mt_is_complex(grad->dtype))
        return mt_complex_bilinear(
            a, r, wants_input ? impl_convolution_backward_input : impl_convolution_backward_weight);
    int w_ndim = wants_input ? t1->ndim : size->nints;
    int x_ndim = wants_input ? size->nints : t1->ndim;
    int nsp = conv_nsp(w_ndim, x_ndim);
    if (nsp < 0)
        return -1;
    if (grad->ndim != x_ndim)
        return mt_error(MT_ERR_RUNTIME,
                        "convolution backward: grad_output must have the input's rank");
    for (int i = 0; i < size->nints; i++)
        if (size->ints[i] < 0)
            return mt_error(MT_ERR_RUNTIME, "convolution backward: negative size");
    mt_tensor *result = mt_new(t1->dtype, size->nints, size->ints, false);
    /* the input may keep any strides (unfold reads them), the weight may not */
    mt_tensor *gc = result ? contiguous(grad) : NULL;
    mt_tensor *oc = NULL;
    if (gc) {
        if (wants_input) {
            oc = contiguous(t1);
        } else {
            mt_retain(t1);
            oc = t1;
        }
    }
    int rc = -1;
    if (oc) {
        mt_tensor g4 = as4d(gc, nsp), r4 = as4d(result, nsp), o4 = as4d(oc, nsp);
        const mt_tensor *w4 = wants_input ? &o4 : &r4, *x4 = wants_input ? &r4 : &o4;
        mt_window win;
        if (conv_window(a, nsp, w4, &g4, &win) == 0 &&
            conv_shapes(&g4, x4, w4, groups, grad->ndim, x_ndim) == 0) {
            conv_backward_kernel kernel =
                wants_input ? mt_conv2d_backward_input : mt_conv2d_backward_weight;
            mt_blas_prepare();
            double muladds = (double)g4.numel * (double)w4->numel / (double)w4->sizes[0];
            void *tok = mt_unlock(muladds / MT_MULADDS_PER_STEP);
            rc = kernel(&g4, &o4, &win, groups, &r4);
            mt_relock(tok);
        }
    }
    mt_xrelease(gc);
    mt_xrelease(oc);
    if (!result)
        return -1;
    return kernel_result(r, result, rc);
}

int impl_convolution_backward_input(mt_args *a, mt_result *r) { return conv_backward(a, r, true); }

int impl_convolution_backward_weight(mt_args *a, mt_result *r)
{
    return conv_backward(a, r, false);
}

/* ---------------------------------------------------------------- pooling */

/* int[2] as a pair (one value repeats), every value at least lo. */
static int pool_pair(const mt_value *v, int64_t *out, int64_t lo, const char *name)
{
    if (v->nints != 1 && v->nints != 2) {
        /* not `return mt_error(...)`: the compiler must see out unset only on -1 */
        mt_error(MT_ERR_RUNTIME, "pooling backward: %s must be one or two ints", name);
        return -1;
    }
    out[0] = v->ints[0];
    out[1] = v->ints[v->nints - 1];
    if (window_pair_fits(out) < 0)
        return -1;
    if (out[0] < lo || out[1] < lo)
        return mt_error(MT_ERR_RUNTIME, "pooling backward: %s must be at least %lld", name,
                        (long long)lo);
    return 0;
}

/* A new contiguous gradient shaped like the input (3-d or 4-d, sizes from
 * input_size) whose leading dims match grad's; r4 and g4 get the 4-d views. */
static mt_tensor *pool_result(const mt_tensor *grad, int ndim, const int64_t *sizes, mt_tensor *g4,
                              mt_tensor *r4)
{
    if ((ndim != 3 && ndim != 4) || grad->ndim != ndim) {
        mt_error(MT_ERR_RUNTIME,
                 "pooling backward: expected 3-d or 4-d grad_output and input of the same "
                 "rank");
        return NULL;
    }
    for (int d = 0; d < ndim - 2; d++)
        if (grad->sizes[d] != sizes[d]) {
            mt_error(MT_ERR_RUNTIME,
                     "pooling backward: grad_output and input differ in the batch or channel "
                     "size");
            return NULL;
        }
    for (int d = ndim - 2; d < ndim; d++)
        if (sizes[d] <= 0) {
            mt_error(MT_ERR_RUNTIME, "pooling backward: input sizes must be positive");
            return NULL;
        }
    mt_tensor *result = mt_new(grad->dtype, ndim, sizes, false);
    if (result) {
        *g4 = ndim == 4 ? *grad : insert_dim(grad, 0);
        *r4 = ndim == 4 ? *result : insert_dim(result, 0);
    }
    return result;
}

/* The kernels walk every window of grad's plane: the plane must be the one
 * the window makes of the input (floor or ceil mode), and the window one the
 * forward accepts, or a huge kernel_size would run for ever. */
static int check_pooled_grad(const mt_tensor *g4, const int64_t *in_hw, const int64_t *k,
                             const int64_t *s, const int64_t *p, const int64_t *d)
{
    for (int i = 0; i < 2; i++) {
        int64_t g = g4->sizes[2 + i];
        if (!pool_pad_ok(p[i], k[i], d[i]) ||
            (g != pooled_size(in_hw[i], k[i], p[i], s[i], d[i], false) &&
             g != pooled_size(in_hw[i], k[i], p[i], s[i], d[i], true)))
            return mt_error(MT_ERR_RUNTIME,
                            "pooling backward: grad_output's size %lld in dim %d is not the "
                            "pooled size of the input",
                            (long long)g, g4->ndim - 2 + i);
    }
    return 0;
}

int impl_max_pool2d_backward(mt_args *a, mt_result *r)
{
    mt_tensor *grad = a->v[0].t, *in = a->v[1].t, g4, r4;
    int64_t k[2], s[2], p[2], d[2];
    if (same_dtype(grad, in) < 0 || pool_pair(&a->v[2], k, 1, "kernel_size") < 0 ||
        pool_pair(&a->v[3], s, 1, "stride") < 0 || pool_pair(&a->v[4], p, 0, "padding") < 0 ||
        pool_pair(&a->v[5], d, 1, "dilation") < 0)
        return -1;
    mt_tensor *result = pool_result(grad, in->ndim, in->sizes, &g4, &r4);
    if (!result)
        return -1;
    mt_tensor x4 = in->ndim == 4 ? *in : insert_dim(in, 0);
    if (check_pooled_grad(&g4, &x4.sizes[2], k, s, p, d) < 0) {
        mt_release(result);
        return -1;
    }
    mt_window win = {k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], g4.sizes[2], g4.sizes[3]};
    void *tok = mt_unlock((double)g4.numel * (double)(win.kh * win.kw));
    int rc = mt_max_pool2d_backward(&g4, &x4, &win, &r4);
    mt_relock(tok);
    return kernel_result(r, result, rc);
}

int impl_avg_pool2d_backward(mt_args *a, mt_result *r)
{
    mt_tensor *grad = a->v[0].t, g4, r4;
    int64_t k[2], s[2], p[2];
    bool count_include_pad = a->v[5].b;
    int64_t divisor = mt_is_none(a, 6) ? 0 : a->v[6].i;
    if (!mt_is_none(a, 6) && divisor == 0)
        return mt_error(MT_ERR_RUNTIME, "divisor must be not zero");
    if (pool_pair(&a->v[2], k, 1, "kernel_size") < 0 || pool_pair(&a->v[3], s, 1, "stride") < 0 ||
        pool_pair(&a->v[4], p, 0, "padding") < 0)
        return -1;
    mt_tensor *result = pool_result(grad, a->v[1].nints, a->v[1].ints, &g4, &r4);
    if (!result)
        return -1;
    const int64_t one[2] = {1, 1};
    if (check_pooled_grad(&g4, &r4.sizes[2], k, s, p, one) < 0) {
        mt_release(result);
        return -1;
    }
    mt_window win = {k[0], k[1], s[0], s[1], p[0], p[1], 1, 1, g4.sizes[2], g4.sizes[3]};
    void *tok = mt_unlock((double)g4.numel * (double)(win.kh * win.kw));
    int rc = mt_avg_pool2d_backward(&g4, &win, count_include_pad, divisor, &r4);
    mt_relock(tok);
    return kernel_result(r, result, rc);
}

int impl_adaptive_avg_pool2d_backward(mt_args *a, mt_result *r)
{
    mt_tensor *grad = a->v[0].t, g4, r4;
    mt_tensor *result = pool_result(grad, a->v[1].nints, a->v[1].ints, &g4, &r4);
    if (!result)
        return -1;
    void *tok = mt_unlock((double)r4.numel);
    int rc = mt_adaptive_avg_pool2d_backward(&g4, &r4);
    mt_relock(tok);
    return kernel_result(r, result, rc);
}
