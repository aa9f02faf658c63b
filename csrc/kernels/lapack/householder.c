/* The blocked QR of householder.h, as LAPACK's geqrf, orgqr and ormqr
 * block it: BLOCK reflectors at a time, each block H = I - V T V^T (T from
 * larft) applied as W = V^T C, W = -op(T) W, C += V W, three products on
 * our gemm. The columns a block updates are shared out COLS at a time over
 * our threads, taken from a counter, while the thread that starts first
 * also runs the step's look-ahead: geqrf updates and factors the next
 * panel there, orgqr forms the block's own columns (org2r) and prepares
 * the next block, and the product of reflectors with a matrix (ormqr, the
 * eigensolver's and SVD's back-transforms) prepares the next block. The
 * columns go to the same products whichever thread takes them, so the
 * result does not depend on the thread count. */
#include "householder.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/error.h"
#include "../gemm/gemm.h"
#include "../parallel.h"
#include "lapack.h"

typedef int64_t i64;

/* Reflectors per block, and the reflector count from which blocking pays
 * (LAPACK's crossover to its unblocked code is 128 too). */
#define BLOCK 32
#define MIN_K 128
/* Columns of C per share of an update. */
#define COLS 64
/* Multiply-adds of a step from which its update is shared out. */
#define SPLIT_MIN_WORK (64.0 * 64.0 * 64.0)

static i64 min2(i64 a, i64 b) { return a < b ? a : b; }

bool mt_householder_blocked(mt_dtype d, i64 k)
{
    return (d == MT_FLOAT32 || d == MT_FLOAT64) && k >= MIN_K;
}

/* k reflectors on m rows: V (m x k, column-major) with its unit diagonal
 * and the zeros above it written out, so that each product is one gemm,
 * and T (k x k, upper, zeros below). */
typedef struct {
    mt_dtype d;
    i64 m, k;
    char *v, *t;
} block;

/* b over v and t (room for m x k and k x k) from the reflectors below the
 * diagonal of a, element (r, c) at a[r * rs + c * cs]: by columns (rs 1,
 * cs lda) as geqrf, sytrd and gebrd's Q leave them, or by rows (rs lda,
 * cs 1) as gebrd's P. */
static void block_init(block *b, mt_dtype d, i64 m, i64 k, const char *a, i64 rs, i64 cs,
                       const char *tau, char *v, char *t)
{
    size_t isz = (size_t)mt_itemsize(d);
    *b = (block){d, m, k, v, t};
    for (i64 c = 0; c < k; c++) {
        char *col = v + (size_t)(c * m) * isz;
        memset(col, 0, (size_t)c * isz);
        if (d == MT_FLOAT32)
            ((float *)col)[c] = 1;
        else
            ((double *)col)[c] = 1;
        if (rs == 1)
            memcpy(col + (size_t)(c + 1) * isz, a + (size_t)(c + 1 + c * cs) * isz,
                   (size_t)(m - c - 1) * isz);
        else if (d == MT_FLOAT32)
            for (i64 r = c + 1; r < m; r++)
                ((float *)col)[r] = ((const float *)a)[r * rs + c * cs];
        else
            for (i64 r = c + 1; r < m; r++)
                ((double *)col)[r] = ((const double *)a)[r * rs + c * cs];
    }
    memset(t, 0, (size_t)(k * k) * isz);
    mt_lapack_larft(d, m, k, v, m, tau, t, k);
}

/* C = alpha A B + beta C for column-major-minded callers: A (m x k) and B
 * (k x n) with element (i, j) at x[i * rs + j * cs], C column-major (ldc);
 * our gemm runs the transposed product C^T = B^T A^T, whose result rows
 * are then contiguous (float32 adds into them in place when alpha and
 * beta are 1). */
static int product(mt_dtype d, i64 m, i64 n, i64 k, const char *a, i64 ars, i64 acs, const char *b,
                   i64 brs, i64 bcs, char *c, i64 crs, i64 ccs, double alpha, double beta)
{
    mt_gemm_shape s = {.nbatch = 0, .m = n, .n = m, .k = k};
    mt_gemm_operand ga = {.data = (char *)b, .rs = bcs, .cs = brs};
    mt_gemm_operand gb = {.data = (char *)a, .rs = acs, .cs = ars};
    mt_gemm_operand gc = {.data = c, .rs = ccs, .cs = crs};
    mt_gemm_scale al = {.f = alpha}, be = {.f = beta};
    return mt_gemm(d, &s, &ga, &gb, &gc, al, be);
}

/* C (b->m x w, element (i, j) at c[i * rs + j * cs]) <- H C, or H^T C when
 * trans (T^T in place of T); scratch holds 2 b->k w elements. -1 when the
 * gemm found no memory. */
static int apply_block(const block *b, bool trans, i64 w, char *c, i64 rs, i64 cs, char *scratch)
{
    mt_dtype d = b->d;
    i64 m = b->m, k = b->k;
    char *w1 = scratch, *w2 = scratch + (size_t)(k * w) * (size_t)mt_itemsize(d);
    if (w == 0)
        return 0;
    /* T^T's element (i, j) is T's (j, i): strides swapped */
    i64 trs = trans ? k : 1, tcs = trans ? 1 : k;
    return product(d, k, w, m, b->v, m, 1, c, rs, cs, w1, 1, k, 1.0, 0.0) < 0 ||
                   product(d, k, w, k, b->t, trs, tcs, w1, 1, k, w2, 1, k, -1.0, 0.0) < 0 ||
                   product(d, m, w, k, b->v, 1, m, w2, 1, k, c, rs, cs, 1.0, 1.0) < 0
               ? -1
               : 0;
}

/* The look-ahead a step runs beside its update; -1 on failure. */
typedef int (*side_fn)(void *arg);

/* One step: block b applied to the n columns of C, and side. */
typedef struct {
    const block *b;
    bool trans;
    i64 n, rs, cs;
    char *c, *scratch; /* 2 b->k n elements */
    side_fn side;
    void *side_arg;
    atomic_llong next; /* the first share not yet taken */
    atomic_int failed;
} step_job;

static void step_run(void *arg, i64 begin, i64 end)
{
    (void)end;
    step_job *j = arg;
    size_t isz = (size_t)mt_itemsize(j->b->d);
    if (begin == 0 && j->side && j->side(j->side_arg) < 0)
        atomic_store(&j->failed, 1);
    for (;;) {
        i64 c0 = (i64)atomic_fetch_add(&j->next, 1) * COLS;
        if (c0 >= j->n || atomic_load(&j->failed))
            return;
        char *c = j->c + (size_t)(c0 * j->cs) * isz,
             *s = j->scratch + (size_t)(2 * j->b->k * c0) * isz;
        if (apply_block(j->b, j->trans, min2(COLS, j->n - c0), c, j->rs, j->cs, s) < 0)
            atomic_store(&j->failed, 1);
    }
}

/* Runs a step over our threads when its update is worth sharing; -1 with
 * the error set (a worker's error is its own) on failure. */
static int step(const block *b, bool trans, i64 n, char *c, i64 rs, i64 cs, char *scratch,
                side_fn side, void *side_arg)
{
    step_job j = {b, trans, n, rs, cs, c, scratch, side, side_arg};
    atomic_init(&j.next, 0);
    atomic_init(&j.failed, 0);
    int nt = mt_get_num_threads();
    double work = 2.0 * (double)b->m * (double)b->k * (double)n;
    mt_parallel_for(0, nt, work >= SPLIT_MIN_WORK ? 1 : nt + 1, step_run, &j);
    return atomic_load(&j.failed) ? mt_error(MT_ERR_MEMORY, "QR: out of memory") : 0;
}

/* Scratch of the routines below: two blocks (the one applied, the next),
 * the update's W (2 BLOCK columns), and the unblocked routines' work. */
typedef struct {
    char *v[2], *t[2], *w, *work;
    char *mem;
} scratch;

static int scratch_new(scratch *s, mt_dtype d, i64 m, i64 n)
{
    size_t isz = (size_t)mt_itemsize(d), vn = (size_t)(m * BLOCK), tn = BLOCK * BLOCK;
    size_t wn = (size_t)(2 * BLOCK * n), total = 2 * (vn + tn) + wn + (size_t)n + BLOCK;
    s->mem = malloc(total * isz);
    if (!s->mem) {
        mt_error(MT_ERR_MEMORY, "QR: cannot allocate %lld bytes of scratch",
                 (long long)(total * isz));
        return -1;
    }
    s->v[0] = s->mem;
    s->v[1] = s->v[0] + vn * isz;
    s->t[0] = s->v[1] + vn * isz;
    s->t[1] = s->t[0] + tn * isz;
    s->w = s->t[1] + tn * isz;
    s->work = s->w + wn * isz;
    return 0;
}

/* geqrf's look-ahead: the next panel (its first rows past the block's
 * rows above it) gets the block applied, is factored, and its block
 * prepared unless nothing lies right of it. */
typedef struct {
    const block *b;
    mt_dtype d;
    i64 rows, cols, right, lda; /* the panel's, and the columns right of it */
    char *above, *a, *tau, *w, *work, *v, *t;
    block *next;
} panel_job;

static int panel_run(void *arg)
{
    panel_job *p = arg;
    if (apply_block(p->b, true, p->cols, p->above, 1, p->lda, p->w) < 0)
        return -1;
    mt_lapack_geqr2(p->d, p->rows, p->cols, p->a, p->lda, p->tau, p->work);
    if (p->right > 0)
        block_init(p->next, p->d, p->rows, p->cols, p->a, 1, p->lda, p->tau, p->v, p->t);
    return 0;
}

i64 mt_householder_geqrf(mt_dtype d, i64 m, i64 n, void *a, i64 lda, void *tau)
{
    size_t isz = (size_t)mt_itemsize(d);
    i64 k = min2(m, n);
    char *A = a, *tau_ = tau;
#define AT(i, j) (A + (size_t)((i) + (j) * lda) * isz)
    scratch s;
    if (scratch_new(&s, d, m, n) < 0)
        return MT_LAPACK_FAILED;
    block blocks[2];
    int cur = 0;
    i64 ib = min2(BLOCK, k);
    mt_lapack_geqr2(d, m, ib, A, lda, tau_, s.work);
    if (ib < n)
        block_init(&blocks[0], d, m, ib, A, 1, lda, tau_, s.v[0], s.t[0]);
    for (i64 i = 0; ib > 0 && i + ib < n;) {
        /* block cur, reflectors [i, i + ib), updates columns [next, n) */
        i64 next = i + ib, nib = next < k ? min2(BLOCK, k - next) : 0;
        panel_job p = {&blocks[cur],
                       d,
                       m - next,
                       nib,
                       n - next - nib,
                       lda,
                       AT(i, next),
                       AT(next, next),
                       tau_ + (size_t)next * isz,
                       s.w,
                       s.work,
                       s.v[1 - cur],
                       s.t[1 - cur],
                       &blocks[1 - cur]};
        char *rest = AT(i, next + nib), *w = s.w + (size_t)(2 * BLOCK * nib) * isz;
        if (step(&blocks[cur], true, n - next - nib, rest, 1, lda, w, nib ? panel_run : NULL, &p) <
            0) {
            free(s.mem);
            return MT_LAPACK_FAILED;
        }
        cur = 1 - cur;
        i = next;
        ib = nib;
    }
#undef AT
    free(s.mem);
    return 0;
}

/* orgqr's look-ahead: the block's own columns formed (org2r, the rows
 * above them zeroed) and the block before it prepared. */
typedef struct {
    mt_dtype d;
    i64 rows, cols, above, lda;
    char *a, *tau, *work;
    i64 prev_rows, prev_cols; /* 0 columns: none */
    const char *prev_a, *prev_tau;
    char *v, *t;
    block *prev;
} form_job;

static int form_run(void *arg)
{
    form_job *f = arg;
    size_t isz = (size_t)mt_itemsize(f->d);
    mt_lapack_org2r(f->d, f->rows, f->cols, f->cols, f->a, f->lda, f->tau, f->work);
    for (i64 j = 0; j < f->cols; j++)
        memset(f->a + (j * f->lda - f->above) * (ptrdiff_t)isz, 0, (size_t)f->above * isz);
    if (f->prev_cols)
        block_init(f->prev, f->d, f->prev_rows, f->prev_cols, f->prev_a, 1, f->lda, f->prev_tau,
                   f->v, f->t);
    return 0;
}

i64 mt_householder_orgqr(mt_dtype d, i64 m, i64 n, i64 k, void *a, i64 lda, const void *tau)
{
    size_t isz = (size_t)mt_itemsize(d);
    char *A = a;
    const char *tau_ = tau;
#define AT(i, j) (A + (size_t)((i) + (j) * lda) * isz)
    scratch s;
    if (scratch_new(&s, d, m, n) < 0)
        return MT_LAPACK_FAILED;
    /* the columns past the reflectors start as the identity's */
    for (i64 j = k; j < n; j++) {
        memset(AT(0, j), 0, (size_t)m * isz);
        if (d == MT_FLOAT32)
            *(float *)AT(j, j) = 1;
        else
            *(double *)AT(j, j) = 1;
    }
    block blocks[2];
    int cur = 0;
    i64 i = (k - 1) / BLOCK * BLOCK;
    block_init(&blocks[0], d, m - i, k - i, AT(i, i), 1, lda, tau_ + (size_t)i * isz, s.v[0],
               s.t[0]);
    for (; i >= 0; i -= BLOCK) {
        i64 ib = min2(BLOCK, k - i), pi = i - BLOCK;
        form_job f = {d,
                      m - i,
                      ib,
                      i,
                      lda,
                      AT(i, i),
                      (char *)tau_ + (size_t)i * isz,
                      s.work,
                      m - pi,
                      pi >= 0 ? BLOCK : 0,
                      pi >= 0 ? AT(pi, pi) : NULL,
                      pi >= 0 ? tau_ + (size_t)pi * isz : NULL,
                      s.v[1 - cur],
                      s.t[1 - cur],
                      &blocks[1 - cur]};
        if (step(&blocks[cur], false, n - i - ib, AT(i, i + ib), 1, lda, s.w, form_run, &f) < 0) {
            free(s.mem);
            return MT_LAPACK_FAILED;
        }
        cur = 1 - cur;
    }
#undef AT
    free(s.mem);
    return 0;
}

/* apply's look-ahead: the next block prepared. */
typedef struct {
    block *b;
    mt_dtype d;
    i64 rows, cols, vrs, vcs;
    const char *a, *tau;
    char *v, *t;
} prepare_job;

static int prepare_run(void *arg)
{
    prepare_job *p = arg;
    if (p->cols)
        block_init(p->b, p->d, p->rows, p->cols, p->a, p->vrs, p->vcs, p->tau, p->v, p->t);
    return 0;
}

/* dst (m x n, element (i, j) at dst[i * drs + j * dcs]) = src, likewise. */
static void copy_matrix(mt_dtype d, i64 m, i64 n, const char *src, i64 srs, i64 scs, char *dst,
                        i64 drs, i64 dcs)
{
    for (i64 j = 0; j < n; j++)
        for (i64 i = 0; i < m; i++) {
            if (d == MT_FLOAT32)
                ((float *)dst)[i * drs + j * dcs] = ((const float *)src)[i * srs + j * scs];
            else
                ((double *)dst)[i * drs + j * dcs] = ((const double *)src)[i * srs + j * scs];
        }
}

i64 mt_householder_apply(mt_dtype d, bool trans, i64 m, i64 n, i64 k, const void *v, i64 vrs,
                         i64 vcs, const void *tau, void *c, i64 rs, i64 cs)
{
    if (rs != 1 && m > 1) {
        /* our gemm writes the updates into C in place only down contiguous
         * columns (a product from the right hands over C^T): elsewhere it
         * would go through a scratch result at every product */
        size_t isz = (size_t)mt_itemsize(d);
        char *cm = malloc((size_t)(m * n) * isz + 1);
        if (!cm) {
            mt_error(MT_ERR_MEMORY, "linalg: out of memory applying reflectors");
            return MT_LAPACK_FAILED;
        }
        copy_matrix(d, m, n, c, rs, cs, cm, 1, m);
        i64 info = mt_householder_apply(d, trans, m, n, k, v, vrs, vcs, tau, cm, 1, m);
        if (info == 0)
            copy_matrix(d, m, n, cm, 1, m, c, rs, cs);
        free(cm);
        return info;
    }
    size_t isz = (size_t)mt_itemsize(d);
    const char *V = v, *tau_ = tau;
    char *C = c;
    k = min2(k, m);
    if (k <= 0 || n <= 0)
        return 0;
    scratch s;
    if (scratch_new(&s, d, m, n) < 0)
        return MT_LAPACK_FAILED;
    /* Q^T C applies H_0^T first, Q C H_{k-1} */
    i64 count = (k + BLOCK - 1) / BLOCK;
    block blocks[2];
    int cur = 0;
    for (i64 q = -1; q < count; q++) {
        i64 i = (trans ? q : count - 1 - q) * BLOCK, ni = (trans ? q + 1 : count - 2 - q) * BLOCK;
        bool more = q + 1 < count;
        prepare_job p = {&blocks[q < 0 ? cur : 1 - cur],
                         d,
                         m - ni,
                         more ? min2(BLOCK, k - ni) : 0,
                         vrs,
                         vcs,
                         more ? V + (size_t)(ni * vrs + ni * vcs) * isz : NULL,
                         more ? tau_ + (size_t)ni * isz : NULL,
                         s.v[q < 0 ? cur : 1 - cur],
                         s.t[q < 0 ? cur : 1 - cur]};
        if (q < 0) {
            prepare_run(&p);
            continue;
        }
        if (step(&blocks[cur], trans, n, C + (size_t)(i * rs) * isz, rs, cs, s.w, prepare_run, &p) <
            0) {
            free(s.mem);
            return MT_LAPACK_FAILED;
        }
        cur = 1 - cur;
    }
    free(s.mem);
    return 0;
}
