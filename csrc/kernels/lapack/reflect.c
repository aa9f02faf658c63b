/* reflect.h's block reflectors: NB reflectors at a time are packed with
 * their implicit ones and zeros (V, and V^T beside it), and their product is
 * I - V T V^T, T upper triangular (LAPACK's larft, 'F', 'C'), built from
 * V^T V. A block then costs three products on our gemm: W = V^T C, W =
 * op(T) W, C -= V W (on the right, the same transposed). Every matrix is
 * handed to the gemm as the row-major transpose of its column-major self,
 * so C's columns are the gemm's contiguous rows and C is updated in place
 * (float32's kernel adds into it directly: the subtrahend is negated
 * instead, in T). */
#include "reflect.h"

#include <stdlib.h>

#include "../../core/error.h"
#include "../gemm/gemm.h"

typedef int64_t i64;

/* Reflectors per block: syevd 512 x 512 float32 on one thread (loaded
 * machine, CPU time) took 11.8 ms with 32, 12.6 with 16 or 64, 13.2 with
 * 128 (T's work and the zeros above V's diagonal grow with it). */
#define NB 32

static i64 min2(i64 a, i64 b) { return a < b ? a : b; }

/* Row-major C (m x n, rows ldc apart) = A B, or += A B when acc; A and B
 * row-major with rows lda, ldb apart. */
static int product(mt_dtype d, i64 m, i64 n, i64 k, const void *a, i64 lda, const void *b, i64 ldb,
                   void *c, i64 ldc, bool acc)
{
    mt_gemm_shape s = {.nbatch = 0, .m = m, .n = n, .k = k};
    mt_gemm_operand ga = {.data = (char *)a, .rs = lda, .cs = 1};
    mt_gemm_operand gb = {.data = (char *)b, .rs = ldb, .cs = 1};
    mt_gemm_operand gc = {.data = c, .rs = ldc, .cs = 1};
    mt_gemm_scale one = {.f = 1.0}, beta = {.f = acc ? 1.0 : 0.0};
    return mt_gemm(d, &s, &ga, &gb, &gc, one, beta);
}

/* pack: the block's l x kb V (row-major, rows kb apart) and its transpose
 * (rows l apart) from reflectors j0.., each zero above its one.
 * minus_op_t: -op(T)^T (row-major kb x kb) from g = V^T V. */
#define REFLECT_KERNELS(sfx, T)                                                                     \
    static void pack_##sfx(i64 l, i64 kb, const T *v, i64 vrs, i64 vcs, T *vb, T *vt)               \
    {                                                                                               \
        for (i64 r = 0; r < l; r++)                                                                 \
            for (i64 j = 0; j < kb; j++) {                                                          \
                T x = r < j ? 0 : r == j ? 1 : v[r * vrs + j * vcs];                                \
                vb[r * kb + j] = x;                                                                 \
                vt[j * l + r] = x;                                                                  \
            }                                                                                       \
    }                                                                                               \
                                                                                                    \
    /* T(0:j, j) = -tau_j T(0:j, 0:j) V(:, 0:j)^T v_j, T(j, j) = tau_j, into                      \
     * t (row-major, row i of T at t + i * kb); then the block's operand. */ \
    static void minus_op_t_##sfx(i64 kb, const T *tau, const T *g, T *t, T *out, bool trans)        \
    {                                                                                               \
        for (i64 j = 0; j < kb; j++) {                                                              \
            for (i64 i = 0; i < j; i++) {                                                           \
                T s = 0;                                                                            \
                for (i64 l = i; l < j; l++)                                                         \
                    s += t[i * kb + l] * g[l * kb + j];                                             \
                t[i * kb + j] = -tau[j] * s;                                                        \
            }                                                                                       \
            t[j * kb + j] = tau[j];                                                                 \
            for (i64 i = j + 1; i < kb; i++)                                                        \
                t[i * kb + j] = 0;                                                                  \
        }                                                                                           \
        /* -op(T)^T: -T^T without trans, -T with it */                                              \
        for (i64 i = 0; i < kb; i++)                                                                \
            for (i64 j = 0; j < kb; j++)                                                            \
                out[i * kb + j] = -(trans ? t[i * kb + j] : t[j * kb + i]);                         \
    }

REFLECT_KERNELS(f4, float)
REFLECT_KERNELS(f8, double)

int mt_reflect_apply(mt_dtype d, bool left, bool trans, i64 m, i64 n, i64 k, const void *v, i64 vrs,
                     i64 vcs, const void *tau, void *c, i64 ldc)
{
    i64 dim = left ? m : n, other = left ? n : m;
    k = min2(k, dim);
    if (k <= 0 || other <= 0)
        return 0;
    size_t isz = mt_itemsize(d);
    i64 nb = min2(NB, k);
    /* vb, vt: dim x nb; w, y: other x nb; t, g, tn: nb x nb */
    char *buf = malloc(isz * (size_t)(2 * dim * nb + 2 * other * nb + 3 * nb * nb));
    if (!buf)
        return mt_error(MT_ERR_MEMORY, "linalg: out of memory applying reflectors");
    char *vb = buf, *vt = vb + isz * dim * nb, *w = vt + isz * dim * nb, *y = w + isz * other * nb,
         *t = y + isz * other * nb, *g = t + isz * nb * nb, *tn = g + isz * nb * nb;
    i64 blocks = (k + nb - 1) / nb;
    /* Q C and C Q^T take the last block first, Q^T C and C Q the first */
    bool reverse = left != trans;
    int rc = 0;
    for (i64 s = 0; s < blocks && rc == 0; s++) {
        i64 b = reverse ? blocks - 1 - s : s, j0 = b * nb, kb = min2(nb, k - j0), l = dim - j0;
        const char *vj = (const char *)v + isz * (j0 * vrs + j0 * vcs);
        const char *tj = (const char *)tau + isz * j0;
        if (d == MT_FLOAT32)
            pack_f4(l, kb, (const float *)vj, vrs, vcs, (float *)vb, (float *)vt);
        else
            pack_f8(l, kb, (const double *)vj, vrs, vcs, (double *)vb, (double *)vt);
        rc = product(d, kb, kb, l, vt, l, vb, kb, g, kb, false);
        if (rc < 0)
            break;
        if (d == MT_FLOAT32)
            minus_op_t_f4(kb, (const float *)tj, (float *)g, (float *)t, (float *)tn, trans);
        else
            minus_op_t_f8(kb, (const double *)tj, (double *)g, (double *)t, (double *)tn, trans);
        if (left) {
            /* X = C(j0:, :)^T, other x l: W^T = X V, Y^T = -W^T op(T)^T, X += Y^T V^T */
            char *x = (char *)c + isz * j0;
            rc = product(d, other, kb, l, x, ldc, vb, kb, w, kb, false);
            if (rc == 0)
                rc = product(d, other, kb, kb, w, kb, tn, kb, y, kb, false);
            if (rc == 0)
                rc = product(d, other, l, kb, y, kb, vt, l, x, ldc, true);
        } else {
            /* X = C(:, j0:)^T, l x other: W = V^T X, Y = -op(T)^T W, X += V Y */
            char *x = (char *)c + isz * j0 * ldc;
            rc = product(d, kb, other, l, vt, l, x, ldc, w, other, false);
            if (rc == 0)
                rc = product(d, kb, other, kb, tn, kb, w, other, y, other, false);
            if (rc == 0)
                rc = product(d, l, other, kb, vb, kb, y, other, x, ldc, true);
        }
    }
    free(buf);
    return rc;
}
