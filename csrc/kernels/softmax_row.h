/* The per-row steps that softmax, log_softmax and cross_entropy share over a
 * contiguous row of n scores: its maximum, the sum of exp(x - max) (storing
 * the exps when asked), and the logs of a block of sums at once. Included by
 * kernels/softmax.c and kernels/cross_entropy.c, each expanding
 * MT_DEFINE_SOFTMAX_ROW once per dtype inside its own vectorised loops, so a
 * faster exp or wider vector lands in both from here. A row's tail is not
 * a scalar loop but one more vector: the row's last W scores, overlapping
 * the vectors before, or for a row shorter than W its scores padded with
 * -inf (whose exp adds nothing).
 * NaN follows the formulas: a NaN once taken as the maximum stays, and x - m
 * of a NaN, +inf or all -inf row is NaN, so the whole row is. */
#ifndef MT_KERNELS_SOFTMAX_ROW_H
#define MT_KERNELS_SOFTMAX_ROW_H

#include "vmath.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Rows whose sums are taken to their logs together: one vector log per
 * block instead of a scalar log per row, which weighs on short rows. */
#define MT_SOFTMAX_ROW_BLOCK 8

/* SFX names the functions; T the element, V its vector of W lanes, M the
 * lane mask; EXP_AT(V *) the exp of arguments <= 0 (or NaN). */
#define MT_DEFINE_SOFTMAX_ROW(SFX, T, V, M, W, EXP_AT)                                     \
    /* loads min(w, W) lanes at p, the rest set to fill; stores as many */                 \
    MT_VINLINE void smr_load_##SFX(V *v, const T *p, int64_t w, T fill)                    \
    {                                                                                      \
        if (w >= W) {                                                                      \
            memcpy(v, p, sizeof *v);                                                       \
            return;                                                                        \
        }                                                                                  \
        T b[W];                                                                            \
        for (int64_t j = 0; j < W; j++)                                                    \
            b[j] = j < w ? p[j] : fill;                                                    \
        memcpy(v, b, sizeof *v);                                                           \
    }                                                                                      \
    MT_VINLINE void smr_store_##SFX(T *p, const V *v, int64_t w)                           \
    {                                                                                      \
        if (w >= W)                                                                        \
            memcpy(p, v, sizeof *v);                                                       \
        else                                                                               \
            memcpy(p, v, (size_t)w * sizeof(T));                                           \
    }                                                                                      \
    MT_VINLINE void smr_max_into_##SFX(V *m, const V *v)                                   \
    {                                                                                      \
        M mk = (*v > *m) | (*v != *v);                                                     \
        *m = (V)((mk & (M)*v) | (~mk & (M)*m));                                            \
    }                                                                                      \
    /* lanes of the last whole vector of a row of n >= W that the vectors     \
     * before it did not cover (its first W - n % W overlap them) */          \
    MT_VINLINE M smr_fresh_##SFX(int64_t n)                                               \
    {                                                                                      \
        M lane;                                                                            \
        for (int q = 0; q < W; q++)                                                        \
            lane[q] = q;                                                                   \
        return lane >= (M){0} + (int)(W - n % W);                                          \
    }                                                                                      \
    MT_VINLINE T smr_max_##SFX(const T *x, int64_t n)                                      \
    {                                                                                      \
        V vm = (V){0} - (T)INFINITY, v;                                                    \
        int64_t k = 0;                                                                     \
        for (; k + W <= n; k += W) {                                                       \
            memcpy(&v, x + k, sizeof v);                                                   \
            smr_max_into_##SFX(&vm, &v);                                                   \
        }                                                                                  \
        if (k < n) {                                                                       \
            if (n >= W)                                                                    \
                memcpy(&v, x + n - W, sizeof v);                                           \
            else                                                                           \
                smr_load_##SFX(&v, x, n, -(T)INFINITY);                                    \
            smr_max_into_##SFX(&vm, &v);                                                   \
        }                                                                                  \
        T m = -(T)INFINITY;                                                                \
        for (int q = 0; q < W; q++)                                                        \
            if (vm[q] > m || vm[q] != vm[q])                                               \
                m = vm[q];                                                                 \
        return m;                                                                          \
    }                                                                                      \
    /* sum of exp(x - m); the exps go to o unless it is NULL (the overlapping  \
     * last vector stores its overlap again, the same values, and adds only   \
     * its fresh lanes) */                                                    \
    MT_VINLINE T smr_expsum_##SFX(T *o, const T *x, int64_t n, T m)                        \
    {                                                                                      \
        V acc = {0}, v;                                                                    \
        int64_t k = 0;                                                                     \
        for (; k + W <= n; k += W) {                                                       \
            memcpy(&v, x + k, sizeof v);                                                   \
            v = v - m;                                                                     \
            EXP_AT(&v);                                                                    \
            acc += v;                                                                      \
            if (o)                                                                         \
                memcpy(o + k, &v, sizeof v);                                               \
        }                                                                                  \
        if (k < n) {                                                                       \
            int64_t at = n >= W ? n - W : 0;                                               \
            smr_load_##SFX(&v, x + at, n, -(T)INFINITY);                                   \
            v = v - m;                                                                     \
            EXP_AT(&v);                                                                    \
            if (o)                                                                         \
                smr_store_##SFX(o + at, &v, n);                                            \
            if (n >= W)                                                                    \
                v = (V)(smr_fresh_##SFX(n) & (M)v);                                        \
            acc += v;                                                                      \
        }                                                                                  \
        T s = 0;                                                                           \
        for (int q = 0; q < W; q++)                                                        \
            s += acc[q];                                                                   \
        return s;                                                                          \
    }

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
