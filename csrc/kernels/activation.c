/* Fused activation backward loops (activation.h): one pass over the incoming
 * gradient and the saved tensor, float16/bfloat16 computed in float. float32
 * and float64 run in vector lanes (simd/vmath.h; float32 on 16 lanes with
 * simd/vmath16.h where the machine has AVX-512); the formulas are torch's (the
 * same operations in the same order), so NaN and infinities come out as
 * torch's do, e.g. gelu's gradient at +-inf is NaN. */
#include "activation.h"
#include "../core/portable.h"
#include "simd/lane_pick.h"
#include "typed.h"
#include "simd/vmath.h"
#include "simd/vmath16.h"
#include "simd/vmath_avx2.h"

#include <math.h>
#include <string.h>

#define SQRT1_2 0.70710678118654752440
#define SQRT2 1.41421356237309504880
#define INV_SQRT_2PI 0.39894228040143267794
#define BETA 0.79788456080286535588 /* sqrt(2 / pi) */
#define KAPPA 0.044715

/* Scalar forms, for the half types and the vector loops' far lanes. */
#define M(FN, x) _Generic((x), float: FN##f, default: FN)(x)
#define SCALAR_FORMS(T, SFX)                                                                \
    static inline T gelu_d_##SFX(T g, T x)                                                  \
    {                                                                                       \
        T cdf = (T)0.5 * M(erfc, -x * (T)SQRT1_2);                                          \
        T pdf = M(exp, (T) - 0.5 * x * x) * (T)INV_SQRT_2PI;                                \
        return g * (cdf + x * pdf);                                                         \
    }                                                                                       \
    static inline T gelu_tanh_d_##SFX(T g, T x)                                             \
    {                                                                                       \
        T x2 = x * x;                                                                       \
        T t = M(tanh, (T)BETA * (x + (T)KAPPA * x2 * x));                                   \
        T right_d = (T)0.5 * x * ((T)1 - t * t) * ((T)BETA * ((T)1 + (T)(3 * KAPPA) * x2)); \
        return g * ((T)0.5 * ((T)1 + t) + right_d);                                         \
    }                                                                                       \
    static inline T silu_d_##SFX(T g, T x)                                                  \
    {                                                                                       \
        T s = (T)1 / ((T)1 + M(exp, -x));                                                   \
        return g * s * ((T)1 + x * ((T)1 - s));                                             \
    }                                                                                       \
    static inline T tanh_d_##SFX(T g, T y) { return g * ((T)1 - y * y); }                   \
    static inline T sigmoid_d_##SFX(T g, T y) { return g * ((T)1 - y) * y; }
SCALAR_FORMS(float, s4)
SCALAR_FORMS(double, s8)

/* Vector forms, in place on the gradient lane vector (see MT_VAT in simd/vmath.h). */
MT_VINLINE void vgelu_d8(mt_v8f *pg, const mt_v8f *px, mt_v8i *far)
{
    mt_v8f x = *px;
    mt_v8f cdf = mt_vphi8(x, far);
    mt_v8f pdf = mt_vexp_nonpos8(-0.5f * x * x) * (float)INV_SQRT_2PI;
    *pg = *pg * (cdf + x * pdf);
}

MT_VINLINE void vgelu_d4(mt_v4d *pg, const mt_v4d *px, mt_v4l *far)
{
    mt_v4d x = *px;
    mt_v4d cdf = mt_vphi4(x, far);
    mt_v4d pdf = mt_vexp4(-0.5 * x * x) * INV_SQRT_2PI;
    *pg = *pg * (cdf + x * pdf);
}

MT_VINLINE void vgelu_tanh_d8(mt_v8f *pg, const mt_v8f *px, mt_v8i *far)
{
    (void)far;
    mt_v8f x = *px, x2 = x * x;
    mt_v8f t = mt_vtanh8((float)BETA * (x + (float)KAPPA * x2 * x));
    mt_v8f right_d = 0.5f * x * (1.0f - t * t) * ((float)BETA * (1.0f + (float)(3 * KAPPA) * x2));
    *pg = *pg * (0.5f * (1.0f + t) + right_d);
}

/* tanh u = 2 sigmoid(2u) - 1: t only enters as 1 + t and 1 - t^2, where its
 * absolute error is what counts */
MT_VINLINE void vgelu_tanh_d4(mt_v4d *pg, const mt_v4d *px, mt_v4l *far)
{
    (void)far;
    mt_v4d x = *px, x2 = x * x;
    mt_v4d u = BETA * (x + KAPPA * x2 * x);
    mt_v4d t = 2.0 * mt_vsigmoid4(u + u) - 1.0;
    mt_v4d right_d = 0.5 * x * (1.0 - t * t) * (BETA * (1.0 + 3 * KAPPA * x2));
    *pg = *pg * (0.5 * (1.0 + t) + right_d);
}

MT_VINLINE void vsilu_d8(mt_v8f *pg, const mt_v8f *px, mt_v8i *far)
{
    (void)far;
    mt_v8f x = *px, s = mt_vsigmoid8(x);
    *pg = *pg * s * (1.0f + x * (1.0f - s));
}

MT_VINLINE void vsilu_d4(mt_v4d *pg, const mt_v4d *px, mt_v4l *far)
{
    (void)far;
    mt_v4d x = *px, s = mt_vsigmoid4(x);
    *pg = *pg * s * (1.0 + x * (1.0 - s));
}

MT_VINLINE void vtanh_d8(mt_v8f *pg, const mt_v8f *py, mt_v8i *far)
{
    (void)far;
    *pg = *pg * (1.0f - *py * *py);
}
MT_VINLINE void vtanh_d4(mt_v4d *pg, const mt_v4d *py, mt_v4l *far)
{
    (void)far;
    *pg = *pg * (1.0 - *py * *py);
}
MT_VINLINE void vsigmoid_d8(mt_v8f *pg, const mt_v8f *py, mt_v8i *far)
{
    (void)far;
    *pg = *pg * (1.0f - *py) * *py;
}
MT_VINLINE void vsigmoid_d4(mt_v4d *pg, const mt_v4d *py, mt_v4l *far)
{
    (void)far;
    *pg = *pg * (1.0 - *py) * *py;
}

/* W lanes at a time from contiguous operands; strided operands and the tail
 * go through lane buffers. A vector form flags lanes it cannot do (gelu's
 * far tail, see mt_vphi8); if any was flagged, a second pass redoes the
 * elements whose v is below LIMIT with the scalar form (a branch per vector
 * would stall the loop). */
#define VEC_LOOP(NAME, SFX, T, VT, MT, W, VFN, LIMIT, SCALAR)                                   \
    MT_CLONES_AVX2_FMA static void NAME##_##SFX(char **data, const int64_t *st, int64_t n,      \
                                                void *ctx)                                      \
    {                                                                                           \
        (void)ctx;                                                                              \
        int64_t i = 0;                                                                          \
        VT g, v;                                                                                \
        MT far = {0}, any = {0};                                                                \
        if (st[0] == sizeof(T) && st[1] == sizeof(T) && st[2] == sizeof(T)) {                   \
            T *o = (T *)data[0];                                                                \
            const T *pg = (const T *)data[1], *pv = (const T *)data[2];                         \
            for (; i + W <= n; i += W) {                                                        \
                memcpy(&g, pg + i, sizeof g);                                                   \
                memcpy(&v, pv + i, sizeof v);                                                   \
                VFN(&g, &v, &far);                                                              \
                any |= far;                                                                     \
                memcpy(o + i, &g, sizeof g);                                                    \
            }                                                                                   \
        }                                                                                       \
        for (; i < n; i += W) {                                                                 \
            int64_t m = n - i < W ? n - i : W;                                                  \
            T bg[W] = {0}, bv[W] = {0};                                                         \
            for (int64_t k = 0; k < m; k++) {                                                   \
                bg[k] = *(const T *)(data[1] + (i + k) * st[1]);                                \
                bv[k] = *(const T *)(data[2] + (i + k) * st[2]);                                \
            }                                                                                   \
            memcpy(&g, bg, sizeof g);                                                           \
            memcpy(&v, bv, sizeof v);                                                           \
            VFN(&g, &v, &far);                                                                  \
            any |= far;                                                                         \
            memcpy(bg, &g, sizeof g);                                                           \
            for (int64_t k = 0; k < m; k++)                                                     \
                *(T *)(data[0] + (i + k) * st[0]) = bg[k];                                      \
        }                                                                                       \
        mt_v4l any4 = (mt_v4l)any;                                                              \
        if ((any4[0] | any4[1] | any4[2] | any4[3]) != 0)                                       \
            for (int64_t k = 0; k < n; k++) {                                                   \
                T x = *(const T *)(data[2] + k * st[2]);                                        \
                if (x < LIMIT)                                                                  \
                    *(T *)(data[0] + k * st[0]) = SCALAR(*(const T *)(data[1] + k * st[1]), x); \
            }                                                                                   \
    }

#ifdef MT_HAVE_AVX512
/* 16-lane float32 forms: gradient g, saved tensor v. Phi and the density
 * come from one erfc (simd/vmath16.h), which covers gelu's whole range. */
MT_V16 __m512 vgelu_d16(__m512 g, __m512 x)
{
    __m512 pdf, cdf = mt_vphi_pdf16(x, &pdf);
    return _mm512_mul_ps(g, _mm512_fmadd_ps(x, pdf, cdf));
}
MT_V16 __m512 vgelu_tanh_d16(__m512 g, __m512 x)
{
    __m512 x2 = _mm512_mul_ps(x, x);
    __m512 u = _mm512_mul_ps(MT_C16((float)BETA),
                             _mm512_fmadd_ps(_mm512_mul_ps(MT_C16((float)KAPPA), x2), x, x));
    __m512 t = mt_vtanh16(u);
    __m512 right_d = _mm512_mul_ps(
        _mm512_mul_ps(_mm512_mul_ps(MT_C16(0.5f), x), _mm512_fnmadd_ps(t, t, MT_C16(1.0f))),
        _mm512_mul_ps(MT_C16((float)BETA),
                      _mm512_fmadd_ps(MT_C16((float)(3 * KAPPA)), x2, MT_C16(1.0f))));
    return _mm512_mul_ps(g, _mm512_fmadd_ps(MT_C16(0.5f), _mm512_add_ps(MT_C16(1.0f), t), right_d));
}
MT_V16 __m512 vsilu_d16(__m512 g, __m512 x)
{
    __m512 s = mt_vsigmoid16(x);
    return _mm512_mul_ps(_mm512_mul_ps(g, s),
                         _mm512_fmadd_ps(x, _mm512_sub_ps(MT_C16(1.0f), s), MT_C16(1.0f)));
}
MT_V16 __m512 vtanh_d16(__m512 g, __m512 y)
{
    return _mm512_mul_ps(g, _mm512_fnmadd_ps(y, y, MT_C16(1.0f)));
}
MT_V16 __m512 vsigmoid_d16(__m512 g, __m512 y)
{
    return _mm512_mul_ps(_mm512_mul_ps(g, _mm512_sub_ps(MT_C16(1.0f), y)), y);
}

#endif

#ifdef MT_HAVE_X86_DISPATCH
/* gelu's gradient on AVX2 + FMA machines without AVX-512 (simd/vmath_avx2.h) */
MT_VX __m256 vgelu_d8x(__m256 g, __m256 x)
{
    __m256 pdf, cdf = mt_vphi_pdf8x(x, &pdf);
    return _mm256_mul_ps(g, _mm256_fmadd_ps(x, pdf, cdf));
}
#endif

/* float16 and bfloat16: loaded to float, the scalar form, stored back */
#define HALF_LOOP(NAME, SFX, T)                                                    \
    static void NAME##_##SFX(char **data, const int64_t *st, int64_t n, void *ctx) \
    {                                                                              \
        (void)ctx;                                                                 \
        for (int64_t i = 0; i < n; i++) {                                          \
            float g = MT_LOAD_##SFX(*(const T *)(data[1] + i * st[1]));            \
            float v = MT_LOAD_##SFX(*(const T *)(data[2] + i * st[2]));            \
            *(T *)(data[0] + i * st[0]) = MT_STORE_##SFX(NAME##_s4(g, v));         \
        }                                                                          \
    }

/* LIMIT: where gelu's far tail starts, a little inside it (the pass is
 * exact either way); -inf for the forms that flag nothing. PICK: the float32
 * entry, with an AVX2 level (gelu) or without. */
#define PICK16(NAME) MT_F4_PICK_BINARY(NAME, v##NAME##16)
#define PICK_AVX2(NAME) MT_F4_PICK_BINARY_AVX2(NAME, v##NAME##16, v##NAME##8x)
#define DEFINE(NAME, LIMIT4, LIMIT8, PICK)                                          \
    VEC_LOOP(NAME##_8, f4, float, mt_v8f, mt_v8i, 8, v##NAME##8, LIMIT4, NAME##_s4) \
    PICK(NAME)                                                                      \
    VEC_LOOP(NAME, f8, double, mt_v4d, mt_v4l, 4, v##NAME##4, LIMIT8, NAME##_s8)    \
    HALF_LOOP(NAME, f2, mt_f16)                                                     \
    HALF_LOOP(NAME, bf, mt_bf16)
#define MT_ACTIVATION_BACKWARD_KERNEL(ID, NAME, LIMIT4, LIMIT8, PICK) \
    DEFINE(NAME, LIMIT4, LIMIT8, PICK)
#include "activation.def"
#undef MT_ACTIVATION_BACKWARD_KERNEL

static const mt_loop_fn table[][MT_NUM_DTYPES] = {
#define MT_ACTIVATION_BACKWARD_KERNEL(ID, NAME, ...) [MT_ACTB_##ID] = MT_ROW_FLOAT(NAME),
#include "activation.def"
#undef MT_ACTIVATION_BACKWARD_KERNEL
};
_Static_assert(sizeof table / sizeof table[0] == MT_NUM_ACTB,
               "an activation backward kernel without its row");

mt_loop_fn mt_activation_backward_loop(mt_activation_backward_op op, mt_dtype dtype)
{
    return table[op][dtype];
}
