/* bidiag_svd.h's solver. Below SPLIT_MIN the matrix goes to bdsdc whole.
 * lasd1 takes each part's ascending order of its singular values; they are
 * sorted here from the values lasd0 returns (lasd0 keeps its own order only
 * in its scratch, where no interface promises it). */
#include "bidiag_svd.h"

#include <stdlib.h>
#include <string.h>

#include "../../core/error.h"
#include "../parallel.h"
#include "lapack.h"

typedef int64_t i64;
typedef size_t len_t;

#define SPLIT_MIN 256
/* bdsdc's leaf size (ilaenv's 25), below which lasd0 calls lasdq */
#define SMLSIZ 25

typedef void (*bdsdc_fn)(const char *, const char *, const i64 *, void *, void *, void *,
                         const i64 *, void *, const i64 *, void *, i64 *, void *, i64 *, i64 *,
                         len_t, len_t);
typedef void (*lasd0_fn)(const i64 *, const i64 *, void *, void *, void *, const i64 *, void *,
                         const i64 *, const i64 *, i64 *, void *, i64 *);
typedef void (*lasd1_fn)(const i64 *, const i64 *, const i64 *, void *, void *, void *, void *,
                         const i64 *, void *, const i64 *, i64 *, i64 *, void *, i64 *);

bool mt_bidiag_svd_available(mt_dtype d)
{
    return mt_lapack_routine(d, "bdsdc") && mt_lapack_routine(d, "lasd0") &&
           mt_lapack_routine(d, "lasd1");
}

/* lasd0 of one part: n rows, n + sqre columns. */
typedef struct {
    i64 n, sqre, ldu, ldvt;
    char *d, *e, *u, *vt, *work;
    i64 *iwork, info;
} part;

typedef struct {
    lasd0_fn lasd0;
    part p[2];
} parts_job;

static void solve_parts(void *arg, i64 b0, i64 b1)
{
    parts_job *j = arg;
    static const i64 smlsiz = SMLSIZ;
    for (i64 i = b0; i < b1; i++) {
        part *p = &j->p[i];
        j->lasd0(&p->n, &p->sqre, p->d, p->e, p->u, &p->ldu, p->vt, &p->ldvt, &smlsiz, p->iwork,
                 p->work, &p->info);
    }
}

/* The n x n identity into a (lda). */
static void identity(mt_dtype d, i64 n, char *a, i64 lda)
{
    size_t isz = mt_itemsize(d);
    for (i64 j = 0; j < n; j++) {
        memset(a + isz * (size_t)(j * lda), 0, isz * (size_t)n);
        if (d == MT_FLOAT32)
            ((float *)a)[j + j * lda] = 1;
        else
            ((double *)a)[j + j * lda] = 1;
    }
}

typedef struct {
    double v;
    i64 i;
} sortable;

static int by_value(const void *a, const void *b)
{
    const sortable *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v ? 1 : (x->i > y->i) - (x->i < y->i);
}

/* order[k] (1-based) the k-th smallest of the n values at v, ties by place:
 * lasd1's IDXQ for one part */
static void ascending_order(mt_dtype d, const char *v, i64 n, sortable *keys, i64 *order)
{
    for (i64 k = 0; k < n; k++)
        keys[k] = (sortable){d == MT_FLOAT32 ? ((const float *)v)[k] : ((const double *)v)[k], k};
    qsort(keys, (size_t)n, sizeof *keys, by_value);
    for (i64 k = 0; k < n; k++)
        order[k] = keys[k].i + 1;
}

i64 mt_bidiag_svd(mt_dtype d, i64 n, void *dv, void *e, void *u, i64 ldu, void *vt, i64 ldvt,
                  i64 *idx)
{
    size_t isz = mt_itemsize(d);
    bool split = n >= SPLIT_MIN;
    /* the left part: nl rows and nl + 1 columns; the middle row; the right
     * part's nr rows */
    i64 nl = n / 2 - 1, nr = n - nl - 1;
    /* bdsdc's or lasd1's workspace (3 n^2 + 4 n, 3 n^2 + 2 n), enough for
     * both parts' lasd0 (3 m^2 + 2 m, m their columns) */
    i64 wn = 3 * n * n + 4 * n, iwn = 8 * n;
    char *work = malloc(isz * (size_t)wn);
    i64 *iwork = work ? malloc(sizeof(i64) * (size_t)iwn) : NULL;
    if (!iwork) {
        free(work);
        mt_error(MT_ERR_MEMORY, "linalg.svd: out of memory");
        return MT_LAPACK_FAILED;
    }
    char *D = dv, *E = e, *U = u, *VT = vt;
    i64 info = 0;
    for (i64 i = 0; i < n; i++)
        idx[i] = i;
    if (!split) {
        static const char uplo = 'U', compq = 'I';
        i64 iq = 0;
        ((bdsdc_fn)mt_lapack_routine(d, "bdsdc"))(&uplo, &compq, &n, D, E, U, &ldu, VT, &ldvt, NULL,
                                                  &iq, work, iwork, &info, 1, 1);
        free(work);
        free(iwork);
        return info;
    }
    /* lasd0 multiplies the parts' rotations into U and Vh */
    identity(d, n, U, ldu);
    identity(d, n, VT, ldvt);
    i64 ml = nl + 1;
    parts_job j = {(lasd0_fn)mt_lapack_routine(d, "lasd0")};
    j.p[0] = (part){nl, 1, ldu, ldvt, D, E, U, VT, work, iwork, 0};
    j.p[1] = (part){nr,
                    0,
                    ldu,
                    ldvt,
                    D + isz * (size_t)ml,
                    E + isz * (size_t)ml,
                    U + isz * (size_t)(ml + ml * ldu),
                    VT + isz * (size_t)(ml + ml * ldvt),
                    work + isz * (size_t)(3 * ml * ml + 2 * ml),
                    iwork + 8 * nl,
                    0};
    /* the middle row, before lasd0 may touch it */
    char alpha[sizeof(double)], beta[sizeof(double)];
    memcpy(alpha, D + isz * (size_t)nl, isz);
    memcpy(beta, E + isz * (size_t)nl, isz);
    mt_parallel_for(0, 2, 1, solve_parts, &j);
    info = j.p[0].info ? j.p[0].info : j.p[1].info;
    if (info == 0) {
        /* each part's ascending order, 1-based */
        i64 *order = malloc(sizeof(i64) * (size_t)n);
        sortable *keys = order ? malloc(sizeof(sortable) * (size_t)n) : NULL;
        if (!keys) {
            free(order);
            free(work);
            free(iwork);
            mt_error(MT_ERR_MEMORY, "linalg.svd: out of memory");
            return MT_LAPACK_FAILED;
        }
        ascending_order(d, D, nl, keys, order);
        ascending_order(d, D + isz * (size_t)ml, nr, keys, order + ml);
        free(keys);
        static const i64 sqre = 0;
        ((lasd1_fn)mt_lapack_routine(d, "lasd1"))(&nl, &nr, &sqre, D, alpha, beta, U, &ldu, VT,
                                                  &ldvt, order, iwork, work, &info);
        /* d[order - 1] ascends */
        for (i64 i = 0; i < n; i++)
            idx[i] = order[n - 1 - i] - 1;
        free(order);
    }
    free(work);
    free(iwork);
    return info;
}
