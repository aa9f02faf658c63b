/* The rows of complex.def that are not elementwise kernels: a complex
 * tensor's parts as real views (view_as_real, real, imag) and back
 * (view_as_complex), and complex tensors built from real ones (complex,
 * polar). A complex element is its real part followed by its imaginary
 * part, so a part is a view of the part dtype with every stride doubled.
 * Plain C: makes tensors through the owner hooks, reports through mt_error;
 * no Python. */
#include "complex.h"
#include "creation.h"
#include "out_param.h"
#include "runtime/table.h"
#include "runtime/call.h"
#include "runtime/conj_view.h"

#include "../core/shape.h"
#include "../kernels/copy.h"

#include <string.h>

static const char *sname(mt_dtype d) { return mt_dtype_infos[d].scalar_name; }

/* The complex dtype whose parts are d: complex32 for float16, as torch's
 * complex() and view_as_complex give (unlike promotion's mt_complex_of,
 * which computes float16 with complex numbers in complex64). */
static mt_dtype complex_with_parts(mt_dtype d)
{
    return d == MT_FLOAT16 ? MT_COMPLEX32 : mt_complex_of(d);
}

/* Part k (0 real, 1 imaginary) of complex t, seen in place as a tensor of the
 * part dtype and t's shape (extra_dim: with a last dim of 2 holding both
 * parts instead); a new view of t. */
static mt_tensor *part_view(const mt_tensor *t, int k, bool extra_dim)
{
    int64_t sizes[MT_MAX_DIMS + 1], strides[MT_MAX_DIMS + 1];
    for (int d = 0; d < t->ndim; d++) {
        sizes[d] = t->sizes[d];
        strides[d] = 2 * t->strides[d];
    }
    int nd = t->ndim;
    if (extra_dim) {
        sizes[nd] = 2;
        strides[nd++] = 1;
    }
    mt_tensor *v = mt_new_view(t, nd, sizes, strides, 2 * t->offset + k);
    if (v) {
        v->dtype = mt_complex_part(t->dtype);
        v->flags &= ~MT_FLAG_CONJ;
    }
    return v;
}

int impl_view_as_real(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    if (!mt_is_complex(t->dtype))
        return mt_error(MT_ERR_RUNTIME, "view_as_real is only supported for complex tensors");
    if (mt_is_conj(t))
        return mt_error(MT_ERR_RUNTIME,
                        "view_as_real doesn't work on unresolved conjugated tensors.  To resolve "
                        "the conjugate tensor so you can view it as real, use self.resolve_conj(); "
                        "however, be warned that the resulting tensor will NOT alias the "
                        "original.");
    if (t->ndim == MT_MAX_DIMS)
        return mt_error(MT_ERR_RUNTIME, "view_as_real: too many dimensions (the most is %d)",
                        MT_MAX_DIMS);
    return mt_result_tensor(r, part_view(t, 0, true));
}

int impl_view_as_complex(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    if (t->dtype != MT_FLOAT32 && t->dtype != MT_FLOAT64 && t->dtype != MT_FLOAT16)
        return mt_error(MT_ERR_RUNTIME,
                        "view_as_complex is only supported for half, float and double tensors, "
                        "but got a tensor of scalar type: %s",
                        sname(t->dtype));
    if (t->ndim == 0)
        return mt_error(MT_ERR_RUNTIME, "Input tensor must have one or more dimensions");
    if (t->sizes[t->ndim - 1] != 2)
        return mt_error(MT_ERR_RUNTIME, "Tensor must have a last dimension of size 2");
    if (t->strides[t->ndim - 1] != 1)
        return mt_error(MT_ERR_RUNTIME, "Tensor must have a last dimension with stride 1");
    for (int d = 0; d < t->ndim - 1; d++)
        if (t->strides[d] % 2)
            return mt_error(MT_ERR_RUNTIME,
                            "Tensor must have a stride divisible by 2 for all but last dimension");
    if (t->offset % 2)
        return mt_error(MT_ERR_RUNTIME, "Tensor must have a storage_offset divisible by 2");
    int64_t strides[MT_MAX_DIMS];
    for (int d = 0; d < t->ndim - 1; d++)
        strides[d] = t->strides[d] / 2;
    mt_tensor *v = mt_new_view(t, t->ndim - 1, t->sizes, strides, t->offset / 2);
    if (v)
        v->dtype = complex_with_parts(t->dtype);
    return mt_result_tensor(r, v);
}

int impl_real(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    if (!mt_is_complex(t->dtype)) {
        mt_retain(t);
        return mt_result_tensor(r, t);
    }
    return mt_result_tensor(r, part_view(t, 0, false));
}

int impl_imag(mt_args *a, mt_result *r)
{
    mt_tensor *t = a->v[0].t;
    if (!mt_is_complex(t->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "imag is not implemented for tensors with non-complex dtypes.");
    return mt_result_tensor(r, part_view(t, 1, false));
}

int impl_is_conj(mt_args *a, mt_result *r)
{
    r->kind = MT_RESULT_BOOL;
    r->i = mt_is_conj(a->v[0].t);
    return 0;
}

/* minitorch has no negative bit: nothing is lazily negated */
int impl_is_neg(mt_args *a, mt_result *r)
{
    (void)a;
    r->kind = MT_RESULT_BOOL;
    r->i = 0;
    return 0;
}

/* The input itself, as torch returns a tensor without the bit. */
int impl_resolve(mt_args *a, mt_result *r)
{
    mt_retain(a->v[0].t);
    return mt_result_tensor(r, a->v[0].t);
}

/* A conjugate view's values in new memory; any other tensor itself. */
int impl_resolve_conj(mt_args *a, mt_result *r)
{
    if (!mt_is_conj(a->v[0].t))
        return impl_resolve(a, r);
    return mt_result_tensor(r, mt_resolved_conj(a->v[0].t));
}

/* complex(re, im) and polar(abs, angle) take two real tensors of one of
 * torch's dtypes; polar (whose kernel computes) not float16. */
static int check_parts(const mt_args *a, const mt_tensor *x, const mt_tensor *y, bool polar)
{
    if ((x->dtype != MT_FLOAT32 && x->dtype != MT_FLOAT64 && x->dtype != MT_FLOAT16) ||
        (y->dtype != MT_FLOAT32 && y->dtype != MT_FLOAT64 && y->dtype != MT_FLOAT16))
        return mt_error(MT_ERR_RUNTIME,
                        "Expected both inputs to be Half, Float or Double tensors but got %s "
                        "and %s",
                        sname(x->dtype), sname(y->dtype));
    if (x->dtype != y->dtype)
        return mt_error(MT_ERR_RUNTIME,
                        "Expected object of scalar type %s but got scalar type %s for second "
                        "argument",
                        sname(x->dtype), sname(y->dtype));
    /* torch checks out='s dtype before computing, in words of its own */
    const mt_tensor *out = mt_out_target(a);
    if (out && out->dtype != complex_with_parts(x->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "Expected object of scalar type %s but got scalar type %s for argument "
                        "'out'",
                        sname(complex_with_parts(x->dtype)), sname(out->dtype));
    if (polar && x->dtype == MT_FLOAT16)
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"polar_cpu\" not implemented for 'Half'");
    return 0;
}

/* The complex tensor re + im*j, re and im broadcast together. */
static mt_tensor *from_parts(const mt_tensor *re, const mt_tensor *im)
{
    int nd = re->ndim;
    int64_t shape[MT_MAX_DIMS];
    memcpy(shape, re->sizes, sizeof(int64_t) * (size_t)nd);
    if (mt_broadcast_into(&nd, shape, im->ndim, im->sizes) < 0)
        return NULL;
    mt_tensor *out = mt_new(complex_with_parts(re->dtype), nd, shape, false);
    if (!out)
        return NULL;
    mt_tensor pr = mt_complex_part_of(out, 0), pi = mt_complex_part_of(out, 1);
    mt_copy(&pr, re);
    mt_copy(&pi, im);
    return out;
}

/* res as the call's result: written into out= when one is given. */
static int into_out(mt_args *a, mt_result *r, mt_tensor *res)
{
    mt_tensor *out = mt_out_target(a);
    return out ? mt_result_into_out(r, res, out) : mt_result_tensor(r, res);
}

int impl_complex(mt_args *a, mt_result *r)
{
    mt_tensor *re = a->v[0].t, *im = a->v[1].t;
    if (check_parts(a, re, im, false) < 0)
        return -1;
    return into_out(a, r, from_parts(re, im));
}

int impl_polar(mt_args *a, mt_result *r)
{
    mt_tensor *abs = a->v[0].t, *angle = a->v[1].t;
    if (check_parts(a, abs, angle, true) < 0)
        return -1;
    mt_tensor *c = mt_exec(MT_OP_cos, "T", angle), *s = mt_exec(MT_OP_sin, "T", angle);
    mt_tensor *re = c ? mt_exec(MT_OP_mul, "TT", abs, c) : NULL;
    mt_tensor *im = s ? mt_exec(MT_OP_mul, "TT", abs, s) : NULL;
    mt_tensor *out = re && im ? from_parts(re, im) : NULL;
    mt_xrelease(c);
    mt_xrelease(s);
    mt_xrelease(re);
    mt_xrelease(im);
    return into_out(a, r, out);
}
