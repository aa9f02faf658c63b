/* The _lapack_* rows (ops/linalg_lapack.def): each copies its operands into
 * column-major stacks of matrices (LAPACK overwrites them in place, and
 * wants that layout whatever the input's strides), runs one kernels/lapack
 * routine per matrix and returns LAPACK's info per matrix instead of
 * raising, so that minitorch.linalg raises torch's LinAlgError for its op.
 * Operands must share their batch dims (the Python side broadcasts). */
#include "runtime/args.h"
#include "runtime/table.h"

#include "../core/owner.h"
#include "../kernels/copy.h"
#include "../kernels/eigh_small.h"
#include "../kernels/gemm/blas.h"
#include "../kernels/lapack/lapack.h"
#include "../kernels/lapack/lu.h"
#include "../kernels/parallel.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static int64_t max1(int64_t v) { return v > 1 ? v : 1; }
static int64_t min2(int64_t a, int64_t b) { return a < b ? a : b; }

/* The matrices' common batch dims and their count. */
typedef struct {
    int nb;
    int64_t sizes[MT_MAX_DIMS];
    int64_t count;
} batch;

static int prepare(const mt_tensor *t, const char *op, batch *b)
{
    mt_blas_prepare();
    if (t->ndim < 2)
        return mt_error(MT_ERR_RUNTIME, "%s: expected a batch of matrices, got %d dims", op,
                        (int)t->ndim);
    if (mt_lapack_check(t->dtype, op) < 0)
        return -1;
    b->nb = t->ndim - 2;
    b->count = 1;
    for (int i = 0; i < b->nb; i++) {
        b->sizes[i] = t->sizes[i];
        b->count *= t->sizes[i];
    }
    return 0;
}

static int same_batch(const mt_tensor *t, const batch *b, int extra, mt_dtype dtype, const char *op,
                      const char *what)
{
    bool ok = t->ndim == b->nb + extra && t->dtype == dtype;
    for (int i = 0; ok && i < b->nb; i++)
        ok = t->sizes[i] == b->sizes[i];
    if (!ok)
        return mt_error(MT_ERR_RUNTIME, "%s: %s must be a %s tensor with A's batch dims", op, what,
                        mt_dtype_infos[dtype].scalar_name);
    return 0;
}

static int square(const mt_tensor *t, const char *op)
{
    if (t->sizes[t->ndim - 1] != t->sizes[t->ndim - 2])
        return mt_error(MT_ERR_RUNTIME, "%s: A must be batches of square matrices", op);
    return 0;
}

/* A new (batch..., rows, cols) tensor laid out as column-major matrices. */
static mt_tensor *fortran_new(mt_dtype d, const batch *b, int64_t rows, int64_t cols)
{
    int64_t sizes[MT_MAX_DIMS], strides[MT_MAX_DIMS];
    int n = b->nb + 2;
    memcpy(sizes, b->sizes, sizeof(int64_t) * b->nb);
    sizes[n - 2] = rows;
    sizes[n - 1] = cols;
    strides[n - 2] = 1;
    strides[n - 1] = max1(rows);
    int64_t s = max1(rows) * max1(cols);
    for (int i = b->nb - 1; i >= 0; i--) {
        strides[i] = s;
        s *= max1(b->sizes[i]);
    }
    return mt_new_strided(d, n, sizes, strides);
}

static char *matrix(const mt_tensor *t, int64_t i)
{
    int64_t stride = t->ndim > 2 ? t->strides[t->ndim - 3] : 0;
    return mt_data(t) + i * stride * mt_itemsize(t->dtype);
}

/* Whether t is laid out as fortran_new lays out its copies (LAPACK may read
 * it in place). */
static bool is_fortran(const mt_tensor *t)
{
    int64_t rows = t->sizes[t->ndim - 2], cols = t->sizes[t->ndim - 1];
    if (mt_is_conj(t) || rows < 1 || cols < 1 || t->strides[t->ndim - 2] != 1 ||
        t->strides[t->ndim - 1] != rows)
        return false;
    int64_t s = rows * cols;
    for (int i = t->ndim - 3; i >= 0; i--) {
        if (t->strides[i] != s)
            return false;
        s *= t->sizes[i];
    }
    return true;
}

/* Columns [jb, je) of dst (rows x cols, column-major, leading dimension
 * rows) <- src (row i at src + i * ld elements, each row contiguous), by
 * 32 x 32 tiles that stay in the cache as they are read by rows and written
 * by columns. */
#define TRANSPOSE_TILE 32
#define TRANSPOSE_LOOP(T)                                          \
    do {                                                           \
        T *d = dst;                                                \
        const T *sp = src;                                         \
        for (int64_t i0 = 0; i0 < rows; i0 += TRANSPOSE_TILE)      \
            for (int64_t j0 = jb; j0 < je; j0 += TRANSPOSE_TILE) { \
                int64_t i1 = min2(i0 + TRANSPOSE_TILE, rows);      \
                int64_t j1 = min2(j0 + TRANSPOSE_TILE, je);        \
                for (int64_t j = j0; j < j1; j++)                  \
                    for (int64_t i = i0; i < i1; i++)              \
                        d[i + j * rows] = sp[i * ld + j];          \
            }                                                      \
    } while (0)

typedef struct {
    uint64_t lo, hi;
} pair64;

static void transpose_into(void *dst, const void *src, int64_t rows, int64_t jb, int64_t je,
                           int64_t ld, size_t item)
{
    if (item == 4)
        TRANSPOSE_LOOP(uint32_t);
    else if (item == 8)
        TRANSPOSE_LOOP(uint64_t);
    else
        TRANSPOSE_LOOP(pair64);
}

typedef struct {
    const mt_tensor *t;
    mt_tensor *c;
    const batch *b;
    int64_t rows, cols, tiles; /* tiles: column tiles per matrix */
    size_t item;
} transpose_job;

/* Units [u0, u1) of a fortran_copy: unit u is column tile u % tiles of
 * matrix u / tiles. */
static void transpose_units(void *arg, int64_t u0, int64_t u1)
{
    const transpose_job *j = arg;
    const mt_tensor *t = j->t;
    for (int64_t u = u0; u < u1; u++) {
        /* matrix i's place in t, its batch index unravelled over t's strides */
        int64_t i = u / j->tiles, jb = u % j->tiles * TRANSPOSE_TILE, off = 0, rest = i;
        for (int k = j->b->nb - 1; k >= 0; k--) {
            off += (rest % j->b->sizes[k]) * t->strides[k];
            rest /= j->b->sizes[k];
        }
        transpose_into(matrix(j->c, i), mt_data(t) + off * (int64_t)j->item, j->rows, jb,
                       min2(jb + TRANSPOSE_TILE, j->cols), t->strides[t->ndim - 2], j->item);
    }
}

/* Elements a thread's share of a fortran_copy has at least. */
enum { TRANSPOSE_GRAIN = 64 * 1024 };

/* A column-major copy of t, whose matrices are its last two dims. Row-major
 * matrices (torch's usual layout) are transposed tile by tile, split over
 * our threads: the general strided copy walks one of the two sides a whole
 * row apart per element, and took a seventh of getrf's time at 512 x 512. */
static mt_tensor *fortran_copy(const mt_tensor *t, const batch *b)
{
    int64_t rows = t->sizes[t->ndim - 2], cols = t->sizes[t->ndim - 1];
    mt_tensor *c = fortran_new(t->dtype, b, rows, cols);
    if (!c)
        return NULL;
    size_t item = mt_itemsize(t->dtype);
    bool tiles = (item == 4 || item == 8 || item == 16) && !mt_is_conj(t) && rows > 1 && cols > 1 &&
                 t->strides[t->ndim - 1] == 1;
    if (!tiles) {
        mt_copy(c, t);
        return c;
    }
    transpose_job j = {t, c, b, rows, cols, (cols + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE, item};
    mt_parallel_for(0, b->count * j.tiles, 1 + TRANSPOSE_GRAIN / (rows * TRANSPOSE_TILE),
                    transpose_units, &j);
    return c;
}

/* A contiguous (batch..., extra) tensor of dtype d (extra < 0: none). */
static mt_tensor *batch_new(mt_dtype d, const batch *b, int64_t extra, bool zeroed)
{
    int64_t sizes[MT_MAX_DIMS];
    memcpy(sizes, b->sizes, sizeof(int64_t) * b->nb);
    int n = b->nb;
    if (extra >= 0)
        sizes[n++] = extra;
    return mt_new(d, n, sizes, zeroed);
}

/* The i-th row of a (batch..., n) tensor. */
static char *row(const mt_tensor *t, int64_t i)
{
    return mt_data(t) + i * t->sizes[t->ndim - 1] * mt_itemsize(t->dtype);
}

static int64_t *pivots_buffer(int64_t n)
{
    int64_t *p = malloc(sizeof(int64_t) * (size_t)max1(n));
    if (!p)
        mt_error(MT_ERR_MEMORY, "LAPACK: out of memory");
    return p;
}

static int tuple(mt_result *r, int n, mt_tensor **ts, int status)
{
    if (status < 0) {
        for (int i = 0; i < n; i++)
            mt_xrelease(ts[i]);
        return -1;
    }
    return mt_result_tuple(r, n, ts);
}

static int failed(int64_t info) { return info == MT_LAPACK_FAILED ? -1 : 0; }

/* Every routine runs each matrix whole on one thread, OpenBLAS held at one
 * thread throughout (mt_blas_begin/end, which restore the library's count
 * exactly), and a batch is split over our threads. OpenBLAS's own threads
 * spin for each other: under a loaded machine a 64 x 64 getrs took
 * milliseconds instead of microseconds, and qr of 512 x 512 float32 at two
 * threads 176 ms against 7.9 on one (1024 x 1024: 2.2 s against 82 ms);
 * on a quieter one it was slower than torch's by 1.70 at two threads
 * against 1.06 at one. Our LU and QR (geqrf, orgqr, ormqr) split a single
 * matrix over our threads themselves. item returns false when it failed (no memory). */
typedef bool (*item_fn)(void *ctx, int64_t i);

typedef struct {
    item_fn fn;
    void *ctx;
    atomic_int failed;
} items_job;

static void run_items(void *arg, int64_t begin, int64_t end)
{
    items_job *j = arg;
    for (int64_t i = begin; i < end && !atomic_load(&j->failed); i++)
        if (!j->fn(j->ctx, i))
            atomic_store(&j->failed, 1);
}

/* -1 with op's error when an item failed (a worker's error is its own
 * thread's: it is raised here). */
static int each_matrix(int64_t count, item_fn fn, void *ctx, const char *op)
{
    items_job j = {fn, ctx};
    atomic_init(&j.failed, 0);
    mt_blas_begin();
    mt_parallel_for(0, count, 1, run_items, &j);
    mt_blas_end();
    if (atomic_load(&j.failed))
        return mt_error(MT_ERR_MEMORY, "%s: out of memory", op);
    return 0;
}

typedef struct {
    mt_dtype dtype;
    int64_t m, n;
    mt_tensor **ts; /* LU, pivots, infos */
    int64_t *ipiv;  /* min(m, n) per matrix */
} getrf_job;

static bool getrf_item(void *ctx, int64_t i)
{
    getrf_job *j = ctx;
    int64_t k = min2(j->m, j->n), *ipiv = j->ipiv + i * k;
    int64_t info = mt_lapack_getrf(j->dtype, j->m, j->n, matrix(j->ts[0], i), max1(j->m), ipiv);
    int32_t *piv = (int32_t *)row(j->ts[1], i);
    for (int64_t c = 0; c < k; c++)
        piv[c] = (int32_t)ipiv[c];
    ((int32_t *)mt_data(j->ts[2]))[i] = (int32_t)info;
    return !failed(info);
}

int impl_lapack_getrf(mt_args *a, mt_result *r)
{
    const char *op = "linalg.lu_factor";
    const mt_tensor *t = a->v[0].t;
    batch b;
    if (prepare(t, op, &b) < 0)
        return -1;
    int64_t m = t->sizes[t->ndim - 2], n = t->sizes[t->ndim - 1], k = min2(m, n);
    mt_tensor *ts[3] = {fortran_copy(t, &b), batch_new(MT_INT32, &b, k, false),
                        batch_new(MT_INT32, &b, -1, false)};
    int64_t *ipiv = ts[0] && ts[1] && ts[2] ? pivots_buffer(b.count * k) : NULL;
    if (!ipiv)
        return tuple(r, 3, ts, -1);
    getrf_job job = {t->dtype, m, n, ts, ipiv};
    int status = each_matrix(b.count, getrf_item, &job, op);
    free(ipiv);
    return tuple(r, 3, ts, status);
}

/* The operands of one routine's calls, the same for every matrix: the
 * fields each item function reads are named by it. */
typedef struct {
    mt_dtype dtype;
    bool f[3];       /* the routine's flags (upper, left, trans, ...) */
    int64_t d[4];    /* its sizes */
    mt_tensor *t[5]; /* its tensors, matrix i of each read by the item */
    char jobz;
    double rcond;
} lapack_job;

/* The pivots of all count matrices as LAPACK's int64, checked to lie in
 * 1..n: torch checks every pivot against 1 before any against n, so a batch
 * with both faults names the lower bound. */
static int read_pivots(const mt_tensor *p, int64_t count, int64_t n, int64_t *out)
{
    bool low = false, high = false;
    for (int64_t i = 0; i < count; i++) {
        const int32_t *piv = (const int32_t *)row(p, i);
        for (int64_t j = 0; j < n; j++) {
            low |= piv[j] < 1;
            high |= piv[j] > n;
            out[i * n + j] = piv[j];
        }
    }
    if (low)
        return mt_error(MT_ERR_RUNTIME, "Pivots given to lu_solve must all be greater or equal "
                                        "to 1. Did you properly pass the result of lu_factor?");
    if (high)
        return mt_error(MT_ERR_RUNTIME, "Pivots given to lu_solve must all be smaller or equal "
                                        "to LU.size(-2). Did you properly pass the result of "
                                        "lu_factor?");
    return 0;
}

typedef struct {
    mt_dtype dtype;
    bool trans;
    int64_t n, nrhs;
    const mt_tensor *lu, *x;
    const int64_t *ipiv; /* n per matrix */
} getrs_job;

static bool getrs_item(void *ctx, int64_t i)
{
    getrs_job *j = ctx;
    return !failed(mt_lapack_getrs(j->dtype, j->trans, j->n, j->nrhs, matrix(j->lu, i), max1(j->n),
                                   j->ipiv + i * j->n, matrix(j->x, i), max1(j->n)));
}

int impl_lapack_getrs(mt_args *a, mt_result *r)
{
    const char *op = "linalg.lu_solve";
    const mt_tensor *lu = a->v[0].t, *piv = a->v[1].t, *rhs = a->v[2].t;
    batch b;
    if (prepare(lu, op, &b) < 0 || square(lu, op) < 0)
        return -1;
    int64_t n = lu->sizes[lu->ndim - 1];
    mt_tensor pc = *piv;
    if (same_batch(piv, &b, 1, MT_INT32, op, "pivots") < 0 ||
        same_batch(rhs, &b, 2, lu->dtype, op, "B") < 0)
        return -1;
    if (piv->sizes[piv->ndim - 1] != n || rhs->sizes[rhs->ndim - 2] != n)
        return mt_error(MT_ERR_RUNTIME, "%s: incompatible shapes of LU, pivots and B", op);
    mt_tensor *pivc = mt_new(MT_INT32, pc.ndim, pc.sizes, false);
    mt_tensor *x = pivc ? fortran_copy(rhs, &b) : NULL;
    int64_t *ipiv = x ? pivots_buffer(b.count * n) : NULL;
    /* getrs only reads LU: getrf's own result needs no copy */
    mt_tensor *luc = !ipiv ? NULL : is_fortran(lu) ? mt_alias(lu) : fortran_copy(lu, &b);
    int status = luc ? 0 : -1;
    if (!status)
        mt_copy(pivc, piv);
    if (!status)
        status = read_pivots(pivc, b.count, n, ipiv);
    int64_t nrhs = rhs->sizes[rhs->ndim - 1];
    getrs_job job = {lu->dtype, a->v[3].b, n, nrhs, luc, x, ipiv};
    if (!status && nrhs)
        status = each_matrix(b.count, getrs_item, &job, op);
    free(ipiv);
    mt_xrelease(luc);
    mt_xrelease(pivc);
    if (status < 0) {
        mt_xrelease(x);
        return -1;
    }
    return mt_result_tensor(r, x);
}

/* Zeroes the strict triangle of each matrix of the column-major c that
 * LAPACK left untouched: below the diagonal when upper. */
static void zero_triangle(mt_tensor *c, const batch *b, int64_t n, bool upper)
{
    size_t item = mt_itemsize(c->dtype);
    for (int64_t i = 0; i < b->count; i++) {
        char *m = matrix(c, i);
        for (int64_t col = 0; col < n; col++) {
            int64_t from = upper ? col + 1 : 0, to = upper ? n : col;
            if (to > from)
                memset(m + (col * max1(n) + from) * item, 0, (size_t)(to - from) * item);
        }
    }
}

/* f[0] upper; d[0] n; t: matrices, infos. */
static bool potrf_item(void *ctx, int64_t i)
{
    lapack_job *j = ctx;
    int64_t info = mt_lapack_potrf(j->dtype, j->f[0], j->d[0], matrix(j->t[0], i), max1(j->d[0]));
    ((int32_t *)mt_data(j->t[1]))[i] = (int32_t)info;
    return !failed(info);
}

int impl_lapack_potrf(mt_args *a, mt_result *r)
{
    const char *op = "linalg.cholesky";
    const mt_tensor *t = a->v[0].t;
    bool upper = a->v[1].b;
    batch b;
    if (prepare(t, op, &b) < 0 || square(t, op) < 0)
        return -1;
    int64_t n = t->sizes[t->ndim - 1];
    mt_tensor *ts[2] = {fortran_copy(t, &b), batch_new(MT_INT32, &b, -1, false)};
    if (!ts[0] || !ts[1])
        return tuple(r, 2, ts, -1);
    lapack_job job = {t->dtype, {upper}, {n}, {ts[0], ts[1]}};
    int status = each_matrix(b.count, potrf_item, &job, op);
    zero_triangle(ts[0], &b, n, upper);
    return tuple(r, 2, ts, status);
}

/* f[0] upper; d: n, nrhs; t: factors, right-hand sides. */
static bool potrs_item(void *ctx, int64_t i)
{
    lapack_job *j = ctx;
    int64_t n = j->d[0];
    return !failed(mt_lapack_potrs(j->dtype, j->f[0], n, j->d[1], matrix(j->t[0], i), max1(n),
                                   matrix(j->t[1], i), max1(n)));
}

int impl_lapack_potrs(mt_args *a, mt_result *r)
{
    const char *op = "cholesky_solve";
    const mt_tensor *f = a->v[0].t, *rhs = a->v[1].t;
    batch b;
    if (prepare(f, op, &b) < 0 || square(f, op) < 0 ||
        same_batch(rhs, &b, 2, f->dtype, op, "B") < 0)
        return -1;
    int64_t n = f->sizes[f->ndim - 1], nrhs = rhs->sizes[rhs->ndim - 1];
    if (rhs->sizes[rhs->ndim - 2] != n)
        return mt_error(MT_ERR_RUNTIME, "%s: incompatible shapes of A and B", op);
    mt_tensor *fc = fortran_copy(f, &b), *x = fc ? fortran_copy(rhs, &b) : NULL;
    if (!x) {
        mt_xrelease(fc);
        return -1;
    }
    lapack_job job = {f->dtype, {a->v[2].b}, {n, nrhs}, {fc, x}};
    int status = nrhs ? each_matrix(b.count, potrs_item, &job, op) : 0;
    mt_release(fc);
    if (status < 0) {
        mt_release(x);
        return -1;
    }
    return mt_result_tensor(r, x);
}

/* Copies each matrix's computed triangle onto the other one, conjugated
 * when complex (the matrix is Hermitian). */
static void symmetrize(mt_tensor *c, const batch *b, int64_t n, bool upper)
{
    size_t item = mt_itemsize(c->dtype), half = item / 2;
    bool cplx = mt_is_complex(c->dtype);
    for (int64_t i = 0; i < b->count; i++) {
        char *m = matrix(c, i);
        for (int64_t col = 0; col < n; col++)
            for (int64_t rw = col + 1; rw < n; rw++) {
                char *lo = m + (col * n + rw) * item, *up = m + (rw * n + col) * item;
                char *to = upper ? lo : up;
                memcpy(to, upper ? up : lo, item);
                if (cplx && half == sizeof(float))
                    *(float *)(to + half) = -*(float *)(to + half);
                else if (cplx)
                    *(double *)(to + half) = -*(double *)(to + half);
            }
    }
}

/* f[0] upper; d[0] n; t: matrices, infos. */
static bool potri_item(void *ctx, int64_t i)
{
    lapack_job *j = ctx;
    int64_t info = mt_lapack_potri(j->dtype, j->f[0], j->d[0], matrix(j->t[0], i), max1(j->d[0]));
    ((int32_t *)mt_data(j->t[1]))[i] = (int32_t)info;
    return !failed(info);
}

int impl_lapack_potri(mt_args *a, mt_result *r)
{
    const char *op = "cholesky_inverse";
    const mt_tensor *f = a->v[0].t;
    bool upper = a->v[1].b;
    batch b;
    if (prepare(f, op, &b) < 0 || square(f, op) < 0)
        return -1;
    int64_t n = f->sizes[f->ndim - 1];
    mt_tensor *ts[2] = {fortran_copy(f, &b), batch_new(MT_INT32, &b, -1, false)};
    if (!ts[0] || !ts[1])
        return tuple(r, 2, ts, -1);
    lapack_job job = {f->dtype, {upper}, {n}, {ts[0], ts[1]}};
    int status = each_matrix(b.count, potri_item, &job, op);
    symmetrize(ts[0], &b, n, upper);
    return tuple(r, 2, ts, status);
}

/* f: left, upper, unit; d: n (A's size), B's rows and columns; t: A, B. */
static bool trsm_item(void *ctx, int64_t i)
{
    lapack_job *j = ctx;
    return !failed(mt_lapack_trsm(j->dtype, j->f[0], j->f[1], false, j->f[2], j->d[1], j->d[2],
                                  matrix(j->t[0], i), max1(j->d[0]), matrix(j->t[1], i),
                                  max1(j->d[1])));
}

int impl_lapack_trsm(mt_args *a, mt_result *r)
{
    const char *op = "linalg.solve_triangular";
    const mt_tensor *t = a->v[0].t, *rhs = a->v[1].t;
    bool left = a->v[3].b;
    batch b;
    if (prepare(t, op, &b) < 0 || square(t, op) < 0 ||
        same_batch(rhs, &b, 2, t->dtype, op, "B") < 0)
        return -1;
    int64_t n = t->sizes[t->ndim - 1], m = rhs->sizes[rhs->ndim - 2],
            cols = rhs->sizes[rhs->ndim - 1];
    if ((left ? m : cols) != n)
        return mt_error(MT_ERR_RUNTIME, "%s: incompatible shapes of A and B", op);
    mt_tensor *tc = fortran_copy(t, &b), *x = tc ? fortran_copy(rhs, &b) : NULL;
    if (!x) {
        mt_xrelease(tc);
        return -1;
    }
    lapack_job job = {t->dtype, {left, a->v[2].b, a->v[4].b}, {n, m, cols}, {tc, x}};
    int status = m && cols ? each_matrix(b.count, trsm_item, &job, op) : 0;
    mt_release(tc);
    if (status < 0) {
        mt_release(x);
        return -1;
    }
    return mt_result_tensor(r, x);
}

/* Real matrices go first to our own solver for small ones
 * (kernels/eigh_small.h), faster there; what it declines (larger or
 * non-finite matrices) LAPACK takes. f: vectors, upper; d[0] n; t: values,
 * matrices (overwritten by vectors), infos. */
static bool syevd_item(void *ctx, int64_t i)
{
    lapack_job *j = ctx;
    int64_t n = j->d[0];
    void *m = matrix(j->t[1], i), *w = row(j->t[0], i);
    int64_t info = MT_EIGH_SMALL_DECLINED;
    if (n && !mt_is_complex(j->dtype))
        info = mt_eigh_small(j->dtype, j->f[0], j->f[1], n, m, n, w);
    if (info == MT_EIGH_SMALL_DECLINED)
        info = n ? mt_lapack_syevd(j->dtype, j->f[0], j->f[1], n, m, max1(n), w) : 0;
    ((int32_t *)mt_data(j->t[2]))[i] = (int32_t)info;
    return !failed(info);
}

int impl_lapack_syevd(mt_args *a, mt_result *r)
{
    const char *op = "linalg.eigh";
    const mt_tensor *t = a->v[0].t;
    batch b;
    if (prepare(t, op, &b) < 0 || square(t, op) < 0)
        return -1;
    int64_t n = t->sizes[t->ndim - 1];
    mt_tensor *ts[3] = {batch_new(mt_complex_part(t->dtype), &b, n, false), fortran_copy(t, &b),
                        batch_new(MT_INT32, &b, -1, false)};
    if (!ts[0] || !ts[1] || !ts[2])
        return tuple(r, 3, ts, -1);
    lapack_job job = {t->dtype, {a->v[2].b, a->v[1].b}, {n}, {ts[0], ts[1], ts[2]}};
    return tuple(r, 3, ts, each_matrix(b.count, syevd_item, &job, op));
}

/* Sets each (rows x rows) column-major matrix of c to the identity. */
static void identity(mt_tensor *c, const batch *b, int64_t rows)
{
    size_t item = mt_itemsize(c->dtype);
    static const float one_f[2] = {1.0f, 0.0f};
    static const double one_d[2] = {1.0, 0.0};
    const void *one =
        mt_complex_part(c->dtype) == MT_FLOAT32 ? (const void *)one_f : (const void *)one_d;
    for (int64_t i = 0; i < b->count; i++) {
        char *m = matrix(c, i);
        memset(m, 0, (size_t)(rows * rows) * item);
        for (int64_t j = 0; j < rows; j++)
            memcpy(m + (j * rows + j) * item, one, item);
    }
}

/* f[0] vectors; d: m, n, Vh's rows; t: U, S, Vh, infos, matrices. */
static bool gesdd_item(void *ctx, int64_t i)
{
    lapack_job *j = ctx;
    bool uv = j->f[0];
    int64_t m = j->d[0];
    int64_t info = mt_lapack_gesdd(j->dtype, j->jobz, m, j->d[1], matrix(j->t[4], i), max1(m),
                                   row(j->t[1], i), uv ? matrix(j->t[0], i) : NULL, max1(m),
                                   uv ? matrix(j->t[2], i) : NULL, max1(j->d[2]));
    ((int32_t *)mt_data(j->t[3]))[i] = (int32_t)info;
    return !failed(info);
}

int impl_lapack_gesdd(mt_args *a, mt_result *r)
{
    const char *op = "linalg.svd";
    const mt_tensor *t = a->v[0].t;
    bool full = a->v[1].b, uv = a->v[2].b;
    batch b;
    if (prepare(t, op, &b) < 0)
        return -1;
    int64_t m = t->sizes[t->ndim - 2], n = t->sizes[t->ndim - 1], k = min2(m, n);
    int64_t ucols = uv ? (full ? m : k) : 0, vrows = uv ? (full ? n : k) : 0;
    mt_tensor *ts[4] = {fortran_new(t->dtype, &b, uv ? m : 0, ucols),
                        batch_new(mt_complex_part(t->dtype), &b, k, false),
                        fortran_new(t->dtype, &b, vrows, uv ? n : 0),
                        batch_new(MT_INT32, &b, -1, true)};
    mt_tensor *work = ts[0] && ts[1] && ts[2] && ts[3] ? fortran_copy(t, &b) : NULL;
    if (!work)
        return tuple(r, 4, ts, -1);
    int status = 0;
    if (k == 0 && full && uv) {
        identity(ts[0], &b, m);
        identity(ts[2], &b, n);
    }
    lapack_job job = {t->dtype, {uv}, {m, n, vrows}, {ts[0], ts[1], ts[2], ts[3], work}};
    job.jobz = uv ? (full ? 'A' : 'S') : 'N';
    if (k)
        status = each_matrix(b.count, gesdd_item, &job, op);
    mt_release(work);
    return tuple(r, 4, ts, status);
}

/* d: m, n; t: matrices, tau. */
static bool geqrf_item(void *ctx, int64_t i)
{
    lapack_job *j = ctx;
    return !failed(mt_lapack_geqrf(j->dtype, j->d[0], j->d[1], matrix(j->t[0], i), max1(j->d[0]),
                                   row(j->t[1], i)));
}

int impl_lapack_geqrf(mt_args *a, mt_result *r)
{
    const char *op = "geqrf";
    const mt_tensor *t = a->v[0].t;
    batch b;
    if (prepare(t, op, &b) < 0)
        return -1;
    int64_t m = t->sizes[t->ndim - 2], n = t->sizes[t->ndim - 1], k = min2(m, n);
    mt_tensor *ts[2] = {fortran_copy(t, &b), batch_new(t->dtype, &b, k, false)};
    if (!ts[0] || !ts[1])
        return tuple(r, 2, ts, -1);
    lapack_job job = {t->dtype, {false}, {m, n}, {ts[0], ts[1]}};
    return tuple(r, 2, ts, k ? each_matrix(b.count, geqrf_item, &job, op) : 0);
}

/* d: m, n, k; t: matrices, tau. */
static bool orgqr_item(void *ctx, int64_t i)
{
    lapack_job *j = ctx;
    return !failed(mt_lapack_orgqr(j->dtype, j->d[0], j->d[1], j->d[2], matrix(j->t[0], i),
                                   max1(j->d[0]), row(j->t[1], i)));
}

int impl_lapack_orgqr(mt_args *a, mt_result *r)
{
    const char *op = "linalg.householder_product";
    const mt_tensor *t = a->v[0].t, *tau = a->v[1].t;
    batch b;
    if (prepare(t, op, &b) < 0 || same_batch(tau, &b, 1, t->dtype, op, "tau") < 0)
        return -1;
    int64_t m = t->sizes[t->ndim - 2], n = t->sizes[t->ndim - 1], k = tau->sizes[tau->ndim - 1];
    if (n > m || k > n)
        return mt_error(MT_ERR_RUNTIME, "%s: needs rows >= columns >= reflectors", op);
    mt_tensor *q = fortran_copy(t, &b),
              *tc = q ? mt_new(tau->dtype, tau->ndim, tau->sizes, false) : NULL;
    if (!tc) {
        mt_xrelease(q);
        return -1;
    }
    mt_copy(tc, tau);
    lapack_job job = {t->dtype, {false}, {m, n, k}, {q, tc}};
    int status = n ? each_matrix(b.count, orgqr_item, &job, op) : 0;
    mt_release(tc);
    if (status < 0) {
        mt_release(q);
        return -1;
    }
    return mt_result_tensor(r, q);
}

/* f: left, trans; d: C's rows and columns, reflectors, A's rows; t: A,
 * tau, C. */
static bool ormqr_item(void *ctx, int64_t i)
{
    lapack_job *j = ctx;
    return !failed(mt_lapack_ormqr(j->dtype, j->f[0], j->f[1], j->d[0], j->d[1], j->d[2],
                                   matrix(j->t[0], i), max1(j->d[3]), row(j->t[1], i),
                                   matrix(j->t[2], i), max1(j->d[0])));
}

int impl_lapack_ormqr(mt_args *a, mt_result *r)
{
    const char *op = "ormqr";
    const mt_tensor *t = a->v[0].t, *tau = a->v[1].t, *c = a->v[2].t;
    bool left = a->v[3].b;
    batch b;
    if (prepare(t, op, &b) < 0 || same_batch(tau, &b, 1, t->dtype, op, "tau") < 0 ||
        same_batch(c, &b, 2, t->dtype, op, "C") < 0)
        return -1;
    int64_t rows = t->sizes[t->ndim - 2], k = tau->sizes[tau->ndim - 1];
    int64_t m = c->sizes[c->ndim - 2], n = c->sizes[c->ndim - 1];
    if (rows != (left ? m : n) || k > rows || k > t->sizes[t->ndim - 1])
        return mt_error(MT_ERR_RUNTIME, "%s: incompatible shapes of A, tau and C", op);
    mt_tensor *ac = fortran_copy(t, &b), *x = ac ? fortran_copy(c, &b) : NULL;
    mt_tensor *tc = x ? mt_new(tau->dtype, tau->ndim, tau->sizes, false) : NULL;
    int status = tc ? 0 : -1;
    if (!status)
        mt_copy(tc, tau);
    lapack_job job = {t->dtype, {left, a->v[4].b}, {m, n, k, rows}, {ac, tc, x}};
    if (!status && m && n)
        status = each_matrix(b.count, ormqr_item, &job, op);
    mt_xrelease(ac);
    mt_xrelease(tc);
    if (status < 0) {
        mt_xrelease(x);
        return -1;
    }
    return mt_result_tensor(r, x);
}

int impl_lapack_sytrf(mt_args *a, mt_result *r)
{
    const char *op = "linalg.ldl_factor";
    const mt_tensor *t = a->v[0].t;
    batch b;
    if (prepare(t, op, &b) < 0 || square(t, op) < 0)
        return -1;
    int64_t n = t->sizes[t->ndim - 1];
    mt_tensor *ts[3] = {fortran_copy(t, &b), batch_new(MT_INT32, &b, n, false),
                        batch_new(MT_INT32, &b, -1, true)};
    int64_t *ipiv = ts[0] && ts[1] && ts[2] ? pivots_buffer(n) : NULL;
    if (!ipiv)
        return tuple(r, 3, ts, -1);
    int status = 0;
    mt_blas_begin();
    for (int64_t i = 0; n && !status && i < b.count; i++) {
        int64_t info = (a->v[2].b ? mt_lapack_hetrf : mt_lapack_sytrf)(
            t->dtype, a->v[1].b, n, matrix(ts[0], i), max1(n), ipiv);
        status = failed(info);
        int32_t *piv = (int32_t *)row(ts[1], i);
        for (int64_t j = 0; j < n; j++)
            piv[j] = (int32_t)ipiv[j];
        ((int32_t *)mt_data(ts[2]))[i] = (int32_t)info;
    }
    mt_blas_end();
    free(ipiv);
    return tuple(r, 3, ts, status);
}

int impl_lapack_sytrs(mt_args *a, mt_result *r)
{
    const char *op = "linalg.ldl_solve";
    const mt_tensor *ld = a->v[0].t, *piv = a->v[1].t, *rhs = a->v[2].t;
    batch b;
    if (prepare(ld, op, &b) < 0 || square(ld, op) < 0 ||
        same_batch(piv, &b, 1, MT_INT32, op, "pivots") < 0 ||
        same_batch(rhs, &b, 2, ld->dtype, op, "B") < 0)
        return -1;
    int64_t n = ld->sizes[ld->ndim - 1], nrhs = rhs->sizes[rhs->ndim - 1];
    if (piv->sizes[piv->ndim - 1] != n || rhs->sizes[rhs->ndim - 2] != n)
        return mt_error(MT_ERR_RUNTIME, "%s: incompatible shapes of LD, pivots and B", op);
    mt_tensor *pivc = mt_new(MT_INT32, piv->ndim, piv->sizes, false);
    mt_tensor *x = pivc ? fortran_copy(rhs, &b) : NULL;
    int64_t *ipiv = x ? pivots_buffer(n) : NULL;
    mt_tensor *ldc = ipiv ? fortran_copy(ld, &b) : NULL;
    int status = ldc ? 0 : -1;
    if (!status)
        mt_copy(pivc, piv);
    mt_blas_begin();
    for (int64_t i = 0; !status && i < b.count; i++) {
        const int32_t *p = (const int32_t *)row(pivc, i);
        for (int64_t j = 0; !status && j < n; j++) {
            if (p[j] == 0 || p[j] > n || p[j] < -n)
                status = mt_error(MT_ERR_RUNTIME, "%s: pivots must lie between -%lld and %lld", op,
                                  (long long)n, (long long)n);
            ipiv[j] = p[j];
        }
        if (!status && nrhs)
            (a->v[4].b ? mt_lapack_hetrs : mt_lapack_sytrs)(ld->dtype, a->v[3].b, n, nrhs,
                                                            matrix(ldc, i), max1(n), ipiv,
                                                            matrix(x, i), max1(n));
    }
    mt_blas_end();
    free(ipiv);
    mt_xrelease(ldc);
    mt_xrelease(pivc);
    if (status < 0) {
        mt_xrelease(x);
        return -1;
    }
    return mt_result_tensor(r, x);
}

/* d: m, n, nrhs, driver; t: X, ranks, singular values, infos, matrices. */
static bool gels_item(void *ctx, int64_t i)
{
    lapack_job *j = ctx;
    int64_t m = j->d[0], n = j->d[1], rank = 0;
    int64_t info =
        mt_lapack_gels(j->dtype, (int)j->d[3], m, n, j->d[2], matrix(j->t[4], i), max1(m),
                       matrix(j->t[0], i), max1(m > n ? m : n), j->rcond, row(j->t[2], i), &rank);
    ((int64_t *)mt_data(j->t[1]))[i] = rank;
    ((int32_t *)mt_data(j->t[3]))[i] = (int32_t)info;
    return !failed(info);
}

int impl_lapack_gels(mt_args *a, mt_result *r)
{
    const char *op = "linalg.lstsq";
    const mt_tensor *t = a->v[0].t, *rhs = a->v[1].t;
    int64_t driver = a->v[3].i;
    batch b;
    if (prepare(t, op, &b) < 0 || same_batch(rhs, &b, 2, t->dtype, op, "B") < 0)
        return -1;
    if (driver < 0 || driver > 3)
        return mt_error(MT_ERR_RUNTIME, "%s: driver must be 0 to 3", op);
    int64_t m = t->sizes[t->ndim - 2], n = t->sizes[t->ndim - 1], k = min2(m, n);
    int64_t nrhs = rhs->sizes[rhs->ndim - 1], rows = m > n ? m : n;
    if (rhs->sizes[rhs->ndim - 2] != m)
        return mt_error(MT_ERR_RUNTIME, "%s: incompatible shapes of A and B", op);
    mt_tensor *ts[4] = {fortran_new(t->dtype, &b, rows, nrhs), batch_new(MT_INT64, &b, -1, true),
                        batch_new(mt_complex_part(t->dtype), &b, k, true),
                        batch_new(MT_INT32, &b, -1, true)};
    mt_tensor *ac = ts[0] && ts[1] && ts[2] && ts[3] ? fortran_copy(t, &b) : NULL;
    if (!ac)
        return tuple(r, 4, ts, -1);
    /* B goes into the top m rows of X's taller buffer */
    mt_fill(ts[0], 0.0, 0, 0);
    mt_tensor top = *ts[0];
    top.sizes[top.ndim - 2] = m;
    top.numel = b.count * m * nrhs;
    mt_copy(&top, rhs);
    lapack_job job = {t->dtype, {false}, {m, n, nrhs, driver}, {ts[0], ts[1], ts[2], ts[3], ac}};
    job.rcond = a->v[2].f;
    int status = k && nrhs ? each_matrix(b.count, gels_item, &job, op) : 0;
    mt_release(ac);
    return tuple(r, 4, ts, status);
}

/* f[0] vectors; d[0] n; t: values, vectors, infos, matrices. */
static bool geev_item(void *ctx, int64_t i)
{
    lapack_job *j = ctx;
    int64_t n = j->d[0];
    int64_t info = mt_lapack_geev(j->dtype, j->f[0], n, matrix(j->t[3], i), max1(n),
                                  row(j->t[0], i), j->f[0] ? matrix(j->t[1], i) : NULL);
    ((int32_t *)mt_data(j->t[2]))[i] = (int32_t)info;
    return !failed(info);
}

int impl_lapack_geev(mt_args *a, mt_result *r)
{
    const char *op = "linalg.eig";
    const mt_tensor *t = a->v[0].t;
    bool vectors = a->v[1].b;
    batch b;
    if (prepare(t, op, &b) < 0 || square(t, op) < 0)
        return -1;
    int64_t n = t->sizes[t->ndim - 1];
    mt_dtype c = mt_complex_of(t->dtype);
    mt_tensor *ts[3] = {batch_new(c, &b, n, false), fortran_new(c, &b, vectors ? n : 0, n),
                        batch_new(MT_INT32, &b, -1, true)};
    mt_tensor *work = ts[0] && ts[1] && ts[2] ? fortran_copy(t, &b) : NULL;
    if (!work)
        return tuple(r, 3, ts, -1);
    lapack_job job = {t->dtype, {vectors}, {n}, {ts[0], ts[1], ts[2], work}};
    int status = n ? each_matrix(b.count, geev_item, &job, op) : 0;
    mt_release(work);
    return tuple(r, 3, ts, status);
}
