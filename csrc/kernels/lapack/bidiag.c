/* bidiag.h's reduction: LAPACK's blocked gebrd (labrd's panels of NB
 * columns and rows, then A22 -= V Y^T + X U on our gemm), its operations
 * our own but for larfg (LAPACK's, so scaling and signs are its). Per
 * column the panel multiplies the trailing matrix twice, A^T u and A v:
 * the first split over our threads by columns, the second by rows, so no
 * thread waits on another's sums. The last NX columns are LAPACK's gebrd's. */
#include "bidiag.h"

#include <stdlib.h>
#include <string.h>

#include "../../core/error.h"
#include "../parallel.h"
#include "lapack.h"
#include "matvec.h"

typedef int64_t i64;

/* LAPACK's gebrd block size and crossover (ilaenv's 32 and 128). */
#define NB 32
#define NX 128
/* Multiply-adds of a trailing product from which it is split over threads,
 * and the columns or rows of a part at least. */
#define SPLIT_MIN_WORK (160.0 * 160.0)
#define SPLIT_UNIT 16

typedef void (*larfg_fn)(const i64 *, void *, void *, const i64 *, void *);
typedef void (*gebrd_fn)(const i64 *, const i64 *, void *, const i64 *, void *, void *, void *,
                         void *, void *, const i64 *, i64 *);

static i64 min2(i64 a, i64 b) { return a < b ? a : b; }

/* One of the panel's two big products over its parts: t (cols) = M^T u
 * (transposed) or y (rows) = M s. */
typedef struct {
    i64 rows, cols, ldm;
    const void *m, *x;
    void *y;
} mv_job;

#define BIDIAG_KERNELS(sfx, T, DT)                                                                    \
    static void tpart_##sfx(void *arg, i64 b0, i64 b1)                                                \
    {                                                                                                 \
        const mv_job *j = arg;                                                                        \
        i64 c0 = b0 * SPLIT_UNIT, c1 = min2(b1 * SPLIT_UNIT, j->cols);                                \
        mt_matvec_dots_##sfx(j->rows, c1 - c0, (const T *)j->m + c0 * j->ldm, j->ldm, j->x,           \
                             (T *)j->y + c0);                                                         \
    }                                                                                                 \
                                                                                                      \
    static void npart_##sfx(void *arg, i64 b0, i64 b1)                                                \
    {                                                                                                 \
        const mv_job *j = arg;                                                                        \
        i64 r0 = b0 * SPLIT_UNIT, r1 = min2(b1 * SPLIT_UNIT, j->rows);                                \
        T *y = (T *)j->y + r0;                                                                        \
        memset(y, 0, sizeof(T) * (size_t)(r1 - r0));                                                  \
        mt_matvec_sub_gemv_##sfx(r1 - r0, j->cols, (const T *)j->m + r0, j->ldm, j->x, y);            \
    }                                                                                                 \
                                                                                                      \
    /* t = M^T u (trans; t has cols) or y = -M s (s negated by the caller). */                        \
    static void big_##sfx(bool trans, i64 rows, i64 cols, const T *m, i64 ldm, const T *x, T *y)      \
    {                                                                                                 \
        mv_job j = {rows, cols, ldm, m, x, y};                                                        \
        i64 units = ((trans ? cols : rows) + SPLIT_UNIT - 1) / SPLIT_UNIT;                            \
        i64 grain = (double)rows * (double)cols >= SPLIT_MIN_WORK ? 1 : units + 1;                    \
        mt_parallel_for(0, units, grain, trans ? tpart_##sfx : npart_##sfx, &j);                      \
    }                                                                                                 \
                                                                                                      \
    /* labrd on the nb columns and rows of the mm x nn block b: X (mm x nb,                       \
     * ldx) and Y (nn x nb, ldy); t holds 4 * (mm + nn) scratch values. */   \
    static void panel_##sfx(larfg_fn larfg, i64 mm, i64 nn, i64 nb, T *b, i64 lda, T *d, T *e,        \
                            T *tauq, T *taup, T *x, i64 ldx, T *y, i64 ldy, T *t)                     \
    {                                                                                                 \
        const i64 one = 1;                                                                            \
        T *t1 = t, *t2 = t1 + nb + 1, *row = t2 + nb + 1, *tmp = row + nn;                            \
        for (i64 i = 0; i < nb; i++) {                                                                \
            i64 len = mm - i, cnt = nn - i - 1, rows = mm - i - 1;                                    \
            T *col = b + i + i * lda;                                                                 \
            /* A(i:, i) -= A(i:, :i) Y(i, :i)^T + X(i:, :i) A(:i, i) */                               \
            for (i64 l = 0; l < i; l++)                                                               \
                t1[l] = y[i + l * ldy];                                                               \
            mt_matvec_sub_gemv_##sfx(len, i, b + i, lda, t1, col);                                    \
            mt_matvec_sub_gemv_##sfx(len, i, x + i, ldx, b + i * lda, col);                           \
            larfg(&len, col, col + min2(1, len - 1), &one, tauq + i);                                 \
            d[i] = col[0];                                                                            \
            col[0] = 1;                                                                               \
            /* Y(i+1:, i) = tauq (A(i:, i+1:)^T u - Y(i+1:, :i) A(i:, :i)^T u                       \
             *                    - A(:i, i+1:)^T X(i:, :i)^T u) */ \
            T *yc = y + (i + 1) + i * ldy;                                                            \
            big_##sfx(true, len, cnt, b + i + (i + 1) * lda, lda, col, yc);                           \
            mt_matvec_dots_##sfx(len, i, b + i, lda, col, t1);                                        \
            mt_matvec_sub_gemv_##sfx(cnt, i, y + (i + 1), ldy, t1, yc);                               \
            mt_matvec_dots_##sfx(len, i, x + i, ldx, col, t1);                                        \
            mt_matvec_dots_##sfx(i, cnt, b + (i + 1) * lda, lda, t1, tmp);                            \
            for (i64 c = 0; c < cnt; c++)                                                             \
                yc[c] = (yc[c] - tmp[c]) * tauq[i];                                                   \
            /* A(i, i+1:) -= Y(i+1:, :i+1) A(i, :i+1)^T + A(:i, i+1:)^T X(i, :i)^T */                 \
            for (i64 c = 0; c < cnt; c++)                                                             \
                row[c] = b[i + (i + 1 + c) * lda];                                                    \
            for (i64 l = 0; l <= i; l++)                                                              \
                t2[l] = b[i + l * lda];                                                               \
            mt_matvec_sub_gemv_##sfx(cnt, i + 1, y + (i + 1), ldy, t2, row);                          \
            for (i64 l = 0; l < i; l++)                                                               \
                t1[l] = x[i + l * ldx];                                                               \
            mt_matvec_dots_##sfx(i, cnt, b + (i + 1) * lda, lda, t1, tmp);                            \
            for (i64 c = 0; c < cnt; c++)                                                             \
                b[i + (i + 1 + c) * lda] = row[c] - tmp[c];                                           \
            T *pr = b + i + (i + 1) * lda;                                                            \
            larfg(&cnt, pr, pr + min2(1, cnt - 1) * lda, &lda, taup + i);                             \
            e[i] = pr[0];                                                                             \
            pr[0] = 1;                                                                                \
            /* X(i+1:, i) = taup (A(i+1:, i+1:) v - A(i+1:, :i+1) Y(i+1:, :i+1)^T v                 \
             *                    - X(i+1:, :i) A(:i, i+1:) v) */ \
            for (i64 c = 0; c < cnt; c++) {                                                           \
                row[c] = pr[c * lda];                                                                 \
                tmp[c] = -row[c];                                                                     \
            }                                                                                         \
            T *xc = x + (i + 1) + i * ldx;                                                            \
            big_##sfx(false, rows, cnt, b + (i + 1) + (i + 1) * lda, lda, tmp, xc);                   \
            mt_matvec_dots_##sfx(cnt, i + 1, y + (i + 1), ldy, row, t1);                              \
            mt_matvec_sub_gemv_##sfx(rows, i + 1, b + (i + 1), lda, t1, xc);                          \
            memset(t2, 0, sizeof(T) * (size_t)i);                                                     \
            mt_matvec_sub_gemv_##sfx(i, cnt, b + (i + 1) * lda, lda, tmp, t2);                        \
            mt_matvec_sub_gemv_##sfx(rows, i, x + (i + 1), ldx, t2, xc);                              \
            for (i64 r = 0; r < rows; r++)                                                            \
                xc[r] *= taup[i];                                                                     \
        }                                                                                             \
    }                                                                                                 \
                                                                                                      \
    /* A22 (from row and column nb of the block) -= V Y^T + X U as one                            \
     * product of the row-major transposes: A22^T += [Y U^T] [-V^T; -X^T]. */   \
    static int update_##sfx(i64 mm, i64 nn, i64 nb, T *b, i64 lda, const T *x, i64 ldx,               \
                            const T *y, i64 ldy, T *pm, T *qm)                                        \
    {                                                                                                 \
        i64 rows = mm - nb, cols = nn - nb;                                                           \
        for (i64 c = 0; c < cols; c++)                                                                \
            for (i64 l = 0; l < nb; l++) {                                                            \
                pm[c * 2 * nb + l] = y[(nb + c) + l * ldy];                                           \
                pm[c * 2 * nb + nb + l] = b[l + (nb + c) * lda];                                      \
            }                                                                                         \
        for (i64 l = 0; l < nb; l++)                                                                  \
            for (i64 r = 0; r < rows; r++) {                                                          \
                qm[r + l * rows] = -b[(nb + r) + l * lda];                                            \
                qm[r + (nb + l) * rows] = -x[(nb + r) + l * ldx];                                     \
            }                                                                                         \
        return mt_matvec_add_product(DT, cols, rows, 2 * nb, pm, 2 * nb, qm, rows,                    \
                                     b + nb + nb * lda, lda);                                         \
    }                                                                                                 \
                                                                                                      \
    static int bidiag_##sfx(larfg_fn larfg, gebrd_fn gebrd, i64 m, i64 n, T *a, i64 lda, T *d,        \
                            T *e, T *tauq, T *taup)                                                   \
    {                                                                                                 \
        /* X, Y (together gebrd's workspace for the rest), pm, qm, t */                               \
        size_t size = (size_t)((m + n) * NB + 2 * n * NB + 2 * m * NB + 4 * (m + n) + 8);             \
        T *buf = malloc(sizeof(T) * size);                                                            \
        if (!buf)                                                                                     \
            return mt_error(MT_ERR_MEMORY, "linalg.svd: out of memory");                              \
        T *x = buf, *y = x + m * NB, *pm = y + n * NB, *qm = pm + 2 * n * NB,                         \
          *t = qm + 2 * m * NB;                                                                       \
        i64 p = 0;                                                                                    \
        int rc = 0;                                                                                   \
        for (; n - p > NX && rc == 0; p += NB) {                                                      \
            T *b = a + p + p * lda;                                                                   \
            i64 mm = m - p, nn = n - p;                                                               \
            panel_##sfx(larfg, mm, nn, NB, b, lda, d + p, e + p, tauq + p, taup + p, x, mm, y, nn,    \
                        t);                                                                           \
            rc = update_##sfx(mm, nn, NB, b, lda, x, mm, y, nn, pm, qm);                              \
            for (i64 j = 0; j < NB; j++) {                                                            \
                b[j + j * lda] = d[p + j];                                                            \
                b[j + (j + 1) * lda] = e[p + j];                                                      \
            }                                                                                         \
        }                                                                                             \
        if (rc == 0) {                                                                                \
            i64 mm = m - p, nn = n - p, lwork = (m + n) * NB, info = 0;                               \
            gebrd(&mm, &nn, a + p + p * lda, &lda, d + p, e + p, tauq + p, taup + p, buf, &lwork,     \
                  &info);                                                                             \
        }                                                                                             \
        free(buf);                                                                                    \
        return rc;                                                                                    \
    }

BIDIAG_KERNELS(f4, float, MT_FLOAT32)
BIDIAG_KERNELS(f8, double, MT_FLOAT64)

int mt_bidiag_upper(mt_dtype dt, i64 m, i64 n, void *a, i64 lda, void *d, void *e, void *tauq,
                    void *taup)
{
    larfg_fn larfg = (larfg_fn)mt_lapack_routine(dt, "larfg");
    gebrd_fn gebrd = (gebrd_fn)mt_lapack_routine(dt, "gebrd");
    if (!larfg || !gebrd)
        return mt_error(MT_ERR_RUNTIME, "linalg.svd: LAPACK's larfg or gebrd is missing");
    return dt == MT_FLOAT32 ? bidiag_f4(larfg, gebrd, m, n, a, lda, d, e, tauq, taup)
                            : bidiag_f8(larfg, gebrd, m, n, a, lda, d, e, tauq, taup);
}
