/* The matrix-vector kernels of the panel factorizations (tridiag.c,
 * bidiag.c), written once per real type T with suffix sfx by
 * MATVEC_KERNELS(sfx, T): vectors of 32 bytes (GCC/clang vector types,
 * unaligned), G columns of a matrix per pass over a vector so that G
 * chains of sums hide the additions' latency. Each file that expands it
 * includes core/portable.h first. */
#ifndef MT_KERNELS_LAPACK_MATVEC_H
#define MT_KERNELS_LAPACK_MATVEC_H

#include <stdint.h>

/* Columns per pass. */
#define G 4

#define MATVEC_KERNELS(sfx, T)                                                                      \
    typedef T vec_##sfx __attribute__((vector_size(32), aligned(sizeof(T))));                       \
    enum { W_##sfx = 32 / sizeof(T) };                                                              \
                                                                                                    \
    static T hsum_##sfx(const vec_##sfx *v)                                                         \
    {                                                                                               \
        T s = 0;                                                                                    \
        for (int q = 0; q < W_##sfx; q++)                                                           \
            s += (*v)[q];                                                                           \
        return s;                                                                                   \
    }                                                                                               \
                                                                                                    \
    MT_CLONES_AVX2_FMA static T dot_##sfx(i64 n, const T *a, const T *b)                            \
    {                                                                                               \
        vec_##sfx v = {0};                                                                          \
        i64 r = 0;                                                                                  \
        for (; r + W_##sfx <= n; r += W_##sfx)                                                      \
            v += *(const vec_##sfx *)(a + r) * *(const vec_##sfx *)(b + r);                         \
        T s = hsum_##sfx(&v);                                                                       \
        for (; r < n; r++)                                                                          \
            s += a[r] * b[r];                                                                       \
        return s;                                                                                   \
    }                                                                                               \
                                                                                                    \
    /* t[l] = M(:, l)^T v for l < k, M n x m column-major (ldm), G columns                        \
     * per pass over v. */ \
    MT_CLONES_AVX2_FMA static void dots_##sfx(i64 n, i64 k, const T *m, i64 ldm, const T *v, T *t)  \
    {                                                                                               \
        i64 l = 0;                                                                                  \
        for (; l + G <= k; l += G) {                                                                \
            vec_##sfx acc[G];                                                                       \
            T sums[G];                                                                              \
            for (int g = 0; g < G; g++) {                                                           \
                acc[g] = (vec_##sfx){0};                                                            \
                sums[g] = 0;                                                                        \
            }                                                                                       \
            i64 r = 0;                                                                              \
            for (; r + W_##sfx <= n; r += W_##sfx) {                                                \
                vec_##sfx vr = *(const vec_##sfx *)(v + r);                                         \
                for (int g = 0; g < G; g++)                                                         \
                    acc[g] += *(const vec_##sfx *)(m + (l + g) * ldm + r) * vr;                     \
            }                                                                                       \
            for (; r < n; r++)                                                                      \
                for (int g = 0; g < G; g++)                                                         \
                    sums[g] += m[(l + g) * ldm + r] * v[r];                                         \
            for (int g = 0; g < G; g++)                                                             \
                t[l + g] = sums[g] + hsum_##sfx(&acc[g]);                                           \
        }                                                                                           \
        for (; l < k; l++)                                                                          \
            t[l] = dot_##sfx(n, m + l * ldm, v);                                                    \
    }                                                                                               \
                                                                                                    \
    /* y -= M s, M n x k column-major (ldm), G columns per pass over y. */                          \
    MT_CLONES_AVX2_FMA static void sub_gemv_##sfx(i64 n, i64 k, const T *m, i64 ldm, const T *s,    \
                                                  T *y)                                             \
    {                                                                                               \
        i64 l = 0;                                                                                  \
        for (; l + G <= k; l += G) {                                                                \
            const T *c0 = m + l * ldm, *c1 = c0 + ldm, *c2 = c1 + ldm, *c3 = c2 + ldm;              \
            T f0 = s[l], f1 = s[l + 1], f2 = s[l + 2], f3 = s[l + 3];                               \
            for (i64 r = 0; r < n; r++)                                                             \
                y[r] -= c0[r] * f0 + c1[r] * f1 + c2[r] * f2 + c3[r] * f3;                          \
        }                                                                                           \
        for (; l < k; l++) {                                                                        \
            const T *col = m + l * ldm;                                                             \
            T f = s[l];                                                                             \
            for (i64 r = 0; r < n; r++)                                                             \
                y[r] -= col[r] * f;                                                                 \
        }                                                                                           \
    }

#endif
