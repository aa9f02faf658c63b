/* LAPACK through Fortran's ILP64 calling convention (see lapack.h): every
 * argument by pointer, integers 64-bit, and each character argument's
 * hidden length appended at the end. Workspaces are sized by LAPACK's own
 * query (lwork = -1) and allocated per call. */
#include "lapack.h"
#include "householder.h"
#include "lu.h"
#include "spectral.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/dynlib.h"
#include "../../core/error.h"

typedef int64_t i64;
typedef size_t len_t; /* a character argument's hidden length */

enum {
    GETRF,
    GETRS,
    POTRF,
    POTRS,
    POTRI,
    TRSM,
    SYEVD,
    GESDD,
    GEQRF,
    ORGQR,
    ORMQR,
    SYTRF,
    SYTRS,
    GELS,
    GELSY,
    GELSD,
    GELSS,
    GEEV,
    HETRF,
    HETRS,
    GEQR2,
    LARFT,
    ORG2R,
    SYTRD,
    GEBRD,
    LARFG,
    STERF,
    STEDC,
    BDSDC,
    LAED1,
    LASD0,
    LASD1,
    ROUTINES
};
/* A routine's name for real and for complex types: the Hermitian routines
 * stand in for the symmetric ones (heevd for syevd, ungqr for orgqr), and
 * hetrf/hetrs, Hermitian LDL^H, is sytrf/sytrs on real matrices; NULL where
 * LAPACK has no complex form (the tridiagonal and bidiagonal solvers, which
 * only the real drivers of spectral.c call). */
static const char *const routine_names[2][ROUTINES] = {
    {"getrf", "getrs", "potrf", "potrs", "potri", "trsm",  "syevd", "gesdd",
     "geqrf", "orgqr", "ormqr", "sytrf", "sytrs", "gels",  "gelsy", "gelsd",
     "gelss", "geev",  "sytrf", "sytrs", "geqr2", "larft", "org2r", "sytrd",
     "gebrd", "larfg", "sterf", "stedc", "bdsdc", "laed1", "lasd0", "lasd1"},
    {"getrf", "getrs", "potrf", "potrs", "potri", "trsm",  "heevd", "gesdd", "geqrf", "ungqr",
     "unmqr", "sytrf", "sytrs", "gels",  "gelsy", "gelsd", "gelss", "geev",  "hetrf", "hetrs",
     "geqr2", "larft", "ung2r", "hetrd", "gebrd", "larfg", NULL,    "stedc", NULL,    NULL}};
/* One column per dtype with routines: the type letter of its symbols. */
enum { COLUMNS = 4 };
static const char type_letters[COLUMNS] = {'s', 'd', 'c', 'z'};

static void *fns[ROUTINES][COLUMNS];
static char getrf_name[64];

static int column(mt_dtype d)
{
    switch (d) {
    case MT_FLOAT32:
        return 0;
    case MT_FLOAT64:
        return 1;
    case MT_COMPLEX64:
        return 2;
    case MT_COMPLEX128:
        return 3;
    default:
        return -1;
    }
}

static void *find(void *h, char letter, const char *routine, char *name, size_t size)
{
    static const char *const spellings[] = {"scipy_%c%s_64_", "%c%s_64_"};
    for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++) {
        snprintf(name, size, spellings[i], letter, routine);
        void *f = mt_dynlib_symbol(h, name);
        if (f)
            return f;
    }
    return NULL;
}

bool mt_lapack_resolve(void *handle)
{
    void *found[ROUTINES][COLUMNS];
    char name[64], first[64] = "";
    for (int r = 0; r < ROUTINES; r++)
        for (int c = 0; c < COLUMNS; c++) {
            const char *routine = routine_names[c >= 2][r];
            found[r][c] =
                routine ? find(handle, type_letters[c], routine, name, sizeof name) : NULL;
            if (routine && !found[r][c])
                return false;
            if (r == GETRF && c == 1)
                memcpy(first, name, sizeof first);
        }
    memcpy(fns, found, sizeof fns);
    memcpy(getrf_name, first, sizeof getrf_name);
    return true;
}

void *mt_lapack_routine(mt_dtype d, const char *routine)
{
    int c = column(d);
    for (int r = 0; c >= 0 && r < ROUTINES; r++) {
        const char *name = routine_names[c >= 2][r];
        if (name && strcmp(name, routine) == 0)
            return fns[r][c];
    }
    return NULL;
}

bool mt_lapack_available(void) { return fns[GETRF][1] != NULL; }

const char *mt_lapack_symbol(void) { return getrf_name[0] ? getrf_name : NULL; }

int mt_lapack_check(mt_dtype d, const char *op)
{
    if (column(d) < 0)
        return mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", op,
                        mt_dtype_infos[d].scalar_name);
    if (!mt_lapack_available())
        return mt_error(MT_ERR_RUNTIME,
                        "%s: minitorch found no LAPACK (it uses the ILP64 OpenBLAS NumPy ships, "
                        "or the library MINITORCH_BLAS names); see "
                        "minitorch.__config__.show()",
                        op);
    return 0;
}

/* The column of a dtype mt_lapack_check has let through (others never
 * reach a routine). */
static int checked_column(mt_dtype d)
{
    int c = column(d);
    return c < 0 ? 0 : c;
}

#define FN(r, d) (fns[r][checked_column(d)])

/* The size a workspace query wrote into its first element (a complex
 * element's real part). */
static i64 queried(mt_dtype d, const void *w)
{
    d = mt_complex_part(d);
    double v = d == MT_FLOAT32 ? (double)*(const float *)w : *(const double *)w;
    /* a float32 answer may have lost its last digits */
    i64 n = (i64)(v * (d == MT_FLOAT32 ? 1.000001 : 1.0)) + 1;
    return n > 1 ? n : 1;
}

static void *work_alloc(i64 n, size_t item)
{
    void *p = malloc((size_t)n * item);
    if (!p)
        mt_error(MT_ERR_MEMORY, "LAPACK: cannot allocate a workspace of %lld bytes",
                 (long long)n * (long long)item);
    return p;
}

typedef void (*getrf_fn)(const i64 *, const i64 *, void *, const i64 *, i64 *, i64 *);
i64 mt_lapack_getrf(mt_dtype d, i64 m, i64 n, void *a, i64 lda, i64 *ipiv)
{
    if (mt_lu_handles(d))
        return mt_lu_getrf(d, m, n, a, lda, ipiv);
    i64 info = 0;
    ((getrf_fn)FN(GETRF, d))(&m, &n, a, &lda, ipiv, &info);
    return info;
}

typedef void (*getrs_fn)(const char *, const i64 *, const i64 *, const void *, const i64 *,
                         const i64 *, void *, const i64 *, i64 *, len_t);
i64 mt_lapack_getrs(mt_dtype d, bool trans, i64 n, i64 nrhs, const void *a, i64 lda,
                    const i64 *ipiv, void *b, i64 ldb)
{
    if (mt_lu_handles(d))
        return mt_lu_getrs(d, trans, n, nrhs, a, lda, ipiv, b, ldb);
    i64 info = 0;
    char t = trans ? (mt_is_complex(d) ? 'C' : 'T') : 'N';
    ((getrs_fn)FN(GETRS, d))(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
    return info;
}

typedef void (*potrf_fn)(const char *, const i64 *, void *, const i64 *, i64 *, len_t);
i64 mt_lapack_potrf(mt_dtype d, bool upper, i64 n, void *a, i64 lda)
{
    i64 info = 0;
    char u = upper ? 'U' : 'L';
    ((potrf_fn)FN(POTRF, d))(&u, &n, a, &lda, &info, 1);
    return info;
}

typedef void (*potrs_fn)(const char *, const i64 *, const i64 *, const void *, const i64 *, void *,
                         const i64 *, i64 *, len_t);
i64 mt_lapack_potrs(mt_dtype d, bool upper, i64 n, i64 nrhs, const void *a, i64 lda, void *b,
                    i64 ldb)
{
    i64 info = 0;
    char u = upper ? 'U' : 'L';
    ((potrs_fn)FN(POTRS, d))(&u, &n, &nrhs, a, &lda, b, &ldb, &info, 1);
    return info;
}

i64 mt_lapack_potri(mt_dtype d, bool upper, i64 n, void *a, i64 lda)
{
    i64 info = 0;
    char u = upper ? 'U' : 'L';
    ((potrf_fn)FN(POTRI, d))(&u, &n, a, &lda, &info, 1);
    return info;
}

typedef void (*trsm_fn)(const char *, const char *, const char *, const char *, const i64 *,
                        const i64 *, const void *, const void *, const i64 *, void *, const i64 *,
                        len_t, len_t, len_t, len_t);
i64 mt_lapack_trsm(mt_dtype d, bool left, bool upper, bool trans, bool unit, i64 m, i64 n,
                   const void *a, i64 lda, void *b, i64 ldb)
{
    if (left && mt_lu_handles(d))
        return mt_lu_trsm(d, upper, trans, unit, m, n, a, lda, b, ldb);
    char side = left ? 'L' : 'R', uplo = upper ? 'U' : 'L', t = trans ? 'T' : 'N',
         diag = unit ? 'U' : 'N';
    /* one, with a zero imaginary part for the complex routines */
    static const float one_f[2] = {1.0f, 0.0f};
    static const double one_d[2] = {1.0, 0.0};
    const void *alpha =
        mt_complex_part(d) == MT_FLOAT32 ? (const void *)one_f : (const void *)one_d;
    ((trsm_fn)FN(TRSM, d))(&side, &uplo, &t, &diag, &m, &n, alpha, a, &lda, b, &ldb, 1, 1, 1, 1);
    return 0;
}

typedef void (*syevd_fn)(const char *, const char *, const i64 *, void *, const i64 *, void *,
                         void *, const i64 *, i64 *, const i64 *, i64 *, len_t, len_t);
static i64 heevd(mt_dtype d, bool vectors, bool upper, i64 n, void *a, i64 lda, void *w);

i64 mt_lapack_syevd(mt_dtype d, bool vectors, bool upper, i64 n, void *a, i64 lda, void *w)
{
    if (mt_is_complex(d))
        return heevd(d, vectors, upper, n, a, lda, w);
    i64 own = mt_spectral_syevd(d, vectors, upper, n, a, lda, w);
    if (own != MT_SPECTRAL_DECLINED)
        return own;
    char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
    syevd_fn f = (syevd_fn)FN(SYEVD, d);
    double wq[2]; /* room for a complex answer */
    i64 iq = 0, info = 0, lwork = -1, liwork = -1;
    f(&jobz, &uplo, &n, a, &lda, w, wq, &lwork, &iq, &liwork, &info, 1, 1);
    lwork = queried(d, wq);
    liwork = iq > 1 ? iq : 1;
    void *work = work_alloc(lwork, mt_itemsize(d));
    i64 *iwork = work ? work_alloc(liwork, sizeof(i64)) : NULL;
    if (!iwork) {
        free(work);
        return MT_LAPACK_FAILED;
    }
    f(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    free(work);
    free(iwork);
    return info;
}

typedef void (*gesdd_fn)(const char *, const i64 *, const i64 *, void *, const i64 *, void *,
                         void *, const i64 *, void *, const i64 *, void *, const i64 *, i64 *,
                         i64 *, len_t);
static i64 cgesdd(mt_dtype d, char jobz, i64 m, i64 n, void *a, i64 lda, void *s, void *u, i64 ldu,
                  void *vt, i64 ldvt);

i64 mt_lapack_gesdd(mt_dtype d, char jobz, i64 m, i64 n, void *a, i64 lda, void *s, void *u,
                    i64 ldu, void *vt, i64 ldvt)
{
    if (mt_is_complex(d))
        return cgesdd(d, jobz, m, n, a, lda, s, u, ldu, vt, ldvt);
    i64 own = mt_spectral_gesdd(d, jobz, m, n, a, lda, s, u, ldu, vt, ldvt);
    if (own != MT_SPECTRAL_DECLINED)
        return own;
    gesdd_fn f = (gesdd_fn)FN(GESDD, d);
    i64 k = m < n ? m : n, info = 0, lwork = -1;
    double wq[2]; /* room for a complex answer */
    i64 *iwork = work_alloc(8 * (k > 0 ? k : 1), sizeof(i64));
    if (!iwork)
        return MT_LAPACK_FAILED;
    f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, wq, &lwork, iwork, &info, 1);
    lwork = queried(d, wq);
    void *work = work_alloc(lwork, mt_itemsize(d));
    if (!work) {
        free(iwork);
        return MT_LAPACK_FAILED;
    }
    f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1);
    free(work);
    free(iwork);
    return info;
}

typedef void (*geqrf_fn)(const i64 *, const i64 *, void *, const i64 *, void *, void *, const i64 *,
                         i64 *);
i64 mt_lapack_geqrf(mt_dtype d, i64 m, i64 n, void *a, i64 lda, void *tau)
{
    if (mt_householder_blocked(d, m < n ? m : n))
        return mt_householder_geqrf(d, m, n, a, lda, tau);
    geqrf_fn f = (geqrf_fn)FN(GEQRF, d);
    i64 info = 0, lwork = -1;
    double wq[2]; /* room for a complex answer */
    f(&m, &n, a, &lda, tau, wq, &lwork, &info);
    lwork = queried(d, wq);
    void *work = work_alloc(lwork, mt_itemsize(d));
    if (!work)
        return MT_LAPACK_FAILED;
    f(&m, &n, a, &lda, tau, work, &lwork, &info);
    free(work);
    return info;
}

typedef void (*orgqr_fn)(const i64 *, const i64 *, const i64 *, void *, const i64 *, const void *,
                         void *, const i64 *, i64 *);
i64 mt_lapack_orgqr(mt_dtype d, i64 m, i64 n, i64 k, void *a, i64 lda, const void *tau)
{
    if (mt_householder_blocked(d, k))
        return mt_householder_orgqr(d, m, n, k, a, lda, tau);
    orgqr_fn f = (orgqr_fn)FN(ORGQR, d);
    i64 info = 0, lwork = -1;
    double wq[2]; /* room for a complex answer */
    f(&m, &n, &k, a, &lda, tau, wq, &lwork, &info);
    lwork = queried(d, wq);
    void *work = work_alloc(lwork, mt_itemsize(d));
    if (!work)
        return MT_LAPACK_FAILED;
    f(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
    free(work);
    return info;
}

typedef void (*geqr2_fn)(const i64 *, const i64 *, void *, const i64 *, void *, void *, i64 *);
i64 mt_lapack_geqr2(mt_dtype d, i64 m, i64 n, void *a, i64 lda, void *tau, void *work)
{
    i64 info = 0;
    ((geqr2_fn)FN(GEQR2, d))(&m, &n, a, &lda, tau, work, &info);
    return info;
}

typedef void (*larft_fn)(const char *, const char *, const i64 *, const i64 *, const void *,
                         const i64 *, const void *, void *, const i64 *, len_t, len_t);
void mt_lapack_larft(mt_dtype d, i64 m, i64 k, const void *v, i64 ldv, const void *tau, void *t,
                     i64 ldt)
{
    char direct = 'F', storev = 'C';
    ((larft_fn)FN(LARFT, d))(&direct, &storev, &m, &k, v, &ldv, tau, t, &ldt, 1, 1);
}

typedef void (*org2r_fn)(const i64 *, const i64 *, const i64 *, void *, const i64 *, const void *,
                         void *, i64 *);
i64 mt_lapack_org2r(mt_dtype d, i64 m, i64 n, i64 k, void *a, i64 lda, const void *tau, void *work)
{
    i64 info = 0;
    ((org2r_fn)FN(ORG2R, d))(&m, &n, &k, a, &lda, tau, work, &info);
    return info;
}

typedef void (*ormqr_fn)(const char *, const char *, const i64 *, const i64 *, const i64 *,
                         const void *, const i64 *, const void *, void *, const i64 *, void *,
                         const i64 *, i64 *, len_t, len_t);
i64 mt_lapack_ormqr(mt_dtype d, bool left, bool trans, i64 m, i64 n, i64 k, const void *a, i64 lda,
                    const void *tau, void *c, i64 ldc)
{
    /* C Q is (Q^T C^T)^T */
    if (mt_householder_blocked(d, k))
        return left ? mt_householder_apply(d, trans, m, n, k, a, 1, lda, tau, c, 1, ldc)
                    : mt_householder_apply(d, !trans, n, m, k, a, 1, lda, tau, c, ldc, 1);
    ormqr_fn f = (ormqr_fn)FN(ORMQR, d);
    char side = left ? 'L' : 'R', t = trans ? (mt_is_complex(d) ? 'C' : 'T') : 'N';
    i64 info = 0, lwork = -1;
    double wq[2]; /* room for a complex answer */
    f(&side, &t, &m, &n, &k, a, &lda, tau, c, &ldc, wq, &lwork, &info, 1, 1);
    lwork = queried(d, wq);
    void *work = work_alloc(lwork, mt_itemsize(d));
    if (!work)
        return MT_LAPACK_FAILED;
    f(&side, &t, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, &info, 1, 1);
    free(work);
    return info;
}

typedef void (*sytrf_fn)(const char *, const i64 *, void *, const i64 *, i64 *, void *, const i64 *,
                         i64 *, len_t);
static i64 ldl_factor(int routine, mt_dtype d, bool upper, i64 n, void *a, i64 lda, i64 *ipiv)
{
    sytrf_fn f = (sytrf_fn)FN(routine, d);
    char u = upper ? 'U' : 'L';
    i64 info = 0, lwork = -1;
    double wq[2]; /* room for a complex answer */
    f(&u, &n, a, &lda, ipiv, wq, &lwork, &info, 1);
    lwork = queried(d, wq);
    void *work = work_alloc(lwork, mt_itemsize(d));
    if (!work)
        return MT_LAPACK_FAILED;
    f(&u, &n, a, &lda, ipiv, work, &lwork, &info, 1);
    free(work);
    return info;
}

i64 mt_lapack_sytrf(mt_dtype d, bool upper, i64 n, void *a, i64 lda, i64 *ipiv)
{
    return ldl_factor(SYTRF, d, upper, n, a, lda, ipiv);
}

i64 mt_lapack_hetrf(mt_dtype d, bool upper, i64 n, void *a, i64 lda, i64 *ipiv)
{
    return ldl_factor(HETRF, d, upper, n, a, lda, ipiv);
}

typedef void (*sytrs_fn)(const char *, const i64 *, const i64 *, const void *, const i64 *,
                         const i64 *, void *, const i64 *, i64 *, len_t);
i64 mt_lapack_sytrs(mt_dtype d, bool upper, i64 n, i64 nrhs, const void *a, i64 lda,
                    const i64 *ipiv, void *b, i64 ldb)
{
    char u = upper ? 'U' : 'L';
    i64 info = 0;
    ((sytrs_fn)FN(SYTRS, d))(&u, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
    return info;
}

i64 mt_lapack_hetrs(mt_dtype d, bool upper, i64 n, i64 nrhs, const void *a, i64 lda,
                    const i64 *ipiv, void *b, i64 ldb)
{
    char u = upper ? 'U' : 'L';
    i64 info = 0;
    ((sytrs_fn)FN(HETRS, d))(&u, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
    return info;
}

typedef void (*gels_fn)(const char *, const i64 *, const i64 *, const i64 *, void *, const i64 *,
                        void *, const i64 *, void *, const i64 *, i64 *, len_t);
typedef void (*gelsy_fn)(const i64 *, const i64 *, const i64 *, void *, const i64 *, void *,
                         const i64 *, i64 *, const void *, i64 *, void *, const i64 *, i64 *);
typedef void (*gelsd_fn)(const i64 *, const i64 *, const i64 *, void *, const i64 *, void *,
                         const i64 *, void *, const void *, i64 *, void *, const i64 *, i64 *,
                         i64 *);
typedef void (*gelss_fn)(const i64 *, const i64 *, const i64 *, void *, const i64 *, void *,
                         const i64 *, void *, const void *, i64 *, void *, const i64 *, i64 *);

static void complex_gels_call(mt_dtype d, int driver, i64 m, i64 n, i64 nrhs, void *a, i64 lda,
                              void *b, i64 ldb, const void *rcond, void *s, i64 *rank, i64 *jpvt,
                              void *work, i64 lwork, i64 *iwork, i64 *info);

/* One call of the driver: a query when lwork is -1. */
static void gels_call(mt_dtype d, int driver, i64 m, i64 n, i64 nrhs, void *a, i64 lda, void *b,
                      i64 ldb, const void *rcond, void *s, i64 *rank, i64 *jpvt, void *work,
                      i64 lwork, i64 *iwork, i64 *info)
{
    char t = 'N';
    if (driver > 0 && mt_is_complex(d)) {
        complex_gels_call(d, driver, m, n, nrhs, a, lda, b, ldb, rcond, s, rank, jpvt, work, lwork,
                          iwork, info);
        return;
    }
    switch (driver) {
    case 0:
        ((gels_fn)FN(GELS, d))(&t, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, info, 1);
        break;
    case 1:
        ((gelsy_fn)FN(GELSY, d))(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, rcond, rank, work, &lwork,
                                 info);
        break;
    case 2:
        ((gelsd_fn)FN(GELSD, d))(&m, &n, &nrhs, a, &lda, b, &ldb, s, rcond, rank, work, &lwork,
                                 iwork, info);
        break;
    default:
        ((gelss_fn)FN(GELSS, d))(&m, &n, &nrhs, a, &lda, b, &ldb, s, rcond, rank, work, &lwork,
                                 info);
    }
}

i64 mt_lapack_gels(mt_dtype d, int driver, i64 m, i64 n, i64 nrhs, void *a, i64 lda, void *b,
                   i64 ldb, double rcond, void *s, i64 *rank)
{
    float rc_f = (float)rcond;
    const void *rc = mt_complex_part(d) == MT_FLOAT32 ? (const void *)&rc_f : (const void *)&rcond;
    i64 info = 0, iq = 1;
    double wq[2]; /* room for a complex answer */
    i64 *jpvt = work_alloc(n > 0 ? n : 1, sizeof(i64));
    if (!jpvt)
        return MT_LAPACK_FAILED;
    memset(jpvt, 0, (size_t)(n > 0 ? n : 1) * sizeof(i64));
    gels_call(d, driver, m, n, nrhs, a, lda, b, ldb, rc, s, rank, jpvt, wq, -1, &iq, &info);
    i64 lwork = queried(d, wq), liwork = iq > 1 ? iq : 1;
    void *work = work_alloc(lwork, mt_itemsize(d));
    i64 *iwork = work ? work_alloc(liwork, sizeof(i64)) : NULL;
    if (!iwork) {
        free(work);
        free(jpvt);
        return MT_LAPACK_FAILED;
    }
    gels_call(d, driver, m, n, nrhs, a, lda, b, ldb, rc, s, rank, jpvt, work, lwork, iwork, &info);
    free(work);
    free(iwork);
    free(jpvt);
    return info;
}

/* The complex routines whose arguments differ from the real ones': they
 * take a real workspace (rwork) beside the complex one, and their
 * eigenvalues, singular values and rcond are of the part type. */

typedef void (*heevd_fn)(const char *, const char *, const i64 *, void *, const i64 *, void *,
                         void *, const i64 *, void *, const i64 *, i64 *, const i64 *, i64 *, len_t,
                         len_t);
static i64 heevd(mt_dtype d, bool vectors, bool upper, i64 n, void *a, i64 lda, void *w)
{
    char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
    heevd_fn f = (heevd_fn)FN(SYEVD, d);
    mt_dtype part = mt_complex_part(d);
    double wq[2], rq;
    i64 iq = 0, info = 0, lwork = -1, lrwork = -1, liwork = -1;
    f(&jobz, &uplo, &n, a, &lda, w, wq, &lwork, &rq, &lrwork, &iq, &liwork, &info, 1, 1);
    lwork = queried(d, wq);
    lrwork = queried(part, &rq);
    liwork = iq > 1 ? iq : 1;
    void *work = work_alloc(lwork, mt_itemsize(d));
    void *rwork = work ? work_alloc(lrwork, mt_itemsize(part)) : NULL;
    i64 *iwork = rwork ? work_alloc(liwork, sizeof(i64)) : NULL;
    if (iwork)
        f(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, &info, 1, 1);
    free(work);
    free(rwork);
    free(iwork);
    return iwork ? info : MT_LAPACK_FAILED;
}

typedef void (*cgesdd_fn)(const char *, const i64 *, const i64 *, void *, const i64 *, void *,
                          void *, const i64 *, void *, const i64 *, void *, const i64 *, void *,
                          i64 *, i64 *, len_t);
static i64 cgesdd(mt_dtype d, char jobz, i64 m, i64 n, void *a, i64 lda, void *s, void *u, i64 ldu,
                  void *vt, i64 ldvt)
{
    cgesdd_fn f = (cgesdd_fn)FN(GESDD, d);
    i64 k = m < n ? m : n, mx = m > n ? m : n, info = 0, lwork = -1;
    /* LAPACK's bound on the real workspace (the larger, older one for 'N') */
    i64 a1 = 5 * k + 7, a2 = 2 * mx + 2 * k + 1;
    i64 lrwork = jobz == 'N' ? 7 * k : k * (a1 > a2 ? a1 : a2);
    double wq[2];
    i64 *iwork = work_alloc(8 * (k > 0 ? k : 1), sizeof(i64));
    void *rwork =
        iwork ? work_alloc(lrwork > 1 ? lrwork : 1, mt_itemsize(mt_complex_part(d))) : NULL;
    void *work = NULL;
    if (rwork) {
        f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, wq, &lwork, rwork, iwork, &info, 1);
        lwork = queried(d, wq);
        work = work_alloc(lwork, mt_itemsize(d));
    }
    if (work)
        f(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, &info, 1);
    free(work);
    free(rwork);
    free(iwork);
    return work ? info : MT_LAPACK_FAILED;
}

typedef void (*cgelsy_fn)(const i64 *, const i64 *, const i64 *, void *, const i64 *, void *,
                          const i64 *, i64 *, const void *, i64 *, void *, const i64 *, void *,
                          i64 *);
typedef void (*cgelsd_fn)(const i64 *, const i64 *, const i64 *, void *, const i64 *, void *,
                          const i64 *, void *, const void *, i64 *, void *, const i64 *, void *,
                          i64 *, i64 *);
typedef void (*cgelss_fn)(const i64 *, const i64 *, const i64 *, void *, const i64 *, void *,
                          const i64 *, void *, const void *, i64 *, void *, const i64 *, void *,
                          i64 *);

/* gels_call's complex gelsy, gelsd and gelss, each with its real workspace:
 * gelsy's 2n, gelss's 5 min(m, n), gelsd's as its own query reports it. */
static void complex_gels_call(mt_dtype d, int driver, i64 m, i64 n, i64 nrhs, void *a, i64 lda,
                              void *b, i64 ldb, const void *rcond, void *s, i64 *rank, i64 *jpvt,
                              void *work, i64 lwork, i64 *iwork, i64 *info)
{
    mt_dtype part = mt_complex_part(d);
    i64 k = m < n ? m : n, lrwork = driver == 1 ? 2 * n : 5 * k;
    if (driver == 2) {
        double rq = 0, wq[2];
        i64 iq = 1, query = -1;
        ((cgelsd_fn)FN(GELSD, d))(&m, &n, &nrhs, a, &lda, b, &ldb, s, rcond, rank, wq, &query, &rq,
                                  &iq, info);
        lrwork = queried(part, &rq);
    }
    void *rwork = work_alloc(lrwork > 1 ? lrwork : 1, mt_itemsize(part));
    if (!rwork) {
        *info = MT_LAPACK_FAILED;
        return;
    }
    switch (driver) {
    case 1:
        ((cgelsy_fn)FN(GELSY, d))(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, rcond, rank, work, &lwork,
                                  rwork, info);
        break;
    case 2:
        ((cgelsd_fn)FN(GELSD, d))(&m, &n, &nrhs, a, &lda, b, &ldb, s, rcond, rank, work, &lwork,
                                  rwork, iwork, info);
        break;
    default:
        ((cgelss_fn)FN(GELSS, d))(&m, &n, &nrhs, a, &lda, b, &ldb, s, rcond, rank, work, &lwork,
                                  rwork, info);
    }
    free(rwork);
}

typedef void (*geev_fn)(const char *, const char *, const i64 *, void *, const i64 *, void *,
                        void *, void *, const i64 *, void *, const i64 *, void *, const i64 *,
                        i64 *, len_t, len_t);
typedef void (*cgeev_fn)(const char *, const char *, const i64 *, void *, const i64 *, void *,
                         void *, const i64 *, void *, const i64 *, void *, const i64 *, void *,
                         i64 *, len_t, len_t);

/* Element i of a real (re, im NULL) or complex part-typed array as doubles,
 * and back. */
static double part_at(mt_dtype part, const void *p, i64 i)
{
    return part == MT_FLOAT32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

static void part_set(mt_dtype part, void *p, i64 i, double v)
{
    if (part == MT_FLOAT32)
        ((float *)p)[i] = (float)v;
    else
        ((double *)p)[i] = v;
}

/* sgeev/dgeev's eigenvalues (wr, wi) and right eigenvectors vr made
 * complex: a pair with wi > 0 then wi < 0 stores v = vr[j] + i vr[j+1] in
 * columns j and j + 1, whose eigenvectors are v and conj(v). */
static void real_to_complex(mt_dtype part, i64 n, const void *wr, const void *wi, const void *vr,
                            void *w, void *v)
{
    for (i64 j = 0; j < n; j++) {
        part_set(part, w, 2 * j, part_at(part, wr, j));
        part_set(part, w, 2 * j + 1, part_at(part, wi, j));
    }
    for (i64 j = 0; v && j < n; j++) {
        bool pair = part_at(part, wi, j) != 0.0 && j + 1 < n;
        for (i64 r = 0; r < n; r++) {
            double re = part_at(part, vr, j * n + r),
                   im = pair ? part_at(part, vr, (j + 1) * n + r) : 0.0;
            part_set(part, v, 2 * (j * n + r), re);
            part_set(part, v, 2 * (j * n + r) + 1, im);
            if (pair) {
                part_set(part, v, 2 * ((j + 1) * n + r), re);
                part_set(part, v, 2 * ((j + 1) * n + r) + 1, -im);
            }
        }
        j += pair;
    }
}

static i64 real_geev(mt_dtype d, bool vectors, i64 n, void *a, i64 lda, void *w, void *v)
{
    geev_fn f = (geev_fn)FN(GEEV, d);
    char jl = 'N', jr = vectors ? 'V' : 'N';
    i64 info = 0, lwork = -1, one = 1, ldv = vectors ? n : 1;
    size_t item = mt_itemsize(d);
    double wq[2];
    char *buf = work_alloc(2 * n + (vectors ? n * n : 0), item);
    if (!buf)
        return MT_LAPACK_FAILED;
    char *wr = buf, *wi = buf + n * item, *vr = vectors ? buf + 2 * n * item : NULL;
    f(&jl, &jr, &n, a, &lda, wr, wi, NULL, &one, vr, &ldv, wq, &lwork, &info, 1, 1);
    lwork = queried(d, wq);
    void *work = work_alloc(lwork, item);
    if (work) {
        f(&jl, &jr, &n, a, &lda, wr, wi, NULL, &one, vr, &ldv, work, &lwork, &info, 1, 1);
        if (info == 0)
            real_to_complex(d, n, wr, wi, vr, w, v);
    }
    free(work);
    free(buf);
    return work ? info : MT_LAPACK_FAILED;
}

static i64 complex_geev(mt_dtype d, bool vectors, i64 n, void *a, i64 lda, void *w, void *v)
{
    cgeev_fn f = (cgeev_fn)FN(GEEV, d);
    char jl = 'N', jr = vectors ? 'V' : 'N';
    i64 info = 0, lwork = -1, one = 1, ldv = vectors ? n : 1;
    double wq[2];
    void *rwork = work_alloc(2 * n, mt_itemsize(mt_complex_part(d)));
    if (!rwork)
        return MT_LAPACK_FAILED;
    f(&jl, &jr, &n, a, &lda, w, NULL, &one, v, &ldv, wq, &lwork, rwork, &info, 1, 1);
    lwork = queried(d, wq);
    void *work = work_alloc(lwork, mt_itemsize(d));
    if (work)
        f(&jl, &jr, &n, a, &lda, w, NULL, &one, v, &ldv, work, &lwork, rwork, &info, 1, 1);
    free(work);
    free(rwork);
    return work ? info : MT_LAPACK_FAILED;
}

i64 mt_lapack_geev(mt_dtype d, bool vectors, i64 n, void *a, i64 lda, void *w, void *v)
{
    return mt_is_complex(d) ? complex_geev(d, vectors, n, a, lda, w, v)
                            : real_geev(d, vectors, n, a, lda, w, v);
}
