/* mt_gemm (gemm.h): each product of a batch goes to the optional BLAS
 * (blas.h) or to our register-blocked kernel (gemm_small.h) by its size,
 * type and operands' layouts (whether B would have to be packed); products
 * of one row or column, and a few rows against B read in place, go to a
 * matrix-vector path (dot products of rows, or the kernel along columns)
 * that neither packs nor allocates. The work is split over our threads by
 * batch items, rows or columns. */
#include "gemm.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/allocator.h"
#include "../../core/error.h"
#include "../../core/shape.h"
#include "blas.h"
#include "gemm_small.h"
#include "../parallel.h"

#include "../../core/portable.h"
#ifdef MT_HAVE_X86_DISPATCH
#include <immintrin.h>
#endif

/* Below this many multiply-adds a BLAS call costs more than it saves. */
#define BLAS_MIN_WORK (48.0 * 48.0 * 48.0)
/* NumPy's OpenBLAS runs products below about this many multiply-adds on the
 * calling thread, and wakes its own threads (which then spin for 100 ms)
 * above it unless told not to (mt_blas_single_threaded). Products
 * our threads may split are those each BLAS call then runs on one thread. */
#define BLAS_SERIAL_WORK (1024.0 * 1024.0)
/* Multiply-adds from which a product (or a run of batch items) is worth
 * splitting in two over our threads: at 32^3 the handoff costs what the
 * second core saves (measured on the own kernel; BLAS runs that work in
 * about as long). Every split below (rows of the own kernel, rows or columns
 * of BLAS, batch items) gives each thread at least half of it.
 */
#define PARALLEL_MIN_WORK (40.0 * 40.0 * 40.0)
/* A BLAS call's share of C is a multiple of these: OpenBLAS's row-major
 * kernels tile our columns by 16 (its M unroll) and our rows by 4 or fewer
 * (its N unroll), so a split elsewhere leaves both threads a ragged edge. */
#define BLAS_COL_UNIT 16
#define BLAS_ROW_UNIT 4
/* Batch items split over threads unevenly (3 items on 2 threads) leave a
 * thread idle for a whole product; from this many items per thread the
 * unevenness is at most a quarter, and splitting items beats splitting
 * each product's rows. */
#define BATCH_ITEMS_PER_THREAD 4
#define MR 4
/* Bytes of A's rows a panel holds: it stays in L2 while every column strip
 * of B passes over it. */
#define PANEL_BYTES (128 * 1024)
/* Rows of the remainder's scratch block (on the stack), and the bytes of one
 * of its rows: a column unit of either type. */
#define REM_ROWS 64
#define REM_ROW_BYTES (MT_GEMM_COLS * sizeof(float))
_Static_assert(MT_GEMM_COLS_F64 * sizeof(double) <= REM_ROW_BYTES, "remainder row");

typedef struct {
    mt_dtype d;
    const char *a;
    int64_t ars, acs;
    const char *b; /* rows contiguous, ldb */
    int64_t ldb;
    char *t; /* m x n result of A @ B, rows ldt apart */
    int64_t ldt, m, n, k;
    char *rem;  /* k x cols_of(d): B's columns past the last whole unit, zero-padded */
    bool acc;   /* float32 only: t += A @ B */
    int64_t kc; /* rows of B a pass over a panel takes (DEPTH_CHUNK_PART), 0: all k */
} tile_job;

/* The column unit of the register-blocked kernel (gemm_small.h) for d. */
static int64_t cols_of(mt_dtype d) { return d == MT_FLOAT32 ? MT_GEMM_COLS : MT_GEMM_COLS_F64; }

/* Float rows [i0, i1) blocks (the last one short of MR when m is) through
 * the register-blocked kernel (gemm_small.h), a panel of rows at a time; the
 * columns past the last whole column unit go through the zero-padded panel
 * j->rem into a scratch block, so narrow products run vectorised too. The
 * job is copied first: the caller's stack frame around it is written while
 * this runs on another thread, and every read would miss. */
static void rows_float(void *arg, int64_t i0, int64_t i1)
{
    const tile_job job = *(const tile_job *)arg, *j = &job;
    int64_t isz = mt_itemsize(j->d), nr = cols_of(j->d);
    int64_t full = j->n - j->n % nr, tail = j->n - full;
    int64_t unit = MT_GEMM_MAX_ROWS;
    int64_t panel = PANEL_BYTES / isz / (j->k > 0 ? j->k : 1) / unit * unit;
    if (panel < unit)
        panel = unit;
    int64_t end = i1 * MR < j->m ? i1 * MR : j->m;
    int64_t kc = j->kc > 0 ? j->kc : j->k > 0 ? j->k : 1;
    for (int64_t i = i0 * MR; i < end; i += panel) {
        int64_t rows = end - i < panel ? end - i : panel;
        /* the depth chunks' sums added to C in turn, each in order */
        for (int64_t l = 0; full > 0 && (l == 0 || l < j->k); l += kc)
            mt_gemm_float(j->d, rows, full, j->k - l < kc ? j->k - l : kc,
                          j->a + (i * j->ars + l * j->acs) * isz, j->ars, j->acs,
                          j->b + l * j->ldb * isz, j->ldb, j->t + i * j->ldt * isz, j->ldt,
                          j->acc || l > 0);
        for (int64_t r0 = 0; tail > 0 && r0 < rows; r0 += REM_ROWS) {
            int64_t rr = rows - r0 < REM_ROWS ? rows - r0 : REM_ROWS;
            _Alignas(64) double scratch[REM_ROWS * REM_ROW_BYTES / sizeof(double)];
            char *out = j->t + ((i + r0) * j->ldt + full) * isz, *s = (char *)scratch;
            /* the kernel adds C's remainder columns, set in front of zeros */
            for (int64_t r = 0; j->acc && r < rr; r++) {
                memcpy(s + r * nr * isz, out + r * j->ldt * isz, tail * isz);
                memset(s + (r * nr + tail) * isz, 0, (nr - tail) * isz);
            }
            mt_gemm_float(j->d, rr, nr, j->k, j->a + (i + r0) * j->ars * isz, j->ars, j->acs,
                          j->rem, nr, s, nr, j->acc);
            for (int64_t r = 0; r < rr; r++)
                memcpy(out + r * j->ldt * isz, s + r * nr * isz, tail * isz);
        }
    }
}

/* Column units [u0, u1) of C (cols_of(d) columns each, the last one short
 * by n's remainder, which rows_float takes through j->rem) for all rows. */
static void cols_float(void *arg, int64_t u0, int64_t u1)
{
    tile_job j = *(const tile_job *)arg;
    int64_t isz = mt_itemsize(j.d), nr = cols_of(j.d);
    int64_t c0 = u0 * nr, c1 = u1 * nr < j.n ? u1 * nr : j.n;
    j.b += c0 * isz;
    j.t += c0 * isz;
    j.n = c1 - c0;
    rows_float(&j, 0, (j.m + MR - 1) / MR);
}

/* Integer dtypes: plain dot products, accumulated modulo 2^64 so overflow
 * wraps like the stored type. */
#define INT_KERNEL(sfx, T, ACC)                                                             \
    MT_CLONES_AVX2 static void ints_##sfx(const tile_job *j, int64_t m)                     \
    {                                                                                       \
        /* locals, so stores to t cannot be taken to change the job's fields */             \
        const T *a = (const T *)j->a, *b = (const T *)j->b;                                 \
        T *restrict t = (T *)j->t;                                                          \
        int64_t n = j->n, k = j->k, ars = j->ars, acs = j->acs, ldb = j->ldb, ldt = j->ldt; \
        for (int64_t i = 0; i < m; i++) {                                                   \
            T *restrict tp = t + i * ldt;                                                   \
            if (!j->acc)                                                                    \
                memset(tp, 0, n * sizeof(T));                                               \
            for (int64_t p = 0; p < k; p++) {                                               \
                ACC av = (ACC)a[i * ars + p * acs];                                         \
                const T *restrict bp = b + p * ldb;                                         \
                for (int64_t c = 0; c < n; c++)                                             \
                    tp[c] = (T)((ACC)tp[c] + av * (ACC)bp[c]);                              \
            }                                                                               \
        }                                                                                   \
    }
INT_KERNEL(u1, uint8_t, uint64_t)
INT_KERNEL(i1, int8_t, uint64_t)
INT_KERNEL(i2, int16_t, uint64_t)
INT_KERNEL(i4, int32_t, uint64_t)
INT_KERNEL(i8, int64_t, uint64_t)

/* The zero-padded panel of B's last n % nr columns that rows_float reads,
 * in a block of the caching allocator (*block, *size for mt_alloc_free):
 * calloc's zeroed pages cost a fault each for every product of such an n. */
static int pad_remainder(tile_job *j, int64_t nr, int isz, void **block, size_t *size)
{
    int64_t full = j->n - j->n % nr, tail = j->n - full;
    void *data;
    *block = mt_alloc((size_t)(j->k * nr * isz) + 1, 64, false, &data, size);
    if (!*block)
        return mt_error(MT_ERR_MEMORY, "out of memory in matmul");
    j->rem = data;
    for (int64_t p = 0; p < j->k; p++) {
        memcpy(j->rem + p * nr * isz, j->b + (p * j->ldb + full) * isz, tail * isz);
        memset(j->rem + (p * nr + tail) * isz, 0, (nr - tail) * isz);
    }
    return 0;
}

/* The float kernel takes the last MR rows block short (it has a block for
 * each row count): a plain loop over them streamed all of B once per row,
 * and 6 rows took longer than 8. */
static int product(mt_dtype d, tile_job *j, int64_t m)
{
    int64_t nr = cols_of(d);
    j->m = m;
    if (d == MT_FLOAT32 || d == MT_FLOAT64) {
        int64_t blocks = (m + MR - 1) / MR;
        double work = (double)m * (double)j->n * (double)j->k;
        int64_t grain = work >= PARALLEL_MIN_WORK ? 1 : blocks + 1;
        void *block = NULL;
        size_t size = 0;
        if (j->n % nr != 0 && pad_remainder(j, nr, mt_itemsize(d), &block, &size) < 0)
            return -1;
        /* Split where each thread reads less: its rows of A and all of B,
         * or, for fewer rows than columns, all of A and its columns of B
         * (2 threads, loaded machine, fastest of 7, us, by rows against by
         * columns: 4 x 64 @ 64 x 4096 20/10, 16 x 1024 @ 1024 x 1024 217/147,
         * a product of one row block was not split at all). */
        int64_t units = (j->n + nr - 1) / nr;
        if (j->m < j->n && units >= 2)
            mt_parallel_for(0, units, work >= PARALLEL_MIN_WORK ? 1 : units + 1, cols_float, j);
        else
            mt_parallel_for(0, blocks, grain, rows_float, j);
        if (block)
            mt_alloc_free(block, size);
        j->rem = NULL;
        return 0;
    }
    switch (d) {
    case MT_UINT8:
        ints_u1(j, m);
        break;
    case MT_INT8:
        ints_i1(j, m);
        break;
    case MT_INT16:
        ints_i2(j, m);
        break;
    case MT_INT32:
        ints_i4(j, m);
        break;
    default:
        ints_i8(j, m);
        break;
    }
    return 0;
}

/* C = beta * C + alpha * T (T contiguous m x n, or absent: alpha * 0). */
#define COMBINE(sfx, T, FIELD)                                                             \
    static void combine_##sfx(char *cp, int64_t rs, int64_t cs, const char *tp, int64_t m, \
                              int64_t n, mt_gemm_scale al, mt_gemm_scale be)               \
    {                                                                                      \
        T *c = (T *)cp;                                                                    \
        const T *t = (const T *)tp;                                                        \
        T alpha = (T)al.FIELD, beta = (T)be.FIELD;                                         \
        for (int64_t i = 0; i < m; i++)                                                    \
            for (int64_t j = 0; j < n; j++) {                                              \
                T v = t ? (T)(alpha * t[i * n + j]) : (T)0;                                \
                T *o = c + i * rs + j * cs;                                                \
                *o = be.FIELD == 0 ? v : (T)(v + beta * *o);                               \
            }                                                                              \
    }
COMBINE(f4, float, f)
COMBINE(f8, double, f)
COMBINE(u1, uint8_t, i)
COMBINE(i1, int8_t, i)
COMBINE(i2, int16_t, i)
COMBINE(i4, int32_t, i)
COMBINE(i8, int64_t, i)

static void combine(mt_dtype d, char *c, int64_t rs, int64_t cs, const char *t, int64_t m,
                    int64_t n, mt_gemm_scale al, mt_gemm_scale be)
{
    switch (d) {
    case MT_FLOAT32:
        combine_f4(c, rs, cs, t, m, n, al, be);
        break;
    case MT_FLOAT64:
        combine_f8(c, rs, cs, t, m, n, al, be);
        break;
    case MT_BOOL: /* only a product without multiply-adds: its zeros (false) */
    case MT_UINT8:
        combine_u1(c, rs, cs, t, m, n, al, be);
        break;
    case MT_INT8:
        combine_i1(c, rs, cs, t, m, n, al, be);
        break;
    case MT_INT16:
        combine_i2(c, rs, cs, t, m, n, al, be);
        break;
    case MT_INT32:
        combine_i4(c, rs, cs, t, m, n, al, be);
        break;
    default:
        combine_i8(c, rs, cs, t, m, n, al, be);
        break;
    }
}

/* Copies a strided rows x cols matrix into dense row-major memory, in square
 * tiles so a transposed source is read a few cache lines at a time. */
#define PACK_TILE 16
#define PACK_TYPED(NAME, T)                                                            \
    static void NAME(T *restrict dst, int64_t ld, const T *restrict src, int64_t rows, \
                     int64_t cols, int64_t rs, int64_t cs)                             \
    {                                                                                  \
        for (int64_t i0 = 0; i0 < rows; i0 += PACK_TILE)                               \
            for (int64_t j0 = 0; j0 < cols; j0 += PACK_TILE) {                         \
                int64_t i1 = i0 + PACK_TILE < rows ? i0 + PACK_TILE : rows;            \
                int64_t j1 = j0 + PACK_TILE < cols ? j0 + PACK_TILE : cols;            \
                for (int64_t i = i0; i < i1; i++)                                      \
                    for (int64_t j = j0; j < j1; j++)                                  \
                        dst[i * ld + j] = src[i * rs + j * cs];                        \
            }                                                                          \
    }
PACK_TYPED(pack_1, uint8_t)
PACK_TYPED(pack_2, uint16_t)
PACK_TYPED(pack_4, uint32_t)
PACK_TYPED(pack_8, uint64_t)

#ifdef MT_HAVE_X86_DISPATCH
/* float32 whose rows lie along the source's columns (rs 1: a transposed
 * weight, or the keys of an attention head): 8 x 8 blocks transposed in
 * registers, the edges one element at a time. The blocks go along dst's
 * rows, 16 of the source's elements (a cache line of each source row read)
 * at a time: down dst's columns instead, a power-of-two width put each
 * block's stores 2 KB apart into a few cache sets (W^T of 784 x 512 packed
 * in about 3 times 784 x 500's time). */
MT_TARGET_AVX2_FMA static void pack_4_transposed(float *restrict dst, int64_t ld,
                                                 const float *restrict src, int64_t rows,
                                                 int64_t cols, int64_t cs)
{
    int64_t r8 = rows / 8 * 8, c8 = cols / 8 * 8;
    for (int64_t i = 0; i < r8; i += 16)
        for (int64_t j = 0; j < c8; j += 8)
            for (int64_t i2 = i; i2 < i + 16 && i2 < r8; i2 += 8) {
                const float *p = src + i2 + j * cs;
                __m256 r0 = _mm256_loadu_ps(p), r1 = _mm256_loadu_ps(p + cs),
                       r2 = _mm256_loadu_ps(p + 2 * cs), r3 = _mm256_loadu_ps(p + 3 * cs),
                       r4 = _mm256_loadu_ps(p + 4 * cs), r5 = _mm256_loadu_ps(p + 5 * cs),
                       r6 = _mm256_loadu_ps(p + 6 * cs), r7 = _mm256_loadu_ps(p + 7 * cs);
                __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1),
                       t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3),
                       t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
                       t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
                __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE),
                       u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE),
                       u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE),
                       u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
                float *d = dst + i2 * ld + j;
                _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
                _mm256_storeu_ps(d + ld, _mm256_permute2f128_ps(u1, u5, 0x20));
                _mm256_storeu_ps(d + 2 * ld, _mm256_permute2f128_ps(u2, u6, 0x20));
                _mm256_storeu_ps(d + 3 * ld, _mm256_permute2f128_ps(u3, u7, 0x20));
                _mm256_storeu_ps(d + 4 * ld, _mm256_permute2f128_ps(u0, u4, 0x31));
                _mm256_storeu_ps(d + 5 * ld, _mm256_permute2f128_ps(u1, u5, 0x31));
                _mm256_storeu_ps(d + 6 * ld, _mm256_permute2f128_ps(u2, u6, 0x31));
                _mm256_storeu_ps(d + 7 * ld, _mm256_permute2f128_ps(u3, u7, 0x31));
            }
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = i < r8 ? c8 : 0; j < cols; j++)
            dst[i * ld + j] = src[i + j * cs];
}
#endif

void mt_gemm_pack(char *dst, int64_t ld, const char *src, int64_t rows, int64_t cols, int64_t rs,
                  int64_t cs, int isz)
{
#ifdef MT_HAVE_X86_DISPATCH
    if (isz == 4 && rs == 1 && rows >= 8 && cols >= 8 && mt_cpu_has_avx2_fma()) {
        pack_4_transposed((float *)dst, ld, (const float *)src, rows, cols, cs);
        return;
    }
#endif
    if (cs == 1) {
        for (int64_t i = 0; i < rows; i++)
            memcpy(dst + i * ld * isz, src + i * rs * isz, (size_t)(cols * isz));
        return;
    }
    switch (isz) {
    case 1:
        pack_1((uint8_t *)dst, ld, (const uint8_t *)src, rows, cols, rs, cs);
        break;
    case 2:
        pack_2((uint16_t *)dst, ld, (const uint16_t *)src, rows, cols, rs, cs);
        break;
    case 4:
        pack_4((uint32_t *)dst, ld, (const uint32_t *)src, rows, cols, rs, cs);
        break;
    default:
        pack_8((uint64_t *)dst, ld, (const uint64_t *)src, rows, cols, rs, cs);
        break;
    }
}

/* How BLAS can read a rows x cols operand in place: row-major (lead = rs) or
 * transposed (lead = cs; a single row whose elements are cs apart is a
 * column of a matrix with rows cs apart); false when neither stride is 1. */
static bool blas_view(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool *trans, int64_t *ld)
{
    if (cols == 1)
        cs = 1;
    if (rows == 1)
        rs = cols;
    if (cs == 1 && rs >= (cols > 1 ? cols : 1)) {
        *trans = false;
        *ld = rs;
        return true;
    }
    if (rows == 1 ? cs >= 1 : rs == 1 && cs >= rows) {
        *trans = true;
        *ld = cs;
        return true;
    }
    return false;
}

typedef struct {
    const char *p;
    int64_t rows, cols, rs, cs;
} mat;

/* A BLAS-readable form of x, packing into *buf when the strides forbid. */
static int blas_operand(const mat *x, int isz, char **buf, const char **p, bool *trans, int64_t *ld)
{
    if (blas_view(x->rows, x->cols, x->rs, x->cs, trans, ld)) {
        *p = x->p;
        return 0;
    }
    *buf = malloc((size_t)(x->rows * x->cols) * isz);
    if (!*buf)
        return mt_error(MT_ERR_MEMORY, "out of memory in matmul");
    mt_gemm_pack(*buf, x->cols, x->p, x->rows, x->cols, x->rs, x->cs, isz);
    *p = *buf;
    *trans = false;
    *ld = x->cols;
    return 0;
}

typedef struct {
    mt_dtype d;
    bool ta, tb;
    int64_t m, n, k;
    double alpha;
    const char *a;
    int64_t lda;
    const char *b;
    int64_t ldb;
    double beta;
    char *c;
    int64_t ldc;
    int64_t unit; /* rows or columns of C a block of the split */
} blas_job;

/* Blocks [b0, b1) of rows of a dense row-major C (unit rows a block) from
 * one BLAS call. */
static void blas_rows(void *arg, int64_t b0, int64_t b1)
{
    const blas_job *j = arg;
    int isz = mt_itemsize(j->d);
    int64_t i0 = b0 * j->unit, i1 = b1 * j->unit < j->m ? b1 * j->unit : j->m;
    const char *a = j->a + (j->ta ? i0 : i0 * j->lda) * isz;
    mt_blas_gemm(j->d, j->ta, j->tb, i1 - i0, j->n, j->k, j->alpha, a, j->lda, j->b, j->ldb,
                 j->beta, j->c + i0 * j->ldc * isz, j->ldc);
}

/* Blocks [b0, b1) of columns of C, for products wider than tall. */
static void blas_cols(void *arg, int64_t b0, int64_t b1)
{
    const blas_job *j = arg;
    int isz = mt_itemsize(j->d);
    int64_t j0 = b0 * j->unit, j1 = b1 * j->unit < j->n ? b1 * j->unit : j->n;
    const char *b = j->b + (j->tb ? j0 * j->ldb : j0) * isz;
    mt_blas_gemm(j->d, j->ta, j->tb, j->m, j1 - j0, j->k, j->alpha, j->a, j->lda, b, j->ldb,
                 j->beta, j->c + j0 * isz, j->ldc);
}

/* Our threads' shares of one BLAS product: the larger of m and n is split
 * (each thread then reads all of the smaller operand and its part of the
 * larger one), in whole blocks of the library's tiling, into as many equal
 * parts as there are threads that each get half PARALLEL_MIN_WORK; one call
 * when that is one part. */
static void blas_split(blas_job *j)
{
    double work = (double)j->m * (double)j->n * (double)j->k;
    int64_t parts = (int64_t)(2 * work / PARALLEL_MIN_WORK);
    int nt = mt_get_num_threads();
    if (parts > nt)
        parts = nt;
    bool by_rows = j->m >= j->n;
    j->unit = by_rows ? BLAS_ROW_UNIT : BLAS_COL_UNIT;
    int64_t blocks = ((by_rows ? j->m : j->n) + j->unit - 1) / j->unit;
    if (parts < 2 || blocks < 2) {
        j->unit = j->m;
        blas_rows(j, 0, 1);
        return;
    }
    mt_parallel_for(0, blocks, (blocks + parts - 1) / parts, by_rows ? blas_rows : blas_cols, j);
}

/* C (row-major in place) = alpha A B + beta C with BLAS; C^T = B^T A^T when C
 * is column-major; a dense scratch C otherwise. */
static int gemm_blas(mt_dtype d, int64_t m, int64_t n, int64_t k, mat A, mat B, char *c,
                     int64_t crs, int64_t ccs, mt_gemm_scale al, mt_gemm_scale be)
{
    int isz = mt_itemsize(d), rc = -1;
    char *abuf = NULL, *bbuf = NULL, *cbuf = NULL;
    bool cta;
    int64_t ldc;
    if (blas_view(m, n, crs, ccs, &cta, &ldc) && cta && m > 1) {
        mat t = {A.p, k, m, A.cs, A.rs};
        A = (mat){B.p, n, k, B.cs, B.rs};
        B = t;
        int64_t s = m;
        m = n;
        n = s;
        s = crs;
        crs = ccs;
        ccs = s;
        cta = false;
    }
    bool dense_c = blas_view(m, n, crs, ccs, &cta, &ldc) && !cta;
    char *cp = c;
    if (!dense_c) {
        cbuf = malloc((size_t)(m * n) * isz);
        if (!cbuf)
            return mt_error(MT_ERR_MEMORY, "out of memory in matmul");
        cp = cbuf;
        ldc = n;
    }
    const char *ap, *bp;
    bool ta, tb;
    int64_t lda, ldb;
    if (blas_operand(&A, isz, &abuf, &ap, &ta, &lda) < 0 ||
        blas_operand(&B, isz, &bbuf, &bp, &tb, &ldb) < 0)
        goto done;
    blas_job bj = {d, ta, tb, m, n, k, al.f, ap, lda, bp, ldb, dense_c ? be.f : 0.0, cp, ldc, m};
    double work = (double)m * (double)n * (double)k;
    /* our threads split C when each BLAS call runs on one (always, where the
     * library allows it; else below the size where it starts its own) */
    if (work < BLAS_SERIAL_WORK || mt_blas_single_threaded())
        blas_split(&bj);
    else
        blas_rows(&bj, 0, 1);
    if (!dense_c)
        combine(d, c, crs, ccs, cbuf, m, n, (mt_gemm_scale){1.0, 1}, be);
    rc = 0;
done:
    free(abuf);
    free(bbuf);
    free(cbuf);
    return rc;
}

/* The row length (in items) of a packed B: an odd number of cache lines,
 * so the kernel's walk down a strip of columns (and the pack's stores down
 * them) visits every cache set; rows a power of two of lines apart (n =
 * 512: 2 KB; n = 4096: 16 KB) all land in one or two sets and evict each
 * other from L1 (64 x 4096 W^T packed and multiplied at m = 8 in about
 * twice the time of 64 x 4080). */
static int64_t packed_ld(int64_t n, int isz)
{
    int64_t per_line = 64 / isz, lines = (n + per_line - 1) / per_line;
    return (lines | 1) * per_line;
}

/* Bytes of packed B a block of its columns fills: packed and then read by
 * every row of A while it stays in L2 (1 MB per core here, beside a panel of
 * A's rows). All of a large W^T at once (1024 x 1024: 4 MB) was written out
 * to L3 and read back from there by each panel. */
#define PACKED_BLOCK_BYTES (256 * 1024)

/* A product whose B is packed a block of columns at a time. */
typedef struct {
    tile_job job; /* all of C's columns; a block's copy narrows it */
    const char *b;
    int64_t brs, bcs, width, ld;
    atomic_int failed;
} packed_job;

/* Column blocks [b0, b1): each packed into this thread's buffer (from the
 * caching allocator: a fresh 256 KB block faults in and zeroes 64 pages on
 * every call) and multiplied by all of A's rows. */
static void packed_blocks(void *arg, int64_t b0, int64_t b1)
{
    packed_job *pj = arg;
    tile_job j = pj->job;
    int isz = mt_itemsize(j.d);
    void *buf;
    size_t size;
    void *block = mt_alloc((size_t)(j.k * pj->ld) * isz, 64, false, &buf, &size);
    if (!block) {
        atomic_store(&pj->failed, 1);
        return;
    }
    for (int64_t blk = b0; blk < b1 && !atomic_load(&pj->failed); blk++) {
        int64_t c0 = blk * pj->width;
        j.n = pj->job.n - c0 < pj->width ? pj->job.n - c0 : pj->width;
        j.t = pj->job.t + c0 * isz;
        j.b = buf;
        j.ldb = pj->ld;
        mt_gemm_pack(buf, pj->ld, pj->b + c0 * pj->bcs * isz, j.k, j.n, pj->brs, pj->bcs, isz);
        if (product(j.d, &j, j.m) < 0)
            atomic_store(&pj->failed, 1);
    }
    mt_alloc_free(block, size);
}

/* B (not row-contiguous) packed by blocks of columns. Several blocks are
 * split over the threads, each packing its own (the pack was a serial pass
 * before a parallel product: at m = 4 the whole of it); blocks come in a
 * multiple of the thread count, so no thread is left with one less. One
 * block is packed once and its product split by rows. */
static int packed_product(tile_job *j, const mat *B)
{
    int isz = mt_itemsize(j->d), nt = mt_get_num_threads();
    int64_t n = j->n, per_block = PACKED_BLOCK_BYTES / isz / (j->k > 0 ? j->k : 1);
    int64_t blocks = (n + per_block - 1) / (per_block > 0 ? per_block : 1);
    if (blocks > 1)
        blocks = (blocks + nt - 1) / nt * nt;
    int64_t width = (n + blocks - 1) / blocks;
    width = (width + MT_GEMM_COLS - 1) / MT_GEMM_COLS * MT_GEMM_COLS;
    blocks = (n + width - 1) / width;
    packed_job pj = {*j, B->p, B->rs, B->cs, width, packed_ld(width, isz)};
    atomic_init(&pj.failed, 0);
    double work = (double)j->m * (double)n * (double)j->k;
    mt_parallel_for(0, blocks, work >= PARALLEL_MIN_WORK ? 1 : blocks + 1, packed_blocks, &pj);
    return atomic_load(&pj.failed) ? mt_error(MT_ERR_MEMORY, "out of memory in matmul") : 0;
}

/* B with its rows contiguous is read in place below PACK_MIN_M rows; from
 * there a pass packing it repays itself: the kernel then reads dense strips
 * an odd number of lines apart, which stay in L1 and L2 while every block of
 * rows passes over them, where B's own rows a power of two of lines apart
 * evict each other, and rows not aligned to a line split every load (1
 * thread, loaded machine, us, in place against packed, torch beside: 256 x
 * 64 @ 64 x 4096 1034/888, torch 1001-1082; 1024 x 500 @ 500 x 500
 * 3392/3162, torch 3044-3092; 1024 x 784 @ 784 x 512 5537/5337, torch
 * 4902-5041; 256 x 1024 @ 1024 x 1024 7.9/3.8 ms, BLAS 4.0; at 128 rows
 * alike). Below it, a column strip of B read in place stays in L2 for the
 * next block of rows only if L2 holds its k rows: rows ld bytes apart fall
 * into L2_SET_PERIOD / gcd(ld, L2_SET_PERIOD) groups of the cache's sets,
 * each L2_WAYS lines deep (strip_rows). A longer B is read in depth chunks
 * of a DEPTH_CHUNK_PART of that, each chunk's strip read by every block of
 * rows from L2 (1 thread, loaded machine, us, chunks against the whole
 * depth, or the pack from 32 rows as before, torch beside: 16 x 1024 @ 1024
 * x 1024 263-282/395, torch 323-397; 32 rows 492/685, torch 612-640; 64 rows
 * 942/1070, torch 1017-1075; 128 rows 1839/1854). */
#define L2_SET_PERIOD (128 * 1024)
#define L2_WAYS 16
#define PACK_MIN_M 128
#define DEPTH_CHUNK_PART 4
static int64_t strip_rows(int64_t ld_bytes)
{
    int64_t a = L2_SET_PERIOD, b = ld_bytes % L2_SET_PERIOD;
    while (b != 0) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return L2_WAYS * (L2_SET_PERIOD / a);
}

/* A stored transposed (its columns contiguous) is read in place up to this
 * many rows; past them it is packed row-major once (rows an odd number of
 * cache lines apart, packed_ld), as B is: read in place down its columns,
 * m items apart (4 KB at m = 1024, every step in the same cache set), the
 * kernel waited on A (own_beats_blas). */
#define OWN_TRANSPOSED_A_MAX_M 64

/* Rows of A a unit of the pack's thread split copies. */
#define PACK_A_ROWS 64

typedef struct {
    const mat *a;
    char *dst;
    int64_t ld;
    int isz;
} pack_a_job;

static void pack_a_rows(void *arg, int64_t u0, int64_t u1)
{
    const pack_a_job *pj = arg;
    const mat *a = pj->a;
    int64_t r0 = u0 * PACK_A_ROWS, r1 = u1 * PACK_A_ROWS < a->rows ? u1 * PACK_A_ROWS : a->rows;
    mt_gemm_pack(pj->dst + r0 * pj->ld * pj->isz, pj->ld, a->p + r0 * a->rs * pj->isz, r1 - r0,
                 a->cols, a->rs, a->cs, pj->isz);
}

/* A transposed, copied row-major into a block of the caching allocator
 * (*block, *size for mt_alloc_free), split over the threads by rows as the
 * product after it is. */
static int pack_transposed_a(mat *A, int isz, int64_t n, void **block, size_t *size)
{
    int64_t ld = packed_ld(A->cols, isz);
    void *buf;
    *block = mt_alloc((size_t)(A->rows * ld) * isz, 64, false, &buf, size);
    if (!*block)
        return mt_error(MT_ERR_MEMORY, "out of memory in matmul");
    pack_a_job pj = {A, buf, ld, isz};
    int64_t units = (A->rows + PACK_A_ROWS - 1) / PACK_A_ROWS;
    double work = (double)A->rows * (double)A->cols * (double)n;
    mt_parallel_for(0, units, work >= PARALLEL_MIN_WORK ? 1 : units + 1, pack_a_rows, &pj);
    *A = (mat){buf, A->rows, A->cols, ld, 1};
    return 0;
}

static int gemm_own(mt_dtype d, int64_t m, int64_t n, int64_t k, mat A, mat B, char *c, int64_t crs,
                    int64_t ccs, mt_gemm_scale al, mt_gemm_scale be)
{
    int isz = mt_itemsize(d);
    void *ablock = NULL;
    size_t asize = 0;
    if (mt_is_floating(d) && A.rs == 1 && A.cs != 1 && m > OWN_TRANSPOSED_A_MAX_M && k > 1 &&
        pack_transposed_a(&A, isz, n, &ablock, &asize) < 0)
        return -1;
    /* A plain product into row-major C is written in place: a scratch result
     * would cost a pass, and on two threads a transfer of the other core's
     * rows. */
    bool fl = mt_is_floating(d);
    bool plain = fl ? al.f == 1 && be.f == 0 : al.i == 1 && be.i == 0;
    /* float32's kernel adds C itself (addmm's bias, copied into C first) */
    bool acc = d == MT_FLOAT32 && al.f == 1 && be.f == 1;
    bool direct = (plain || acc) && (ccs == 1 || n == 1) && (crs >= n || m == 1);
    char *t = direct ? c : malloc((size_t)(m * n) * isz + 1);
    if (!t) {
        if (ablock)
            mt_alloc_free(ablock, asize);
        return mt_error(MT_ERR_MEMORY, "out of memory in matmul");
    }
    tile_job j = {d, A.p, A.rs, A.cs, B.p, B.rs, t, direct ? crs : n, m, n, k, NULL, direct && acc};
    bool pack = B.cs != 1 || (fl && m >= PACK_MIN_M);
    if (!pack && fl && m > MT_GEMM_MAX_ROWS && k > strip_rows(B.rs * isz))
        j.kc = strip_rows(B.rs * isz) / DEPTH_CHUNK_PART;
    int rc = pack && n > 1 ? packed_product(&j, &B) : product(d, &j, m);
    if (rc == 0 && !direct)
        combine(d, c, crs, ccs, t, m, n, al, be);
    if (!direct)
        free(t);
    if (ablock)
        mt_alloc_free(ablock, asize);
    return rc;
}

/* Y = alpha * V M^T + beta * Y for nv vectors: the form of a product with
 * one column (M = A, the vector B's column, Y = C's column), one row (M =
 * B^T, the vector A's row) or a few rows against a transposed B (x @ W^T,
 * nn.Linear's product: M = W, the vectors A's rows, Y = C), which reads the
 * rows of M in place instead of packing B. M is r x c with element (i, l)
 * at m[i * mrs + l * mcs]; vector p's element l at v[p * vrs + l * vcs];
 * Y's element (p, i) at y[p * yrs + i * ycs]. */
typedef struct {
    mt_dtype d;
    const char *m;
    int64_t mrs, mcs;
    const char *v;
    int64_t vrs, vcs, nv;
    char *y;
    int64_t yrs, ycs, r, c;
    mt_gemm_scale al, be;
} gemv_job;

/* Values of Y a block holds on the stack (over all vectors). */
#define GEMV_BLOCK 1024
/* Values of Y in a unit of the thread split: whole cache lines of Y, and
 * whole column units of the register-blocked kernel (axpys). */
#define GEMV_UNIT 16
_Static_assert(GEMV_UNIT % MT_GEMM_COLS == 0 && GEMV_UNIT % MT_GEMM_COLS_F64 == 0, "gemv unit");
/* Bytes of M from which its rows are split over threads (whole units each):
 * both types break even between 128 and 256 KB (M @ x on 1 thread against
 * 2, lightly loaded machine, us: float32 M 128 x 256 1.37/1.48, 128 x 512
 * 2.20/1.90, 512 x 512 7.2/4.6; float64 64 x 256 1.52/1.54, 128 x 256
 * 2.62/2.10, 512 x 512 35/13, its 1 MB halves kept in each core's L2). */
#define GEMV_PARALLEL_MIN_BYTES (256.0 * 1024)
/* Units a thread takes at least in the axpy form: the widest block of the
 * register-blocked kernel (float32's 8 vectors of 16; fewer columns leave it
 * too few sums to hide its latency: 1 x 2048 @ 2048 x 32 in 2.6 us on one
 * thread, 3.3 split in 16 columns each). */
#define GEMV_AXPY_MIN_UNITS 8
/* Elements of M from which the axpy form streams it from memory. */
#define GEMV_STREAM_ELEMS (1024.0 * 1024)
/* Vectors a row of M is dotted with per pass (and rows of M per pass with
 * them, 2; one vector alone goes against 4 rows): each chunk of a row,
 * loaded once, serves all the vectors, each chunk of a vector all the rows. */
#define DOT_VECS 4
/* Stack room for aligned copies of the vectors (16 x 512 floats). */
#define VEC_COPY_BYTES (32 * 1024)
/* Unaligned loads: the type's alignment is its element's. */
typedef float dvec_f4 __attribute__((vector_size(32), aligned(4)));
typedef double dvec_f8 __attribute__((vector_size(32), aligned(8)));

/* Lane masks for the last, partial chunk of a dot: KEEP(sfx, t) has its last
 * t lanes all ones and the others zero. The chunk is loaded ending at the
 * row's end, overlapping the one before; both factors are masked, so the
 * overlap adds exact zeros (never 0 * inf) and the tail needs no scalar loop,
 * which at k = 500 cost as much as a tenth of the row. */
static const int32_t keep32[32] = {0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
                                   -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
static const int64_t keep64[8] = {0, 0, 0, 0, -1, -1, -1, -1};
typedef int32_t ivec_f4 __attribute__((vector_size(32), aligned(4)));
typedef int64_t ivec_f8 __attribute__((vector_size(32), aligned(8)));
#define KEEP_f4 keep32
#define KEEP_f8 keep64
#define KEEP(sfx, t) \
    (*(const ivec_##sfx *)(KEEP_##sfx + sizeof(KEEP_##sfx) / sizeof(KEEP_##sfx[0]) / 2 - W + (t)))
/* Factors loaded once for two or four multiply-adds stay in registers
 * (MT_GEMM_PIN) in the AVX-512 dots: GCC loaded them again for each (2 x 500
 * @ (500 x 500)^T: each of W's unaligned rows twice). The ymm dots are
 * clones whose baseline splits a vector in two registers, so they cannot. */
#define PIN_f4(x) ((void)0)
#define PIN_f8(x) ((void)0)
#define TAIL_LOAD(sfx, p, k) ((dvec_##sfx)((ivec_##sfx)(*(const dvec_##sfx *)(p)) & (k)))
#define PLAIN_LOAD(sfx, p, k) (*(const dvec_##sfx *)(p))

/* t[p * len + i] = dot(row i of M, vector p) for DOT_VECS vectors from vp
 * (DOTS_2X4), two (DOTS_4X2: two rows of A against W^T read W once, where
 * two passes of DOTS_4X1 read it twice; 1 thread, loaded machine: 2 x 784
 * @ (512 x 784)^T in 34 against 47 us, 2 x 1024 @ (1024 x 1024)^T 163
 * against 218) or one (DOTS_4X1), M's rows and the vectors contiguous, in a
 * register's lanes of partial sums, the accumulators named so they stay in
 * registers; a last row short of a pass is computed again in its place.
 * Rows shorter than a register are summed one element at a time. */
#define LANES_SUM(sfx, T, v, out) LANES_SUM_##sfx(T, v, out)
#define LANES_SUM_IN_ORDER(T, v, out)                             \
    do {                                                          \
        for (int q_ = 0; q_ < (int)(sizeof(v) / sizeof(T)); q_++) \
            out += (v)[q_];                                       \
    } while (0)
#define LANES_SUM_f4 LANES_SUM_IN_ORDER
#define LANES_SUM_f8 LANES_SUM_IN_ORDER
#define STEP_2X4(sfx, LOAD, l, k)                                            \
    do {                                                                     \
        dvec_##sfx w0 = LOAD(sfx, r0 + (l), k), w1 = LOAD(sfx, r1 + (l), k); \
        dvec_##sfx x0 = LOAD(sfx, v0 + (l), k), x1 = LOAD(sfx, v1 + (l), k); \
        dvec_##sfx x2 = LOAD(sfx, v2 + (l), k), x3 = LOAD(sfx, v3 + (l), k); \
        PIN_##sfx(x0);                                                       \
        PIN_##sfx(x1);                                                       \
        PIN_##sfx(x2);                                                       \
        PIN_##sfx(x3);                                                       \
        a00 += w0 * x0;                                                      \
        a01 += w0 * x1;                                                      \
        a02 += w0 * x2;                                                      \
        a03 += w0 * x3;                                                      \
        a10 += w1 * x0;                                                      \
        a11 += w1 * x1;                                                      \
        a12 += w1 * x2;                                                      \
        a13 += w1 * x3;                                                      \
    } while (0)
#define DOTS_2X4(ATTR, sfx, T)                                                          \
    ATTR static void dots2x4_##sfx(T *restrict t, int64_t len, const T *m, int64_t mrs, \
                                   const T *vp, int64_t vrs, int64_t c)                 \
    {                                                                                   \
        enum { W = sizeof(dvec_##sfx) / sizeof(T) };                                    \
        const T *v0 = vp, *v1 = vp + vrs, *v2 = vp + 2 * vrs, *v3 = vp + 3 * vrs;       \
        for (int64_t i = 0; i < len; i += 2) {                                          \
            const T *r0 = m + i * mrs, *r1 = i + 1 < len ? r0 + mrs : r0;               \
            dvec_##sfx a00 = {0}, a01 = {0}, a02 = {0}, a03 = {0};                      \
            dvec_##sfx a10 = {0}, a11 = {0}, a12 = {0}, a13 = {0};                      \
            int64_t l = 0;                                                              \
            for (; l + W <= c; l += W)                                                  \
                STEP_2X4(sfx, PLAIN_LOAD, l, 0);                                        \
            if (l < c && c >= W) {                                                      \
                STEP_2X4(sfx, TAIL_LOAD, c - W, KEEP(sfx, c - l));                      \
                l = c;                                                                  \
            }                                                                           \
            T s[2][4] = {{0}};                                                          \
            for (int64_t x = l; x < c; x++) {                                           \
                s[0][0] += r0[x] * v0[x];                                               \
                s[0][1] += r0[x] * v1[x];                                               \
                s[0][2] += r0[x] * v2[x];                                               \
                s[0][3] += r0[x] * v3[x];                                               \
                s[1][0] += r1[x] * v0[x];                                               \
                s[1][1] += r1[x] * v1[x];                                               \
                s[1][2] += r1[x] * v2[x];                                               \
                s[1][3] += r1[x] * v3[x];                                               \
            }                                                                           \
            LANES_SUM(sfx, T, a00, s[0][0]);                                            \
            LANES_SUM(sfx, T, a01, s[0][1]);                                            \
            LANES_SUM(sfx, T, a02, s[0][2]);                                            \
            LANES_SUM(sfx, T, a03, s[0][3]);                                            \
            LANES_SUM(sfx, T, a10, s[1][0]);                                            \
            LANES_SUM(sfx, T, a11, s[1][1]);                                            \
            LANES_SUM(sfx, T, a12, s[1][2]);                                            \
            LANES_SUM(sfx, T, a13, s[1][3]);                                            \
            for (int r = 0; r < 2 && i + r < len; r++)                                  \
                for (int p = 0; p < 4; p++)                                             \
                    t[p * len + i + r] = s[r][p];                                       \
        }                                                                               \
    }
#define STEP_4X1(sfx, LOAD, l, k)             \
    do {                                      \
        dvec_##sfx x = LOAD(sfx, v + (l), k); \
        a0 += LOAD(sfx, r0 + (l), k) * x;     \
        a1 += LOAD(sfx, r1 + (l), k) * x;     \
        a2 += LOAD(sfx, r2 + (l), k) * x;     \
        a3 += LOAD(sfx, r3 + (l), k) * x;     \
    } while (0)
#define DOTS_4X1(ATTR, sfx, T)                                                                    \
    ATTR static void dots4x1_##sfx(T *restrict t, int64_t len, const T *m, int64_t mrs,           \
                                   const T *v, int64_t vrs, int64_t c)                            \
    {                                                                                             \
        enum { W = sizeof(dvec_##sfx) / sizeof(T) };                                              \
        (void)vrs;                                                                                \
        for (int64_t i = 0; i < len; i += 4) {                                                    \
            const T *r0 = m + i * mrs, *r1 = i + 1 < len ? r0 + mrs : r0;                         \
            const T *r2 = i + 2 < len ? r0 + 2 * mrs : r0, *r3 = i + 3 < len ? r0 + 3 * mrs : r0; \
            dvec_##sfx a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};                                    \
            int64_t l = 0;                                                                        \
            for (; l + W <= c; l += W)                                                            \
                STEP_4X1(sfx, PLAIN_LOAD, l, 0);                                                  \
            if (l < c && c >= W) {                                                                \
                STEP_4X1(sfx, TAIL_LOAD, c - W, KEEP(sfx, c - l));                                \
                l = c;                                                                            \
            }                                                                                     \
            T s[4] = {0};                                                                         \
            for (int64_t x = l; x < c; x++) {                                                     \
                s[0] += r0[x] * v[x];                                                             \
                s[1] += r1[x] * v[x];                                                             \
                s[2] += r2[x] * v[x];                                                             \
                s[3] += r3[x] * v[x];                                                             \
            }                                                                                     \
            LANES_SUM(sfx, T, a0, s[0]);                                                          \
            LANES_SUM(sfx, T, a1, s[1]);                                                          \
            LANES_SUM(sfx, T, a2, s[2]);                                                          \
            LANES_SUM(sfx, T, a3, s[3]);                                                          \
            for (int r = 0; r < 4 && i + r < len; r++)                                            \
                t[i + r] = s[r];                                                                  \
        }                                                                                         \
    }
DOTS_2X4(MT_CLONES_AVX2_FMA, f4, float)
#define STEP_4X2(sfx, LOAD, l, k)                                            \
    do {                                                                     \
        dvec_##sfx x0 = LOAD(sfx, v0 + (l), k), x1 = LOAD(sfx, v1 + (l), k); \
        dvec_##sfx w0 = LOAD(sfx, r0 + (l), k), w1 = LOAD(sfx, r1 + (l), k); \
        dvec_##sfx w2 = LOAD(sfx, r2 + (l), k), w3 = LOAD(sfx, r3 + (l), k); \
        PIN_##sfx(w0);                                                       \
        PIN_##sfx(w1);                                                       \
        PIN_##sfx(w2);                                                       \
        PIN_##sfx(w3);                                                       \
        a00 += w0 * x0;                                                      \
        a01 += w0 * x1;                                                      \
        a10 += w1 * x0;                                                      \
        a11 += w1 * x1;                                                      \
        a20 += w2 * x0;                                                      \
        a21 += w2 * x1;                                                      \
        a30 += w3 * x0;                                                      \
        a31 += w3 * x1;                                                      \
    } while (0)
#define DOTS_4X2(ATTR, sfx, T)                                                                    \
    ATTR static void dots4x2_##sfx(T *restrict t, int64_t len, const T *m, int64_t mrs,           \
                                   const T *vp, int64_t vrs, int64_t c)                           \
    {                                                                                             \
        enum { W = sizeof(dvec_##sfx) / sizeof(T) };                                              \
        const T *v0 = vp, *v1 = vp + vrs;                                                         \
        for (int64_t i = 0; i < len; i += 4) {                                                    \
            const T *r0 = m + i * mrs, *r1 = i + 1 < len ? r0 + mrs : r0;                         \
            const T *r2 = i + 2 < len ? r0 + 2 * mrs : r0, *r3 = i + 3 < len ? r0 + 3 * mrs : r0; \
            dvec_##sfx a00 = {0}, a01 = {0}, a10 = {0}, a11 = {0};                                \
            dvec_##sfx a20 = {0}, a21 = {0}, a30 = {0}, a31 = {0};                                \
            int64_t l = 0;                                                                        \
            for (; l + W <= c; l += W)                                                            \
                STEP_4X2(sfx, PLAIN_LOAD, l, 0);                                                  \
            if (l < c && c >= W) {                                                                \
                STEP_4X2(sfx, TAIL_LOAD, c - W, KEEP(sfx, c - l));                                \
                l = c;                                                                            \
            }                                                                                     \
            T s[4][2] = {{0}};                                                                    \
            for (int64_t x = l; x < c; x++) {                                                     \
                s[0][0] += r0[x] * v0[x];                                                         \
                s[0][1] += r0[x] * v1[x];                                                         \
                s[1][0] += r1[x] * v0[x];                                                         \
                s[1][1] += r1[x] * v1[x];                                                         \
                s[2][0] += r2[x] * v0[x];                                                         \
                s[2][1] += r2[x] * v1[x];                                                         \
                s[3][0] += r3[x] * v0[x];                                                         \
                s[3][1] += r3[x] * v1[x];                                                         \
            }                                                                                     \
            LANES_SUM(sfx, T, a00, s[0][0]);                                                      \
            LANES_SUM(sfx, T, a01, s[0][1]);                                                      \
            LANES_SUM(sfx, T, a10, s[1][0]);                                                      \
            LANES_SUM(sfx, T, a11, s[1][1]);                                                      \
            LANES_SUM(sfx, T, a20, s[2][0]);                                                      \
            LANES_SUM(sfx, T, a21, s[2][1]);                                                      \
            LANES_SUM(sfx, T, a30, s[3][0]);                                                      \
            LANES_SUM(sfx, T, a31, s[3][1]);                                                      \
            for (int r = 0; r < 4 && i + r < len; r++)                                            \
                for (int p = 0; p < 2; p++)                                                       \
                    t[p * len + i + r] = s[r][p];                                                 \
        }                                                                                         \
    }
DOTS_4X1(MT_CLONES_AVX2_FMA, f4, float)
DOTS_4X2(MT_CLONES_AVX2_FMA, f4, float)
DOTS_2X4(MT_CLONES_AVX2_FMA, f8, double)
DOTS_4X1(MT_CLONES_AVX2_FMA, f8, double)
DOTS_4X2(MT_CLONES_AVX2_FMA, f8, double)

/* The same dots on 16 floats a register (z4), each sum's lanes added as a
 * tree (the same tree every call). float64 keeps its 4-lane dots at every
 * level: its products give the same bits on every level that fuses
 * (test_kernels_gemm_f64), which float32's dots no longer do. */
typedef void (*dots_f4_fn)(float *restrict t, int64_t len, const float *m, int64_t mrs,
                           const float *vp, int64_t vrs, int64_t c);
typedef void (*dots_f8_fn)(double *restrict t, int64_t len, const double *m, int64_t mrs,
                           const double *vp, int64_t vrs, int64_t c);
#ifdef MT_HAVE_AVX512
typedef float dvec_z4 __attribute__((vector_size(64), aligned(4)));
typedef int32_t ivec_z4 __attribute__((vector_size(64), aligned(4)));
#define KEEP_z4 keep32
#define PIN_z4 MT_GEMM_PIN
/* a tree of adds of halves, in registers: the sixteen adds in order took
 * longer than the products at k = 64, 2 x 64 @ (4096 x 64)^T */
#define LANES_SUM_z4(T, v, out) (out += _mm512_reduce_add_ps((__m512)(v)))
/* fp-contract: GCC in ISO C mode would not fuse the multiply-adds */
#if defined(__clang__)
#define DOTS_AVX512 MT_TARGET_AVX512
#else
#define DOTS_AVX512 MT_TARGET_AVX512 __attribute__((optimize("fp-contract=fast")))
#endif
DOTS_2X4(DOTS_AVX512, z4, float)
DOTS_4X1(DOTS_AVX512, z4, float)
DOTS_4X2(DOTS_AVX512, z4, float)
#endif

/* R vectors (R < MR: the rows of a product too short for the register-
 * blocked kernel) against M in any other layout: v[l] times column l of M
 * added in turn, which runs along memory when M's columns are contiguous
 * (B's rows, or a weight read as W^T), each chunk loaded once for all R. */
#define AXPY_KERNEL(ATTR, sfx, T, R)                                                       \
    ATTR static void axpys##R##_##sfx(T *restrict t, int64_t len, int64_t ldt, const T *m, \
                                      int64_t mrs, int64_t mcs, const T *v, int64_t vrs,   \
                                      int64_t vcs, int64_t c)                              \
    {                                                                                      \
        for (int p = 0; p < R; p++)                                                        \
            memset(t + p * ldt, 0, len * sizeof(T));                                       \
        for (int64_t l = 0; l < c; l++) {                                                  \
            const T *restrict col = m + l * mcs;                                           \
            T x[R];                                                                        \
            for (int p = 0; p < R; p++)                                                    \
                x[p] = v[p * vrs + l * vcs];                                               \
            if (mrs == 1)                                                                  \
                for (int64_t i = 0; i < len; i++)                                          \
                    for (int p = 0; p < R; p++)                                            \
                        t[p * ldt + i] += x[p] * col[i];                                   \
            else                                                                           \
                for (int64_t i = 0; i < len; i++)                                          \
                    for (int p = 0; p < R; p++)                                            \
                        t[p * ldt + i] += x[p] * col[i * mrs];                             \
        }                                                                                  \
    }
AXPY_KERNEL(MT_CLONES_AVX2_FMA, f4, float, 1)
AXPY_KERNEL(MT_CLONES_AVX2_FMA, f4, float, 2)
AXPY_KERNEL(MT_CLONES_AVX2_FMA, f4, float, 3)
AXPY_KERNEL(MT_CLONES_AVX2_FMA, f8, double, 1)
AXPY_KERNEL(MT_CLONES_AVX2_FMA, f8, double, 2)
AXPY_KERNEL(MT_CLONES_AVX2_FMA, f8, double, 3)
#ifdef MT_HAVE_AVX512
/* the compiler's 16-float vectors: each value's terms still one fused
 * multiply-add each, in order. float64 keeps its 4-lane axpys at every
 * level, as its dots: clang's AVX2 clone and this form gave different bits
 * (test_kernels_gemm_f64 under the clang build), which float64's products
 * may not. */
AXPY_KERNEL(DOTS_AVX512, z4, float, 1)
AXPY_KERNEL(DOTS_AVX512, z4, float, 2)
AXPY_KERNEL(DOTS_AVX512, z4, float, 3)
#endif
_Static_assert(MR == 4, "axpys1..3 cover the rows under MR");

typedef void (*axpys_f4_fn)(float *restrict t, int64_t len, int64_t ldt, const float *m,
                            int64_t mrs, int64_t mcs, const float *v, int64_t vrs, int64_t vcs,
                            int64_t c);
typedef void (*axpys_f8_fn)(double *restrict t, int64_t len, int64_t ldt, const double *m,
                            int64_t mrs, int64_t mcs, const double *v, int64_t vrs, int64_t vcs,
                            int64_t c);
/* One level's dots of one, two and DOT_VECS vectors and axpys of one to
 * three, float32 and float64. */
typedef struct {
    dots_f4_fn f4[3];
    dots_f8_fn f8[3];
    axpys_f4_fn a4[3];
    axpys_f8_fn a8[3];
} dots_level;

/* The dots and axpys at the small kernel's level (mt_gemm_f32_wide), so
 * every dot of a process sums one way. */
static const dots_level *dots(void)
{
    static const dots_level ymm = {{dots4x1_f4, dots4x2_f4, dots2x4_f4},
                                   {dots4x1_f8, dots4x2_f8, dots2x4_f8},
                                   {axpys1_f4, axpys2_f4, axpys3_f4},
                                   {axpys1_f8, axpys2_f8, axpys3_f8}};
#ifdef MT_HAVE_AVX512
    static const dots_level zmm = {{dots4x1_z4, dots4x2_z4, dots2x4_z4},
                                   {dots4x1_f8, dots4x2_f8, dots2x4_f8},
                                   {axpys1_z4, axpys2_z4, axpys3_z4},
                                   {axpys1_f8, axpys2_f8, axpys3_f8}};
    if (mt_gemm_f32_wide())
        return &zmm;
#endif
    return &ymm;
}

/* The axpy form. With M's columns contiguous (B's rows read in place, or A
 * stored transposed against one column) the whole column units of the block
 * run through the register-blocked kernel, its sums in registers over all
 * of c where axpys load and store each partial sum for every term, and the
 * rest through axpys (1 thread, loaded machine: 1 x 784 @ 784 x 512 in
 * 14-16 against 24 us; OpenBLAS's sgemv 23), but for more than one vector
 * against an M of GEMV_STREAM_ELEMS or more, streamed from memory, where
 * the kernel's prefetches (a block of one row has none) cost more than they
 * save: 2 x 1024 @ 1024 x 1024 in 270 against 213 us.
 * Both sum each value in order, a term at a time, fused where the level
 * fuses; a split at whole units leaves every value to the same one. */
static void axpys(const gemv_job *g, void *t, int64_t len, const char *m)
{
    int isz = mt_itemsize(g->d);
    bool kernel = g->mrs == 1 && (g->nv == 1 || (double)g->r * (double)g->c < GEMV_STREAM_ELEMS);
    int64_t full = kernel ? len - len % cols_of(g->d) : 0;
    if (full > 0)
        mt_gemm_float(g->d, g->nv, full, g->c, g->v, g->vrs, g->vcs, m, g->mcs, t, len, false);
    if (full == len)
        return;
    int which = g->nv < 3 ? (int)g->nv - 1 : 2;
    char *tr = (char *)t + full * isz;
    m += full * g->mrs * isz;
    if (g->d == MT_FLOAT32)
        dots()->a4[which]((float *)tr, len - full, len, (const float *)m, g->mrs, g->mcs,
                          (const float *)g->v, g->vrs, g->vcs, g->c);
    else
        dots()->a8[which]((double *)tr, len - full, len, (const double *)m, g->mrs, g->mcs,
                          (const double *)g->v, g->vrs, g->vcs, g->c);
}

static bool dots_layout(const gemv_job *g) { return g->c == 1 || (g->mcs == 1 && g->vcs == 1); }

/* Rows [i0, i1) of M (columns of Y) through a scratch block on the stack: no
 * pack and no allocation. Each value's sum runs the same way whatever the
 * split, so threads change no bit. */
static void gemv_rows(void *arg, int64_t i0, int64_t i1)
{
    gemv_job job = *(const gemv_job *)arg;
    const gemv_job *g = &job;
    _Alignas(64) double t[GEMV_BLOCK];
    int isz = mt_itemsize(g->d);
    bool f4 = g->d == MT_FLOAT32;
    int64_t step = GEMV_BLOCK / (g->nv < DOT_VECS ? DOT_VECS : g->nv);
    /* Vectors whose rows do not start on a cache line are dotted from an
     * aligned copy: a vector load then never spans two lines; W's rows are
     * read in place, so four of a pass's six loads are aligned. With the
     * masked tail, 8 x 500 @ (500 x 500)^T went from 88-92 to 65 us on one
     * core (torch 71; at k = 496, rows aligned, 73 before). Strided vectors
     * against M's contiguous rows are gathered into it, so they are dotted
     * too. */
    _Alignas(64) char vbuf[VEC_COPY_BYTES];
    int64_t ld = (g->c * isz + 63) / 64 * 64 / isz;
    if (g->mcs == 1 && g->c > 1 && g->nv * ld * isz <= VEC_COPY_BYTES &&
        (g->vcs != 1 || (uintptr_t)g->v & 63 || (g->nv > 1 && (g->vrs * isz) & 63))) {
        mt_gemm_pack(vbuf, ld, g->v, g->nv, g->c, g->vrs, g->vcs, isz);
        job.v = vbuf;
        job.vrs = ld;
        job.vcs = 1;
    }
    for (int64_t b0 = i0; b0 < i1; b0 += step) {
        int64_t len = i1 - b0 < step ? i1 - b0 : step;
        const char *m = g->m + b0 * g->mrs * isz;
        if (!dots_layout(g))
            axpys(g, t, len, m);
        for (int64_t p = 0; dots_layout(g) && p < g->nv;) {
            const char *vp = g->v + p * g->vrs * isz;
            char *tp = (char *)t + p * len * isz;
            int64_t vecs = g->nv - p >= DOT_VECS ? DOT_VECS : g->nv - p >= 2 ? 2 : 1;
            int which = vecs == DOT_VECS ? 2 : (int)vecs - 1;
            if (f4)
                dots()->f4[which]((float *)tp, len, (const float *)m, g->mrs, (const float *)vp,
                                  g->vrs, g->c);
            else
                dots()->f8[which]((double *)tp, len, (const double *)m, g->mrs, (const double *)vp,
                                  g->vrs, g->c);
            p += vecs;
        }
        combine(g->d, g->y + b0 * g->ycs * isz, g->yrs, g->ycs, (const char *)t, g->nv, len, g->al,
                g->be);
    }
}

/* Units of Y [u0, u1): GEMV_UNIT values each, the last one short. */
static void gemv_units(void *arg, int64_t u0, int64_t u1)
{
    const gemv_job *g = arg;
    gemv_rows(arg, u0 * GEMV_UNIT, u1 * GEMV_UNIT < g->r ? u1 * GEMV_UNIT : g->r);
}

/* Vectors a chunk of a narrow product takes (a block of Y then spans
 * GEMV_BLOCK / GEMV_VEC_CHUNK rows of M: all of one narrower than
 * MT_GEMM_COLS), and the multiply-adds from which its chunks are split over
 * the threads. */
#define GEMV_VEC_CHUNK 64
#define GEMV_VEC_PARALLEL_MIN_WORK (8 * PARALLEL_MIN_WORK)
_Static_assert(GEMV_BLOCK / GEMV_VEC_CHUNK >= MT_GEMM_COLS, "gemv chunk");

static void gemv_chunks(void *arg, int64_t c0, int64_t c1)
{
    const gemv_job *g = arg;
    int isz = mt_itemsize(g->d);
    for (int64_t p = c0 * GEMV_VEC_CHUNK; p < c1 * GEMV_VEC_CHUNK && p < g->nv;
         p += GEMV_VEC_CHUNK) {
        gemv_job h = *g;
        h.v += p * g->vrs * isz;
        h.y += p * g->yrs * isz;
        h.nv = g->nv - p < GEMV_VEC_CHUNK ? g->nv - p : GEMV_VEC_CHUNK;
        gemv_rows(&h, 0, h.r);
    }
}

static void gemv(mt_dtype d, int64_t m, int64_t n, int64_t k, mat A, mat B, char *c, int64_t crs,
                 int64_t ccs, mt_gemm_scale al, mt_gemm_scale be)
{
    gemv_job g = n == 1 && m > 1
                     ? (gemv_job){d, A.p, A.rs, A.cs, B.p, 0, B.rs, 1, c, 0, crs, m, k}
                     : (gemv_job){d, B.p, B.cs, B.rs, A.p, A.rs, A.cs, m, c, crs, ccs, n, k};
    g.al = al;
    g.be = be;
    /* a stride along a dim of one is arbitrary (0 too) */
    if (g.r == 1)
        g.ycs = 1;
    if (g.c == 1)
        g.vcs = 1;
    /* many vectors (the rows of a product narrower than a column unit of
     * the kernel, gemv_fit) go through in chunks, split over the threads */
    if (g.nv > GEMV_VEC_CHUNK && dots_layout(&g)) {
        int64_t chunks = (g.nv + GEMV_VEC_CHUNK - 1) / GEMV_VEC_CHUNK;
        double work = (double)g.r * (double)g.c * (double)g.nv;
        mt_parallel_for(0, chunks, work >= GEMV_VEC_PARALLEL_MIN_WORK ? 1 : chunks + 1, gemv_chunks,
                        &g);
        return;
    }
    double bytes = (double)g.r * (double)g.c * (double)mt_itemsize(d);
    int nt = mt_get_num_threads();
    int64_t units = (g.r + GEMV_UNIT - 1) / GEMV_UNIT, grain = (units + nt - 1) / nt;
    if (g.c > 1 && g.mcs != 1 && grain < GEMV_AXPY_MIN_UNITS)
        grain = GEMV_AXPY_MIN_UNITS;
    mt_parallel_for(0, units, bytes >= GEMV_PARALLEL_MIN_BYTES ? grain : units + 1, gemv_units, &g);
}

/* float32 products the register-blocked kernel runs faster than BLAS, with
 * its AVX-512 level (8 x 48 blocks, B's rows prefetched, B packed where its
 * layout needs it: PACK_MIN_M), on one AVX-512 Xeon core against
 * OpenBLAS 0.3.31's SkylakeX sgemm (1 thread, loaded machine, us, own
 * against BLAS): 64 x 1024 @ 1024 x 1024 1122/1248, W^T 1073/1211; 256 x
 * 1024 @ 1024 x 1024 3623/3750; 64 x 64 @ 64 x 4096 245/322; 1024 x 512 @
 * 512 x 512 3276/3502; 1024 x 1024 @ 1024 x 1024 W^T 14.5/13.4 ms and 14.5/12.8
 * as stored (alike: the machine's load moved both by 10%); below 64 rows
 * BLAS is 1.5-4x slower. A longer k is BLAS's, whose blocking of k keeps
 * its speed there. A stored transposed is ours too, packed row-major past
 * OWN_TRANSPOSED_A_MAX_M rows (1 thread, CPU time, loaded machine, us, own
 * against BLAS, torch beside: 256 x 64 @ 64 x 4096 816/1064, torch
 * 854-883; 1024 x 64 @ 64 x 4096 3279/4158, torch 3365-4709; 1024 x 784 @
 * 784 x 512 5274/5306, torch 4836-4953; 256 x 1024 @ 1024 x 1024
 * 3523/3911, torch 3103-3284). Without the AVX-512 kernel BLAS always. */
#define OWN_MAX_K 1024
static bool own_beats_blas(mt_dtype d, const mt_gemm_shape *s)
{
    return d == MT_FLOAT32 && s->k <= OWN_MAX_K && mt_gemm_f32_wide();
}

/* Products for the matrix-vector path: one row or column; float32 products
 * narrower than a column unit of the kernel (n < MT_GEMM_COLS) whose rows of
 * A and columns of B are contiguous (Linear(512 -> 10)), dot products at any
 * m, where the kernel ran its one-vector block padded to 16 columns after
 * packing B twice (1 thread, loaded machine, us, dots against kernel: 32 x
 * 512 @ (10 x 512)^T 5.7/9.5, 512 rows 52.6/71.7, 2048 rows 297/348, 4096
 * x 2048 @ (15 x 2048)^T 3077/10173 by BLAS); fewer than MR
 * rows against a B with its rows contiguous, streamed once for all of them
 * (the axpy form) and split over threads by columns,
 * where the row split has one block (loaded machine, fastest of 21 runs,
 * 1 thread against 2: 2 x 64 @ 64 x 4096 17.0/10.4 us, 3 x 784 @ 784 x
 * 512 32.3/17.6; BLAS packs all of B, 1024 x 1024 at m = 2 in 240 against
 * 136 us); and up to DOT_MAX_M rows of A @
 * W^T (B transposed: W's rows contiguous, and A's), dot products of W's rows
 * read in place, while they beat packing W^T (a pass over k x n, then the
 * kernel's faster product): the longer k, the more rows the dots' sums
 * amortize over, dots for m < 2 + k / DOT_K_PER_ROW. Measured on one core
 * (Zen 4), dots against pack, us: k 64 (n 4096) at m = 2 37/40, m = 3
 * 53/45; k 128 at m = 4 13/11; k 256 at m = 6 30/29; k 500 at m = 8 74/69;
 * k 784 at m = 12 133/132, m = 16 175/160; k 1024 (n 256) at m = 16
 * 109/130. With the AVX-512 dots (one AVX-512 Xeon core, loaded) m =
 * DOT_VECS, one pass reading W once, wins at any k: k 64 (n 4096) 47-50
 * against 61 us, while m = 8 there loses, 94-103 against 73. With their
 * factors held in registers (MT_GEMM_PIN) they amortize over half the k a
 * row, DOT_K_PER_ROW_WIDE (1 thread, loaded, dots against pack, us, torch
 * beside): k 500 at m = 16 91/93, torch 84-90; k 512 at m = 16 79/103,
 * torch 99-103; k 784 at m = 16 134/149-159, torch 139-174; k 64 at m = 8
 * 81-88/75-86, torch 58-66. */
#define DOT_MAX_M 16
#define DOT_K_PER_ROW 64
#define DOT_K_PER_ROW_WIDE 32
static bool gemv_fit(mt_dtype d, const mt_gemm_shape *s, const mt_gemm_operand *a,
                     const mt_gemm_operand *b)
{
    if (s->m == 1 || s->n == 1 || (s->m < MR && b->cs == 1))
        return true;
    if (d == MT_FLOAT32 && s->n < MT_GEMM_COLS && b->rs == 1 && a->cs == 1)
        return true;
    if (s->m > DOT_MAX_M || b->rs != 1 || a->cs != 1)
        return false;
    int64_t per_row = mt_gemm_f32_wide() ? DOT_K_PER_ROW_WIDE : DOT_K_PER_ROW;
    return (s->m - 2) * per_row < s->k || !own_beats_blas(d, s) ||
           (s->m == DOT_VECS && mt_gemm_f32_wide());
}

typedef struct {
    mt_dtype d;
    const mt_gemm_shape *s;
    const mt_gemm_operand *a, *b, *c;
    mt_gemm_scale alpha, beta;
    bool zero_product, gemv, blas;
    atomic_int failed;
} batch_job;

/* Product number `it` of the batch. */
static int gemm_item(batch_job *j, int64_t it)
{
    const mt_gemm_shape *s = j->s;
    int isz = mt_itemsize(j->d);
    int64_t oa = mt_item_offset(s->nbatch, s->batch, j->a->bs, it);
    int64_t ob = mt_item_offset(s->nbatch, s->batch, j->b->bs, it);
    int64_t oc = mt_item_offset(s->nbatch, s->batch, j->c->bs, it);
    mat A = {j->a->data + oa * isz, s->m, s->k, j->a->rs, j->a->cs};
    mat B = {j->b->data + ob * isz, s->k, s->n, j->b->rs, j->b->cs};
    char *cp = j->c->data + oc * isz;
    if (j->zero_product) {
        combine(j->d, cp, j->c->rs, j->c->cs, NULL, s->m, s->n, j->alpha, j->beta);
        return 0;
    }
    if (j->gemv) {
        gemv(j->d, s->m, s->n, s->k, A, B, cp, j->c->rs, j->c->cs, j->alpha, j->beta);
        return 0;
    }
    if (j->blas)
        return gemm_blas(j->d, s->m, s->n, s->k, A, B, cp, j->c->rs, j->c->cs, j->alpha, j->beta);
    return gemm_own(j->d, s->m, s->n, s->k, A, B, cp, j->c->rs, j->c->cs, j->alpha, j->beta);
}

static void batch_range(void *arg, int64_t begin, int64_t end)
{
    batch_job *j = arg;
    for (int64_t it = begin; it < end && !atomic_load(&j->failed); it++)
        if (gemm_item(j, it) < 0)
            atomic_store(&j->failed, 1);
}

/* Folds the innermost batch dims into m while B repeats along them and the
 * rows of A and C run on from one item into the next: one product of
 * batch * m rows instead of batch products of m, as torch folds
 * (batch..., m, k) @ (k, n). Results may round otherwise, as OpenBLAS
 * picks its inner kernel by size (sgemm always, dgemm where it has a
 * small-matrix kernel: its SkylakeX build up to 10^6 multiply-adds). */
static void fold_batch(mt_gemm_shape *s, mt_gemm_operand *a, const mt_gemm_operand *b,
                       mt_gemm_operand *c)
{
    while (s->nbatch > 0) {
        int i = s->nbatch - 1;
        if (s->batch[i] != 1) {
            /* a single row has no row stride of its own: the batch's is it */
            int64_t ars = s->m == 1 ? a->bs[i] : a->rs, crs = s->m == 1 ? c->bs[i] : c->rs;
            if (b->bs[i] != 0 || a->bs[i] != s->m * ars || c->bs[i] != s->m * crs)
                return;
            s->m *= s->batch[i];
            a->rs = ars;
            c->rs = crs;
        }
        s->nbatch--;
    }
}

int mt_gemm(mt_dtype d, const mt_gemm_shape *shape, const mt_gemm_operand *a,
            const mt_gemm_operand *b, const mt_gemm_operand *c, mt_gemm_scale alpha,
            mt_gemm_scale beta)
{
    mt_gemm_shape fs = *shape;
    mt_gemm_operand fa = *a, fc = *c;
    const mt_gemm_shape *s = &fs;
    int64_t nb = 1;
    for (int i = 0; i < s->nbatch; i++)
        nb *= s->batch[i];
    if (nb == 0 || s->m == 0 || s->n == 0)
        return 0;
    fold_batch(&fs, &fa, b, &fc);
    nb = 1;
    for (int i = 0; i < s->nbatch; i++)
        nb *= s->batch[i];
    double work = (double)s->m * s->n * s->k;
    batch_job j = {d, s, &fa, b, &fc, alpha, beta};
    j.zero_product = s->k == 0 || (mt_is_floating(d) ? alpha.f == 0 : alpha.i == 0);
    /* torch makes a bool product without multiply-adds (k = 0) */
    bool supported = mt_is_integral(d, false) || d == MT_FLOAT32 || d == MT_FLOAT64;
    if (!supported && !(d == MT_BOOL && s->k == 0))
        return mt_error(MT_ERR_RUNTIME, "\"addmm_impl_cpu_\" not implemented for '%s'",
                        mt_dtype_infos[d].scalar_name);
    j.gemv = !j.zero_product && mt_is_floating(d) && gemv_fit(d, s, &fa, b);
    j.blas = !j.zero_product && !j.gemv && mt_blas_available() && mt_is_floating(d) &&
             work > BLAS_MIN_WORK && !own_beats_blas(d, s);
    atomic_init(&j.failed, 0);
    /* Products of their own result blocks run side by side on our threads
     * (each whole on one thread, BLAS included) when that splits evenly
     * enough, or when each is too small to split its rows instead; a
     * product split on one thread (BLAS's own) or into shared result
     * blocks runs one after the other. */
    bool disjoint = true;
    for (int i = 0; i < s->nbatch; i++)
        disjoint &= s->batch[i] == 1 || fc.bs[i] != 0;
    bool one_thread_each = work < BLAS_SERIAL_WORK || !j.blas || mt_blas_single_threaded();
    int nt = mt_get_num_threads();
    int64_t grain = 1 + (int64_t)(PARALLEL_MIN_WORK / 2 / (work + 1));
    bool by_items = one_thread_each && disjoint &&
                    (nb % nt == 0 || nb >= BATCH_ITEMS_PER_THREAD * nt || work < PARALLEL_MIN_WORK);
    if (j.blas)
        mt_blas_begin();
    /* an item split runs each product's own split inline (the pool is busy) */
    mt_parallel_for(0, nb, by_items ? grain : nb + 1, batch_range, &j);
    if (j.blas)
        mt_blas_end();
    /* a failed allocation on another thread left no message here */
    return atomic_load(&j.failed) ? mt_error(MT_ERR_MEMORY, "out of memory in matmul") : 0;
}
