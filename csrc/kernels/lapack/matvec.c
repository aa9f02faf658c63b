/* matvec.h's kernels, written once per real type T (suffix sfx) by
 * MATVEC_KERNELS: vectors of 32 bytes (GCC/clang vector types, unaligned),
 * G columns of a matrix per pass over a vector so that G chains of sums
 * hide the additions' latency. The cloned kernels are static (clang names
 * a static clone's resolver globally, hence their mv_ prefix, and other
 * files cannot link to a clone), each with a plain extern entry. */
#include "matvec.h"

#include "../../core/portable.h"
#include "../gemm/gemm.h"

typedef int64_t i64;

/* Columns per pass. */
#define G 4

#define MATVEC_KERNELS(sfx, T)                                                                      \
    typedef T vec_##sfx __attribute__((vector_size(32), aligned(sizeof(T))));                       \
    enum { W_##sfx = 32 / sizeof(T) };                                                              \
                                                                                                    \
    static T mv_hsum_##sfx(const vec_##sfx *v)                                                      \
    {                                                                                               \
        T s = 0;                                                                                    \
        for (int q = 0; q < W_##sfx; q++)                                                           \
            s += (*v)[q];                                                                           \
        return s;                                                                                   \
    }                                                                                               \
                                                                                                    \
    MT_CLONES_AVX2_FMA static T mv_dot_##sfx(i64 n, const T *a, const T *b)                         \
    {                                                                                               \
        vec_##sfx v = {0};                                                                          \
        i64 r = 0;                                                                                  \
        for (; r + W_##sfx <= n; r += W_##sfx)                                                      \
            v += *(const vec_##sfx *)(a + r) * *(const vec_##sfx *)(b + r);                         \
        T s = mv_hsum_##sfx(&v);                                                                    \
        for (; r < n; r++)                                                                          \
            s += a[r] * b[r];                                                                       \
        return s;                                                                                   \
    }                                                                                               \
                                                                                                    \
    /* t[l] = M(:, l)^T v for l < k, M n x m column-major (ldm), G columns                        \
     * per pass over v. */ \
    MT_CLONES_AVX2_FMA static void mv_dots_##sfx(i64 n, i64 k, const T *m, i64 ldm, const T *v,     \
                                                 T *t)                                              \
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
                t[l + g] = sums[g] + mv_hsum_##sfx(&acc[g]);                                        \
        }                                                                                           \
        for (; l < k; l++)                                                                          \
            t[l] = mv_dot_##sfx(n, m + l * ldm, v);                                                 \
    }                                                                                               \
                                                                                                    \
    /* y -= M s, M n x k column-major (ldm), G columns per pass over y. */                          \
    MT_CLONES_AVX2_FMA static void mv_sub_gemv_##sfx(i64 n, i64 k, const T *m, i64 ldm,             \
                                                     const T *s, T *y)                              \
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
    }                                                                                               \
    /* y += S(:, c0:c1) x for the lower triangle of the n x n S: column c                         \
     * adds x[c] times itself below the diagonal into y and its dot with x                        \
     * into y[c], G columns per pass over y (their dots G chains of sums,                         \
     * which one column's latency alone would hold to a quarter of the                            \
     * loads' rate). */ \
    MT_CLONES_AVX2_FMA static void mv_symv_cols_##sfx(i64 n, const T *s, i64 lda, const T *x,       \
                                                      T *y, i64 c0, i64 c1)                         \
    {                                                                                               \
        i64 c = c0;                                                                                 \
        for (; c + G <= c1; c += G) {                                                               \
            const T *col[G];                                                                        \
            T xs[G], sums[G];                                                                       \
            vec_##sfx vs[G], vx[G];                                                                 \
            for (int g = 0; g < G; g++) {                                                           \
                col[g] = s + (c + g) * lda;                                                         \
                xs[g] = x[c + g];                                                                   \
                sums[g] = col[g][c + g] * xs[g];                                                    \
                vs[g] = (vec_##sfx){0};                                                             \
                vx[g] = (vec_##sfx){0} + xs[g];                                                     \
                for (int h = g + 1; h < G; h++) {                                                   \
                    y[c + h] += col[g][c + h] * xs[g];                                              \
                    sums[g] += col[g][c + h] * x[c + h];                                            \
                }                                                                                   \
            }                                                                                       \
            i64 r = c + G;                                                                          \
            for (; r + W_##sfx <= n; r += W_##sfx) {                                                \
                vec_##sfx xr = *(const vec_##sfx *)(x + r), acc = *(const vec_##sfx *)(y + r);      \
                for (int g = 0; g < G; g++) {                                                       \
                    vec_##sfx va = *(const vec_##sfx *)(col[g] + r);                                \
                    acc += va * vx[g];                                                              \
                    vs[g] += va * xr;                                                               \
                }                                                                                   \
                *(vec_##sfx *)(y + r) = acc;                                                        \
            }                                                                                       \
            for (; r < n; r++)                                                                      \
                for (int g = 0; g < G; g++) {                                                       \
                    y[r] += col[g][r] * xs[g];                                                      \
                    sums[g] += col[g][r] * x[r];                                                    \
                }                                                                                   \
            for (int g = 0; g < G; g++)                                                             \
                y[c + g] += sums[g] + mv_hsum_##sfx(&vs[g]);                                        \
        }                                                                                           \
        for (; c < c1; c++) {                                                                       \
            const T *a0 = s + c * lda;                                                              \
            T sum = a0[c] * x[c];                                                                   \
            for (i64 r = c + 1; r < n; r++) {                                                       \
                y[r] += a0[r] * x[c];                                                               \
                sum += a0[r] * x[r];                                                                \
            }                                                                                       \
            y[c] += sum;                                                                            \
        }                                                                                           \
    }                                                                                               \
                                                                                                    \
    T mt_matvec_dot_##sfx(i64 n, const T *a, const T *b) { return mv_dot_##sfx(n, a, b); }          \
    void mt_matvec_dots_##sfx(i64 n, i64 k, const T *m, i64 ldm, const T *v, T *t)                  \
    {                                                                                               \
        mv_dots_##sfx(n, k, m, ldm, v, t);                                                          \
    }                                                                                               \
    void mt_matvec_sub_gemv_##sfx(i64 n, i64 k, const T *m, i64 ldm, const T *s, T *y)              \
    {                                                                                               \
        mv_sub_gemv_##sfx(n, k, m, ldm, s, y);                                                      \
    }                                                                                               \
    void mt_matvec_symv_cols_##sfx(i64 n, const T *s, i64 lda, const T *x, T *y, i64 c0, i64 c1)    \
    {                                                                                               \
        mv_symv_cols_##sfx(n, s, lda, x, y, c0, c1);                                                \
    }

MATVEC_KERNELS(f4, float)
MATVEC_KERNELS(f8, double)

int mt_matvec_add_product(mt_dtype d, i64 m, i64 n, i64 k, const void *a, i64 lda, const void *b,
                          i64 ldb, void *c, i64 ldc)
{
    mt_gemm_shape s = {.nbatch = 0, .m = m, .n = n, .k = k};
    mt_gemm_operand ga = {.data = (char *)a, .rs = lda, .cs = 1};
    mt_gemm_operand gb = {.data = (char *)b, .rs = ldb, .cs = 1};
    mt_gemm_operand gc = {.data = c, .rs = ldc, .cs = 1};
    mt_gemm_scale one = {.f = 1.0};
    return mt_gemm(d, &s, &ga, &gb, &gc, one, one);
}
