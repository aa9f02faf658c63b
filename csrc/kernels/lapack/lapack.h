/* The LAPACK routines minitorch.linalg runs, resolved from the same library
 * handle as the BLAS (kernels/gemm/blas.c hands it over when it loads one):
 * an ILP64 OpenBLAS exports Fortran LAPACK as scipy_dgetrf_64_ (NumPy 2
 * wheels, scipy-openblas64) or dgetrf_64_ (NumPy 1.x).
 *
 * Contract: every matrix is column-major with leading dimension ld (as
 * LAPACK wants), every integer 64-bit, the data typed by dtype. A routine
 * returns LAPACK's info (0 success, > 0 the routine's numerical failure,
 * < 0 a bad argument, which callers never pass), or MT_LAPACK_FAILED after
 * setting an error (no workspace memory). The dtype is checked once, by
 * mt_lapack_check, before any call: float32, float64, complex64 and
 * complex128 have their routines here (the Hermitian ones for complex:
 * syevd runs heevd, orgqr ungqr, ormqr unmqr, and a transposed getrs or
 * ormqr is the conjugate transpose). Eigenvalues, singular values and rcond
 * are of the part type. Callers run mt_blas_prepare first, which finds the
 * library. getrf, getrs and trsm (on the left) of float32 and float64
 * matrices are our own (lu.h), and so are geqrf, orgqr and ormqr of the
 * large ones (householder.h) and the reductions and back-transforms of
 * syevd and gesdd for large real matrices (spectral.h). */
#ifndef MT_KERNELS_LAPACK_LAPACK_H
#define MT_KERNELS_LAPACK_LAPACK_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/dtype.h"

#define MT_LAPACK_FAILED INT64_MIN

/* Resolves the routines from an opened library; false (nothing kept) when
 * one is missing. Called by mt_blas_load with its handle. */
bool mt_lapack_resolve(void *handle);
bool mt_lapack_available(void);
/* A routine of the resolved table by its name without the type letter
 * ("sytrd"), for float32 (s), float64 (d), complex64 (c) or complex128 (z);
 * NULL for a name the table does not hold or a form LAPACK lacks. */
void *mt_lapack_routine(mt_dtype d, const char *routine);
/* The symbol dgetrf answered to, or NULL. */
const char *mt_lapack_symbol(void);
/* 0 when routines for dtype d are loaded; otherwise -1 with torch's error
 * ("<op>: ... not implemented for 'Half'", or no LAPACK found). */
int mt_lapack_check(mt_dtype d, const char *op);

int64_t mt_lapack_getrf(mt_dtype d, int64_t m, int64_t n, void *a, int64_t lda, int64_t *ipiv);
int64_t mt_lapack_getrs(mt_dtype d, bool trans, int64_t n, int64_t nrhs, const void *a, int64_t lda,
                        const int64_t *ipiv, void *b, int64_t ldb);
int64_t mt_lapack_potrf(mt_dtype d, bool upper, int64_t n, void *a, int64_t lda);
int64_t mt_lapack_potrs(mt_dtype d, bool upper, int64_t n, int64_t nrhs, const void *a, int64_t lda,
                        void *b, int64_t ldb);
int64_t mt_lapack_potri(mt_dtype d, bool upper, int64_t n, void *a, int64_t lda);
/* B <- op(A)^-1 B (left) or B op(A)^-1, A triangular m x m (left) or n x n;
 * a zero on A's diagonal gives infinities, as the BLAS does. 0, or
 * MT_LAPACK_FAILED. */
int64_t mt_lapack_trsm(mt_dtype d, bool left, bool upper, bool trans, bool unit, int64_t m,
                       int64_t n, const void *a, int64_t lda, void *b, int64_t ldb);
/* Eigenvalues into w (ascending), eigenvectors over a when vectors. */
int64_t mt_lapack_syevd(mt_dtype d, bool vectors, bool upper, int64_t n, void *a, int64_t lda,
                        void *w);
/* jobz: 'N' (s only), 'S' (reduced u, vt) or 'A' (full). a is destroyed. */
int64_t mt_lapack_gesdd(mt_dtype d, char jobz, int64_t m, int64_t n, void *a, int64_t lda, void *s,
                        void *u, int64_t ldu, void *vt, int64_t ldvt);
int64_t mt_lapack_geqrf(mt_dtype d, int64_t m, int64_t n, void *a, int64_t lda, void *tau);
int64_t mt_lapack_orgqr(mt_dtype d, int64_t m, int64_t n, int64_t k, void *a, int64_t lda,
                        const void *tau);
int64_t mt_lapack_ormqr(mt_dtype d, bool left, bool trans, int64_t m, int64_t n, int64_t k,
                        const void *a, int64_t lda, const void *tau, void *c, int64_t ldc);
/* The unblocked pieces kernels/lapack/householder.c builds geqrf and orgqr
 * of float32 and float64 from: geqr2 and org2r (work: n elements), and
 * larft, the k x k upper triangular factor T of k reflectors (forward,
 * stored by columns below v's diagonal). */
int64_t mt_lapack_geqr2(mt_dtype d, int64_t m, int64_t n, void *a, int64_t lda, void *tau,
                        void *work);
void mt_lapack_larft(mt_dtype d, int64_t m, int64_t k, const void *v, int64_t ldv, const void *tau,
                     void *t, int64_t ldt);
int64_t mt_lapack_org2r(mt_dtype d, int64_t m, int64_t n, int64_t k, void *a, int64_t lda,
                        const void *tau, void *work);
int64_t mt_lapack_sytrf(mt_dtype d, bool upper, int64_t n, void *a, int64_t lda, int64_t *ipiv);
int64_t mt_lapack_sytrs(mt_dtype d, bool upper, int64_t n, int64_t nrhs, const void *a, int64_t lda,
                        const int64_t *ipiv, void *b, int64_t ldb);
/* Hermitian LDL^H (hetrf/hetrs; sytrf/sytrs on real matrices). */
int64_t mt_lapack_hetrf(mt_dtype d, bool upper, int64_t n, void *a, int64_t lda, int64_t *ipiv);
int64_t mt_lapack_hetrs(mt_dtype d, bool upper, int64_t n, int64_t nrhs, const void *a, int64_t lda,
                        const int64_t *ipiv, void *b, int64_t ldb);
/* Eigenvalues w (n complex of d's part type) and, when vectors, the right
 * eigenvectors v (n x n complex, column-major, each of norm 1) of a general
 * matrix, which is destroyed; a real matrix's are made complex. */
int64_t mt_lapack_geev(mt_dtype d, bool vectors, int64_t n, void *a, int64_t lda, void *w, void *v);
/* Least squares by driver: 0 gels (QR, full rank), 1 gelsy (pivoted QR),
 * 2 gelsd (SVD, divide and conquer), 3 gelss (SVD). b is max(m, n) x nrhs.
 * rcond is for gelsy/gelsd/gelss; s (min(m, n) values) for gelsd/gelss;
 * *rank set by all but gels. a is destroyed. */
int64_t mt_lapack_gels(mt_dtype d, int driver, int64_t m, int64_t n, int64_t nrhs, void *a,
                       int64_t lda, void *b, int64_t ldb, double rcond, void *s, int64_t *rank);

#endif
