/* float16 / bfloat16 conversions used by every kernel that touches them. */
#ifndef MT_CORE_HALF_H
#define MT_CORE_HALF_H

#include <stdint.h>
#include <string.h>

typedef uint16_t mt_bf16;
typedef _Float16 mt_f16;

static inline float mt_bf16_to_float(mt_bf16 v)
{
    uint32_t bits = (uint32_t)v << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline mt_bf16 mt_float_to_bf16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    if ((bits & 0x7fffffffu) > 0x7f800000u) /* NaN stays a quiet NaN */
        return (mt_bf16)((bits >> 16) | 0x40);
    uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u); /* round to nearest even */
    return (mt_bf16)((bits + rounding) >> 16);
}

#endif
