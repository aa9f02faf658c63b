/* The rows of creation.def that make tensors from sizes and numbers: empty,
 * zeros, ones, full, the _like and new_ forms, ranges, eye, and the in-place
 * fills. Plain C: they read the typed arguments and write only the tensors
 * they make or fill. The rows taking Python data (tensor, as_tensor,
 * from_numpy, new_tensor) stay in csrc/python/data_factories.c. */
#include "complex.h"
#include "creation.h"
#include "memory_format.h"
#include "out_param.h"
#include "runtime/signature.h"
#include "runtime/table.h"
#include "tensor.h"

#include "../core/dtype.h"
#include "../kernels/copy.h"
#include "../kernels/iter.h"
#include "../kernels/typed.h"
#include "../core/hot.h"

#include <float.h>
#include <math.h>

int mt_set_requires_grad_arg(mt_tensor *t, bool requires_grad)
{
    if (!requires_grad)
        return 0;
    if (!mt_is_inexact(t->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "Only Tensors of floating point and complex dtype can require gradients");
    t->flags |= MT_FLAG_REQUIRES_GRAD;
    return 0;
}

mt_tensor *mt_empty_like(const mt_tensor *src, mt_dtype dtype)
{
    return mt_new_in_format(src, dtype, MT_FORMAT_PRESERVE);
}

int mt_result_made(mt_result *r, mt_tensor *t, bool requires_grad)
{
    if (t && mt_set_requires_grad_arg(t, requires_grad) < 0) {
        mt_release(t);
        t = NULL;
    }
    return mt_result_tensor(r, t);
}

/* torch's checked conversion of a scalar to a dtype: an integer dtype
 * takes only values in its range (negative ints wrap into unsigned ones as
 * two's complement, as in torch; NaN and infinities never fit), a float
 * dtype finite values up to its largest (infinities and NaN too); bool and
 * double take anything. */
int mt_check_scalar_fits(const mt_scalar *s, mt_dtype d)
{
    static const struct {
        double lo, hi;
        const char *name;
    } range[MT_NUM_DTYPES] = {
        [MT_UINT8] = {0, 255, "uint8_t"},
        [MT_INT8] = {-128, 127, "int8_t"},
        [MT_INT16] = {-32768, 32767, "int16_t"},
        [MT_INT32] = {-2147483648.0, 2147483647.0, "int"},
        [MT_INT64] = {-9223372036854775808.0, 9223372036854775807.0, "int64_t"},
        [MT_FLOAT16] = {-65504.0, 65504.0, "c10::Half"},
        [MT_BFLOAT16] = {-3.3895313892515355e38, 3.3895313892515355e38, "c10::BFloat16"},
        [MT_FLOAT32] = {-FLT_MAX, FLT_MAX, "float"},
        [MT_UINT16] = {0, 65535.0, "uint16_t"},
        [MT_UINT32] = {0, 4294967295.0, "uint32_t"},
        [MT_UINT64] = {0, 18446744073709551615.0, "uint64_t"},
    };
    /* torch fills complex32 through complex64, so checks float's range
     * (a part beyond float16's becomes an infinity) */
    if (d == MT_COMPLEX32 && s->kind != MT_SCALAR_BOOL) {
        double re = s->kind == MT_SCALAR_INT ? (double)s->i : s->f;
        double im = s->kind == MT_SCALAR_COMPLEX ? s->im : 0;
        if ((isfinite(re) && fabs(re) > FLT_MAX) || (isfinite(im) && fabs(im) > FLT_MAX))
            return mt_error(MT_ERR_RUNTIME, "value cannot be converted to type %s without overflow",
                            "c10::complex<float>");
        return 0;
    }
    /* a complex number fits a real dtype only without its imaginary part */
    if (s->kind == MT_SCALAR_COMPLEX && !mt_is_complex(d) && s->im != 0)
        return mt_error(MT_ERR_RUNTIME, "value cannot be converted to type %s without overflow",
                        range[d].name ? range[d].name : mt_dtype_infos[d].cpp_name);
    if (!range[d].name || s->kind == MT_SCALAR_BOOL)
        return 0;
    bool fits;
    /* negative ints wrap into an unsigned dtype down to -max, every int64
     * into uint64 */
    if (s->kind == MT_SCALAR_INT && d == MT_UINT64)
        fits = true;
    else if (s->kind == MT_SCALAR_INT && (mt_is_floating(d) || d == MT_INT64))
        fits = (double)s->i >= range[d].lo && (double)s->i <= range[d].hi;
    else if (s->kind == MT_SCALAR_INT)
        fits = s->i <= (int64_t)range[d].hi &&
               s->i >= (mt_dtype_infos[d].is_signed ? (int64_t)range[d].lo : -(int64_t)range[d].hi);
    else if (mt_is_floating(d))
        fits = !isfinite(s->f) || (s->f >= range[d].lo && s->f <= range[d].hi);
    else /* the int64 bound is 2**63, which no double in range reaches */
        fits = s->f >= range[d].lo && (d == MT_INT64 ? s->f < range[d].hi : s->f <= range[d].hi);
    return fits ? 0
                : mt_error(MT_ERR_RUNTIME, "value cannot be converted to type %s without overflow",
                           range[d].name);
}

void mt_fill_scalar(mt_tensor *t, const mt_scalar *s)
{
    if (s->kind == MT_SCALAR_COMPLEX)
        mt_fill_complex(t, s->f, s->im);
    else
        mt_fill(t, s->f, s->i, s->kind != MT_SCALAR_FLOAT);
}

/* torch infers full()'s dtype from the fill value. */
static mt_dtype scalar_dtype(const mt_scalar *s)
{
    return s->kind == MT_SCALAR_BOOL      ? MT_BOOL
           : s->kind == MT_SCALAR_INT     ? MT_INT64
           : s->kind == MT_SCALAR_COMPLEX ? mt_complex_of(mt_default_dtype)
                                          : mt_default_dtype;
}

static int filled(mt_result *r, mt_tensor *t, const mt_scalar *s, bool requires_grad)
{
    if (t && s && mt_check_scalar_fits(s, t->dtype) < 0) {
        mt_release(t);
        return -1;
    }
    if (t && s)
        mt_fill_scalar(t, s);
    return mt_result_made(r, t, requires_grad);
}

/* A factory's out= target: of the dtype= given, if any, resized quietly to
 * the size asked for, then filled with s (left as it is when NULL). */
static int into_out(mt_args *a, mt_result *r, mt_tensor *out, const mt_scalar *s)
{
    mt_dtype d = mt_dtype_arg(a, 1, out->dtype);
    if (d != out->dtype)
        return mt_error(MT_ERR_RUNTIME, "dtype %s does not match dtype of out parameter (%s)",
                        mt_dtype_infos[d].scalar_name, mt_dtype_infos[out->dtype].scalar_name);
    if (mt_resize_out_quietly(out, a->v[0].nints, a->v[0].ints) < 0)
        return -1;
    if (s) {
        if (mt_check_scalar_fits(s, out->dtype) < 0)
            return -1;
        mt_fill_scalar(out, s);
        mt_bump_version(out);
    }
    mt_retain(out);
    return mt_result_tensor(r, out);
}

/* size, dtype at 1, requires_grad at 4 for every factory of this shape;
 * out= where the row has one */
static int factory(mt_args *a, mt_result *r, bool zeroed, bool fill, double value)
{
    mt_tensor *out = mt_out_target(a);
    if (out) {
        mt_scalar s = {.kind = MT_SCALAR_INT, .i = (int64_t)value, .f = value};
        return into_out(a, r, out, zeroed || fill ? &s : NULL);
    }
    mt_dtype d = mt_dtype_arg(a, 1, mt_default_dtype);
    mt_tensor *t = mt_new(d, a->v[0].nints, a->v[0].ints, zeroed);
    if (t && fill)
        mt_fill(t, value, (int64_t)value, 0);
    return mt_result_made(r, t, a->v[4].b);
}

/* empty(size, *, dtype, layout, device, requires_grad, pin_memory, memory_format, out) */
int impl_empty(mt_args *a, mt_result *r)
{
    mt_memory_format f = mt_format_arg(a, 6, MT_FORMAT_CONTIGUOUS);
    if (f == MT_FORMAT_CONTIGUOUS || mt_out_target(a))
        return factory(a, r, false, false, 0);
    int64_t strides[MT_MAX_DIMS];
    int n = a->v[0].nints; /* the formats below name rank 4 or 5 only */
    if (mt_format_strides(f, n, a->v[0].ints, strides) < 0)
        return -1;
    mt_dtype d = mt_dtype_arg(a, 1, mt_default_dtype);
    return mt_result_made(r, mt_new_strided(d, n, a->v[0].ints, strides), a->v[4].b);
}

MT_HOT int impl_zeros(mt_args *a, mt_result *r)
{
    for (int i = 0; i < a->v[0].nints; i++)
        if (a->v[0].ints[i] < 0)
            return mt_error(MT_ERR_RUNTIME, "zeros: Dimension size must be non-negative.");
    return factory(a, r, true, false, 0);
}

int impl_ones(mt_args *a, mt_result *r) { return factory(a, r, false, true, 1); }

/* full(size, fill_value, *, dtype, layout, device, requires_grad) */
int impl_full(mt_args *a, mt_result *r)
{
    const mt_scalar *s = &a->v[1].s;
    mt_dtype d = mt_dtype_arg(a, 2, scalar_dtype(s));
    return filled(r, mt_new(d, a->v[0].nints, a->v[0].ints, false), s, a->v[5].b);
}

/* full_like(input, fill_value, *, dtype, layout, device, requires_grad, memory_format) */
int impl_full_like(mt_args *a, mt_result *r)
{
    const mt_tensor *in = a->v[0].t;
    mt_tensor *t = mt_new_in_format(in, mt_dtype_arg(a, 2, in->dtype),
                                    mt_format_arg(a, 6, MT_FORMAT_PRESERVE));
    return filled(r, t, &a->v[1].s, a->v[5].b);
}

/* zeros_like/ones_like/empty_like(input, *, dtype, layout, device, requires_grad, memory_format) */
static int like(mt_args *a, mt_result *r, const mt_scalar *s)
{
    const mt_tensor *in = a->v[0].t;
    mt_tensor *t = mt_new_in_format(in, mt_dtype_arg(a, 1, in->dtype),
                                    mt_format_arg(a, 5, MT_FORMAT_PRESERVE));
    return filled(r, t, s, a->v[4].b);
}

static const mt_scalar zero = {MT_SCALAR_INT, 0, 0.0};
static const mt_scalar one = {MT_SCALAR_INT, 1, 1.0};

int impl_zeros_like(mt_args *a, mt_result *r) { return like(a, r, &zero); }
int impl_ones_like(mt_args *a, mt_result *r) { return like(a, r, &one); }
int impl_empty_like(mt_args *a, mt_result *r) { return like(a, r, NULL); }

/* new_zeros/new_ones/new_empty(self, size, *, dtype, layout, device, requires_grad, pin_memory) */
static int new_like(mt_args *a, mt_result *r, int di, int rgi, const mt_scalar *s)
{
    mt_dtype d = mt_dtype_arg(a, di, a->v[0].t->dtype);
    return filled(r, mt_new(d, a->v[1].nints, a->v[1].ints, false), s, a->v[rgi].b);
}

int impl_new_zeros(mt_args *a, mt_result *r) { return new_like(a, r, 2, 5, &zero); }
int impl_new_ones(mt_args *a, mt_result *r) { return new_like(a, r, 2, 5, &one); }
int impl_new_empty(mt_args *a, mt_result *r) { return new_like(a, r, 2, 5, NULL); }
/* new_full(self, size, fill_value, *, dtype, layout, device, requires_grad, pin_memory) */
int impl_new_full(mt_args *a, mt_result *r) { return new_like(a, r, 3, 6, &a->v[2].s); }

/* An in-place fill's result: self, its new contents counted as a write. */
static int written_self(mt_args *a, mt_result *r)
{
    mt_tensor *self = a->v[0].t;
    mt_bump_version(self);
    mt_retain(self);
    return mt_result_tensor(r, self);
}

/* fill_(input, value) */
int impl_fill_(mt_args *a, mt_result *r)
{
    if (mt_check_scalar_fits(&a->v[1].s, a->v[0].t->dtype) < 0)
        return -1;
    mt_fill_scalar(a->v[0].t, &a->v[1].s);
    return written_self(a, r);
}

/* fill_(input, value) with a tensor value: its gradient is recorded */
int impl_fill_tensor_(mt_args *a, mt_result *r)
{
    mt_tensor *v = a->v[1].t;
    if (v->ndim != 0)
        return mt_error(MT_ERR_RUNTIME,
                        "fill_ only supports 0-dimension value tensor but got tensor with %d "
                        "dimensions.",
                        v->ndim);
    mt_copy(a->v[0].t, v);
    return written_self(a, r);
}

int impl_zero_(mt_args *a, mt_result *r)
{
    mt_fill_scalar(a->v[0].t, &zero);
    return written_self(a, r);
}

/* ------------------------------------------------------------------ ranges */

/* Writes n values computed in double (or int64 for integral dtypes) into a
 * new 1-D tensor of dtype d. */
typedef double (*value_fn)(const double *p, int64_t i);

static mt_tensor *range_tensor(mt_dtype d, int64_t n, value_fn f, const double *p)
{
    mt_tensor *out = mt_new(d, 1, &n, false);
    if (!out || d == MT_FLOAT64) {
        if (out)
            for (int64_t i = 0; i < n; i++)
                ((double *)mt_data(out))[i] = f(p, i);
        return out;
    }
    mt_tensor *tmp = mt_new(MT_FLOAT64, 1, &n, false);
    if (!tmp) {
        mt_release(out);
        return NULL;
    }
    double *td = (double *)mt_data(tmp);
    for (int64_t i = 0; i < n; i++)
        td[i] = f(p, i);
    mt_copy(out, tmp);
    mt_release(tmp);
    return out;
}

static double arange_value(const double *p, int64_t i) { return p[0] + p[2] * (double)i; }

static int arange(mt_args *a, mt_result *r, const mt_scalar *start, const mt_scalar *end,
                  const mt_scalar *step, int di, int rgi)
{
    bool any_float = start->kind == MT_SCALAR_FLOAT || end->kind == MT_SCALAR_FLOAT ||
                     step->kind == MT_SCALAR_FLOAT;
    mt_dtype d = mt_dtype_arg(a, di, any_float ? mt_default_dtype : MT_INT64);
    if (!isfinite(start->f) || !isfinite(end->f))
        return mt_error(MT_ERR_RUNTIME, "unsupported range: %g -> %g", start->f, end->f);
    if (any_float && d == MT_INT64) {
        /* torch converts the three to int64 first for an int64 result
         * (arange(0, 3, 0.5, dtype=int64) has step 0; its other integer
         * dtypes compute in double) */
        mt_scalar is[3];
        const mt_scalar *src[3] = {start, end, step};
        for (int k = 0; k < 3; k++)
            is[k] = (mt_scalar){MT_SCALAR_INT, (int64_t)src[k]->f, trunc(src[k]->f)};
        if (is[2].i == 0)
            return mt_error(MT_ERR_VALUE, "step must be nonzero");
        return arange(a, r, &is[0], &is[1], &is[2], di, rgi);
    }
    if (step->f == 0)
        return mt_error(MT_ERR_RUNTIME, "step must be nonzero");
    if (!((step->f > 0 && end->f >= start->f) || (step->f < 0 && end->f <= start->f)))
        return mt_error(MT_ERR_RUNTIME, "upper bound and lower bound inconsistent with step sign");
    double size_d;
    if (mt_is_integral(d, true) && !any_float)
        size_d = ceil((double)(end->i - start->i) / (double)step->i);
    else
        size_d = ceil((end->f - start->f) / step->f);
    if (!(size_d >= 0 && size_d <= (double)INT64_MAX))
        return mt_error(MT_ERR_RUNTIME, "invalid size, possible overflow?");
    int64_t n = (int64_t)size_d;
    mt_tensor *out;
    if (mt_is_integral(d, true) && !any_float) {
        out = mt_new(MT_INT64, 1, &n, false);
        if (out) {
            int64_t *o = (int64_t *)mt_data(out);
            for (int64_t i = 0; i < n; i++)
                o[i] = start->i + step->i * i;
            if (d != MT_INT64) {
                mt_tensor *cast = mt_new(d, 1, &n, false);
                if (cast)
                    mt_copy(cast, out);
                mt_release(out);
                out = cast;
            }
        }
    } else {
        double p[3] = {start->f, end->f, step->f};
        out = range_tensor(d, n, arange_value, p);
    }
    return mt_result_made(r, out, a->v[rgi].b);
}

/* arange(end, *, dtype, layout, device, requires_grad, pin_memory) */
int impl_arange_end(mt_args *a, mt_result *r)
{
    return arange(a, r, &zero, &a->v[0].s, &one, 1, 4);
}

/* arange(start, end, step=1, *, dtype, layout, device, requires_grad, pin_memory) */
int impl_arange(mt_args *a, mt_result *r)
{
    return arange(a, r, &a->v[0].s, &a->v[1].s, &a->v[2].s, 3, 6);
}

/* torch fills the first half forward from start and the second half backward
 * from end, so both ends are exact; it computes in the result dtype (double
 * for integers) with fused multiply-adds. p = {start, end, step, steps}. */
static double linspace_value(const double *p, int64_t i)
{
    int64_t steps = (int64_t)p[3];
    return i < steps / 2 ? fma(p[2], (double)i, p[0]) : fma(-p[2], (double)(steps - i - 1), p[1]);
}

static double linspace_value_f(const double *p, int64_t i)
{
    int64_t steps = (int64_t)p[3];
    float start = (float)p[0], end = (float)p[1];
    float step = steps > 1 ? (end - start) / (float)(steps - 1) : 0.0f;
    return i < steps / 2 ? fmaf(step, (float)i, start) : fmaf(-step, (float)(steps - i - 1), end);
}

static double logspace_value(const double *p, int64_t i) { return pow(p[4], linspace_value(p, i)); }

/* A complex linspace is one of each part, spaced in the part type as torch
 * steps a complex number; a complex logspace raises base to it as
 * libstdc++'s pow(real, complex): |base^z| = base^re at angle im log(base)
 * for a positive base, the complex power otherwise. */
static mt_tensor *spaced_complex(mt_dtype d, const mt_scalar *start, const mt_scalar *end,
                                 int64_t steps, double base, bool logscale)
{
    mt_dtype part = mt_complex_part(d);
    mt_tensor *out = mt_new(d, 1, &steps, false);
    mt_tensor *parts[2] = {NULL, NULL};
    for (int k = 0; out && k < 2; k++) {
        double s0 = k ? start->im : start->f, s1 = k ? end->im : end->f;
        double p[4] = {s0, steps == 1 ? s0 : s1, steps > 1 ? (s1 - s0) / (double)(steps - 1) : 0,
                       (double)steps};
        value_fn f = part == MT_FLOAT32 ? linspace_value_f : linspace_value;
        parts[k] = range_tensor(MT_FLOAT64, steps, f, p);
        if (!parts[k]) {
            mt_release(out);
            out = NULL;
        }
    }
    if (out && !logscale)
        for (int k = 0; k < 2; k++) {
            mt_tensor o = mt_complex_part_of(out, k);
            mt_copy(&o, parts[k]);
        }
    else if (out) {
        const double *re = (const double *)mt_data(parts[0]),
                     *im = (const double *)mt_data(parts[1]);
        mt_tensor *z = mt_new(MT_COMPLEX128, 1, &steps, false);
        if (z) {
            mt_c128 *zd = (mt_c128 *)mt_data(z);
            for (int64_t i = 0; i < steps; i++)
                if (base > 0) {
                    double m = pow(base, re[i]), th = im[i] * log(base);
                    zd[i] = mt_cmplx(m * cos(th), m * sin(th));
                } else
                    zd[i] = cpow(mt_cmplx(base, 0), mt_cmplx(re[i], im[i]));
            mt_copy(out, z);
            mt_release(z);
        } else {
            mt_release(out);
            out = NULL;
        }
    }
    mt_xrelease(parts[0]);
    mt_xrelease(parts[1]);
    return out;
}

static int spaced(mt_args *a, mt_result *r, double base, bool log, int di, int rgi)
{
    int64_t steps = a->v[2].i;
    if (steps < 0)
        return mt_error(MT_ERR_RUNTIME, "number of steps must be non-negative");
    mt_dtype d = mt_dtype_arg(a, di, mt_default_dtype);
    if (mt_check_scalar_fits(&a->v[0].s, d) < 0 || mt_check_scalar_fits(&a->v[1].s, d) < 0)
        return -1;
    if (mt_is_complex(d))
        return mt_result_made(r, spaced_complex(d, &a->v[0].s, &a->v[1].s, steps, base, log),
                              a->v[rgi].b);
    double start = a->v[0].s.f, end = a->v[1].s.f;
    if (mt_is_integral(d, true)) {
        start = trunc(start);
        end = trunc(end);
    }
    double p[5] = {start, end, steps > 1 ? (end - start) / (double)(steps - 1) : 0, (double)steps,
                   base};
    value_fn f = log ? logspace_value : d == MT_FLOAT32 ? linspace_value_f : linspace_value;
    if (steps == 1)
        p[1] = start;
    return mt_result_made(r, range_tensor(d, steps, f, p), a->v[rgi].b);
}

/* linspace(start, end, steps, *, dtype, layout, device, requires_grad) */
int impl_linspace(mt_args *a, mt_result *r) { return spaced(a, r, 0, false, 3, 6); }
/* logspace(start, end, steps, base=10.0, *, dtype, layout, device, requires_grad) */
int impl_logspace(mt_args *a, mt_result *r) { return spaced(a, r, a->v[3].f, true, 4, 7); }

/* The ends of torch's overloads of linspace and logspace that take tensors:
 * each tensor must be 0-d and stands for its value. */
static int ends_as_numbers(mt_args *a)
{
    bool ts = a->sig->params[0].type == MT_ARG_TENSOR, te = a->sig->params[1].type == MT_ARG_TENSOR;
    int ds = ts ? a->v[0].t->ndim : 0, de = te ? a->v[1].t->ndim : 0;
    const char *name = a->sig->name;
    if (ts && te && (ds || de))
        return mt_error(MT_ERR_RUNTIME,
                        "%s only supports 0-dimensional start and end tensors, but got start with "
                        "%d dimension(s) and end with %d dimension(s).",
                        name, ds, de);
    if (ds || de)
        return mt_error(MT_ERR_RUNTIME,
                        "%s only supports 0-dimensional start and end tensors, but got %s with %d "
                        "dimension(s).",
                        name, ds ? "start" : "end", ds ? ds : de);
    for (int i = 0; i < 2; i++)
        if (a->sig->params[i].type == MT_ARG_TENSOR)
            a->v[i].s = mt_scalar_at(a->v[i].t, mt_data(a->v[i].t));
    return 0;
}

int impl_linspace_ends(mt_args *a, mt_result *r)
{
    return ends_as_numbers(a) < 0 ? -1 : impl_linspace(a, r);
}

int impl_logspace_ends(mt_args *a, mt_result *r)
{
    return ends_as_numbers(a) < 0 ? -1 : impl_logspace(a, r);
}

static int eye(mt_args *a, mt_result *r, int64_t n, int64_t m, int di, int rgi)
{
    if (n < 0)
        return mt_error(MT_ERR_RUNTIME, "n must be greater or equal to 0, got %lld", (long long)n);
    if (m < 0)
        return mt_error(MT_ERR_RUNTIME, "m must be greater or equal to 0, got %lld", (long long)m);
    int64_t sizes[2] = {n, m};
    mt_tensor *t = mt_new(mt_dtype_arg(a, di, mt_default_dtype), 2, sizes, true);
    if (t) {
        /* the diagonal as a 1-D strided view, filled with ones */
        mt_tensor diag = *t;
        diag.ndim = 1;
        diag.sizes[0] = n < m ? n : m;
        diag.strides[0] = m + 1;
        diag.numel = diag.sizes[0];
        mt_fill_scalar(&diag, &one);
    }
    return mt_result_made(r, t, a->v[rgi].b);
}

/* eye(n, *, dtype, layout, device, requires_grad, pin_memory) */
int impl_eye(mt_args *a, mt_result *r) { return eye(a, r, a->v[0].i, a->v[0].i, 1, 4); }
/* eye(n, m, *, dtype, layout, device, requires_grad, pin_memory) */
int impl_eye_m(mt_args *a, mt_result *r) { return eye(a, r, a->v[0].i, a->v[1].i, 2, 5); }
