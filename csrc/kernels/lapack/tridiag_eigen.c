/* tridiag_eigen.h's solver. Below SPLIT_MIN the matrix goes to stedc whole
 * (its halves would be smaller than stedc's own first split pays for). */
#include "tridiag_eigen.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/error.h"
#include "../parallel.h"
#include "lapack.h"

typedef int64_t i64;
typedef size_t len_t;

#define SPLIT_MIN 256

typedef void (*stedc_fn)(const char *, const i64 *, void *, void *, void *, const i64 *, void *,
                         const i64 *, i64 *, const i64 *, i64 *, len_t);
typedef void (*laed1_fn)(const i64 *, void *, void *, const i64 *, i64 *, const void *, const i64 *,
                         void *, i64 *, i64 *);

bool mt_tridiag_eigen_available(mt_dtype d)
{
    return mt_lapack_routine(d, "stedc") && mt_lapack_routine(d, "laed1");
}

/* stedc ('I') of one tridiagonal block into z (ldz), with its workspaces. */
typedef struct {
    i64 n, ldz;
    char *d, *e, *z, *work;
    i64 *iwork, lwork, liwork, info;
} half;

typedef struct {
    stedc_fn stedc;
    half h[2];
} halves_job;

static void solve_halves(void *arg, i64 b0, i64 b1)
{
    halves_job *j = arg;
    static const char compz = 'I';
    for (i64 i = b0; i < b1; i++) {
        half *h = &j->h[i];
        j->stedc(&compz, &h->n, h->d, h->e, h->z, &h->ldz, h->work, &h->lwork, h->iwork, &h->liwork,
                 &h->info, 1);
    }
}

static double get(mt_dtype d, const char *p, i64 i)
{
    return d == MT_FLOAT32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

static void put(mt_dtype d, char *p, i64 i, double v)
{
    if (d == MT_FLOAT32)
        ((float *)p)[i] = (float)v;
    else
        ((double *)p)[i] = v;
}

/* stedc's workspace sizes for n by its own query. */
static void query(mt_dtype d, stedc_fn stedc, i64 n, i64 *lwork, i64 *liwork)
{
    static const char compz = 'I';
    double wq[2] = {0, 0};
    i64 iq = 0, q = -1, info = 0;
    stedc(&compz, &n, NULL, NULL, NULL, &n, wq, &q, &iq, &q, &info, 1);
    /* a float32 answer may have lost its last digits */
    *lwork = (i64)(get(d, (const char *)wq, 0) * (d == MT_FLOAT32 ? 1.000001 : 1.0)) + 1;
    *liwork = iq > 1 ? iq : 1;
}

i64 mt_tridiag_eigen(mt_dtype d, i64 n, void *dv, void *e, void *z, i64 *idx)
{
    size_t isz = mt_itemsize(d);
    stedc_fn stedc = (stedc_fn)mt_lapack_routine(d, "stedc");
    laed1_fn laed1 = (laed1_fn)mt_lapack_routine(d, "laed1");
    bool split = n >= SPLIT_MIN;
    /* the second half is the larger when n is odd */
    i64 h = split ? n / 2 : n, lwork, liwork;
    query(d, stedc, split ? n - h : n, &lwork, &liwork);
    /* two halves' workspaces, or laed1's (4 n + n^2 and 4 n) */
    i64 wn = split ? 2 * lwork : lwork, iwn = split ? 2 * liwork : liwork;
    if (split && wn < 4 * n + n * n)
        wn = 4 * n + n * n;
    if (split && iwn < 4 * n)
        iwn = 4 * n;
    char *work = malloc(isz * (size_t)wn);
    i64 *iwork = work ? malloc(sizeof(i64) * (size_t)iwn) : NULL;
    if (!iwork) {
        free(work);
        mt_error(MT_ERR_MEMORY, "linalg.eigh: out of memory");
        return MT_LAPACK_FAILED;
    }
    char *D = dv, *E = e, *Z = z;
    for (i64 i = 0; i < n; i++)
        idx[i] = i;
    halves_job j = {stedc};
    if (!split) {
        j.h[0] = (half){n, n, D, E, Z, work, iwork, lwork, liwork, 0};
        solve_halves(&j, 0, 1);
        free(work);
        free(iwork);
        return j.h[0].info;
    }
    /* T = diag(T1, T2) + rho u u^T, u = (e_h, sign(rho) e_1): the diagonal
     * next to the cut loses |rho| on both sides */
    double rho = get(d, E, h - 1);
    put(d, D, h - 1, get(d, D, h - 1) - fabs(rho));
    put(d, D, h, get(d, D, h) - fabs(rho));
    memset(Z, 0, isz * (size_t)(n * n));
    j.h[0] = (half){h, n, D, E, Z, work, iwork, lwork, liwork, 0};
    j.h[1] = (half){n - h,
                    n,
                    D + isz * h,
                    E + isz * h,
                    Z + isz * (size_t)(h + h * n),
                    work + isz * (size_t)lwork,
                    iwork + liwork,
                    lwork,
                    liwork,
                    0};
    mt_parallel_for(0, 2, 1, solve_halves, &j);
    i64 info = j.h[0].info ? j.h[0].info : j.h[1].info;
    if (info == 0) {
        /* laed1's order: each half's eigenvalues (ascending from stedc) by
         * their 1-based place in it; on return d[indxq - 1] ascends */
        for (i64 i = 0; i < n; i++)
            idx[i] = i < h ? i + 1 : i - h + 1;
        float rho4 = (float)rho;
        laed1(&n, D, Z, &n, idx, d == MT_FLOAT32 ? (const void *)&rho4 : (const void *)&rho, &h,
              work, iwork, &info);
        for (i64 i = 0; i < n; i++)
            idx[i] -= 1;
    }
    free(work);
    free(iwork);
    return info;
}
