/* Per-dtype C types and value conversions, as X-macros, so each kernel is
 * written once and stamped out for every dtype. */
#ifndef MT_KERNELS_TYPED_H
#define MT_KERNELS_TYPED_H

#include "../core/dtype.h"
#include "../core/half.h"
#include "../core/tensor.h"

#include <complex.h>
#include <math.h>
/* the header's spellings of _Complex and the imaginary unit would take
 * ordinary names (a dimension I, an op called complex) */
#undef complex
#undef I

/* Complex elements are C99 complex numbers, laid out as torch's and NumPy's:
 * the real part, then the imaginary part. */
typedef float _Complex mt_c64;
typedef double _Complex mt_c128;
/* re + im*i built from its parts, exactly (no arithmetic on an infinite or
 * NaN part): C11's CMPLX, which not every compiler's complex.h has. GCC's and
 * clang's builtin (what their CMPLX is) lets loops vectorise; the union, the
 * fallback, keeps a loop scalar (complex64 mul at half speed). */
#if defined(__has_builtin)
#if __has_builtin(__builtin_complex)
#define MT_BUILTIN_COMPLEX 1
#endif
#endif
#if defined(__GNUC__) && !defined(__clang__)
#define MT_BUILTIN_COMPLEX 1
#endif
#ifdef MT_BUILTIN_COMPLEX
static inline mt_c64 mt_cmplxf(float re, float im) { return __builtin_complex(re, im); }
static inline mt_c128 mt_cmplx(double re, double im) { return __builtin_complex(re, im); }
#else
static inline mt_c64 mt_cmplxf(float re, float im)
{
    union {
        float part[2];
        mt_c64 z;
    } u = {{re, im}};
    return u.z;
}
static inline mt_c128 mt_cmplx(double re, double im)
{
    union {
        double part[2];
        mt_c128 z;
    } u = {{re, im}};
    return u.z;
}
#endif

/* A complex32 element: float16 real and imaginary parts. Nothing computes
 * in it: it loads as a complex64 value and stores back. */
typedef struct {
    mt_f16 re, im;
} mt_c32;

/* A complex128 element as the kernels that only move elements see it. */
typedef struct {
    uint64_t lo, hi;
} mt_item16;

/* X(ENUM, suffix, ctype) */
#define MT_FOR_ALL_DTYPES(X) X(MT_BOOL, b1, uint8_t) MT_FOR_INT_DTYPES(X) MT_FOR_FLOAT_DTYPES(X)
#define MT_FOR_INT_DTYPES(X) \
    X(MT_UINT8, u1, uint8_t) \
    X(MT_INT8, i1, int8_t)   \
    X(MT_INT16, i2, int16_t) \
    X(MT_INT32, i4, int32_t) \
    X(MT_INT64, i8, int64_t)
#define MT_FOR_FLOAT_DTYPES(X)  \
    X(MT_FLOAT16, f2, mt_f16)   \
    X(MT_BFLOAT16, bf, mt_bf16) \
    X(MT_FLOAT32, f4, float)    \
    X(MT_FLOAT64, f8, double)
/* The complex dtypes stand apart: a kernel stamped for every real dtype
 * (comparisons, extrema, bit operations) has no meaning for them. */
#define MT_FOR_COMPLEX_DTYPES(X) X(MT_COMPLEX64, c8, mt_c64) X(MT_COMPLEX128, c16, mt_c128)
/* The barebones dtypes, which the kernels only convert and move (casts,
 * hash_tensor's reading): not in MT_FOR_ALL_DTYPES, whose tables compute. */
#define MT_FOR_BAREBONES_DTYPES(X) \
    X(MT_UINT16, u2, uint16_t)     \
    X(MT_UINT32, u4, uint32_t) X(MT_UINT64, u8, uint64_t) X(MT_COMPLEX32, c4, mt_c32)
/* Every dtype, for the tables that cover them all (the casts). */
#define MT_FOR_EVERY_DTYPE(X) \
    MT_FOR_ALL_DTYPES(X) MT_FOR_COMPLEX_DTYPES(X) MT_FOR_BAREBONES_DTYPES(X)
/* The same, passing the caller's further arguments to each X, as kernel
 * tables stamp one row's loops out for a class of dtypes. */
#define MT_FOR_INT_DTYPES_ARGS(X, ...)    \
    X(MT_UINT8, u1, uint8_t, __VA_ARGS__) \
    X(MT_INT8, i1, int8_t, __VA_ARGS__)   \
    X(MT_INT16, i2, int16_t, __VA_ARGS__) \
    X(MT_INT32, i4, int32_t, __VA_ARGS__) \
    X(MT_INT64, i8, int64_t, __VA_ARGS__)
#define MT_FOR_FLOAT_DTYPES_ARGS(X, ...)     \
    X(MT_FLOAT16, f2, mt_f16, __VA_ARGS__)   \
    X(MT_BFLOAT16, bf, mt_bf16, __VA_ARGS__) \
    X(MT_FLOAT32, f4, float, __VA_ARGS__)    \
    X(MT_FLOAT64, f8, double, __VA_ARGS__)
#define MT_FOR_COMPLEX_DTYPES_ARGS(X, ...)   \
    X(MT_COMPLEX64, c8, mt_c64, __VA_ARGS__) \
    X(MT_COMPLEX128, c16, mt_c128, __VA_ARGS__)
/* the unsigned ones, which the kernel rows marked MT_ON_U compute */
#define MT_FOR_UNSIGNED_DTYPES_ARGS(X, ...) \
    X(MT_UINT16, u2, uint16_t, __VA_ARGS__) \
    X(MT_UINT32, u4, uint32_t, __VA_ARGS__) \
    X(MT_UINT64, u8, uint64_t, __VA_ARGS__)
#define MT_FOR_BAREBONES_DTYPES_ARGS(X, ...)    \
    MT_FOR_UNSIGNED_DTYPES_ARGS(X, __VA_ARGS__) \
    X(MT_COMPLEX32, c4, mt_c32, __VA_ARGS__)
#define MT_FOR_EVERY_DTYPE_ARGS(X, ...)        \
    X(MT_BOOL, b1, uint8_t, __VA_ARGS__)       \
    MT_FOR_INT_DTYPES_ARGS(X, __VA_ARGS__)     \
    MT_FOR_FLOAT_DTYPES_ARGS(X, __VA_ARGS__)   \
    MT_FOR_COMPLEX_DTYPES_ARGS(X, __VA_ARGS__) \
    MT_FOR_BAREBONES_DTYPES_ARGS(X, __VA_ARGS__)

/* Dispatch-table rows indexed by dtype: N##_<sfx> for every dtype, for the
 * numbers (no bool) or for the floats only. */
#define MT_ROW(N) {N##_b1, N##_u1, N##_i1, N##_i2, N##_i4, N##_i8, N##_f2, N##_bf, N##_f4, N##_f8}
#define MT_ROW_NUM(N) {NULL, N##_u1, N##_i1, N##_i2, N##_i4, N##_i8, N##_f2, N##_bf, N##_f4, N##_f8}
/* MT_ROW's entries and the complex dtypes'. */
#define MT_ROW_AND_COMPLEX(N)                        \
    {N##_b1, N##_u1, N##_i1, N##_i2, N##_i4, N##_i8, \
     N##_f2, N##_bf, N##_f4, N##_f8, N##_c8, N##_c16}
#define MT_ROW_FLOAT(N) \
    {[MT_FLOAT16] = N##_f2, [MT_BFLOAT16] = N##_bf, [MT_FLOAT32] = N##_f4, [MT_FLOAT64] = N##_f8}

/* Loading a stored value as an arithmetic value, and storing one back. */
#define MT_LOAD_b1(v) (v)
#define MT_LOAD_u1(v) (v)
#define MT_LOAD_i1(v) (v)
#define MT_LOAD_i2(v) (v)
#define MT_LOAD_i4(v) (v)
#define MT_LOAD_i8(v) (v)
#define MT_LOAD_f2(v) mt_f16_to_float(v)
#define MT_LOAD_bf(v) mt_bf16_to_float(v)
#define MT_LOAD_f4(v) (v)
#define MT_LOAD_f8(v) (v)
#define MT_LOAD_c8(v) (v)
#define MT_LOAD_c16(v) (v)
#define MT_LOAD_u2(v) (v)
#define MT_LOAD_u4(v) (v)
#define MT_LOAD_u8(v) (v)
#define MT_LOAD_c4(v) mt_cmplxf(mt_f16_to_float((v).re), mt_f16_to_float((v).im))

/* torch converts a floating value (a complex one's real part) to int8,
 * int16 and int32 through int32 (x86's truncation: INT32_MIN for NaN and
 * values out of range), and to uint8 and int64 through int64 */
static inline int32_t mt_double_to_i32(double x)
{
    return x > -2147483649.0 && x < 2147483648.0 ? (int32_t)x : INT32_MIN;
}
#define MT_TO_I32(x)                                 \
    _Generic((x),                                    \
        float: mt_double_to_i32((double)(x)),        \
        double: mt_double_to_i32((double)(x)),       \
        mt_c64: mt_double_to_i32((double)crealf(x)), \
        mt_c128: mt_double_to_i32(creal(x)),         \
        default: (int32_t)(int64_t)(x))
/* torch's float to unsigned conversions, as its x86 build computes them: to
 * uint16 through int32 (as int16), to uint32 0 for NaN, infinities and
 * values from 2^32 up, negative values through int32 (INT32_MIN's bits when
 * out of its range); to uint64 through int64 (INT64_MIN's bits for NaN and
 * values out of its range), values from 2^63 up offset by 2^63 first */
static inline int64_t mt_double_to_i64(double x)
{
    return x >= -9223372036854775808.0 && x < 9223372036854775808.0 ? (int64_t)x : INT64_MIN;
}
static inline uint32_t mt_double_to_u32(double x)
{
    if (x != x || x >= 4294967296.0 || x == -(double)INFINITY)
        return 0;
    return x >= 0 ? (uint32_t)x : (uint32_t)mt_double_to_i32(x);
}
static inline uint64_t mt_double_to_u64(double x)
{
    if (x >= 9223372036854775808.0)
        return (uint64_t)mt_double_to_i64(x - 9223372036854775808.0) ^ (UINT64_C(1) << 63);
    return (uint64_t)mt_double_to_i64(x);
}
#define MT_TO_UNSIGNED(x, FN, T)       \
    _Generic((x),                      \
        float: FN((double)(x)),        \
        double: FN((double)(x)),       \
        mt_c64: FN((double)crealf(x)), \
        mt_c128: FN(creal(x)),         \
        default: (T)(x))
#define MT_STORE_u2(x) ((uint16_t)MT_TO_I32(x))
#define MT_STORE_u4(x) MT_TO_UNSIGNED(x, mt_double_to_u32, uint32_t)
#define MT_STORE_u8(x) MT_TO_UNSIGNED(x, mt_double_to_u64, uint64_t)
/* a real value becomes (x, 0), a complex one rounds each part */
static inline mt_c32 mt_c32_of(float re, float im)
{
    return (mt_c32){MT_F16_FROM(re), MT_F16_FROM(im)};
}
#define MT_STORE_c4(x)                                        \
    _Generic((x),                                             \
        mt_c64: mt_c32_of(crealf(x), cimagf(x)),              \
        mt_c128: mt_c32_of((float)creal(x), (float)cimag(x)), \
        default: mt_c32_of((float)(x), 0.0f))
#define MT_STORE_b1(x) ((uint8_t)((x) != 0))
#define MT_STORE_u1(x) ((uint8_t)(int64_t)(x))
#define MT_STORE_i1(x) ((int8_t)MT_TO_I32(x))
#define MT_STORE_i2(x) ((int16_t)MT_TO_I32(x))
#define MT_STORE_i4(x) MT_TO_I32(x)
#define MT_STORE_i8(x) ((int64_t)(x))
#define MT_STORE_f2(x) MT_F16_FROM(x)
#define MT_STORE_bf(x) mt_float_to_bf16((float)(x))
#define MT_STORE_f4(x) ((float)(x))
#define MT_STORE_f8(x) ((double)(x))
/* a real value becomes (x, 0); a complex one stored as real keeps its real
 * part (C's conversion), as torch's casts do */
#define MT_STORE_c8(x) ((mt_c64)(x))
#define MT_STORE_c16(x) ((mt_c128)(x))

/* Compute types of elementwise kernels: narrow floats widen to float, bool
 * computes as uint8. */
#define MT_ACC_b1 uint8_t
#define MT_ACC_u1 uint8_t
#define MT_ACC_i1 int8_t
#define MT_ACC_i2 int16_t
#define MT_ACC_i4 int32_t
#define MT_ACC_i8 int64_t
#define MT_ACC_f2 float
#define MT_ACC_bf float
#define MT_ACC_f4 float
#define MT_ACC_f8 double
/* uint16 computes as uint32, whose products wrap where int's would overflow */
#define MT_ACC_u2 uint32_t
#define MT_ACC_u4 uint32_t
#define MT_ACC_u8 uint64_t
#define MT_ACC_c8 mt_c64
#define MT_ACC_c16 mt_c128

/* The part type of a complex element, and a value stored as one. */
#define MT_PART_c8 float
#define MT_PART_c16 double
#define MT_STORE_PART_c8(x) ((float)(x))
#define MT_STORE_PART_c16(x) ((double)(x))

/* Element i (counted in items from the tensor's data pointer) of a floating
 * tensor as a double, and a double stored there: for scalar paths that touch
 * a few elements (running statistics, per-class weights, loss tails). */
static inline double mt_float_at(const mt_tensor *t, int64_t i)
{
    const char *p = mt_data(t) + i * mt_itemsize(t->dtype);
    switch (t->dtype) {
#define MT_FLOAT_AT_CASE(E, SFX, CT) \
    case E:                          \
        return (double)MT_LOAD_##SFX(*(const CT *)p);
        MT_FOR_FLOAT_DTYPES(MT_FLOAT_AT_CASE)
#undef MT_FLOAT_AT_CASE
    default:
        return 0;
    }
}

static inline void mt_float_set(mt_tensor *t, int64_t i, double v)
{
    char *p = mt_data(t) + i * mt_itemsize(t->dtype);
    switch (t->dtype) {
#define MT_FLOAT_SET_CASE(E, SFX, CT) \
    case E:                           \
        *(CT *)p = MT_STORE_##SFX(v); \
        break;
        MT_FOR_FLOAT_DTYPES(MT_FLOAT_SET_CASE)
#undef MT_FLOAT_SET_CASE
    default:
        break;
    }
}

#endif
