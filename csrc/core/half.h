/* float16 / bfloat16 conversions used by every kernel that touches them.
 * float16 is the compiler's _Float16 where it has one (__FLT16_MAX__ is its
 * feature test: GCC 12+ on x86-64, GCC and clang on aarch64, clang 15+ on
 * x86-64) and otherwise 16 stored bits converted in software with the same
 * rounding (to nearest even), so both spellings give the same bits. Code
 * reads float16 values only with mt_f16_to_float and writes them only with
 * MT_F16_FROM (kernels reach them as MT_LOAD_f2 and MT_STORE_f2), which
 * rounds a value to float first, then to float16, as torch's Half (made
 * from a float) does: a double or an int64 may round twice. */
#ifndef MT_CORE_HALF_H
#define MT_CORE_HALF_H

#include <stdint.h>
#include <string.h>

typedef uint16_t mt_bf16;

static inline float mt_float_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint32_t mt_float_bits(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return bits;
}

#if defined(__FLT16_MAX__)
#define MT_HAVE_FLOAT16 1
typedef _Float16 mt_f16;
#define MT_F16_FROM(x) ((mt_f16)(float)(x))

static inline float mt_f16_to_float(mt_f16 h) { return (float)h; }
#else
typedef struct {
    uint16_t bits;
} mt_f16;
#define MT_F16_FROM(x) mt_f16_from_double((double)(float)(x))

static inline float mt_f16_to_float(mt_f16 h)
{
    uint32_t sign = (uint32_t)(h.bits & 0x8000u) << 16;
    uint32_t exp = (h.bits >> 10) & 0x1fu, man = h.bits & 0x3ffu;
    if (exp == 0x1f)
        return mt_float_from_bits(sign | 0x7f800000u | (man << 13));
    if (exp == 0) /* subnormal (or zero): exact in float */
        return mt_float_from_bits(sign | mt_float_bits((float)man * 0x1p-24f));
    return mt_float_from_bits(sign | ((exp + 112) << 23) | (man << 13));
}

static inline mt_f16 mt_f16_from_double(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
    uint64_t mag = b & 0x7fffffffffffffffULL;
    if (mag >= 0x7ff0000000000000ULL) /* inf, or NaN kept quiet with its top payload */
        return (mt_f16){
            (uint16_t)(sign | 0x7c00u |
                       (mag > 0x7ff0000000000000ULL ? 0x200u | (uint16_t)((mag >> 42) & 0x3ffu)
                                                    : 0u))};
    int e = (int)(mag >> 52) - 1023;
    if (e > 15)
        return (mt_f16){(uint16_t)(sign | 0x7c00u)};
    if (e < -25)
        return (mt_f16){sign};
    /* mag = man * 2^(e-52); keep 11 bits for a normal result, fewer below 2^-14 */
    uint64_t man = (mag & 0xfffffffffffffULL) | (1ULL << 52);
    int shift = e >= -14 ? 42 : 28 - e;
    uint64_t q = man >> shift, rem = man & ((1ULL << shift) - 1), half = 1ULL << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    if (e < -14) /* subnormal; a carry into bit 10 is the smallest normal's bits */
        return (mt_f16){(uint16_t)(sign | q)};
    uint32_t exp = (uint32_t)(e + 15);
    if (q == (1u << 11)) {
        q >>= 1;
        exp++;
    }
    if (exp >= 31)
        return (mt_f16){(uint16_t)(sign | 0x7c00u)};
    return (mt_f16){(uint16_t)(sign | (exp << 10) | (q & 0x3ffu))};
}
#endif

static inline float mt_bf16_to_float(mt_bf16 v) { return mt_float_from_bits((uint32_t)v << 16); }

static inline mt_bf16 mt_float_to_bf16(float f)
{
    uint32_t bits = mt_float_bits(f);
    if ((bits & 0x7fffffffu) > 0x7f800000u) /* NaN stays a quiet NaN */
        return (mt_bf16)((bits >> 16) | 0x40);
    uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u); /* round to nearest even */
    return (mt_bf16)((bits + rounding) >> 16);
}

#endif
