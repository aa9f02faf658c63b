/* The LU of lu.h, recursive as LAPACK's getrf2: the left half of the
 * columns is factored, its row swaps are applied to the right half, U12 =
 * L11^-1 A12, A22 -= L21 U12 (our gemm), A22 is factored and its swaps are
 * applied back to L21. Panels of PANEL_COLS columns or fewer are factored
 * column by column (pivot, swap, scaling, rank-1 update). The triangular
 * solves split the same way, their products on our gemm, TRSM_ROWS rows or
 * fewer by substitution.
 *
 * Rounding follows LAPACK's rules where it has one: a pivot of at least the
 * smallest normal number scales its column by its reciprocal, a smaller one
 * divides it; the pivot is the first of the largest magnitudes (a NaN is
 * never larger, as in the reference isamax). The solves divide every entry
 * by its diagonal element, a zero one too (0 / 0 is NaN, as torch's). */
#include "lu.h"

#include <float.h>
#include <stdlib.h>

#include "../../core/error.h"
#include "../../core/portable.h"
#include "../gemm/gemm.h"
#include "../parallel.h"
#include "lapack.h"

#include <stdatomic.h>

typedef int64_t i64;

/* Below these the recursion's products are too small for the gemm's
 * blocking to pay for its calls. */
#define PANEL_COLS 16
#define TRSM_ROWS 32
/* Right-hand sides from which the substitution runs along rows, and how
 * many at a time. */
#define ROWS_FROM 4
#define SUBST_COLS 64
/* Columns a block of row swaps spans. */
#define SWAP_COLS 32
/* The updates right of a factored block, and the solves, split by columns
 * (each block of SPLIT_COLS swapped, solved and reduced on its own) over our
 * threads from SPLIT_MIN_WORK multiply-adds: fewer, larger parts than the
 * gemm's own, as every split waits for all its parts (at 48^3 a 512 x 512
 * LU on two threads of a loaded machine took 2.8-3.0 ms, at 128^3
 * 2.2-2.5). */
#define SPLIT_COLS 16
#define SPLIT_MIN_WORK (128.0 * 128.0 * 128.0)

static i64 min2(i64 a, i64 b) { return a < b ? a : b; }

bool mt_lu_handles(mt_dtype d) { return d == MT_FLOAT32 || d == MT_FLOAT64; }

static void negate_f4(i64 rows, i64 cols, float *b, i64 ld)
{
    for (i64 j = 0; j < cols; j++)
        for (i64 i = 0; i < rows; i++)
            b[i + j * ld] = -b[i + j * ld];
}

/* C (m x n) -= A (m x k) B (k x n): C and B column-major, A's element (i, l)
 * at a[i * ars + l * acs]. Our gemm runs the transposed product, C^T -=
 * B^T A^T, whose operands are all row-major there. float32's kernel adds
 * into C in place only as C += A B, so B is negated for it and back after
 * (exact both ways): B is always a block the caller owns. */
static int sub_product(mt_dtype d, i64 m, i64 n, i64 k, const void *a, i64 ars, i64 acs, void *b,
                       i64 ldb, void *c, i64 ldc)
{
    if (m == 0 || n == 0 || k == 0)
        return 0;
    bool negate = d == MT_FLOAT32;
    if (negate)
        negate_f4(k, n, b, ldb);
    mt_gemm_shape s = {.nbatch = 0, .m = n, .n = m, .k = k};
    mt_gemm_operand ga = {.data = b, .rs = ldb, .cs = 1};
    mt_gemm_operand gb = {.data = (char *)a, .rs = acs, .cs = ars};
    mt_gemm_operand gc = {.data = c, .rs = ldc, .cs = 1};
    mt_gemm_scale alpha = {.f = negate ? 1.0 : -1.0}, beta = {.f = 1.0};
    int rc = mt_gemm(d, &s, &ga, &gb, &gc, alpha, beta);
    if (negate)
        negate_f4(k, n, b, ldb);
    return rc;
}

/* A job over columns [c0, c1) of its matrices; -1 when the gemm found no
 * memory. */
typedef int (*cols_fn)(const void *args, i64 c0, i64 c1);

typedef struct {
    cols_fn fn;
    const void *args;
    i64 cols;
    atomic_int failed;
} split_job;

static void split_range(void *ctx, i64 b0, i64 b1)
{
    split_job *j = ctx;
    if (j->fn(j->args, b0 * SPLIT_COLS, min2(b1 * SPLIT_COLS, j->cols)) < 0)
        atomic_store(&j->failed, 1);
}

/* fn over columns [0, cols), split over our threads when work (its
 * multiply-adds) is worth it; a column's result is the same either way.
 * -1 with the error set (here: a worker's error is its own) on failure. */
static int split_cols(cols_fn fn, const void *args, i64 cols, double work)
{
    split_job j = {fn, args, cols};
    atomic_init(&j.failed, 0);
    i64 blocks = (cols + SPLIT_COLS - 1) / SPLIT_COLS;
    mt_parallel_for(0, blocks, work >= SPLIT_MIN_WORK ? 1 : blocks + 1, split_range, &j);
    return atomic_load(&j.failed) ? mt_error(MT_ERR_MEMORY, "LU: out of memory") : 0;
}

/* The columns right of a factored m x n1 block at a. */
typedef struct {
    i64 m, n1, lda;
    void *a;
    const i64 *ipiv;
} right_args;

typedef struct {
    bool trans;
    i64 n, lda, ldb;
    const void *a;
    const i64 *ipiv;
    void *b;
} solve_args;

/* A triangle T(i, j) at a[i * rs + j * cs] and the B it divides. */
typedef struct {
    bool upper, unit;
    i64 n, rs, cs, ldb;
    const void *a;
    void *b;
} trsm_args;

#define LU_KERNELS(sfx, T, DT, TINY, IT, ABS_BITS, INF_BITS)                                        \
    /* The first index of the largest |x[i]|; NaNs are skipped unless x[0]                        \
     * is one. Two passes over the magnitudes' bits (which order as the                           \
     * magnitudes do, a NaN's above infinity's): the maximum, vectorized,                         \
     * then its first place. */ \
    MT_CLONES_AVX2_FMA static i64 iamax_##sfx(i64 n, const T *x)                                    \
    {                                                                                               \
        if (x[0] != x[0])                                                                           \
            return 0;                                                                               \
        const IT *u = (const IT *)x;                                                                \
        IT top = 0;                                                                                 \
        for (i64 i = 0; i < n; i++) {                                                               \
            IT v = u[i] & ABS_BITS;                                                                 \
            v = v > INF_BITS ? 0 : v;                                                               \
            top = v > top ? v : top;                                                                \
        }                                                                                           \
        for (i64 i = 0; i < n; i++)                                                                 \
            if ((u[i] & ABS_BITS) == top)                                                           \
                return i;                                                                           \
        return 0;                                                                                   \
    }                                                                                               \
                                                                                                    \
    /* Rows i and ipiv[i] - 1 swapped in each of cols columns, for i from k1                      \
     * up to k2 (down when backward), SWAP_COLS columns at a time (the                            \
     * pivots that swap nothing are passed over once per block). */ \
    static void swaps_##sfx(i64 cols, T *a, i64 lda, i64 k1, i64 k2, const i64 *ipiv,               \
                            bool backward)                                                          \
    {                                                                                               \
        for (i64 c0 = 0; c0 < cols; c0 += SWAP_COLS) {                                              \
            i64 c1 = min2(c0 + SWAP_COLS, cols);                                                    \
            for (i64 s = k1; s < k2; s++) {                                                         \
                i64 i = backward ? k2 - 1 - (s - k1) : s, p = ipiv[i] - 1;                          \
                if (p == i)                                                                         \
                    continue;                                                                       \
                for (i64 c = c0; c < c1; c++) {                                                     \
                    T t = a[i + c * lda];                                                           \
                    a[i + c * lda] = a[p + c * lda];                                                \
                    a[p + c * lda] = t;                                                             \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
    }                                                                                               \
                                                                                                    \
    static void scale_##sfx(i64 n, T *x, T pivot)                                                   \
    {                                                                                               \
        if ((pivot < 0 ? -pivot : pivot) >= TINY) {                                                 \
            T r = 1 / pivot;                                                                        \
            for (i64 i = 0; i < n; i++)                                                             \
                x[i] *= r;                                                                          \
        } else                                                                                      \
            for (i64 i = 0; i < n; i++)                                                             \
                x[i] /= pivot;                                                                      \
    }                                                                                               \
                                                                                                    \
    /* Column c of the cols columns at y (lda apart) loses x times its                            \
     * element above x: y[c * lda + 1 + i] -= x[i] * y[c * lda]. */ \
    MT_CLONES_AVX2_FMA static void rank1_##sfx(i64 rows, i64 cols, const T *x, T *y, i64 lda)       \
    {                                                                                               \
        for (i64 c = 0; c < cols; c++) {                                                            \
            T *dst = y + c * lda;                                                                   \
            T t = dst[0];                                                                           \
            dst++;                                                                                  \
            for (i64 i = 0; i < rows; i++)                                                          \
                dst[i] -= x[i] * t;                                                                 \
        }                                                                                           \
    }                                                                                               \
                                                                                                    \
    /* The unblocked factorization of an m x n panel. */                                            \
    static i64 panel_##sfx(i64 m, i64 n, T *a, i64 lda, i64 *ipiv)                                  \
    {                                                                                               \
        i64 info = 0, k = min2(m, n);                                                               \
        for (i64 j = 0; j < k; j++) {                                                               \
            T *col = a + j * lda;                                                                   \
            i64 p = j + iamax_##sfx(m - j, col + j);                                                \
            ipiv[j] = p + 1;                                                                        \
            if (col[p] != 0) {                                                                      \
                if (p != j)                                                                         \
                    swaps_##sfx(n, a, lda, j, j + 1, ipiv, false);                                  \
                scale_##sfx(m - j - 1, col + j + 1, col[j]);                                        \
            } else if (info == 0)                                                                   \
                info = j + 1;                                                                       \
            rank1_##sfx(m - j - 1, n - j - 1, col + j + 1, a + (j + 1) * lda + j, lda);             \
        }                                                                                           \
        return info;                                                                                \
    }                                                                                               \
                                                                                                    \
    /* Substitution for trsm_##sfx's small triangles, one right-hand side                         \
     * column at a time, along T's columns (few columns). */ \
    MT_CLONES_AVX2_FMA static void subst_cols_##sfx(bool upper, bool unit, i64 n, i64 nrhs,         \
                                                    const T *t, i64 rs, i64 cs, T *b, i64 ldb)      \
    {                                                                                               \
        for (i64 c = 0; c < nrhs; c++) {                                                            \
            T *x = b + c * ldb;                                                                     \
            for (i64 s = 0; s < n; s++) {                                                           \
                i64 i = upper ? n - 1 - s : s;                                                      \
                if (!unit)                                                                          \
                    x[i] /= t[i * (rs + cs)];                                                       \
                T xi = x[i];                                                                        \
                i64 lo = upper ? 0 : i + 1, hi = upper ? i : n;                                     \
                const T *col = t + i * cs;                                                          \
                if (rs == 1)                                                                        \
                    for (i64 r = lo; r < hi; r++)                                                   \
                        x[r] -= col[r] * xi;                                                        \
                else                                                                                \
                    for (i64 r = lo; r < hi; r++)                                                   \
                        x[r] -= col[r * rs] * xi;                                                   \
            }                                                                                       \
        }                                                                                           \
    }                                                                                               \
                                                                                                    \
    /* The same for many columns: SUBST_COLS of them at a time copied into                        \
     * rows of a scratch, so that every step runs along a row (the same                           \
     * operations in the same order). */ \
    MT_CLONES_AVX2_FMA static void subst_rows_##sfx(bool upper, bool unit, i64 n, i64 nrhs,         \
                                                    const T *t, i64 rs, i64 cs, T *b, i64 ldb)      \
    {                                                                                               \
        T s[TRSM_ROWS * SUBST_COLS];                                                                \
        for (i64 c0 = 0; c0 < nrhs; c0 += SUBST_COLS) {                                             \
            i64 w = min2(SUBST_COLS, nrhs - c0);                                                    \
            for (i64 c = 0; c < w; c++)                                                             \
                for (i64 r = 0; r < n; r++)                                                         \
                    s[r * w + c] = b[r + (c0 + c) * ldb];                                           \
            for (i64 step = 0; step < n; step++) {                                                  \
                i64 i = upper ? n - 1 - step : step;                                                \
                T *xi = s + i * w;                                                                  \
                if (!unit) {                                                                        \
                    T d = t[i * (rs + cs)];                                                         \
                    for (i64 c = 0; c < w; c++)                                                     \
                        xi[c] /= d;                                                                 \
                }                                                                                   \
                i64 lo = upper ? 0 : i + 1, hi = upper ? i : n;                                     \
                for (i64 r = lo; r < hi; r++) {                                                     \
                    T l = t[r * rs + i * cs], *xr = s + r * w;                                      \
                    for (i64 c = 0; c < w; c++)                                                     \
                        xr[c] -= l * xi[c];                                                         \
                }                                                                                   \
            }                                                                                       \
            for (i64 c = 0; c < w; c++)                                                             \
                for (i64 r = 0; r < n; r++)                                                         \
                    b[r + (c0 + c) * ldb] = s[r * w + c];                                           \
        }                                                                                           \
    }                                                                                               \
                                                                                                    \
    /* B (n x nrhs, column-major) <- T^-1 B, T n x n lower (upper when                            \
     * upper) triangular, of unit diagonal when unit, T(i, j) at                                  \
     * t[i * rs + j * cs]. -1 when the gemm found no memory. */ \
    static int trsm_##sfx(bool upper, bool unit, i64 n, i64 nrhs, const T *t, i64 rs, i64 cs,       \
                          T *b, i64 ldb)                                                            \
    {                                                                                               \
        if (n <= TRSM_ROWS) {                                                                       \
            (nrhs < ROWS_FROM ? subst_cols_##sfx : subst_rows_##sfx)(upper, unit, n, nrhs, t, rs,   \
                                                                     cs, b, ldb);                   \
            return 0;                                                                               \
        }                                                                                           \
        i64 n1 = n / 2, n2 = n - n1;                                                                \
        const T *t21 = t + n1 * rs, *t12 = t + n1 * cs, *t22 = t21 + n1 * cs;                       \
        T *b2 = b + n1;                                                                             \
        if (!upper)                                                                                 \
            return trsm_##sfx(false, unit, n1, nrhs, t, rs, cs, b, ldb) < 0 ||                      \
                           sub_product(DT, n2, nrhs, n1, t21, rs, cs, b, ldb, b2, ldb) < 0          \
                       ? -1                                                                         \
                       : trsm_##sfx(false, unit, n2, nrhs, t22, rs, cs, b2, ldb);                   \
        return trsm_##sfx(true, unit, n2, nrhs, t22, rs, cs, b2, ldb) < 0 ||                        \
                       sub_product(DT, n1, nrhs, n2, t12, rs, cs, b2, ldb, b, ldb) < 0              \
                   ? -1                                                                             \
                   : trsm_##sfx(true, unit, n1, nrhs, t, rs, cs, b, ldb);                           \
    }                                                                                               \
                                                                                                    \
    /* Columns [c0, c1) right of the factored block: its row swaps, U12 =                         \
     * L11^-1 A12, A22 -= L21 U12. */ \
    static int right_##sfx(const void *args, i64 c0, i64 c1)                                        \
    {                                                                                               \
        const right_args *r = args;                                                                 \
        i64 n1 = r->n1, lda = r->lda;                                                               \
        T *a = r->a, *a12 = a + (n1 + c0) * lda;                                                    \
        swaps_##sfx(c1 - c0, a12, lda, 0, n1, r->ipiv, false);                                      \
        if (trsm_##sfx(false, true, n1, c1 - c0, a, 1, lda, a12, lda) < 0)                          \
            return -1;                                                                              \
        return sub_product(DT, r->m - n1, c1 - c0, n1, a + n1, 1, lda, a12, lda, a12 + n1, lda);    \
    }                                                                                               \
                                                                                                    \
    static i64 getrf_##sfx(i64 m, i64 n, T *a, i64 lda, i64 *ipiv)                                  \
    {                                                                                               \
        i64 k = min2(m, n);                                                                         \
        if (k <= PANEL_COLS)                                                                        \
            return panel_##sfx(m, n, a, lda, ipiv);                                                 \
        i64 n1 = k / 2, n2 = n - n1;                                                                \
        i64 info = getrf_##sfx(m, n1, a, lda, ipiv);                                                \
        if (info == MT_LAPACK_FAILED)                                                               \
            return info;                                                                            \
        right_args r = {m, n1, lda, a, ipiv};                                                       \
        if (split_cols(right_##sfx, &r, n2, (double)m * (double)n1 * (double)n2) < 0)               \
            return MT_LAPACK_FAILED;                                                                \
        i64 info2 = getrf_##sfx(m - n1, n2, a + n1 + n1 * lda, lda, ipiv + n1);                     \
        if (info2 == MT_LAPACK_FAILED)                                                              \
            return info2;                                                                           \
        if (info == 0 && info2 > 0)                                                                 \
            info = info2 + n1;                                                                      \
        for (i64 i = n1; i < k; i++)                                                                \
            ipiv[i] += n1;                                                                          \
        swaps_##sfx(n1, a, lda, n1, k, ipiv, false);                                                \
        return info;                                                                                \
    }                                                                                               \
                                                                                                    \
    static int tri_##sfx(const void *args, i64 c0, i64 c1)                                          \
    {                                                                                               \
        const trsm_args *t = args;                                                                  \
        return trsm_##sfx(t->upper, t->unit, t->n, c1 - c0, t->a, t->rs, t->cs,                     \
                          (T *)t->b + c0 * t->ldb, t->ldb);                                         \
    }                                                                                               \
                                                                                                    \
    /* Columns [c0, c1) of B: A = P L U, so A X = B is L U X = P^T B, and                         \
     * A^T X = B is U^T L^T (P^T X) = B, U^T and L^T read in place as                             \
     * lower and upper triangles. */ \
    static int solve_##sfx(const void *args, i64 c0, i64 c1)                                        \
    {                                                                                               \
        const solve_args *s = args;                                                                 \
        i64 n = s->n, lda = s->lda, ldb = s->ldb;                                                   \
        const T *a = s->a;                                                                          \
        T *b = (T *)s->b + c0 * ldb;                                                                \
        if (!s->trans) {                                                                            \
            swaps_##sfx(c1 - c0, b, ldb, 0, n, s->ipiv, false);                                     \
            return trsm_##sfx(false, true, n, c1 - c0, a, 1, lda, b, ldb) < 0 ||                    \
                           trsm_##sfx(true, false, n, c1 - c0, a, 1, lda, b, ldb) < 0               \
                       ? -1                                                                         \
                       : 0;                                                                         \
        }                                                                                           \
        if (trsm_##sfx(false, false, n, c1 - c0, a, lda, 1, b, ldb) < 0 ||                          \
            trsm_##sfx(true, true, n, c1 - c0, a, lda, 1, b, ldb) < 0)                              \
            return -1;                                                                              \
        swaps_##sfx(c1 - c0, b, ldb, 0, n, s->ipiv, true);                                          \
        return 0;                                                                                   \
    }

LU_KERNELS(f4, float, MT_FLOAT32, FLT_MIN, int32_t, 0x7fffffff, 0x7f800000)
LU_KERNELS(f8, double, MT_FLOAT64, DBL_MIN, int64_t, INT64_MAX, 0x7ff0000000000000)

i64 mt_lu_getrf(mt_dtype d, i64 m, i64 n, void *a, i64 lda, i64 *ipiv)
{
    return d == MT_FLOAT32 ? getrf_f4(m, n, a, lda, ipiv) : getrf_f8(m, n, a, lda, ipiv);
}

i64 mt_lu_getrs(mt_dtype d, bool trans, i64 n, i64 nrhs, const void *a, i64 lda, const i64 *ipiv,
                void *b, i64 ldb)
{
    solve_args s = {trans, n, lda, ldb, a, ipiv, b};
    double work = (double)n * (double)n * (double)nrhs;
    if (split_cols(d == MT_FLOAT32 ? solve_f4 : solve_f8, &s, nrhs, work) < 0)
        return MT_LAPACK_FAILED;
    return 0;
}

i64 mt_lu_trsm(mt_dtype d, bool upper, bool trans, bool unit, i64 n, i64 nrhs, const void *a,
               i64 lda, void *b, i64 ldb)
{
    /* A^T(i, j) is A(j, i): the other triangle, strides swapped */
    trsm_args t = {upper != trans, unit, n, trans ? lda : 1, trans ? 1 : lda, ldb, a, b};
    double work = (double)n * (double)n * (double)nrhs / 2;
    if (split_cols(d == MT_FLOAT32 ? tri_f4 : tri_f8, &t, nrhs, work) < 0)
        return MT_LAPACK_FAILED;
    return 0;
}
