/* The float32 entry of an elementwise row with wide intrinsic forms: the
 * 16-lane loop (vmath16.h) where mt_use_avx512(), for rows that have one an
 * AVX2 loop (vmath_avx2.h) where mt_use_avx2_fma(), and the 8-lane
 * clone NAME##_8_f4 (vmath.h) otherwise. One header for
 * kernels/pointwise_unary.c and kernels/activation.c.
 *
 *   MT_F4_PICK_UNARY(NAME, VFN16)           out = VFN16(a)
 *   MT_F4_PICK_BINARY(NAME, VFN16)          out = VFN16(g, v), g the incoming
 *                                           gradient, v the saved tensor
 *   MT_F4_PICK_UNARY_AVX2(NAME, VFN16, VFNX)   the same with an AVX2 form
 *   MT_F4_PICK_BINARY_AVX2(NAME, VFN16, VFNX)
 *
 * define the loops NAME##_v16 (and NAME##_x8) and the row's entry NAME##_f4
 * (an mt_loop_fn). One loop macro serves both widths: contiguous operands in
 * full vectors and a masked one for the tail, strided ones through lane
 * buffers. */
#ifndef MT_KERNELS_SIMD_LANE_PICK_H
#define MT_KERNELS_SIMD_LANE_PICK_H

#include "../../core/portable.h"
#include "vmath16.h"
#include "vmath_avx2.h"

#include <stdbool.h>
#include <stdint.h>

/* Per width L: loads and stores of a whole vector and of its first m lanes
 * (the others read as 0, not written). */
#ifdef MT_HAVE_AVX512
MT_V16 __m512 mt_lanes_ld_v16(const float *p) { return _mm512_loadu_ps(p); }
MT_V16 void mt_lanes_st_v16(float *p, __m512 v) { _mm512_storeu_ps(p, v); }
MT_V16 __m512 mt_lanes_ldn_v16(const float *p, int64_t m)
{
    return _mm512_maskz_loadu_ps((__mmask16)((1u << m) - 1), p);
}
MT_V16 void mt_lanes_stn_v16(float *p, int64_t m, __m512 v)
{
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << m) - 1), v);
}
#endif

#ifdef MT_HAVE_X86_DISPATCH
MT_VX __m256i mt_lanes_mask_x8(int64_t m)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)m), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
MT_VX __m256 mt_lanes_ld_x8(const float *p) { return _mm256_loadu_ps(p); }
MT_VX void mt_lanes_st_x8(float *p, __m256 v) { _mm256_storeu_ps(p, v); }
MT_VX __m256 mt_lanes_ldn_x8(const float *p, int64_t m)
{
    return _mm256_maskload_ps(p, mt_lanes_mask_x8(m));
}
MT_VX void mt_lanes_stn_x8(float *p, int64_t m, __m256 v)
{
    _mm256_maskstore_ps(p, mt_lanes_mask_x8(m), v);
}
#endif

/* NAME##_##L over W lanes of type V in functions marked ATTR; out is data[0],
 * the NIN operands data[1..NIN] (NIN 1 or 2), VFN takes them in order. */
#define MT_LANES_ARGS1(F, I) F(1, I)
#define MT_LANES_ARGS2(F, I) F(1, I), F(2, I)
#define MT_LANES_FULL(k, I) mt_lanes_ld_##I(p##k + i)
#define MT_LANES_PART(k, I) mt_lanes_ldn_##I(p##k + i, n - i)
#define MT_LANES_BUF(k, I) mt_lanes_ld_##I(b##k)
#define MT_LANES_LOOP(NAME, L, ATTR, W, NIN, VFN)                                           \
    ATTR static void NAME##_##L(char **data, const int64_t *st, int64_t n)                  \
    {                                                                                       \
        int64_t i = 0;                                                                      \
        if (st[0] == sizeof(float) && st[1] == sizeof(float) && st[NIN] == sizeof(float)) { \
            float *o = (float *)data[0];                                                    \
            const float *p1 = (const float *)data[1], *p2 = (const float *)data[NIN];       \
            (void)p2;                                                                       \
            for (; i + W <= n; i += W)                                                      \
                mt_lanes_st_##L(o + i, VFN(MT_LANES_ARGS##NIN(MT_LANES_FULL, L)));          \
            if (i < n)                                                                      \
                mt_lanes_stn_##L(o + i, n - i, VFN(MT_LANES_ARGS##NIN(MT_LANES_PART, L)));  \
            return;                                                                         \
        }                                                                                   \
        for (; i < n; i += W) {                                                             \
            int64_t m = n - i < W ? n - i : W;                                              \
            float b1[W] = {0}, b2[W] = {0};                                                 \
            (void)b2;                                                                       \
            for (int64_t k = 0; k < m; k++) {                                               \
                b1[k] = *(const float *)(data[1] + (i + k) * st[1]);                        \
                if (NIN == 2)                                                               \
                    b2[k] = *(const float *)(data[2] + (i + k) * st[2]);                    \
            }                                                                               \
            mt_lanes_st_##L(b1, VFN(MT_LANES_ARGS##NIN(MT_LANES_BUF, L)));                  \
            for (int64_t k = 0; k < m; k++)                                                 \
                *(float *)(data[0] + (i + k) * st[0]) = b1[k];                              \
        }                                                                                   \
    }

#ifdef MT_HAVE_AVX512
#define MT_IF_AVX512(...) __VA_ARGS__
#else
#define MT_IF_AVX512(...)
#endif
#ifdef MT_HAVE_X86_DISPATCH
#define MT_IF_X86(...) __VA_ARGS__
#else
#define MT_IF_X86(...)
#endif

#define MT_F4_ENTRY(NAME, X8)                                                   \
    static void NAME##_f4(char **data, const int64_t *st, int64_t n, void *ctx) \
    {                                                                           \
        MT_IF_AVX512(if (mt_use_avx512()) {                                     \
            NAME##_v16(data, st, n);                                            \
            return;                                                             \
        })                                                                      \
        X8(if (mt_use_avx2_fma()) {                                             \
            NAME##_x8(data, st, n);                                             \
            return;                                                             \
        })                                                                      \
        NAME##_8_f4(data, st, n, ctx);                                          \
    }
#define MT_NO_LEVEL(...)

#define MT_F4_PICK_(NAME, NIN, VFN16) \
    MT_IF_AVX512(MT_LANES_LOOP(NAME, v16, MT_TARGET_AVX512, 16, NIN, VFN16))
#define MT_F4_PICK_X8_(NAME, NIN, VFNX) \
    MT_IF_X86(MT_LANES_LOOP(NAME, x8, MT_TARGET_AVX2_FMA, 8, NIN, VFNX))

#define MT_F4_PICK_UNARY(NAME, VFN16) MT_F4_PICK_(NAME, 1, VFN16) MT_F4_ENTRY(NAME, MT_NO_LEVEL)
#define MT_F4_PICK_BINARY(NAME, VFN16) MT_F4_PICK_(NAME, 2, VFN16) MT_F4_ENTRY(NAME, MT_NO_LEVEL)
#define MT_F4_PICK_UNARY_AVX2(NAME, VFN16, VFNX) \
    MT_F4_PICK_(NAME, 1, VFN16) MT_F4_PICK_X8_(NAME, 1, VFNX) MT_F4_ENTRY(NAME, MT_IF_X86)
#define MT_F4_PICK_BINARY_AVX2(NAME, VFN16, VFNX) \
    MT_F4_PICK_(NAME, 2, VFN16) MT_F4_PICK_X8_(NAME, 2, VFNX) MT_F4_ENTRY(NAME, MT_IF_X86)

#endif
