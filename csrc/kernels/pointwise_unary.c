/* The unary loop table (pointwise_unary.h): a scalar loop per op and dtype,
 * and vector loops for the float32/float64 rows with a vector form (vmath.h;
 * float32 on 16 lanes with vmath16.h where the machine has AVX-512). */
#include "pointwise_unary.h"
#include "../core/portable.h"
#include "simd/lane_pick.h"
#include "typed.h"
#include "simd/vmath.h"
#include "simd/vmath16.h"
#include "simd/vmath_avx2.h"

#include <math.h>
#include <string.h>

#define UNARY_LOOP(NAME, SFX, T, OT, STORE, EXPR)                                          \
    MT_CLONES_AVX2 static void                                                             \
        NAME##_##SFX(char **data, const int64_t *st, int64_t n, void *vctx)                \
    {                                                                                      \
        const mt_unary_ctx *ctx = vctx;                                                    \
        (void)ctx;                                                                         \
        typedef MT_ACC_##SFX acc;                                                          \
        if (st[0] == sizeof(OT) && st[1] == sizeof(T)) {                                   \
            OT *restrict o = (OT *)data[0];                                                \
            const T *restrict pa = (const T *)data[1];                                     \
            for (int64_t i = 0; i < n; i++) {                                              \
                acc x = MT_LOAD_##SFX(pa[i]);                                              \
                o[i] = STORE(EXPR);                                                        \
            }                                                                              \
            return;                                                                        \
        }                                                                                  \
        char *o = data[0];                                                                 \
        const char *pa = data[1];                                                          \
        for (int64_t i = 0; i < n; i++, o += st[0], pa += st[1]) {                         \
            acc x = MT_LOAD_##SFX(*(const T *)pa);                                         \
            *(OT *)o = STORE(EXPR);                                                        \
        }                                                                                  \
    }

#define TO_BOOL(e) ((uint8_t)((e) != 0))
#define SAME(SFX, T, NAME, EXPR) UNARY_LOOP(NAME, SFX, T, T, MT_STORE_##SFX, EXPR)
#define PRED(SFX, T, NAME, EXPR) UNARY_LOOP(NAME, SFX, T, uint8_t, TO_BOOL, EXPR)

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
 * inside their vector blocks and inf in their scalar tails) */
#define GELU_f2(x) (0.5f * x * erfcf(-x * (float)SQRT1_2))
#define GELU_bf(x) GELU_f2(x)
#define GELU_f4(x) GELU_f2(x)
#define GELU_f8(x) (0.5 * x * erfc(-x * SQRT1_2))

#define DEF_FLOAT(DE, SFX, T)                                                           \
    SAME(SFX, T, exp, M(exp, x))                                                        \
    SAME(SFX, T, exp2, M(exp2, x))                                                      \
    SAME(SFX, T, expm1, M(expm1, x))                                                    \
    SAME(SFX, T, log, M(log, x))                                                        \
    SAME(SFX, T, log2, M(log2, x))                                                      \
    SAME(SFX, T, log10, M(log10, x))                                                    \
    SAME(SFX, T, log1p, M(log1p, x))                                                    \
    SAME(SFX, T, sqrt, M(sqrt, x))                                                      \
    SAME(SFX, T, rsqrt, 1 / M(sqrt, x))                                                 \
    SAME(SFX, T, sin, M(sin, x))                                                        \
    SAME(SFX, T, cos, M(cos, x))                                                        \
    SAME(SFX, T, tan, M(tan, x))                                                        \
    SAME(SFX, T, asin, M(asin, x))                                                      \
    SAME(SFX, T, acos, M(acos, x))                                                      \
    SAME(SFX, T, atan, M(atan, x))                                                      \
    SAME(SFX, T, asinh, M(asinh, x))                                                    \
    SAME(SFX, T, acosh, M(acosh, x))                                                    \
    SAME(SFX, T, atanh, M(atanh, x))                                                    \
    SAME(SFX, T, sinh, M(sinh, x))                                                      \
    SAME(SFX, T, cosh, M(cosh, x))                                                      \
    SAME(SFX, T, tanh, M(tanh, x))                                                      \
    SAME(SFX, T, sigmoid, 1 / (1 + M(exp, -x)))                                         \
    SAME(SFX, T, gelu, GELU_##SFX(x))                                                   \
    SAME(SFX, T, gelu_tanh,                                                             \
         (acc)0.5 * x * (1 + M(tanh, (acc)SQRT_2_PI * (x + (acc)0.044715 * x * x * x)))) \
    SAME(SFX, T, silu, x / (1 + M(exp, -x)))                                            \
    SAME(SFX, T, softplus,                                                              \
         x * (acc)ctx->a > (acc)ctx->b ? x : M(log1p, M(exp, x * (acc)ctx->a)) / (acc)ctx->a) \
    SAME(SFX, T, leaky_relu, x > 0 ? x : x * (acc)ctx->a)                               \
    SAME(SFX, T, erf, M(erf, x))                                                        \
    SAME(SFX, T, erfc, M(erfc, x))                                                      \
    SAME(SFX, T, reciprocal, 1 / x)                                                     \
    SAME(SFX, T, frac, x - M(trunc, x))                                                 \
    SAME(SFX, T, round_dec, _Generic(x, float: round_decf, default: round_dec)(x, ctx->decimals)) \
    SAME(SFX, T, floor, M(floor, x))                                                    \
    SAME(SFX, T, ceil, M(ceil, x))                                                      \
    SAME(SFX, T, round, M(nearbyint, x))                                                \
    SAME(SFX, T, trunc, M(trunc, x))                                                    \
    SAME(SFX, T, nan_to_num,                                                            \
         x != x ? (acc)ctx->a : x == (acc)INFINITY ? (acc)ctx->b                        \
                          : x == -(acc)INFINITY ? (acc)ctx->c : x)                      \
    /* in float lanes (NaN compares false both ways: 0), so it vectorises */             \
    SAME(SFX, T, sign, (acc)(x > 0) - (acc)(x < 0))                                     \
    PRED(SFX, T, isnan, x != x)                                                         \
    PRED(SFX, T, isinf, M(fabs, x) == (acc)INFINITY)                                    \
    PRED(SFX, T, isfinite, x - x == 0)                                                  \
    /* signbit() itself vectorises into an insn GCC 12 cannot emit */                  \
    PRED(SFX, T, signbit, _Generic(x, float: copysignf, default: copysign)(1, x) < 0)

#define DEF_NUM(DE, SFX, T)                                                             \
    SAME(SFX, T, neg, (acc)(0 - x))                                                     \
    SAME(SFX, T, abs, x < 0 ? (acc)(0 - x) : x)                                         \
    SAME(SFX, T, relu, x > 0 || x != x ? x : 0)                                                   \
    SAME(SFX, T, square, (acc)(x * x))

#define DEF_INT(DE, SFX, T)                                                             \
    SAME(SFX, T, ident, x)                                                              \
    SAME(SFX, T, sign, (acc)((x > 0) - (x < 0)))                                        \
    SAME(SFX, T, bitnot, (acc)~x)                                                       \
    PRED(SFX, T, isnan, 0 * x)                                                          \
    PRED(SFX, T, isinf, 0 * x)                                                          \
    PRED(SFX, T, isfinite, 1 + 0 * x)                                                   \
    PRED(SFX, T, signbit, x < 0)

#define DEF_ALL(DE, SFX, T) PRED(SFX, T, logical_not, x == 0)

/* float32/float64 functions with a vector form (vmath.h): W lanes at a time;
 * strided operands and the tail go through a lane buffer. */
#define VEC_LOOP(NAME, SFX, T, VT, W, VFN)                                                \
    MT_CLONES_AVX2_FMA                                                                     \
    static void                                                                            \
        NAME##_##SFX(char **data, const int64_t *st, int64_t n, void *vctx)                \
    {                                                                                      \
        (void)vctx;                                                                        \
        int64_t i = 0;                                                                     \
        VT v;                                                                              \
        if (st[0] == sizeof(T) && st[1] == sizeof(T)) {                                    \
            T *o = (T *)data[0];                                                           \
            const T *pa = (const T *)data[1];                                              \
            for (; i + W <= n; i += W) {                                                   \
                memcpy(&v, pa + i, sizeof v);                                              \
                VFN##_at(&v);                                                              \
                memcpy(o + i, &v, sizeof v);                                               \
            }                                                                              \
        }                                                                                  \
        for (; i < n; i += W) {                                                            \
            int64_t m = n - i < W ? n - i : W;                                             \
            T buf[W] = {0};                                                                \
            for (int64_t k = 0; k < m; k++)                                                \
                buf[k] = *(const T *)(data[1] + (i + k) * st[1]);                          \
            memcpy(&v, buf, sizeof v);                                                     \
            VFN##_at(&v);                                                                  \
            memcpy(buf, &v, sizeof v);                                                     \
            for (int64_t k = 0; k < m; k++)                                                \
                *(T *)(data[0] + (i + k) * st[0]) = buf[k];                                \
        }                                                                                  \
    }

static inline __attribute__((always_inline)) mt_v8f vsilu8(mt_v8f x)
{
    return x * mt_vsigmoid8(x);
}
MT_VAT(vsilu8, mt_v8f)
static inline __attribute__((always_inline)) mt_v4d vsilu4(mt_v4d x)
{
    return x * mt_vsigmoid4(x);
}
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
    MT_CLONES_AVX2_FMA static void vgelu_##SFX(char **data, const int64_t *st, int64_t n,  \
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
MT_V16 __m512 vsilu16(__m512 x)
{
    return _mm512_mul_ps(x, mt_vsigmoid16(x));
}

/* x Phi(x): the 16-lane Phi covers the whole range, no far lanes */
MT_V16 __m512 vgelu16(__m512 x)
{
    return _mm512_mul_ps(x, mt_vphi16(x));
}

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

#define F4_ROW(NAME, VFN8, VFN16)                                                         \
    VEC_LOOP(NAME##_8, f4, float, mt_v8f, 8, VFN8)                                        \
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

MT_FOR_FLOAT_DTYPES(DEF_FLOAT)
MT_FOR_FLOAT_DTYPES(DEF_NUM)
MT_FOR_INT_DTYPES(DEF_NUM)
MT_FOR_INT_DTYPES(DEF_INT)
MT_FOR_ALL_DTYPES(DEF_ALL)
SAME(b1, uint8_t, ident, x)
SAME(b1, uint8_t, bitnot, !x)
PRED(b1, uint8_t, isnan, 0 * x)
PRED(b1, uint8_t, isinf, 0 * x)
PRED(b1, uint8_t, isfinite, 1 + 0 * x)
PRED(b1, uint8_t, signbit, 0 * x)

/* integer rows fall back to the identity */
#define ROW_ROUNDING(N) {NULL, ident_u1, ident_i1, ident_i2, ident_i4, ident_i8, N##_f2, \
                         N##_bf, N##_f4, N##_f8}

static const mt_loop_fn table[MT_NUM_UNARY][MT_NUM_DTYPES] = {
    [MT_UN_EXP] = {[MT_FLOAT16] = exp_f2, [MT_BFLOAT16] = exp_bf, [MT_FLOAT32] = vexp_f4,
                   [MT_FLOAT64] = vexp_f8},
    [MT_UN_EXP2] = MT_ROW_FLOAT(exp2),
    [MT_UN_EXPM1] = MT_ROW_FLOAT(expm1),
    [MT_UN_LOG] = {[MT_FLOAT16] = log_f2, [MT_BFLOAT16] = log_bf, [MT_FLOAT32] = vlog_f4,
                   [MT_FLOAT64] = log_f8},
    [MT_UN_LOG2] = MT_ROW_FLOAT(log2),
    [MT_UN_LOG10] = MT_ROW_FLOAT(log10),
    [MT_UN_LOG1P] = MT_ROW_FLOAT(log1p),
    [MT_UN_SQRT] = MT_ROW_FLOAT(sqrt),
    [MT_UN_RSQRT] = MT_ROW_FLOAT(rsqrt),
    [MT_UN_SIN] = MT_ROW_FLOAT(sin),
    [MT_UN_COS] = MT_ROW_FLOAT(cos),
    [MT_UN_TAN] = MT_ROW_FLOAT(tan),
    [MT_UN_ASIN] = MT_ROW_FLOAT(asin),
    [MT_UN_ACOS] = MT_ROW_FLOAT(acos),
    [MT_UN_ATAN] = MT_ROW_FLOAT(atan),
    [MT_UN_ASINH] = MT_ROW_FLOAT(asinh),
    [MT_UN_ACOSH] = MT_ROW_FLOAT(acosh),
    [MT_UN_ATANH] = MT_ROW_FLOAT(atanh),
    [MT_UN_SINH] = MT_ROW_FLOAT(sinh),
    [MT_UN_COSH] = MT_ROW_FLOAT(cosh),
    [MT_UN_TANH] = {[MT_FLOAT16] = tanh_f2, [MT_BFLOAT16] = tanh_bf, [MT_FLOAT32] = vtanh_f4,
                    [MT_FLOAT64] = tanh_f8},
    [MT_UN_SIGMOID] = {[MT_FLOAT16] = sigmoid_f2, [MT_BFLOAT16] = sigmoid_bf,
                       [MT_FLOAT32] = vsigmoid_f4, [MT_FLOAT64] = vsigmoid_f8},
    [MT_UN_GELU] = {[MT_FLOAT16] = gelu_f2, [MT_BFLOAT16] = gelu_bf, [MT_FLOAT32] = vgelu_f4,
                    [MT_FLOAT64] = vgelu_f8},
    [MT_UN_GELU_TANH] = {[MT_FLOAT16] = gelu_tanh_f2, [MT_BFLOAT16] = gelu_tanh_bf,
                         [MT_FLOAT32] = vgelu_tanh_f4, [MT_FLOAT64] = vgelu_tanh_f8},
    [MT_UN_SILU] = {[MT_FLOAT16] = silu_f2, [MT_BFLOAT16] = silu_bf, [MT_FLOAT32] = vsilu_f4,
                    [MT_FLOAT64] = vsilu_f8},
    [MT_UN_SOFTPLUS] = MT_ROW_FLOAT(softplus),
    [MT_UN_LEAKY_RELU] = MT_ROW_FLOAT(leaky_relu),
    [MT_UN_ERF] = {[MT_FLOAT16] = erf_f2, [MT_BFLOAT16] = erf_bf, [MT_FLOAT32] = verf_f4,
                   [MT_FLOAT64] = verf_f8},
    [MT_UN_ERFC] = MT_ROW_FLOAT(erfc),
    [MT_UN_RECIPROCAL] = MT_ROW_FLOAT(reciprocal),
    [MT_UN_FRAC] = MT_ROW_FLOAT(frac),
    [MT_UN_ROUND_DECIMALS] = MT_ROW_FLOAT(round_dec),
    [MT_UN_NEG] = MT_ROW_NUM(neg),
    [MT_UN_ABS] = MT_ROW_NUM(abs),
    [MT_UN_RELU] = MT_ROW_NUM(relu),
    [MT_UN_SQUARE] = MT_ROW_NUM(square),
    [MT_UN_FLOOR] = ROW_ROUNDING(floor),
    [MT_UN_CEIL] = ROW_ROUNDING(ceil),
    [MT_UN_ROUND] = ROW_ROUNDING(round),
    [MT_UN_TRUNC] = ROW_ROUNDING(trunc),
    [MT_UN_NAN_TO_NUM] = {ident_b1, ident_u1, ident_i1, ident_i2, ident_i4, ident_i8,
                          nan_to_num_f2, nan_to_num_bf, nan_to_num_f4, nan_to_num_f8},
    [MT_UN_SIGN] = {ident_b1, sign_u1, sign_i1, sign_i2, sign_i4, sign_i8, sign_f2, sign_bf,
                    sign_f4, sign_f8},
    [MT_UN_BITWISE_NOT] = {bitnot_b1, bitnot_u1, bitnot_i1, bitnot_i2, bitnot_i4, bitnot_i8},
    [MT_UN_ISNAN] = MT_ROW(isnan),
    [MT_UN_ISINF] = MT_ROW(isinf),
    [MT_UN_ISFINITE] = MT_ROW(isfinite),
    [MT_UN_LOGICAL_NOT] = MT_ROW(logical_not),
    [MT_UN_SIGNBIT] = MT_ROW(signbit),
};

mt_loop_fn mt_unary_loop(mt_unary_op op, mt_dtype dtype)
{
    return table[op][dtype];
}
