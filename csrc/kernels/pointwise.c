/* The binary and ternary loop table (pointwise.h): one loop per kernel row
 * of pointwise.def and dtype, stamped out by kernel_rows.h. */
#include "pointwise.h"
#include "../core/portable.h"
#include "complex_log_add_exp.h"
#include "kernel_rows.h"
#include "../core/hot.h"
#include "special_math.h"
#include "special_polynomials.h"

#include <math.h>
#include <stdlib.h>

/* add's alpha (and addcmul's, addcdiv's value) in the loop's compute type:
 * float for the narrow floats, double for float64, int64 for the rest. */
#define ALPHA(c)                                                      \
    _Generic((acc)0,                                                  \
        float: (float)(c)->alpha_f,                                   \
        double: (c)->alpha_f,                                         \
        mt_c64: mt_cmplxf((float)(c)->alpha_f, (float)(c)->alpha_im), \
        mt_c128: mt_cmplx((c)->alpha_f, (c)->alpha_im),               \
        default: (c)->alpha_i)

/* torch's complex product (c10::complex, and its vector kernels): the plain
 * formula, without C's Annex G recovery of infinities from NaN results, which
 * costs a library call per element */
#define CMUL(x, y) _Generic((x), mt_c64: cmul_f, default: cmul_d)(x, y)
#define CMUL_FN(NAME, T, R, MAKE)                                 \
    static inline T NAME(T x, T y)                                \
    {                                                             \
        R a = creal(x), b = cimag(x), c = creal(y), d = cimag(y); \
        return MAKE(a * c - b * d, a * d + b * c);                \
    }
CMUL_FN(cmul_f, mt_c64, float, mt_cmplxf)
CMUL_FN(cmul_d, mt_c128, double, mt_cmplx)

#define CPOW(x, y) _Generic((x), mt_c64: cpowf, default: cpow)(x, y)

/* torch's complex division (c10::complex, after NumPy's): the larger part
 * of the divisor scales the others, so |y|^2 never overflows */
#define CDIV(x, y) _Generic((x), mt_c64: cdiv_f, default: cdiv_d)(x, y)
#define CDIV_FN(NAME, T, R, MAKE)                                  \
    static inline T NAME(T x, T y)                                 \
    {                                                              \
        R a = creal(x), b = cimag(x), c = creal(y), d = cimag(y);  \
        R ac = (R)fabs(c), ad = (R)fabs(d);                        \
        if (ac >= ad) {                                            \
            if (ac == 0 && ad == 0)                                \
                return MAKE(a / ac, b / ad);                       \
            R rat = d / c, scl = (R)1 / (c + d * rat);             \
            return MAKE((a + b * rat) * scl, (b - a * rat) * scl); \
        }                                                          \
        R rat = c / d, scl = (R)1 / (d + c * rat);                 \
        return MAKE((a * rat + b) * scl, (b * rat - a) * scl);     \
    }
CDIV_FN(cdiv_f, mt_c64, float, mt_cmplxf)
CDIV_FN(cdiv_d, mt_c128, double, mt_cmplx)

/* Integer division never traps: x86 faults on /0 and on INT64_MIN / -1. */
static inline void zero_div(mt_binary_ctx *c)
{
    __atomic_store_n(&c->zero_div, 1, __ATOMIC_RELAXED);
}

static inline int64_t i_div_trunc(int64_t a, int64_t b, mt_binary_ctx *c)
{
    if (b == 0) {
        zero_div(c);
        return 0;
    }
    if (b == -1)
        return (int64_t)(0 - (uint64_t)a);
    return a / b;
}

static inline int64_t i_fmod(int64_t a, int64_t b, mt_binary_ctx *c)
{
    if (b == 0) {
        zero_div(c);
        return 0;
    }
    return b == -1 ? 0 : a % b;
}

static inline int64_t i_div_floor(int64_t a, int64_t b, mt_binary_ctx *c)
{
    int64_t q = i_div_trunc(a, b, c);
    return i_fmod(a, b, c) != 0 && ((a < 0) != (b < 0)) ? q - 1 : q;
}

static inline int64_t i_remainder(int64_t a, int64_t b, mt_binary_ctx *c)
{
    int64_t r = i_fmod(a, b, c);
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

static inline int64_t i_pow(int64_t b, int64_t e, mt_binary_ctx *c)
{
    (void)c;
    if (e < 0)
        return b == 1 ? 1 : b == -1 ? (e & 1 ? -1 : 1) : 0;
    uint64_t r = 1, base = (uint64_t)b;
    while (e) {
        if (e & 1)
            r *= base;
        base *= base;
        e >>= 1;
    }
    return (int64_t)r;
}

/* Python's floor division for floats (exact near integer boundaries). */
#define FLOAT_HELPERS(T, SUF)                                   \
    static inline T f_div_trunc_##T(T a, T b, mt_binary_ctx *c) \
    {                                                           \
        (void)c;                                                \
        return trunc##SUF(a / b);                               \
    }                                                           \
    static inline T f_div_floor_##T(T a, T b, mt_binary_ctx *c) \
    {                                                           \
        (void)c;                                                \
        if (b == 0)                                             \
            return a / b;                                       \
        T mod = fmod##SUF(a, b);                                \
        T div = (a - mod) / b;                                  \
        if (mod != 0 && ((b < 0) != (mod < 0)))                 \
            div -= 1;                                           \
        if (div == 0)                                           \
            return copysign##SUF(0, a / b);                     \
        T fl = floor##SUF(div);                                 \
        return div - fl > (T)0.5 ? fl + 1 : fl;                 \
    }                                                           \
    static inline T f_fmod_##T(T a, T b, mt_binary_ctx *c)      \
    {                                                           \
        (void)c;                                                \
        return fmod##SUF(a, b);                                 \
    }                                                           \
    static inline T f_remainder_##T(T a, T b, mt_binary_ctx *c) \
    {                                                           \
        (void)c;                                                \
        T mod = fmod##SUF(a, b);                                \
        if (mod != 0 && ((b < 0) != (mod < 0)))                 \
            mod += b;                                           \
        return mod;                                             \
    }                                                           \
    static inline T f_pow_##T(T a, T b, mt_binary_ctx *c)       \
    {                                                           \
        (void)c;                                                \
        return pow##SUF(a, b);                                  \
    }
FLOAT_HELPERS(float, f)
FLOAT_HELPERS(double, )

#define GEN(NAME, x, y, c) \
    _Generic((x), float: f_##NAME##_float, double: f_##NAME##_double, default: i_##NAME)(x, y, c)

static inline int64_t shl(int64_t x, int64_t y, int bits)
{
    return (y < 0 || y >= bits) ? 0 : (int64_t)((uint64_t)x << y);
}

static inline int64_t shr(int64_t x, int64_t y, int bits)
{
    return (y < 0 || y >= bits) ? (x < 0 ? -1 : 0) : x >> y;
}

static inline bool close_d(double a, double b, const mt_binary_ctx *c)
{
    if (a == b || (c->equal_nan && a != a && b != b))
        return true;
    double err = fabs(a - b);
    return isfinite(err) && err <= c->atol + fabs(c->alpha_f * b);
}

static inline bool close_f(float a, float b, const mt_binary_ctx *c)
{
    if (a == b || (c->equal_nan && a != a && b != b))
        return true;
    float err = fabsf(a - b);
    return isfinite(err) && err <= (float)c->atol + fabsf((float)c->alpha_f * b);
}

#define CLOSE(x, y, c) _Generic((x), float: close_f, default: close_d)(x, y, c)

/* torch's lcm takes |a / gcd * b| in C++'s arithmetic: int for the types
 * narrower than int (the stored value wraps after), the element type else
 * (INT_MIN staying itself) */
#define LCM(x, y)                                                 \
    (sizeof(acc) < sizeof(int) ? (acc)llabs(mt_lcm_product(x, y)) \
                               : lcm_wrap((acc)mt_lcm_product(x, y)))
#define lcm_wrap(v) ((v) < 0 ? (acc)(0 - (uint64_t)(v)) : (v))

/* NaN-propagating max/min, as torch.maximum/minimum. */
#define MAXN(a, b) ((a) != (a) || (a) > (b) ? (a) : (b))
#define MINN(a, b) ((a) != (a) || (a) < (b) ? (a) : (b))
/* NaN-ignoring max/min, as torch.fmax/fmin: NaN only when both are NaN. */
#define FMAX(a, b) ((b) != (b) || (a) > (b) ? (a) : (b))
#define FMIN(a, b) ((b) != (b) || (a) < (b) ? (a) : (b))

/* One loop per (op, dtype): a contiguous path the compiler vectorises, a
 * scalar-operand path, and the general strided path. OT is the stored output
 * type and STORE converts the computed value to it; elem, the stored input
 * type, lets an expression tell float16 and bfloat16 from float32, whose
 * compute type they share (nextafter steps in the stored bits). */
#define BINARY_LOOP(NAME, SFX, T, OT, STORE, EXPR)                                                 \
    MT_CLONES_AVX2 static void NAME##_##SFX(char **data, const int64_t *st, int64_t n, void *vctx) \
    {                                                                                              \
        mt_binary_ctx *ctx = vctx;                                                                 \
        (void)ctx;                                                                                 \
        typedef MT_ACC_##SFX acc;                                                                  \
        typedef T elem;                                                                            \
        if (st[0] == sizeof(OT) && st[1] == sizeof(elem) && st[2] == sizeof(elem)) {               \
            OT *restrict o = (OT *)data[0];                                                        \
            const elem *restrict pa = (const elem *)data[1], *restrict pb = (const elem *)data[2]; \
            for (int64_t i = 0; i < n; i++) {                                                      \
                acc x = MT_LOAD_##SFX(pa[i]), y = MT_LOAD_##SFX(pb[i]);                            \
                o[i] = STORE(EXPR);                                                                \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        if (st[0] == sizeof(OT) && st[1] == sizeof(elem) && st[2] == 0) {                          \
            OT *restrict o = (OT *)data[0];                                                        \
            const elem *restrict pa = (const elem *)data[1];                                       \
            const acc y = MT_LOAD_##SFX(*(const elem *)data[2]);                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                acc x = MT_LOAD_##SFX(pa[i]);                                                      \
                o[i] = STORE(EXPR);                                                                \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        char *o = data[0];                                                                         \
        const char *pa = data[1], *pb = data[2];                                                   \
        for (int64_t i = 0; i < n; i++, o += st[0], pa += st[1], pb += st[2]) {                    \
            acc x = MT_LOAD_##SFX(*(const elem *)pa), y = MT_LOAD_##SFX(*(const elem *)pb);        \
            *(OT *)o = STORE(EXPR);                                                                \
        }                                                                                          \
    }

#define TERNARY_LOOP(NAME, SFX, T, EXPR)                                                           \
    MT_CLONES_AVX2 static void NAME##_##SFX(char **data, const int64_t *st, int64_t n, void *vctx) \
    {                                                                                              \
        mt_binary_ctx *ctx = vctx;                                                                 \
        (void)ctx;                                                                                 \
        typedef MT_ACC_##SFX acc;                                                                  \
        if (st[0] == sizeof(T) && st[1] == sizeof(T) && st[2] == sizeof(T) &&                      \
            st[3] == sizeof(T)) {                                                                  \
            T *restrict o = (T *)data[0];                                                          \
            const T *restrict pa = (const T *)data[1], *restrict pb = (const T *)data[2],          \
                              *restrict pc = (const T *)data[3];                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                acc x = MT_LOAD_##SFX(pa[i]), y = MT_LOAD_##SFX(pb[i]), z = MT_LOAD_##SFX(pc[i]);  \
                o[i] = MT_STORE_##SFX(EXPR);                                                       \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        char *o = data[0];                                                                         \
        const char *pa = data[1], *pb = data[2], *pc = data[3];                                    \
        for (int64_t i = 0; i < n; i++, o += st[0], pa += st[1], pb += st[2], pc += st[3]) {       \
            acc x = MT_LOAD_##SFX(*(const T *)pa), y = MT_LOAD_##SFX(*(const T *)pb),              \
                z = MT_LOAD_##SFX(*(const T *)pc);                                                 \
            *(T *)o = MT_STORE_##SFX(EXPR);                                                        \
        }                                                                                          \
    }

#define TO_BOOL(e) ((uint8_t)((e) != 0))
#define SAME(SFX, T, NAME, EXPR) BINARY_LOOP(NAME, SFX, T, T, MT_STORE_##SFX, EXPR)
#define PRED(SFX, T, NAME, EXPR) BINARY_LOOP(NAME, SFX, T, uint8_t, TO_BOOL, EXPR)

#define TER(SFX, T, NAME, EXPR) TERNARY_LOOP(NAME, SFX, T, EXPR)

/* nextafter in a 16-bit float format (sign in bit 15), from the bits of x
 * and the exact float values x and y: one step of the bit pattern away
 * from zero when y lies beyond x, toward it else; zero steps to the
 * smallest subnormal of y's sign. The largest finite value steps to
 * infinity and infinity back to it, as the bits run. */
static inline uint16_t next_bits16(uint16_t bits, float x, float y)
{
    if (x == 0)
        return (uint16_t)((y < 0 ? 0x8000u : 0u) | 1u);
    return (uint16_t)((x < y) == (x > 0) ? bits + 1 : bits - 1);
}

static inline float next_f16(float x, float y)
{
    if (x != x || y != y)
        return x + y;
    if (x == y)
        return y;
    mt_f16 h = MT_F16_FROM(x);
    uint16_t bits;
    memcpy(&bits, &h, sizeof bits);
    bits = next_bits16(bits, x, y);
    memcpy(&h, &bits, sizeof bits);
    return mt_f16_to_float(h);
}

static inline float next_bf16(float x, float y)
{
    if (x != x || y != y)
        return x + y;
    if (x == y)
        return y;
    uint16_t bits = next_bits16((uint16_t)(mt_float_bits(x) >> 16), x, y);
    return mt_float_from_bits((uint32_t)bits << 16);
}

/* nextafter in the stored type: float16 and bfloat16 compute in float but
 * step in their own bits */
#define NEXTAFTER(x, y)     \
    _Generic((elem){0},     \
        mt_f16: next_f16,   \
        mt_bf16: next_bf16, \
        float: nextafterf,  \
        default: nextafter)(x, y)

/* The float or double libm function for the type of x. */
#define FN(fn, x) _Generic((x), float: fn##f, default: fn)
#define INV_LN2 1.44269504088896340736
/* max + log1p(base**-|x - y|) / ln(base), the sum of two powers of base
 * without overflow; equal infinities give that infinity, not inf - inf. */
#define log_add_exp(x, y, pow_base, scale) \
    ((x) == (y) && isinf(x)                \
         ? (x)                             \
         : MAXN(x, y) + FN(log1p, x)(pow_base(-FN(fabs, x)((x) - (y)))) * (scale))

#define clamp_v(x, lo, hi, c)    \
    ({                           \
        __typeof__(x) r_ = (x);  \
        if ((c)->has_lo)         \
            r_ = MAXN(r_, (lo)); \
        if ((c)->has_hi)         \
            r_ = MINN(r_, (hi)); \
        r_;                      \
    })
#define lerp_v(s, e, w) \
    ((w) < 0.5 && (w) > -0.5 ? (s) + (w) * ((e) - (s)) : (e) - ((e) - (s)) * (1 - (w)))
/* the same, a complex weight's side chosen by its magnitude, as torch's */
#define clerp_v(s, e, w)                                                            \
    (_Generic((w), mt_c64: cabsf, default: cabs)(w) < 0.5 ? (s) + (w) * ((e) - (s)) \
                                                          : (e) - ((e) - (s)) * (1 - (w)))

#define MT_BINARY_KERNEL(ID, NAME, OUT, ON_BOOL, ON_INT, ON_FLOAT, ON_COMPLEX) \
    MT_KROW_LOOPS(NAME, OUT, ON_BOOL, ON_INT, ON_FLOAT, ON_COMPLEX)
#include "pointwise.def"
#undef MT_BINARY_KERNEL

static const mt_loop_fn table[][MT_NUM_DTYPES] = {
#define MT_BINARY_KERNEL(ID, NAME, OUT, ON_BOOL, ON_INT, ON_FLOAT, ON_COMPLEX) \
    [MT_##ID] = MT_KROW_CELLS(NAME, NAME, NAME, ON_BOOL, ON_INT, ON_FLOAT, ON_COMPLEX),
#include "pointwise.def"
#undef MT_BINARY_KERNEL
};
_Static_assert(sizeof table / sizeof table[0] == MT_NUM_BINARY, "a binary kernel without its row");

MT_HOT mt_loop_fn mt_binary_loop(mt_binary_op op, mt_dtype dtype) { return table[op][dtype]; }
