/* mt_gemm_complex (gemm.h): complex64/complex128 products, one per batch
 * item (or per block of rows of a large one, split over our threads), on our
 * AVX-512 kernel (gemm_complex_avx512.c) where it runs and the product is a
 * plain one (alpha 1, beta 0, a row- or column-major result), else on the
 * BLAS's cgemm/zgemm. An operand BLAS cannot read in place (neither
 * stride 1) is packed; a conjugated operand is read through the 'C' flag
 * where its layout is a transposed one, and conjugated while packed
 * otherwise; a result BLAS cannot write in place (neither stride 1, or
 * overlapping) goes through a dense scratch block. */
#include "gemm.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/error.h"
#include "../../core/shape.h"
#include "../parallel.h"
#include "../typed.h"
#include "blas.h"
#include "gemm_complex_avx512.h"

/* Multiply-adds from which a product's rows are split over our threads (a
 * complex multiply-add is four real ones: the real kernels' bound over 4). */
#define PARALLEL_MIN_WORK (24.0 * 24.0 * 24.0)

typedef struct {
    const char *p;
    int64_t rows, cols, rs, cs;
    bool conj;
} cmat;

/* x conjugated or not into a dense row-major buffer, rows cols apart. */
static char *pack(mt_dtype d, const cmat *x)
{
    int isz = mt_itemsize(d);
    char *buf = malloc((size_t)(x->rows * x->cols) * isz);
    if (!buf)
        return NULL;
    for (int64_t i = 0; i < x->rows; i++)
        for (int64_t j = 0; j < x->cols; j++) {
            const char *src = x->p + (i * x->rs + j * x->cs) * isz;
            char *dst = buf + (i * x->cols + j) * isz;
            if (d == MT_COMPLEX64)
                *(mt_c64 *)dst = x->conj ? conjf(*(const mt_c64 *)src) : *(const mt_c64 *)src;
            else
                *(mt_c128 *)dst = x->conj ? conj(*(const mt_c128 *)src) : *(const mt_c128 *)src;
        }
    return buf;
}

/* How BLAS reads x: its op flag, leading dimension and data, packing into
 * *buf when no flag can describe it. A conjugated operand needs the
 * transposed layout ('C'); a stride along a dim of one is arbitrary. */
static int operand(mt_dtype d, const cmat *x, char **buf, const char **p, char *op, int64_t *ld)
{
    int64_t rs = x->rows == 1 ? x->cols : x->rs, cs = x->cols == 1 ? 1 : x->cs;
    int64_t trs = x->rows == 1 ? 1 : x->rs, tcs = x->cols == 1 ? x->rows : x->cs;
    *p = x->p;
    if (trs == 1 && tcs >= x->rows && tcs >= 1 && (x->conj || !(cs == 1 && rs >= x->cols))) {
        *op = x->conj ? 'C' : 'T';
        *ld = tcs;
        return 0;
    }
    if (!x->conj && cs == 1 && rs >= x->cols && rs >= 1) {
        *op = 'N';
        *ld = rs;
        return 0;
    }
    if (!(*buf = pack(d, x)))
        return mt_error(MT_ERR_MEMORY, "out of memory in matmul");
    *p = *buf;
    *op = 'N';
    *ld = x->cols > 1 ? x->cols : 1;
    return 0;
}

/* C = beta C + T for a dense m x n T (NULL: zeros); beta 0 reads no C (it
 * may hold NaN). */
static void combine(mt_dtype d, char *c, int64_t rs, int64_t cs, const char *t, int64_t m,
                    int64_t n, const mt_gemm_scale *beta)
{
    bool keep = beta->f != 0 || beta->im != 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            int64_t o = i * rs + j * cs, to = i * n + j;
            if (d == MT_COMPLEX64) {
                mt_c64 *y = (mt_c64 *)c + o, b = mt_cmplxf((float)beta->f, (float)beta->im);
                mt_c64 x = t ? ((const mt_c64 *)t)[to] : 0;
                *y = keep ? b * *y + x : x;
            } else {
                mt_c128 *y = (mt_c128 *)c + o, b = mt_cmplx(beta->f, beta->im);
                mt_c128 x = t ? ((const mt_c128 *)t)[to] : 0;
                *y = keep ? b * *y + x : x;
            }
        }
}

/* One product C = alpha A B + beta C; C^T = B^T A^T when C is column-major. */
static int product(mt_dtype d, cmat A, cmat B, char *c, int64_t crs, int64_t ccs,
                   const mt_gemm_scale *alpha, const mt_gemm_scale *beta)
{
    int64_t m = A.rows, n = B.cols, k = A.cols;
    if (k == 0 || (alpha->f == 0 && alpha->im == 0)) {
        combine(d, c, crs, ccs, NULL, m, n, beta);
        return 0;
    }
    bool row_major = (n == 1 || ccs == 1) && (m == 1 || crs >= n);
    bool col_major = (m == 1 || crs == 1) && (n == 1 || ccs >= m);
    if (!row_major && col_major) {
        cmat t = {A.p, k, m, A.cs, A.rs, A.conj};
        A = (cmat){B.p, n, k, B.cs, B.rs, B.conj};
        B = t;
        int64_t s = crs;
        crs = ccs;
        ccs = s;
        m = A.rows;
        n = B.cols;
        row_major = true;
    }
    bool plain = alpha->f == 1 && alpha->im == 0 && beta->f == 0 && beta->im == 0;
    if (row_major && plain &&
        mt_cgemm_avx512(d, m, n, k, A.p, A.rs, A.cs, A.conj, B.p, B.rs, B.cs, B.conj, c,
                        m == 1 ? n : crs))
        return 0;
    int isz = mt_itemsize(d), rc = -1;
    char *abuf = NULL, *bbuf = NULL, *cbuf = NULL, *cp = c;
    int64_t ldc = m == 1 ? n : crs;
    if (!row_major) {
        if (!(cbuf = malloc((size_t)(m * n) * isz))) {
            mt_error(MT_ERR_MEMORY, "out of memory in matmul");
            goto done;
        }
        cp = cbuf;
        ldc = n;
    }
    const char *ap, *bp;
    char opa, opb;
    int64_t lda, ldb;
    if (operand(d, &A, &abuf, &ap, &opa, &lda) < 0 || operand(d, &B, &bbuf, &bp, &opb, &ldb) < 0)
        goto done;
    double al[2] = {alpha->f, alpha->im}, be[2] = {0.0, 0.0};
    if (row_major) {
        be[0] = beta->f;
        be[1] = beta->im;
    }
    mt_blas_cgemm(d, opa, opb, m, n, k, al, ap, lda, bp, ldb, be, cp, ldc);
    if (!row_major)
        combine(d, c, crs, ccs, cbuf, m, n, beta);
    rc = 0;
done:
    free(abuf);
    free(bbuf);
    free(cbuf);
    return rc;
}

typedef struct {
    mt_dtype d;
    const mt_gemm_shape *s;
    const mt_gemm_operand *a, *b, *c;
    bool conj_a, conj_b;
    mt_gemm_scale alpha, beta;
    int64_t rows; /* rows of C per task: m when tasks are batch items */
    int64_t row_blocks;
    atomic_int failed;
} job;

/* Task it: rows [r0, r0 + rows) of batch item it / row_blocks. */
static void tasks(void *arg, int64_t begin, int64_t end)
{
    job *j = arg;
    const mt_gemm_shape *s = j->s;
    int isz = mt_itemsize(j->d);
    for (int64_t t = begin; t < end && !atomic_load(&j->failed); t++) {
        int64_t it = t / j->row_blocks, r0 = t % j->row_blocks * j->rows;
        int64_t rows = s->m - r0 < j->rows ? s->m - r0 : j->rows;
        int64_t oa = r0 * j->a->rs + mt_item_offset(s->nbatch, s->batch, j->a->bs, it);
        int64_t ob = mt_item_offset(s->nbatch, s->batch, j->b->bs, it);
        int64_t oc = r0 * j->c->rs + mt_item_offset(s->nbatch, s->batch, j->c->bs, it);
        cmat A = {j->a->data + oa * isz, rows, s->k, j->a->rs, j->a->cs, j->conj_a};
        cmat B = {j->b->data + ob * isz, s->k, s->n, j->b->rs, j->b->cs, j->conj_b};
        if (product(j->d, A, B, j->c->data + oc * isz, j->c->rs, j->c->cs, &j->alpha, &j->beta) < 0)
            atomic_store(&j->failed, 1);
    }
}

int mt_gemm_complex(mt_dtype d, const mt_gemm_shape *s, const mt_gemm_operand *a,
                    const mt_gemm_operand *b, const mt_gemm_operand *c, bool conj_a, bool conj_b,
                    mt_gemm_scale alpha, mt_gemm_scale beta)
{
    int64_t nb = 1;
    for (int i = 0; i < s->nbatch; i++)
        nb *= s->batch[i];
    if (nb == 0 || s->m == 0 || s->n == 0)
        return 0;
    job j = {d, s, a, b, c, conj_a, conj_b, alpha, beta, s->m, 1};
    double work = (double)s->m * (double)s->n * (double)s->k;
    int nt = mt_get_num_threads();
    if (nb == 1 && nt > 1 && work >= 2 * PARALLEL_MIN_WORK && s->m >= 2 * nt) {
        j.rows = (s->m + nt - 1) / nt;
        j.row_blocks = (s->m + j.rows - 1) / j.rows;
    }
    atomic_init(&j.failed, 0);
    int64_t ntasks = nb * j.row_blocks;
    int64_t grain = 1 + (int64_t)(PARALLEL_MIN_WORK / (work / (double)j.row_blocks + 1));
    mt_blas_begin();
    mt_parallel_for(0, ntasks, grain, tasks, &j);
    mt_blas_end();
    return atomic_load(&j.failed) ? mt_error(MT_ERR_MEMORY, "out of memory in matmul") : 0;
}
