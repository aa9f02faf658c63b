/* The float32 entry of an elementwise row with a 16-lane form: the 16-lane
 * loop (vmath16.h) where mt_use_avx512(), the 8-lane clone NAME##_8_f4
 * (vmath.h) otherwise. One header for kernels/pointwise_unary.c and
 * kernels/activation_backward.c.
 *
 *   MT_F4_PICK_UNARY(NAME, VFN16)   out = VFN16(a)
 *   MT_F4_PICK_BINARY(NAME, VFN16)  out = VFN16(g, v), g the incoming gradient,
 *                                   v the saved tensor
 *
 * define NAME##_v16 and the row's entry NAME##_f4 (an mt_loop_fn). The
 * 16-lane loops take contiguous operands in full vectors and a masked one
 * for the tail, strided ones through lane buffers. */
#ifndef MT_KERNELS_LANE_PICK_H
#define MT_KERNELS_LANE_PICK_H

#include "../core/portable.h"
#include "vmath16.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef MT_HAVE_AVX512
#define MT_V16_UNARY(NAME, VFN)                                                           \
    MT_TARGET_AVX512 static void NAME##_v16(char **data, const int64_t *st, int64_t n)    \
    {                                                                                     \
        int64_t i = 0;                                                                    \
        if (st[0] == sizeof(float) && st[1] == sizeof(float)) {                           \
            float *o = (float *)data[0];                                                  \
            const float *pa = (const float *)data[1];                                     \
            for (; i + 16 <= n; i += 16)                                                  \
                _mm512_storeu_ps(o + i, VFN(_mm512_loadu_ps(pa + i)));                    \
            if (i < n) {                                                                  \
                __mmask16 k = (__mmask16)((1u << (n - i)) - 1);                           \
                _mm512_mask_storeu_ps(o + i, k, VFN(_mm512_maskz_loadu_ps(k, pa + i)));   \
            }                                                                             \
            return;                                                                       \
        }                                                                                 \
        for (; i < n; i += 16) {                                                          \
            int64_t m = n - i < 16 ? n - i : 16;                                          \
            float buf[16] = {0};                                                          \
            for (int64_t k = 0; k < m; k++)                                               \
                buf[k] = *(const float *)(data[1] + (i + k) * st[1]);                     \
            _mm512_storeu_ps(buf, VFN(_mm512_loadu_ps(buf)));                             \
            for (int64_t k = 0; k < m; k++)                                               \
                *(float *)(data[0] + (i + k) * st[0]) = buf[k];                           \
        }                                                                                 \
    }

#define MT_V16_BINARY(NAME, VFN)                                                          \
    MT_TARGET_AVX512 static void NAME##_v16(char **data, const int64_t *st, int64_t n)    \
    {                                                                                     \
        int64_t i = 0;                                                                    \
        if (st[0] == sizeof(float) && st[1] == sizeof(float) && st[2] == sizeof(float)) { \
            float *o = (float *)data[0];                                                  \
            const float *pg = (const float *)data[1], *pv = (const float *)data[2];       \
            for (; i + 16 <= n; i += 16)                                                  \
                _mm512_storeu_ps(o + i, VFN(_mm512_loadu_ps(pg + i), _mm512_loadu_ps(pv + i))); \
            if (i < n) {                                                                  \
                __mmask16 k = (__mmask16)((1u << (n - i)) - 1);                           \
                _mm512_mask_storeu_ps(o + i, k,                                           \
                                      VFN(_mm512_maskz_loadu_ps(k, pg + i),               \
                                          _mm512_maskz_loadu_ps(k, pv + i)));             \
            }                                                                             \
            return;                                                                       \
        }                                                                                 \
        for (; i < n; i += 16) {                                                          \
            int64_t m = n - i < 16 ? n - i : 16;                                          \
            float bg[16] = {0}, bv[16] = {0};                                             \
            for (int64_t k = 0; k < m; k++) {                                             \
                bg[k] = *(const float *)(data[1] + (i + k) * st[1]);                      \
                bv[k] = *(const float *)(data[2] + (i + k) * st[2]);                      \
            }                                                                             \
            _mm512_storeu_ps(bg, VFN(_mm512_loadu_ps(bg), _mm512_loadu_ps(bv)));          \
            for (int64_t k = 0; k < m; k++)                                               \
                *(float *)(data[0] + (i + k) * st[0]) = bg[k];                            \
        }                                                                                 \
    }

#define MT_F4_ENTRY(NAME)                                                                 \
    static void NAME##_f4(char **data, const int64_t *st, int64_t n, void *ctx)           \
    {                                                                                     \
        if (mt_use_avx512())                                                              \
            NAME##_v16(data, st, n);                                                      \
        else                                                                              \
            NAME##_8_f4(data, st, n, ctx);                                                \
    }
#define MT_F4_PICK_UNARY(NAME, VFN16) MT_V16_UNARY(NAME, VFN16) MT_F4_ENTRY(NAME)
#define MT_F4_PICK_BINARY(NAME, VFN16) MT_V16_BINARY(NAME, VFN16) MT_F4_ENTRY(NAME)
#else
#define MT_F4_ENTRY(NAME)                                                                 \
    static void NAME##_f4(char **data, const int64_t *st, int64_t n, void *ctx)           \
    {                                                                                     \
        NAME##_8_f4(data, st, n, ctx);                                                    \
    }
#define MT_F4_PICK_UNARY(NAME, VFN16) MT_F4_ENTRY(NAME)
#define MT_F4_PICK_BINARY(NAME, VFN16) MT_F4_ENTRY(NAME)
#endif

#endif
