/* The per-row steps that softmax, log_softmax, cross_entropy and attention
 * share over a contiguous row of n scores: its maximum, the sum of
 * exp(x - max) (storing the exps when asked), a block of rows' maxima and
 * sums together, the logs of a block of sums at once, the outputs, and the
 * backward row. Included by kernels/softmax.c, kernels/loss_cross_entropy.c and
 * kernels/attention.c, whose vector loops inline them: smr_*_f4 (8 floats),
 * smr_*_f8 (4 doubles) and, where the machine has AVX-512, smr_*_x16 (16
 * floats), so a faster exp or wider vector lands in all of them from here.
 * A row's tail is not a scalar loop but one more vector: the row's last W
 * scores, overlapping the vectors before, or for a row shorter than W its
 * scores padded with -inf (whose exp adds nothing) or 0.
 * NaN follows the formulas: a NaN once taken as the maximum stays, and x - m
 * of a NaN, +inf or all -inf row is NaN, so the whole row is. */
#ifndef MT_KERNELS_SOFTMAX_ROW_H
#define MT_KERNELS_SOFTMAX_ROW_H

#include "simd/vmath.h"
#include "simd/vmath16.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Rows whose sums are taken to their logs together: one vector log per
 * block instead of a scalar log per row, which weighs on short rows. */
#define MT_SOFTMAX_ROW_BLOCK 8

/* SFX names the functions and ATTR marks them (empty, or the target of a
 * wider ISA); T the element, V its vector of W lanes, M the lane mask;
 * EXP_AT(V *) the exp of arguments <= 0 (or NaN), EXP_ANY_AT(V *) of any;
 * HMAX(const V *) the largest lane or NaN if any lane is, HSUM(const V *)
 * the lanes' sum. */
#define MT_DEFINE_SOFTMAX_ROW(SFX, ATTR, T, V, M, W, EXP_AT, EXP_ANY_AT, HMAX, HSUM)           \
    /* loads min(w, W) lanes at p, the rest set to fill; stores as many */                     \
    MT_VINLINE ATTR void smr_load_##SFX(V *v, const T *p, int64_t w, T fill)                   \
    {                                                                                          \
        if (w >= W) {                                                                          \
            memcpy(v, p, sizeof *v);                                                           \
            return;                                                                            \
        }                                                                                      \
        T b[W];                                                                                \
        for (int64_t j = 0; j < W; j++)                                                        \
            b[j] = j < w ? p[j] : fill;                                                        \
        memcpy(v, b, sizeof *v);                                                               \
    }                                                                                          \
    MT_VINLINE ATTR void smr_store_##SFX(T *p, const V *v, int64_t w)                          \
    {                                                                                          \
        if (w >= W)                                                                            \
            memcpy(p, v, sizeof *v);                                                           \
        else                                                                                   \
            memcpy(p, v, (size_t)w * sizeof(T));                                               \
    }                                                                                          \
    MT_VINLINE ATTR void smr_max_into_##SFX(V *m, const V *v)                                  \
    {                                                                                          \
        M mk = (*v > *m) | (*v != *v);                                                         \
        *m = (V)((mk & (M) * v) | (~mk & (M) * m));                                            \
    }                                                                                          \
    /* lanes of the last whole vector of a row of n >= W that the vectors     \
     * before it did not cover (its first W - n % W overlap them) */                \
    MT_VINLINE ATTR M smr_fresh_##SFX(int64_t n)                                               \
    {                                                                                          \
        M lane;                                                                                \
        for (int q = 0; q < W; q++)                                                            \
            lane[q] = q;                                                                       \
        return lane >= (M){0} + (int)(W - n % W);                                              \
    }                                                                                          \
    /* a long row in four running maxima, so it is not one chain of         \
     * compares (NaN lanes flagged apart and put back after); a short row    \
     * in one, as there the chain's end is what the sum waits on */                  \
    MT_VINLINE ATTR T smr_max_##SFX(const T *x, int64_t n)                                     \
    {                                                                                          \
        V m0 = (V){0} - (T)INFINITY, v0;                                                       \
        int64_t k = 0;                                                                         \
        if (n >= 8 * W) {                                                                      \
            V m1 = m0, m2 = m0, m3 = m0, v1, v2, v3;                                           \
            M bad = {0};                                                                       \
            for (; k + 4 * W <= n; k += 4 * W) {                                               \
                memcpy(&v0, x + k, sizeof v0);                                                 \
                memcpy(&v1, x + k + W, sizeof v1);                                             \
                memcpy(&v2, x + k + 2 * W, sizeof v2);                                         \
                memcpy(&v3, x + k + 3 * W, sizeof v3);                                         \
                bad |= (v0 != v0) | (v1 != v1) | (v2 != v2) | (v3 != v3);                      \
                smr_max_into_##SFX(&m0, &v0);                                                  \
                smr_max_into_##SFX(&m1, &v1);                                                  \
                smr_max_into_##SFX(&m2, &v2);                                                  \
                smr_max_into_##SFX(&m3, &v3);                                                  \
            }                                                                                  \
            smr_max_into_##SFX(&m0, &m2);                                                      \
            smr_max_into_##SFX(&m1, &m3);                                                      \
            smr_max_into_##SFX(&m0, &m1);                                                      \
            v0 = (V){0} + (T)NAN;                                                              \
            m0 = (V)((bad & (M)v0) | (~bad & (M)m0));                                          \
        }                                                                                      \
        for (; k + W <= n; k += W) {                                                           \
            memcpy(&v0, x + k, sizeof v0);                                                     \
            smr_max_into_##SFX(&m0, &v0);                                                      \
        }                                                                                      \
        if (k < n) {                                                                           \
            if (n >= W)                                                                        \
                memcpy(&v0, x + n - W, sizeof v0);                                             \
            else                                                                               \
                smr_load_##SFX(&v0, x, n, -(T)INFINITY);                                       \
            smr_max_into_##SFX(&m0, &v0);                                                      \
        }                                                                                      \
        return HMAX(&m0);                                                                      \
    }                                                                                          \
    MT_VINLINE ATTR void smr_exp_##SFX(V *v) { EXP_AT(v); }                                    \
    /* sum of exp(x - m); the exps go to o unless it is NULL (the overlapping  \
     * last vector stores its overlap again, the same values, and adds only   \
     * its fresh lanes) */               \
    MT_VINLINE ATTR T smr_expsum_##SFX(T *o, const T *x, int64_t n, T m)                       \
    {                                                                                          \
        V acc = {0}, v;                                                                        \
        int64_t k = 0;                                                                         \
        for (; k + W <= n; k += W) {                                                           \
            memcpy(&v, x + k, sizeof v);                                                       \
            v = v - m;                                                                         \
            EXP_AT(&v);                                                                        \
            acc += v;                                                                          \
            if (o)                                                                             \
                memcpy(o + k, &v, sizeof v);                                                   \
        }                                                                                      \
        if (k < n) {                                                                           \
            int64_t at = n >= W ? n - W : 0;                                                   \
            smr_load_##SFX(&v, x + at, n, -(T)INFINITY);                                       \
            v = v - m;                                                                         \
            EXP_AT(&v);                                                                        \
            if (o)                                                                             \
                smr_store_##SFX(o + at, &v, n);                                                \
            if (n >= W)                                                                        \
                v = (V)(smr_fresh_##SFX(n) & (M)v);                                            \
            acc += v;                                                                          \
        }                                                                                      \
        return HSUM(&acc);                                                                     \
    }                                                                                          \
    /* a row's outputs from its max m and s, the log of its exp sum                        \
     * (log_softmax: (x - m) - s, as m + s first would round s away) or its                \
     * reciprocal (softmax: the stored exps times s); the overlapping last                 \
     * vector is loaded first so no exp is scaled twice */   \
    MT_VINLINE ATTR void smr_finish_##SFX(T *o, const T *x, int64_t n, T m, T s, bool logsm)   \
    {                                                                                          \
        V v, tail;                                                                             \
        int64_t at = n >= W ? n - W : 0;                                                       \
        smr_load_##SFX(&tail, (logsm ? x : o) + at, n, 0);                                     \
        tail = logsm ? (tail - m) - s : tail * s;                                              \
        for (int64_t k = 0; k + W <= n; k += W) {                                              \
            memcpy(&v, (logsm ? x : o) + k, sizeof v);                                         \
            v = logsm ? (v - m) - s : v * s;                                                   \
            memcpy(o + k, &v, sizeof v);                                                       \
        }                                                                                      \
        smr_store_##SFX(o + at, &tail, n);                                                     \
    }                                                                                          \
    /* a block's first two steps for nb <= MT_SOFTMAX_ROW_BLOCK rows, row b's \
     * n[b ns] scores at x + b xrs (ns 0: one length for all, which the      \
     * compiler then keeps in a register): every row's max into m[b], then   \
     * every row's exp sum into s[b] (the exps to o + b ors unless o is       \
     * NULL), so one row's chain of max and sum overlaps the next's; the rest \
     * of m and s get 0 and 1, for the block's logs or reciprocals taken all  \
     * at once. Rows by stride, not by an array of pointers: one filled per   \
     * block is written in vectors and read back lane by lane, which waits on \
     * store forwarding and cost rows of 17 a tenth of their time. */                \
    MT_VINLINE ATTR void smr_block_##SFX(T *o, int64_t ors, const T *x, int64_t xrs,           \
                                         const int64_t *n, int64_t ns, int64_t nb, T *m, T *s) \
    {                                                                                          \
        for (int64_t b = 0; b < MT_SOFTMAX_ROW_BLOCK; b++) {                                   \
            m[b] = 0;                                                                          \
            s[b] = 1;                                                                          \
            if (b < nb)                                                                        \
                m[b] = smr_max_##SFX(x + b * xrs, n[b * ns]);                                  \
        }                                                                                      \
        for (int64_t b = 0; b < nb; b++)                                                       \
            s[b] = smr_expsum_##SFX(o ? o + b * ors : NULL, x + b * xrs, n[b * ns], m[b]);     \
    }                                                                                          \
    /* a vector of the backward's outputs into *g, from g, y and the sum s */                  \
    MT_VINLINE ATTR void smr_bwd_out_##SFX(V *g, V *y, T s, T scale, bool logsm)               \
    {                                                                                          \
        if (logsm) {                                                                           \
            EXP_ANY_AT(y);                                                                     \
            *g = scale * (*g - *y * s);                                                        \
        } else {                                                                               \
            *g = scale * *y * (*g - s);                                                        \
        }                                                                                      \
    }                                                                                          \
    /* the backward of a row from its output y and gradient g, times scale:   \
     * softmax's y (g - sum(g y)), log_softmax's g - exp(y) sum(g). o may be  \
     * g: the last, overlapping vector is read and computed before the main   \
     * loop writes, so it neither sees new values nor waits on their stores   \
     * (the sum adds only its fresh lanes) */                \
    MT_VINLINE ATTR void smr_bwd_##SFX(T *o, const T *g, const T *y, int64_t n, T scale,       \
                                       bool logsm)                                             \
    {                                                                                          \
        V acc = {0}, vg, vy, tg, ty;                                                           \
        int64_t k = 0, at = n >= W ? n - W : 0;                                                \
        for (; k + W <= n; k += W) {                                                           \
            memcpy(&vg, g + k, sizeof vg);                                                     \
            if (logsm) {                                                                       \
                acc += vg;                                                                     \
            } else {                                                                           \
                memcpy(&vy, y + k, sizeof vy);                                                 \
                acc += vg * vy;                                                                \
            }                                                                                  \
        }                                                                                      \
        smr_load_##SFX(&tg, g + at, n, 0);                                                     \
        smr_load_##SFX(&ty, y + at, n, 0);                                                     \
        if (k < n) {                                                                           \
            vg = tg;                                                                           \
            if (!logsm)                                                                        \
                vg = vg * ty;                                                                  \
            if (n >= W)                                                                        \
                vg = (V)(smr_fresh_##SFX(n) & (M)vg);                                          \
            acc += vg;                                                                         \
        }                                                                                      \
        T s = HSUM(&acc);                                                                      \
        smr_bwd_out_##SFX(&tg, &ty, s, scale, logsm);                                          \
        for (k = 0; k + W <= n; k += W) {                                                      \
            memcpy(&vg, g + k, sizeof vg);                                                     \
            memcpy(&vy, y + k, sizeof vy);                                                     \
            smr_bwd_out_##SFX(&vg, &vy, s, scale, logsm);                                      \
            memcpy(o + k, &vg, sizeof vg);                                                     \
        }                                                                                      \
        smr_store_##SFX(o + at, &tg, n);                                                       \
    }

/* HMAX and HSUM lane by lane, for the 8- and 4-lane vectors. */
#define MT_DEFINE_SOFTMAX_HREDUCE(SFX, T, V, W)    \
    MT_VINLINE T smr_hmax_##SFX(const V *v)        \
    {                                              \
        T m = -(T)INFINITY;                        \
        for (int q = 0; q < W; q++)                \
            if ((*v)[q] > m || (*v)[q] != (*v)[q]) \
                m = (*v)[q];                       \
        return m;                                  \
    }                                              \
    MT_VINLINE T smr_hsum_##SFX(const V *v)        \
    {                                              \
        T s = 0;                                   \
        for (int q = 0; q < W; q++)                \
            s += (*v)[q];                          \
        return s;                                  \
    }
MT_DEFINE_SOFTMAX_HREDUCE(f4, float, mt_v8f, 8)
MT_DEFINE_SOFTMAX_HREDUCE(f8, double, mt_v4d, 4)
MT_DEFINE_SOFTMAX_ROW(f4, , float, mt_v8f, mt_v8i, 8, mt_vexp_nonpos8_at, mt_vexp8_at, smr_hmax_f4,
                      smr_hsum_f4)
MT_DEFINE_SOFTMAX_ROW(f8, , double, mt_v4d, mt_v4l, 4, mt_vexp4_at, mt_vexp4_at, smr_hmax_f8,
                      smr_hsum_f8)

#ifdef MT_HAVE_AVX512
/* float32 in 16 lanes (simd/vmath16.h), for functions marked MT_TARGET_AVX512
 * that run when mt_use_avx512(); suffix x16. */
typedef int32_t mt_v16i __attribute__((vector_size(64)));
MT_V16 void mt_vexp16_at(__m512 *x) { *x = mt_vexp16(*x); }
MT_V16 void mt_vexp_nonpos16_at(__m512 *x) { *x = mt_vexp_nonpos16(*x); }
MT_V16 float smr_hmax_x16(const __m512 *v)
{
    if (_mm512_cmp_ps_mask(*v, *v, _CMP_UNORD_Q))
        return __builtin_nanf("");
    return _mm512_reduce_max_ps(*v);
}
MT_V16 float smr_hsum_x16(const __m512 *v) { return _mm512_reduce_add_ps(*v); }
MT_DEFINE_SOFTMAX_ROW(x16, MT_TARGET_AVX512, float, __m512, mt_v16i, 16, mt_vexp_nonpos16_at,
                      mt_vexp16_at, smr_hmax_x16, smr_hsum_x16)
#endif

/* The logs of MT_SOFTMAX_ROW_BLOCK sums in place: float32 in one vector,
 * float64 a scalar log per sum. */
MT_VINLINE void mt_softmax_row_logs_f4(float *s)
{
    mt_v8f v;
    memcpy(&v, s, sizeof v);
    mt_vlog8_at(&v);
    memcpy(s, &v, sizeof v);
}

MT_VINLINE void mt_softmax_row_logs_f8(double *s)
{
    for (int q = 0; q < MT_SOFTMAX_ROW_BLOCK; q++)
        s[q] = log(s[q]);
}

#endif
