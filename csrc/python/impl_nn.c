/* nn ops with their own kernels: convolution and 2-d pooling. Each impl
 * checks its arguments in torch's words, views 1-d and unbatched inputs as
 * (N, C, H, W), and runs a kernel of kernels/conv.c. */
#include "common.h"

#include <string.h>
#include "nn_geometry.h"
#include "parser.h"

#include "../kernels/conv.h"
#include "../kernels/copy.h"

/* The C++ spelling torch's conv messages use for a dtype. */
static const char *cpp_name(mt_dtype d)
{
    const mt_dtype_info *info = &mt_dtype_infos[d];
    return info->alias ? info->alias : info->name;
}

static const char *const batch_names[] = {"", "1D", "2D", "3D", "4D"};

/* "[2, 3, 3, 3]" as a new str. */
static PyObject *shape_str(const mt_tensor *t)
{
    PyObject *list = PyList_New(t->ndim);
    if (!list)
        return NULL;
    for (int d = 0; d < t->ndim; d++)
        PyList_SET_ITEM(list, d, PyLong_FromLongLong(t->sizes[d]));
    PyObject *s = PyObject_Repr(list);
    Py_DECREF(list);
    return s;
}

static PyObject *shape_error(const char *fmt, const mt_tensor *a, const mt_tensor *b)
{
    PyObject *sa = shape_str(a), *sb = b ? shape_str(b) : NULL;
    if (sa && (sb || !b))
        PyErr_Format(PyExc_RuntimeError, fmt, sa, sb);
    Py_XDECREF(sa);
    Py_XDECREF(sb);
    return NULL;
}

/* An int[N] argument as nsp values: one value repeats. */
static int spatial(const mt_value *v, int nsp, int64_t *out, const char *name)
{
    if (v->nints != 1 && v->nints != nsp) {
        PyErr_Format(PyExc_RuntimeError,
                     "expected %s to be a single integer value or a list of %d values to "
                     "match the convolution dimensions, but got %s=%R", name, nsp, name,
                     v->obj ? v->obj : Py_None);
        return -1;
    }
    for (int i = 0; i < nsp; i++)
        out[i] = v->ints[v->nints == 1 ? 0 : i];
    return 0;
}

/* ------------------------------------------------------------------ conv */

static PyObject *conv_nd(mt_args *a, int nsp, const char *op, bool str_padding)
{
    mt_tensor *in = a->v[0].t, *wt = a->v[1].t, *bias = mt_is_none(a, 2) ? NULL : a->v[2].t;
    int64_t groups = a->v[6].i;
    int64_t stride[2] = {1, 1}, pad[2] = {0, 0}, dil[2] = {1, 1};
    if (in->ndim != nsp + 1 && in->ndim != nsp + 2) {
        PyObject *s = shape_str(in);
        if (s)
            PyErr_Format(PyExc_RuntimeError,
                         "Expected %s (unbatched) or %s (batched) input to %s, but got input "
                         "of size: %S", batch_names[nsp + 1], batch_names[nsp + 2], op, s);
        Py_XDECREF(s);
        return NULL;
    }
    if (spatial(&a->v[3], nsp, stride, "stride") < 0 ||
        spatial(&a->v[5], nsp, dil, "dilation") < 0)
        return NULL;
    if (!str_padding && spatial(&a->v[4], nsp, pad, "padding") < 0)
        return NULL;
    bool batched = in->ndim == nsp + 2;
    if (wt->ndim != nsp + 2) {
        PyObject *ws = shape_str(wt), *is = shape_str(in);
        if (ws && is)
            PyErr_Format(PyExc_RuntimeError,
                         "Expected %d-dimensional input for %d-dimensional weight %S, but got "
                         "%d-dimensional input of size %S instead",
                         wt->ndim, wt->ndim, ws, in->ndim + !batched, is);
        Py_XDECREF(ws);
        Py_XDECREF(is);
        return NULL;
    }
    for (int i = 0; i < nsp; i++) {
        if (stride[i] <= 0)
            return PyErr_Format(PyExc_RuntimeError, "non-positive stride is not supported");
        if (dil[i] <= 0)
            return PyErr_Format(PyExc_RuntimeError, "dilation should be greater than zero");
        if (pad[i] < 0)
            return PyErr_Format(PyExc_RuntimeError, "negative padding is not supported");
    }
    if (groups <= 0)
        return PyErr_Format(PyExc_RuntimeError, "non-positive groups is not supported");

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
    bool same = false;
    if (str_padding) {
        const char *mode = a->v[4].str;
        same = strcmp(mode, "same") == 0;
        if (same) {
            for (int i = 0; i < nsp; i++)
                if (stride[i] != 1)
                    return PyErr_Format(PyExc_RuntimeError,
                                        "padding='same' is not supported for strided "
                                        "convolutions");
            /* The odd padding element goes to the far side, as in torch. */
            for (int i = 0; i < 2; i++)
                full_pad[i] = full_dil[i] * (w.sizes[2 + i] - 1) / 2;
        } else if (strcmp(mode, "valid") != 0) {
            return PyErr_Format(PyExc_RuntimeError, "Invalid padding string: '%s'", mode);
        }
    } else {
        for (int i = 0; i < nsp; i++)
            full_pad[2 - nsp + i] = pad[i];
    }

    int64_t O = w.sizes[0];
    if (O % groups != 0) {
        PyObject *ws = shape_str(wt);
        if (ws)
            PyErr_Format(PyExc_RuntimeError,
                         "Given groups=%lld, expected weight to be divisible by %lld at "
                         "dimension 0, but got weight of size [%S] instead",
                         (long long)groups, (long long)groups, ws);
        Py_XDECREF(ws);
        return NULL;
    }
    if (x.sizes[1] != w.sizes[1] * groups) {
        mt_tensor shown = batched ? *in : insert_dim(in, 0);
        PyObject *ws = shape_str(wt), *is = shape_str(&shown);
        if (ws && is)
            PyErr_Format(PyExc_RuntimeError,
                         "Given groups=%lld, weight of size %S, expected input%S to have %lld "
                         "channels, but got %lld channels instead",
                         (long long)groups, ws, is, (long long)(w.sizes[1] * groups),
                         (long long)x.sizes[1]);
        Py_XDECREF(ws);
        Py_XDECREF(is);
        return NULL;
    }
    if (bias && (bias->ndim != 1 || bias->sizes[0] != O)) {
        PyObject *ws = shape_str(wt), *bs = shape_str(bias);
        if (ws && bs)
            PyErr_Format(PyExc_RuntimeError,
                         "Given weight of size %S, expected bias to be 1-dimensional with %lld "
                         "elements, but got bias of size %S instead", ws, (long long)O, bs);
        Py_XDECREF(ws);
        Py_XDECREF(bs);
        return NULL;
    }
    if (x.dtype != w.dtype || (bias && bias->dtype != x.dtype)) {
        const mt_tensor *other = x.dtype != w.dtype ? &w : bias;
        return PyErr_Format(PyExc_RuntimeError,
                            "Input type (%s) and %s type (%s) should be the same",
                            cpp_name(x.dtype), other == &w ? "weight" : "bias",
                            cpp_name(other->dtype));
    }

    mt_window win = {w.sizes[2], w.sizes[3], full_stride[0], full_stride[1], full_pad[0],
                     full_pad[1], full_dil[0], full_dil[1], 0, 0};
    int64_t out_sp[2];
    for (int i = 0; i < 2; i++) {
        int64_t padded = x.sizes[2 + i] + 2 * full_pad[i];
        int64_t ext = full_dil[i] * (w.sizes[2 + i] - 1) + 1;
        if (same)
            padded = x.sizes[2 + i] + full_dil[i] * (w.sizes[2 + i] - 1);
        if (padded < ext) {
            if (nsp == 1)
                return PyErr_Format(PyExc_RuntimeError,
                                    "Calculated padded input size per channel: (%lld). Kernel "
                                    "size: (%lld). Kernel size can't be greater than actual "
                                    "input size", (long long)padded, (long long)ext);
            int64_t ph = x.sizes[2] + 2 * full_pad[0], pw = x.sizes[3] + 2 * full_pad[1];
            return PyErr_Format(PyExc_RuntimeError,
                                "Calculated padded input size per channel: (%lld x %lld). "
                                "Kernel size: (%lld x %lld). Kernel size can't be greater "
                                "than actual input size", (long long)ph, (long long)pw,
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

    PyObject *wc = NULL;
    if (!mt_tensor_is_contiguous(wt)) {
        wc = mtpy_new_contiguous(wt->dtype, wt->ndim, wt->sizes, false);
        if (!wc)
            return NULL;
        mt_copy(MTPy_T(wc), wt);
        w = contiguous_as(MTPy_T(wc), 4, w.sizes);
    }
    PyObject *out = mtpy_new_contiguous(x.dtype, nfinal, final_sizes, false);
    if (!out) {
        Py_XDECREF(wc);
        return NULL;
    }
    mt_tensor o4 = contiguous_as(MTPy_T(out), 4, sizes4);
    mtpy_load_blas();
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mt_conv2d_forward(&x, &w, bias, &win, groups, &o4);
    Py_END_ALLOW_THREADS
    Py_XDECREF(wc);
    if (rc < 0) {
        Py_DECREF(out);
        return mtpy_raise();
    }
    return out;
}

PyObject *impl_conv2d(mt_args *a) { return conv_nd(a, 2, "conv2d", false); }
PyObject *impl_conv2d_str(mt_args *a) { return conv_nd(a, 2, "conv2d", true); }
PyObject *impl_conv1d(mt_args *a) { return conv_nd(a, 1, "conv1d", false); }
PyObject *impl_conv1d_str(mt_args *a) { return conv_nd(a, 1, "conv1d", true); }

/* --------------------------------------------------------------- pooling */

/* int[2] pooling arguments: one value repeats; otherwise exactly two. */
static int pair(const mt_value *v, int64_t *out, const char *op, const char *what)
{
    if (v->nints != 1 && v->nints != 2) {
        PyErr_Format(PyExc_RuntimeError, "%s: %s", op, what);
        return -1;
    }
    out[0] = v->ints[0];
    out[1] = v->ints[v->nints - 1];
    return 0;
}

static int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                           bool ceil_mode)
{
    int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
    int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
    if (ceil_mode && (out - 1) * stride >= in + pad)
        out--;
    return out;
}

/* Parses and checks the window of a pooling call; x becomes the 4-d view of
 * the input and win its window. Arguments from index 1: kernel_size, stride,
 * padding, then dilation when has_dilation. */
static int pool_window(mt_args *a, const char *op, bool has_dilation, bool ceil_mode,
                       mt_tensor *x, mt_window *win)
{
    mt_tensor *in = a->v[0].t;
    int64_t k[2], s[2], p[2], d[2] = {1, 1};
    if (pair(&a->v[1], k, op, "kernel_size must either be a single int, or a tuple of two ints") < 0)
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
    if (k[0] <= 0 || k[1] <= 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "kernel size should be greater than zero, but got kH: %lld kW: %lld",
                     (long long)k[0], (long long)k[1]);
        return -1;
    }
    if (s[0] <= 0 || s[1] <= 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "stride should be greater than zero, but got dH: %lld dW: %lld",
                     (long long)s[0], (long long)s[1]);
        return -1;
    }
    if (d[0] <= 0 || d[1] <= 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "dilation should be greater than zero, but got dilationH: %lld "
                     "dilationW: %lld", (long long)d[0], (long long)d[1]);
        return -1;
    }
    bool empty_plane = in->ndim >= 3 && (in->sizes[in->ndim - 1] == 0 ||
                                         in->sizes[in->ndim - 2] == 0 ||
                                         (in->ndim == 4 && in->sizes[1] == 0));
    if (in->ndim < 3 && !has_dilation) {
        PyErr_Format(PyExc_IndexError,
                     "Dimension out of range (expected to be in range of [%d, %d], but got -3)",
                     -in->ndim, in->ndim - 1);
        return -1;
    }
    if ((in->ndim != 3 && in->ndim != 4) || empty_plane) {
        PyErr_Format(PyExc_RuntimeError,
                     "non-empty 3D or 4D (batch mode) tensor expected for input");
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        if (p[i] < 0 || p[i] > (d[i] * (k[i] - 1) + 1) / 2) {
            PyErr_Format(PyExc_RuntimeError,
                         "pad should be at most half of effective kernel size, but got "
                         "pad=%lld, kernel_size=%lld and dilation=%lld",
                         (long long)p[i], (long long)k[i], (long long)d[i]);
            return -1;
        }
    }
    *x = in->ndim == 4 ? *in : insert_dim(in, 0);
    int64_t H = x->sizes[2], W = x->sizes[3];
    int64_t oh = pooled_size(H, k[0], p[0], s[0], d[0], ceil_mode);
    int64_t ow = pooled_size(W, k[1], p[1], s[1], d[1], ceil_mode);
    if (oh < 1 || ow < 1) {
        PyErr_Format(PyExc_RuntimeError,
                     "Given input size: (%lldx%lldx%lld). Calculated output size: "
                     "(%lldx%lldx%lld). Output size is too small",
                     (long long)x->sizes[1], (long long)H, (long long)W,
                     (long long)x->sizes[1], (long long)oh, (long long)ow);
        return -1;
    }
    mt_window w = {k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], oh, ow};
    *win = w;
    return 0;
}

/* A contiguous output shaped like the input with the window's plane size. */
static PyObject *pooled_output(const mt_tensor *in, mt_dtype dtype, int64_t oh, int64_t ow,
                               mt_tensor *o4)
{
    int64_t sizes[4];
    int n = 0;
    if (in->ndim == 4)
        sizes[n++] = in->sizes[0];
    sizes[n++] = in->sizes[in->ndim - 3];
    sizes[n++] = oh;
    sizes[n++] = ow;
    PyObject *out = mtpy_new_contiguous(dtype, n, sizes, false);
    if (out) {
        int64_t s4[4] = {in->ndim == 4 ? in->sizes[0] : 1, in->sizes[in->ndim - 3], oh, ow};
        *o4 = contiguous_as(MTPy_T(out), 4, s4);
    }
    return out;
}

/* Runs max pooling with the arguments of a row whose index 5 is ceil_mode;
 * *idx gets the indices when idx is not NULL. */
static PyObject *max_pool(mt_args *a, PyObject **idx)
{
    mt_tensor x, o4, i4;
    mt_window win;
    if (pool_window(a, "max_pool2d", true, a->v[5].b, &x, &win) < 0)
        return NULL;
    mt_tensor *in = a->v[0].t;
    PyObject *out = pooled_output(in, in->dtype, win.oh, win.ow, &o4);
    if (out && idx && !(*idx = pooled_output(in, MT_INT64, win.oh, win.ow, &i4)))
        Py_CLEAR(out);
    if (!out)
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mt_max_pool2d_forward(&x, &win, &o4, idx ? &i4 : NULL);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        Py_DECREF(out);
        if (idx)
            Py_CLEAR(*idx);
        return mtpy_raise();
    }
    return out;
}

PyObject *impl_max_pool2d(mt_args *a)
{
    PyObject *idx = NULL;
    bool with_indices = a->v[6].b;
    PyObject *out = max_pool(a, with_indices ? &idx : NULL);
    if (!out || !with_indices)
        return out;
    PyObject *pair_ = PyTuple_Pack(2, out, idx);
    Py_DECREF(out);
    Py_DECREF(idx);
    return pair_;
}

PyObject *impl_max_pool2d_indices(mt_args *a)
{
    PyObject *idx = NULL, *out = max_pool(a, &idx);
    Py_XDECREF(out);
    return out ? idx : NULL;
}

PyObject *impl_avg_pool2d(mt_args *a)
{
    bool ceil_mode = a->v[4].b, count_include_pad = a->v[5].b;
    int64_t divisor = mt_is_none(a, 6) ? 0 : a->v[6].i;
    if (!mt_is_none(a, 6) && divisor == 0)
        return PyErr_Format(PyExc_RuntimeError, "divisor must be not zero");
    mt_tensor x, o4;
    mt_window win;
    if (pool_window(a, "avg_pool2d", false, ceil_mode, &x, &win) < 0)
        return NULL;
    mt_tensor *in = a->v[0].t;
    PyObject *out = pooled_output(in, in->dtype, win.oh, win.ow, &o4);
    if (!out)
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mt_avg_pool2d_forward(&x, &win, count_include_pad, divisor, &o4);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        Py_DECREF(out);
        return mtpy_raise();
    }
    return out;
}

PyObject *impl_adaptive_avg_pool2d(mt_args *a)
{
    mt_tensor *in = a->v[0].t;
    int64_t size[2];
    if (in->ndim != 3 && in->ndim != 4)
        return shape_error("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got %S", in,
                           NULL);
    if (pair(&a->v[1], size, "adaptive_avg_pool2d",
             "output_size must be 2") < 0)
        return NULL;
    for (int d = 1; d < in->ndim; d++)
        if (in->sizes[d] == 0) {
            PyObject *s = shape_str(in);
            if (s)
                PyErr_Format(PyExc_RuntimeError,
                             "adaptive_avg_pool2d(): Expected input to have non-zero size for "
                             "non-batch dimensions, but input has sizes %S with dimension %d "
                             "being empty", s, d);
            Py_XDECREF(s);
            return NULL;
        }
    if (size[0] < 0 || size[1] < 0)
        return PyErr_Format(PyExc_RuntimeError,
                            "adaptive_avg_pool2d: elements of output_size must be greater than "
                            "or equal to 0 but received {%lld, %lld}",
                            (long long)size[0], (long long)size[1]);
    mt_tensor x = in->ndim == 4 ? *in : insert_dim(in, 0), o4;
    PyObject *out = pooled_output(in, in->dtype, size[0], size[1], &o4);
    if (!out)
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = mt_adaptive_avg_pool2d_forward(&x, &o4);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        Py_DECREF(out);
        return mtpy_raise();
    }
    return out;
}
