/* The unary loop table (pointwise_unary.h): a scalar loop per kernel row of
 * pointwise_unary.def and dtype, and vector loops for the float32/float64
 * rows with a vector form (vmath.h; float32 on 16 lanes with vmath16.h where
 * the machine has AVX-512). */
#include "pointwise_unary.h"
#include "../core/portable.h"
#include "kernel_rows.h"
#include "simd/lane_pick.h"
#include "typed.h"
#include "simd/vmath.h"
#include "simd/vmath16.h"
#include "simd/vmath_avx2.h"
#include "special_bessel.h"
#include "special_math.h"

#include <math.h>
#include <string.h>

#define UNARY_LOOP(NAME, SFX, T, OT, STORE, EXPR)                                                  \
    MT_CLONES_AVX2 static void NAME##_##SFX(char **data, const int64_t *st, int64_t n, void *vctx) \
    {                                                                                              \
        const mt_unary_ctx *ctx = vctx;                                                            \
        (void)ctx;                                                                                 \
        typedef MT_ACC_##SFX acc;                                                                  \
        if (st[0] == sizeof(OT) && st[1] == sizeof(T)) {                                           \
            OT *restrict o = (OT *)data[0];                                                        \
            const T *restrict pa = (const T *)data[1];                                             \
            for (int64_t i = 0; i < n; i++) {                                                      \
                acc x = MT_LOAD_##SFX(pa[i]);                                                      \
                o[i] = STORE(EXPR);                                                                \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        char *o = data[0];                                                                         \
        const char *pa = data[1];                                                                  \
        for (int64_t i = 0; i < n; i++, o += st[0], pa += st[1]) {                                 \
            acc x = MT_LOAD_##SFX(*(const T *)pa);                                                 \
            *(OT *)o = STORE(EXPR);                                                                \
        }                                                                                          \
    }

#define TO_BOOL(e) ((uint8_t)((e) != 0))
#define SAME(SFX, T, NAME, EXPR) UNARY_LOOP(NAME, SFX, T, T, MT_STORE_##SFX, EXPR)
#define PRED(SFX, T, NAME, EXPR) UNARY_LOOP(NAME, SFX, T, uint8_t, TO_BOOL, EXPR)
/* a complex element's real-valued function (abs, angle), in its part type */
#define PART(SFX, T, NAME, EXPR) UNARY_LOOP(NAME, SFX, T, MT_PART_##SFX, MT_STORE_PART_##SFX, EXPR)

/* complex.h by precision */
#define CM(FN, x) _Generic((x), mt_c64: c##FN##f, default: c##FN)(x)
#define CONJ_OF(x) _Generic((x), mt_c64: conjf, default: conj)(x)
/* |x| of a complex128: the plain formula where its squares neither overflow
 * nor underflow (within an ulp of hypot, at a fraction of its cost), hypot
 * elsewhere and for infinities and NaN; cabsf already computes in double */
static inline double cabs_fast(mt_c128 x)
{
    double a = fabs(creal(x)), b = fabs(cimag(x)), m = a > b ? a : b;
    return m < 0x1p500 && m > 0x1p-500 ? sqrt(a * a + b * b) : cabs(x);
}
#define CABS(x) _Generic((x), mt_c64: cabsf, default: cabs_fast)(x)
#define CNAN(x) (isnan(creal(x)) || isnan(cimag(x)))
#define CINF(x) (isinf(creal(x)) || isinf(cimag(x)))
/* z / r for a real r, each part divided in the part type (torch's log2
 * and log10 of a complex number) */
#define CDIV_PART(z, r) _Generic((z), mt_c64: (z) / (float)(r), default: (z) / (r))
#define LN_2 0.69314718055994530942
#define LN_10 2.30258509299404568402

/* exp(z) - 1 and log(1 + z) in double, without the cancellation near 0:
 * the real part of the one as expm1(a) cos(b) - 2 sin^2(b / 2), of the
 * other as log1p(2a + a^2 + b^2) / 2 */
static inline mt_c128 cexpm1_d(mt_c128 z)
{
    double a = creal(z), b = cimag(z), h = sin(b / 2);
    return mt_cmplx(expm1(a) * cos(b) - 2 * h * h, exp(a) * sin(b));
}

static inline mt_c128 clog1p_d(mt_c128 z)
{
    double a = creal(z), b = cimag(z);
    return mt_cmplx(log1p(a * (2 + a) + b * b) / 2, atan2(b, 1 + a));
}
#define CEXPM1(x) ((acc)cexpm1_d(x))
#define CLOG1P(x) ((acc)clog1p_d(x))

/* n / z as torch divides complex numbers (Smith's method, as NumPy): the
 * ratio of the smaller part of z to the larger keeps the squares from
 * overflowing, and n / 0 is (re n / 0, im n / 0); reciprocal, rsqrt, sigmoid
 * and sinc take torch's infinities and NaNs from it. In the part type. */
#define CDIV_OF(T, MK, n, z)                                                  \
    do {                                                                      \
        T a = MK##real(n), b = MK##imag(n), c = MK##real(z), d = MK##imag(z); \
        if (MK##abs_part(c) >= MK##abs_part(d)) {                             \
            if (c == 0 && d == 0)                                             \
                return MK##cmplx(a / MK##abs_part(c), b / MK##abs_part(d));   \
            T rat = d / c, scl = 1 / (c + d * rat);                           \
            return MK##cmplx((a + b * rat) * scl, (b - a * rat) * scl);       \
        }                                                                     \
        T rat = c / d, scl = 1 / (d + c * rat);                               \
        return MK##cmplx((a * rat + b) * scl, (b * rat - a) * scl);           \
    } while (0)
#define f_real crealf
#define f_imag cimagf
#define f_abs_part fabsf
#define f_cmplx mt_cmplxf
#define d_real creal
#define d_imag cimag
#define d_abs_part fabs
#define d_cmplx mt_cmplx
static inline mt_c64 cdiv_f(mt_c64 n, mt_c64 z) { CDIV_OF(float, f_, n, z); }
static inline mt_c128 cdiv_d(mt_c128 n, mt_c128 z) { CDIV_OF(double, d_, n, z); }
#define CDIV(n, z) _Generic((z), mt_c64: cdiv_f, default: cdiv_d)(n, z)
#define CRECIP(x) CDIV((acc)1, x)

/* torch's sgn: x / |x|, 0 at 0 */
#define CSGN(x) (x == 0 ? (acc)0 : x / CM(abs, x))

/* libm by precision: float for float16/bfloat16/float32, double for float64 */
#define M(FN, x) _Generic((x), float: FN##f, default: FN)(x)
#define SQRT1_2 0.70710678118654752440
#define SQRT_2 1.41421356237309504880
#define SQRT_2_PI 0.79788456080286535588

static inline double round_dec(double x, int64_t d)
{
    if (d >= 0) {
        double p = pow(10.0, (double)d);
        return nearbyint(x * p) / p;
    }
    double p = pow(10.0, (double)-d);
    return nearbyint(x / p) * p;
}

static inline float round_decf(float x, int64_t d)
{
    if (d >= 0) {
        float p = powf(10.0f, (float)d);
        return nearbyintf(x * p) / p;
    }
    float p = powf(10.0f, (float)-d);
    return nearbyintf(x / p) * p;
}

/* x Phi(x) with Phi = erfc(-x / sqrt 2) / 2, precise in the negative tail;
 * gelu(+inf) is inf (torch's float32 and bfloat16 kernels give NaN there
 * inside their vector blocks and inf in their scalar tails). GELU_f8 is also
 * the vector loops' libm pass. */
#define GELU(x) ((acc)0.5 * x * M(erfc, -x * (acc)SQRT1_2))
#define GELU_f8(x) (0.5 * x * erfc(-x * SQRT1_2))

/* float32/float64 functions with a vector form (vmath.h): W lanes at a time;
 * strided operands and the tail go through a lane buffer. */
#define VEC_LOOP(NAME, SFX, T, VT, W, VFN)                                          \
    MT_CLONES_AVX2_FMA                                                              \
    static void NAME##_##SFX(char **data, const int64_t *st, int64_t n, void *vctx) \
    {                                                                               \
        (void)vctx;                                                                 \
        int64_t i = 0;                                                              \
        VT v;                                                                       \
        if (st[0] == sizeof(T) && st[1] == sizeof(T)) {                             \
            T *o = (T *)data[0];                                                    \
            const T *pa = (const T *)data[1];                                       \
            for (; i + W <= n; i += W) {                                            \
                memcpy(&v, pa + i, sizeof v);                                       \
                VFN##_at(&v);                                                       \
                memcpy(o + i, &v, sizeof v);                                        \
            }                                                                       \
        }                                                                           \
        for (; i < n; i += W) {                                                     \
            int64_t m = n - i < W ? n - i : W;                                      \
            T buf[W] = {0};                                                         \
            for (int64_t k = 0; k < m; k++)                                         \
                buf[k] = *(const T *)(data[1] + (i + k) * st[1]);                   \
            memcpy(&v, buf, sizeof v);                                              \
            VFN##_at(&v);                                                           \
            memcpy(buf, &v, sizeof v);                                              \
            for (int64_t k = 0; k < m; k++)                                         \
                *(T *)(data[0] + (i + k) * st[0]) = buf[k];                         \
        }                                                                           \
    }

static inline __attribute__((always_inline)) mt_v8f vsilu8(mt_v8f x) { return x * mt_vsigmoid8(x); }
MT_VAT(vsilu8, mt_v8f)
static inline __attribute__((always_inline)) mt_v4d vsilu4(mt_v4d x) { return x * mt_vsigmoid4(x); }
MT_VAT(vsilu4, mt_v4d)

#define ANY_LANE(m) (((m)[0] | (m)[1] | (m)[2] | (m)[3]) != 0)

/* x Phi(x), with far lanes (mt_vphi8: x < -5.5 in float, -8.4 in double)
 * flagged in *far for the loop's libm pass. */
static inline __attribute__((always_inline)) void vgelu8(mt_v8f *px, mt_v8i *far)
{
    mt_v8f x = *px;
    *px = x * mt_vphi8(x, far);
}
static inline __attribute__((always_inline)) void vgelu4(mt_v4d *px, mt_v4l *far)
{
    mt_v4d x = *px;
    *px = x * mt_vphi4(x, far);
}

/* The vector loop with a second, rare pass: when any lane was past the
 * vector erfc's range, the elements below LIMIT (a little above that range's
 * edge) are redone with libm's erfc; a branch per vector would stall the
 * loop. The pass rereads the input, so gelu has no in-place form here. */
#define GELU_LOOP(SFX, T, VT, MT, W, VFN, LIMIT, EXACT)                                   \
    MT_CLONES_AVX2_FMA static void vgelu_##SFX(char **data, const int64_t *st, int64_t n, \
                                               void *vctx)                                \
    {                                                                                     \
        (void)vctx;                                                                       \
        int64_t i = 0;                                                                    \
        VT v;                                                                             \
        MT far, any = {0};                                                                \
        if (st[0] == sizeof(T) && st[1] == sizeof(T)) {                                   \
            T *o = (T *)data[0];                                                          \
            const T *pa = (const T *)data[1];                                             \
            for (; i + W <= n; i += W) {                                                  \
                memcpy(&v, pa + i, sizeof v);                                             \
                VFN(&v, &far);                                                            \
                any |= far;                                                               \
                memcpy(o + i, &v, sizeof v);                                              \
            }                                                                             \
        }                                                                                 \
        for (; i < n; i += W) {                                                           \
            int64_t m = n - i < W ? n - i : W;                                            \
            T buf[W] = {0};                                                               \
            for (int64_t k = 0; k < m; k++)                                               \
                buf[k] = *(const T *)(data[1] + (i + k) * st[1]);                         \
            memcpy(&v, buf, sizeof v);                                                    \
            VFN(&v, &far);                                                                \
            any |= far;                                                                   \
            memcpy(buf, &v, sizeof v);                                                    \
            for (int64_t k = 0; k < m; k++)                                               \
                *(T *)(data[0] + (i + k) * st[0]) = buf[k];                               \
        }                                                                                 \
        mt_v4l any4 = (mt_v4l)any;                                                        \
        if (ANY_LANE(any4))                                                               \
            for (int64_t k = 0; k < n; k++) {                                             \
                T x = *(const T *)(data[1] + k * st[1]);                                  \
                if (x < LIMIT)                                                            \
                    *(T *)(data[0] + k * st[0]) = EXACT(x);                               \
            }                                                                             \
    }

/* 0.5 x (1 + tanh u) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3) */
static inline __attribute__((always_inline)) mt_v8f vgelu_tanh8(mt_v8f x)
{
    mt_v8f u = (float)SQRT_2_PI * (x + 0.044715f * x * x * x);
    return x * mt_vsigmoid8(u + u);
}
MT_VAT(vgelu_tanh8, mt_v8f)
static inline __attribute__((always_inline)) mt_v4d vgelu_tanh4(mt_v4d x)
{
    mt_v4d u = SQRT_2_PI * (x + 0.044715 * x * x * x);
    return x * mt_vsigmoid4(u + u);
}
MT_VAT(vgelu_tanh4, mt_v4d)

#ifdef MT_HAVE_AVX512
/* the 16-lane element functions (vmath16.h) beside the 8-lane ones above */
MT_V16 __m512 vsilu16(__m512 x) { return _mm512_mul_ps(x, mt_vsigmoid16(x)); }

/* x Phi(x): the 16-lane Phi covers the whole range, no far lanes */
MT_V16 __m512 vgelu16(__m512 x) { return _mm512_mul_ps(x, mt_vphi16(x)); }

MT_V16 __m512 vgelu_tanh16(__m512 x)
{
    __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(x, x), x);
    __m512 u = _mm512_mul_ps(MT_C16((float)SQRT_2_PI), _mm512_fmadd_ps(MT_C16(0.044715f), x3, x));
    return _mm512_mul_ps(x, mt_vsigmoid16(_mm512_add_ps(u, u)));
}

#endif

#ifdef MT_HAVE_X86_DISPATCH
/* x Phi(x) on AVX2 + FMA machines without AVX-512 (vmath_avx2.h): the
 * whole range too */
MT_VX __m256 vgelu8x(__m256 x)
{
    __m256 pdf;
    return _mm256_mul_ps(x, mt_vphi_pdf8x(x, &pdf));
}
#endif

#define F4_ROW(NAME, VFN8, VFN16)                  \
    VEC_LOOP(NAME##_8, f4, float, mt_v8f, 8, VFN8) \
    MT_F4_PICK_UNARY(NAME, VFN16)

F4_ROW(vexp, mt_vexp8, mt_vexp16)
VEC_LOOP(vexp, f8, double, mt_v4d, 4, mt_vexp4)
F4_ROW(vlog, mt_vlog8, mt_vlog16)
F4_ROW(vtanh, mt_vtanh8, mt_vtanh16)
F4_ROW(vsigmoid, mt_vsigmoid8, mt_vsigmoid16)
F4_ROW(vsilu, vsilu8, vsilu16)
VEC_LOOP(vsilu, f8, double, mt_v4d, 4, vsilu4)
VEC_LOOP(vsigmoid, f8, double, mt_v4d, 4, mt_vsigmoid4)
F4_ROW(verf, mt_verf8, mt_verf16)
VEC_LOOP(verf, f8, double, mt_v4d, 4, mt_verf4)
GELU_LOOP(8_f4, float, mt_v8f, mt_v8i, 8, vgelu8, -3.9f * (float)SQRT_2, GELU_f8)
MT_F4_PICK_UNARY_AVX2(vgelu, vgelu16, vgelu8x)
GELU_LOOP(f8, double, mt_v4d, mt_v4l, 4, vgelu4, -5.9 * SQRT_2, GELU_f8)
F4_ROW(vgelu_tanh, vgelu_tanh8, vgelu_tanh16)
VEC_LOOP(vgelu_tanh, f8, double, mt_v4d, 4, vgelu_tanh4)

#define MT_UNARY_KERNEL(ID, NAME, OUT, ON_BOOL, ON_INT, ON_FLOAT, ON_COMPLEX, F4, F8) \
    MT_KROW_LOOPS(NAME, OUT, ON_BOOL, ON_INT, ON_FLOAT, ON_COMPLEX)
#include "pointwise_unary.def"
#undef MT_UNARY_KERNEL

static const mt_loop_fn table[][MT_NUM_DTYPES] = {
#define MT_UNARY_KERNEL(ID, NAME, OUT, ON_BOOL, ON_INT, ON_FLOAT, ON_COMPLEX, F4, F8) \
    [MT_UN_##ID] = MT_KROW_CELLS(NAME, F4, F8, ON_BOOL, ON_INT, ON_FLOAT, ON_COMPLEX),
#include "pointwise_unary.def"
#undef MT_UNARY_KERNEL
};
_Static_assert(sizeof table / sizeof table[0] == MT_NUM_UNARY, "a unary kernel without its row");

mt_loop_fn mt_unary_loop(mt_unary_op op, mt_dtype dtype) { return table[op][dtype]; }
