/* The optional OpenBLAS behind mt_gemm: its gemm symbols, found at run time
 * (and, handed to kernels/lapack, its LAPACK routines),
 * and its process-wide thread count, held at one while our products run and
 * restored exactly after (see blas.h). */
#include "blas.h"

#include <stddef.h>

#include "../../core/dynlib.h"
#include "../../core/threads.h"
#include "../lapack/lapack.h"

enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112, CONJ_TRANS = 113 };

/* OpenBLAS's ILP64 cblas interface: the enums are ints, the sizes 64-bit. */
typedef void (*sgemm_fn)(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t,
                         const float *, int64_t, float, float *, int64_t);
typedef void (*dgemm_fn)(int, int, int, int64_t, int64_t, int64_t, double, const double *, int64_t,
                         const double *, int64_t, double, double *, int64_t);

/* cgemm/zgemm: alpha and beta by address, as complex numbers are passed */
typedef void (*cgemm_fn)(int, int, int, int64_t, int64_t, int64_t, const void *, const void *,
                         int64_t, const void *, int64_t, const void *, void *, int64_t);

void (*mt_blas_locate)(void);

static sgemm_fn sgemm;
static dgemm_fn dgemm;
static cgemm_fn cgemm, zgemm;
static const char *sgemm_name;
/* OpenBLAS's thread count. It is one process-wide setting (even
 * openblas_set_num_threads_local, up to at least 0.3.31, reads the global
 * count, writes it and returns the old one), so it is only ever changed here,
 * under a lock, for as long as any product of ours runs. */
typedef int (*get_threads_fn)(void);
typedef void (*set_threads_fn)(int);
static get_threads_fn get_threads;
static set_threads_fn set_threads;
static mt_mutex threads_lock = MT_MUTEX_INIT;
static int64_t threads_users;
static int threads_saved;

/* The ILP64 spellings: scipy_openblas64 (NumPy 2 wheels, the scipy-openblas64
 * package) prefixes and suffixes the symbols, NumPy 1.x's openblas64_ only
 * suffixes them. Returns the index of the name found, or -1. */
static int find(void *h, const char *const *names, void **out)
{
    for (int i = 0; names[i]; i++) {
        *out = mt_dynlib_symbol(h, names[i]);
        if (*out)
            return i;
    }
    return -1;
}

bool mt_blas_load(const char *path)
{
    if (sgemm && dgemm)
        return true;
    void *h = mt_dynlib_open(path);
    if (!h)
        return false;
    static const char *const snames[] = {"scipy_cblas_sgemm64_", "cblas_sgemm64_", NULL};
    static const char *const dnames[] = {"scipy_cblas_dgemm64_", "cblas_dgemm64_", NULL};
    void *s, *d;
    int si = find(h, snames, &s);
    if (si < 0 || find(h, dnames, &d) < 0) {
        mt_dynlib_close(h);
        return false;
    }
    sgemm = (sgemm_fn)s;
    dgemm = (dgemm_fn)d;
    sgemm_name = snames[si];
    /* the complex products fall back to four real ones without them */
    static const char *const cnames[] = {"scipy_cblas_cgemm64_", "cblas_cgemm64_", NULL};
    static const char *const znames[] = {"scipy_cblas_zgemm64_", "cblas_zgemm64_", NULL};
    void *c, *z;
    if (find(h, cnames, &c) >= 0 && find(h, znames, &z) >= 0) {
        cgemm = (cgemm_fn)c;
        zgemm = (cgemm_fn)z;
    }
    /* the same library's LAPACK, for minitorch.linalg; the BLAS works without it */
    mt_lapack_resolve(h);
    static const char *const gnames[] = {"scipy_openblas_get_num_threads64_",
                                         "openblas_get_num_threads64_", NULL};
    static const char *const tnames[] = {"scipy_openblas_set_num_threads64_",
                                         "openblas_set_num_threads64_", NULL};
    void *g, *t;
    if (find(h, gnames, &g) >= 0 && find(h, tnames, &t) >= 0) {
        get_threads = (get_threads_fn)g;
        set_threads = (set_threads_fn)t;
    }
    return true;
}

bool mt_blas_available(void) { return sgemm && dgemm; }

bool mt_blas_complex_available(void) { return cgemm && zgemm; }

const char *mt_blas_symbol(void) { return sgemm_name; }

bool mt_blas_single_threaded(void) { return set_threads != NULL; }

/* The first of overlapping products (from any threads) saves the library's
 * count and sets one; the last puts the saved count back, so the host's own
 * calls (NumPy's) find exactly what they set. */
void mt_blas_begin(void)
{
    if (!set_threads)
        return;
    mt_mutex_lock(&threads_lock);
    if (threads_users++ == 0) {
        threads_saved = get_threads();
        if (threads_saved != 1)
            set_threads(1);
    }
    mt_mutex_unlock(&threads_lock);
}

void mt_blas_end(void)
{
    if (!set_threads)
        return;
    mt_mutex_lock(&threads_lock);
    if (--threads_users == 0 && threads_saved != 1)
        set_threads(threads_saved);
    mt_mutex_unlock(&threads_lock);
}

void mt_blas_gemm(mt_dtype d, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                  double alpha, const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
                  void *c, int64_t ldc)
{
    int ta = trans_a ? TRANS : NO_TRANS, tb = trans_b ? TRANS : NO_TRANS;
    if (d == MT_FLOAT32)
        sgemm(ROW_MAJOR, ta, tb, m, n, k, (float)alpha, a, lda, b, ldb, (float)beta, c, ldc);
    else
        dgemm(ROW_MAJOR, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static int op_code(char op) { return op == 'C' ? CONJ_TRANS : op == 'T' ? TRANS : NO_TRANS; }

void mt_blas_cgemm(mt_dtype d, char op_a, char op_b, int64_t m, int64_t n, int64_t k,
                   const double alpha[2], const void *a, int64_t lda, const void *b, int64_t ldb,
                   const double beta[2], void *c, int64_t ldc)
{
    int ta = op_code(op_a), tb = op_code(op_b);
    if (d == MT_COMPLEX64) {
        float al[2] = {(float)alpha[0], (float)alpha[1]}, be[2] = {(float)beta[0], (float)beta[1]};
        cgemm(ROW_MAJOR, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
    } else
        zgemm(ROW_MAJOR, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
