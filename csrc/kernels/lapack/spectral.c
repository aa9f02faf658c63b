/* spectral.h's drivers. syevd: our sytrd('L') (tridiag.h; an upper
 * triangle is mirrored into the lower first), then LAPACK's sterf for
 * values only or stedc ('I') with its first split on two threads
 * (tridiag_eigen.h) and Q Z by householder.h. gesdd ('S', 'A'; m >= n
 * below gesdd's QR threshold, a wider matrix through its transpose): our
 * gebrd (bidiag.h), bdsdc ('U', 'I') with its first split on two threads
 * (bidiag_svd.h) into U's top and Vh, then Q U and Vh P^T by
 * householder.h. LAPACK's steps are called through the library's Fortran
 * symbols (lapack.h's convention) and run on one thread each; the
 * reductions and the reflectors (ormtr/ormbr took half of syevd's time
 * and a third of gesdd's on 512 x 512) run on our kernels, gemm and
 * threads. */
#include "spectral.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/error.h"
#include "lapack.h"
#include "bidiag.h"
#include "bidiag_svd.h"
#include "householder.h"
#include "tridiag.h"
#include "tridiag_eigen.h"

typedef int64_t i64;
typedef size_t len_t;

/* From this size the back-transform on our gemm beats ormtr/ormbr by more
 * than the extra calls cost. */
#define MIN_N 96

typedef void (*sterf_fn)(const i64 *, void *, void *, i64 *);

static i64 min2(i64 a, i64 b) { return a < b ? a : b; }

static double at(mt_dtype d, const void *p, i64 i)
{
    return d == MT_FLOAT32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

/* The largest magnitude in the m x n matrix (its lower or upper triangle
 * when tri), or -1 when it holds an infinity or NaN. */
static double max_abs(mt_dtype d, i64 m, i64 n, const void *a, i64 lda, bool tri, bool upper)
{
    double top = 0;
    for (i64 j = 0; j < n; j++) {
        i64 r0 = tri && !upper ? j : 0, r1 = tri && upper ? j + 1 : m;
        for (i64 i = r0; i < r1; i++) {
            double x = fabs(at(d, a, i + j * lda));
            if (!(x <= DBL_MAX))
                return -1;
            top = x > top ? x : top;
        }
    }
    return top;
}

/* Whether a norm lies where LAPACK's driver leaves the matrix unscaled:
 * within [lo, 1 / lo] (or zero), lo as syevd (sqrt(safmin / eps)) or gesdd
 * (sqrt(safmin) / eps) computes it. */
static bool unscaled(mt_dtype d, double norm, bool svd)
{
    double safmin = d == MT_FLOAT32 ? FLT_MIN : DBL_MIN,
           eps = d == MT_FLOAT32 ? FLT_EPSILON : DBL_EPSILON;
    double lo = svd ? sqrt(safmin) / eps : sqrt(safmin / eps);
    return norm >= 0 && (norm == 0 || (norm >= lo && norm <= 1 / lo));
}

static void mirror_upper(mt_dtype d, i64 n, void *a, i64 lda)
{
    for (i64 j = 0; j < n; j++)
        for (i64 i = 0; i < j; i++) {
            if (d == MT_FLOAT32)
                ((float *)a)[j + i * lda] = ((float *)a)[i + j * lda];
            else
                ((double *)a)[j + i * lda] = ((double *)a)[i + j * lda];
        }
}

/* Columns [0, cols) of an m-row column-major matrix copied from src (lds)
 * to dst (ldd), transposed when trans (dst's (j, i) from src's (i, j)). */
static void copy_matrix(mt_dtype d, i64 m, i64 cols, const void *src, i64 lds, void *dst, i64 ldd,
                        bool trans)
{
    size_t isz = mt_itemsize(d);
    for (i64 j = 0; j < cols; j++) {
        if (!trans) {
            memcpy((char *)dst + isz * j * ldd, (const char *)src + isz * j * lds, isz * m);
            continue;
        }
        for (i64 i = 0; i < m; i++) {
            if (d == MT_FLOAT32)
                ((float *)dst)[j + i * ldd] = ((const float *)src)[i + j * lds];
            else
                ((double *)dst)[j + i * ldd] = ((const double *)src)[i + j * lds];
        }
    }
}

static void *scratch(i64 n, size_t item)
{
    void *p = malloc((size_t)(n > 1 ? n : 1) * item);
    if (!p)
        mt_error(MT_ERR_MEMORY, "linalg: out of memory for a workspace of %lld bytes",
                 (long long)n * (long long)item);
    return p;
}

i64 mt_spectral_syevd(mt_dtype d, bool vectors, bool upper, i64 n, void *a, i64 lda, void *w)
{
    if ((d != MT_FLOAT32 && d != MT_FLOAT64) || n < MIN_N)
        return MT_SPECTRAL_DECLINED;
    sterf_fn sterf = (sterf_fn)mt_lapack_routine(d, "sterf");
    if (!sterf || !mt_tridiag_eigen_available(d) ||
        !unscaled(d, max_abs(d, n, n, a, lda, true, upper), false))
        return MT_SPECTRAL_DECLINED;
    if (upper)
        mirror_upper(d, n, a, lda);
    size_t isz = mt_itemsize(d);
    i64 info = 0;
    /* e, tau, the eigenvalues in stedc's order; Z when vectors; its order */
    char *buf = scratch(3 * n + (vectors ? n * n : 0), isz);
    i64 *idx = buf ? scratch(n, sizeof(i64)) : NULL;
    if (!idx) {
        free(buf);
        return MT_LAPACK_FAILED;
    }
    char *e = buf, *tau = e + isz * n, *vals = tau + isz * n, *z = vals + isz * n;
    if (mt_tridiag_lower(d, n, a, lda, w, e, tau) < 0) {
        free(buf);
        free(idx);
        return MT_LAPACK_FAILED;
    }
    if (!vectors)
        sterf(&n, w, e, &info);
    else {
        memcpy(vals, w, isz * n);
        info = mt_tridiag_eigen(d, n, vals, e, z, idx);
        /* Q = H(0) ... H(n-2), v_i below row i + 1 of column i, acts on
         * rows 1.. */
        if (info == 0 && mt_householder_apply(d, false, n - 1, n, n - 1, (char *)a + isz, 1, lda,
                                              tau, z + isz, 1, n) < 0)
            info = MT_LAPACK_FAILED;
        /* the eigenpairs into ascending order */
        for (i64 i = 0; info == 0 && i < n; i++) {
            memcpy((char *)w + isz * i, vals + isz * idx[i], isz);
            memcpy((char *)a + isz * (size_t)(i * lda), z + isz * (size_t)(idx[i] * n), isz * n);
        }
    }
    free(buf);
    free(idx);
    return info;
}

/* gesdd's 'S' or 'A' for m >= n (rows m < 11 n / 6). */
static i64 tall_svd(mt_dtype d, bool full, i64 m, i64 n, void *a, i64 lda, void *s, void *u,
                    i64 ldu, void *vt, i64 ldvt)
{
    size_t isz = mt_itemsize(d);
    /* e, tauq, taup; the vectors' order; room to put them in it */
    char *buf = scratch(3 * n + n * n, isz);
    i64 *idx = buf ? scratch(n, sizeof(i64)) : NULL;
    if (!idx) {
        free(buf);
        return MT_LAPACK_FAILED;
    }
    char *e = buf, *tauq = e + isz * n, *taup = tauq + isz * n, *tmp = taup + isz * n;
    if (mt_bidiag_upper(d, m, n, a, lda, s, e, tauq, taup) < 0) {
        free(buf);
        free(idx);
        return MT_LAPACK_FAILED;
    }
    /* U starts as [Ub 0; 0 I] (m x n, or m x m when full) */
    i64 ucols = full ? m : n;
    for (i64 j = 0; j < ucols; j++) {
        memset((char *)u + isz * j * ldu, 0, isz * m);
        if (j >= n) {
            if (d == MT_FLOAT32)
                ((float *)u)[j + j * ldu] = 1;
            else
                ((double *)u)[j + j * ldu] = 1;
        }
    }
    i64 info = mt_bidiag_svd(d, n, s, e, u, ldu, vt, ldvt, idx);
    if (info == 0) {
        /* the singular triplets into descending order: Ub's columns, Vh's
         * rows */
        copy_matrix(d, n, n, u, ldu, tmp, n, false);
        for (i64 j = 0; j < n; j++)
            memcpy((char *)u + isz * (size_t)(j * ldu), tmp + isz * (size_t)(idx[j] * n), isz * n);
        copy_matrix(d, n, n, vt, ldvt, tmp, n, false);
        for (i64 c = 0; c < n; c++)
            for (i64 j = 0; j < n; j++) {
                if (d == MT_FLOAT32)
                    ((float *)vt)[j + c * ldvt] = ((const float *)tmp)[idx[j] + c * n];
                else
                    ((double *)vt)[j + c * ldvt] = ((const double *)tmp)[idx[j] + c * n];
            }
        memcpy(tmp, s, isz * n);
        for (i64 j = 0; j < n; j++)
            memcpy((char *)s + isz * j, tmp + isz * idx[j], isz);
    }
    /* U = Q U; Vh = Vh P^T = (P Vh^T)^T, P's reflector i along row i right
     * of column i + 1, acting on columns 1.. */
    if (info == 0 && (mt_householder_apply(d, false, m, ucols, n, a, 1, lda, tauq, u, 1, ldu) < 0 ||
                      mt_householder_apply(d, false, n - 1, n, n - 1, (char *)a + isz * lda, lda, 1,
                                           taup, (char *)vt + isz * ldvt, ldvt, 1) < 0))
        info = MT_LAPACK_FAILED;
    free(buf);
    free(idx);
    return info;
}

i64 mt_spectral_gesdd(mt_dtype d, char jobz, i64 m, i64 n, void *a, i64 lda, void *s, void *u,
                      i64 ldu, void *vt, i64 ldvt)
{
    i64 k = min2(m, n), mx = m > n ? m : n;
    if ((d != MT_FLOAT32 && d != MT_FLOAT64) || jobz == 'N' || k < MIN_N || mx >= k * 11 / 6)
        return MT_SPECTRAL_DECLINED;
    if (!mt_bidiag_svd_available(d) || !unscaled(d, max_abs(d, m, n, a, lda, false, false), true))
        return MT_SPECTRAL_DECLINED;
    bool full = jobz == 'A';
    if (m >= n)
        return tall_svd(d, full, m, n, a, lda, s, u, ldu, vt, ldvt);
    /* A^T = U' S Vh' gives A = Vh'^T S U'^T: U' (n x m, or n x n) is Vh's
     * transpose, Vh' (m x m) U's */
    size_t isz = mt_itemsize(d);
    i64 ucols = full ? n : m;
    char *buf = scratch(n * m + n * ucols + m * m, isz);
    if (!buf)
        return MT_LAPACK_FAILED;
    char *at_ = buf, *u2 = at_ + isz * n * m, *vt2 = u2 + isz * n * ucols;
    copy_matrix(d, m, n, a, lda, at_, n, true);
    i64 info = tall_svd(d, full, n, m, at_, n, s, u2, n, vt2, m);
    if (info == 0) {
        copy_matrix(d, n, ucols, u2, n, vt, ldvt, true);
        copy_matrix(d, m, m, vt2, m, u, ldu, true);
    }
    free(buf);
    return info;
}
