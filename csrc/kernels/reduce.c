#include "reduce.h"
#include "iter.h"
#include "parallel.h"
#include "../core/portable.h"
#include "typed.h"
#include "complex_log_add_exp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Elements below which one thread does the whole job. */
#define GRAIN 32768
/* A float32 sum adds blocks this long in float lanes, then the block sums in
 * double: as fast as a plain float loop and far more accurate. */
#define SUM_BLOCK 2048
#define MAX_PARTIALS 256

/* The running state of one reduction; which fields mean what depends on the op. */
typedef struct {
    double f;    /* float value, mean (var), max (logsumexp) */
    double g;    /* m2 (var), scaled sum (logsumexp) */
    int64_t i;   /* integer value */
    int64_t n;   /* elements seen (var) */
    int64_t idx; /* position of the extremum, -1 before any */
} acc_t;

/* n elements from p (byte stride st); pos is the flat position of the first. */
typedef void (*red_fn)(acc_t *a, const char *p, int64_t n, int64_t st, int64_t pos, double param);

/* Values are computed as int64 for integral dtypes and double for floats. */
#define VAL_b1 int64_t
#define VAL_u1 int64_t
#define VAL_i1 int64_t
#define VAL_i2 int64_t
#define VAL_i4 int64_t
#define VAL_i8 int64_t
#define VAL_f2 double
#define VAL_bf double
#define VAL_f4 double
#define VAL_f8 double
#define FIELD_b1 i
#define FIELD_u1 i
#define FIELD_i1 i
#define FIELD_i2 i
#define FIELD_i4 i
#define FIELD_i8 i
#define FIELD_f2 f
#define FIELD_bf f
#define FIELD_f4 f
#define FIELD_f8 f

/* The state lives in a local so stores to it do not alias the input. */
#define RED_KERNEL(NAME, SFX, T, BODY)                                                      \
    MT_CLONES_AVX2 static void NAME##_##SFX(acc_t *a, const char *p, int64_t n, int64_t st, \
                                            int64_t pos, double param)                      \
    {                                                                                       \
        acc_t s = *a;                                                                       \
        (void)pos;                                                                          \
        (void)param;                                                                        \
        if (st == sizeof(T)) {                                                              \
            const T *q = (const T *)p;                                                      \
            for (int64_t k = 0; k < n; k++) {                                               \
                VAL_##SFX x = (VAL_##SFX)MT_LOAD_##SFX(q[k]);                               \
                BODY(SFX)                                                                   \
            }                                                                               \
        } else {                                                                            \
            for (int64_t k = 0; k < n; k++, p += st) {                                      \
                VAL_##SFX x = (VAL_##SFX)MT_LOAD_##SFX(*(const T *)p);                      \
                BODY(SFX)                                                                   \
            }                                                                               \
        }                                                                                   \
        *a = s;                                                                             \
    }

/* NaN wins and the first extremum wins, as in torch. */
#define MAX_BODY(SFX)                                                                     \
    if (s.idx < 0 || (s.FIELD_##SFX == s.FIELD_##SFX && (x > s.FIELD_##SFX || x != x))) { \
        s.FIELD_##SFX = x;                                                                \
        s.idx = pos + k;                                                                  \
    }
#define MIN_BODY(SFX)                                                                     \
    if (s.idx < 0 || (s.FIELD_##SFX == s.FIELD_##SFX && (x < s.FIELD_##SFX || x != x))) { \
        s.FIELD_##SFX = x;                                                                \
        s.idx = pos + k;                                                                  \
    }
#define SUM_BODY(SFX) s.FIELD_##SFX += x;
#define PROD_BODY(SFX) s.FIELD_##SFX *= x;
#define ALL_BODY(SFX) s.i &= x != 0;
#define ANY_BODY(SFX) s.i |= x != 0;
#define COUNT_BODY(SFX) s.i += x != 0;
#define VAR_BODY(SFX)                        \
    {                                        \
        double xd = (double)x, d = xd - s.f; \
        s.n++;                               \
        s.f += d / (double)s.n;              \
        s.g += d * (xd - s.f);               \
    }
#define NORM_BODY(SFX)                             \
    {                                              \
        double ax = fabs((double)x);               \
        if (param == 2.0)                          \
            s.f += ax * ax;                        \
        else if (param == 1.0)                     \
            s.f += ax;                             \
        else if (param == INFINITY)                \
            s.f = ax > s.f || ax != ax ? ax : s.f; \
        else if (param == -INFINITY)               \
            s.f = ax < s.f || ax != ax ? ax : s.f; \
        else if (param == 0.0)                     \
            s.f += ax != 0;                        \
        else                                       \
            s.f += pow(ax, param);                 \
    }
#define LSE_BODY(SFX) lse_merge(&s.f, &s.g, (double)x, 1.0);

/* Merges the log-sum-exp state (m2, s2) into (m, s): sum = s * exp(m). */
static inline void lse_merge(double *m, double *s, double m2, double s2)
{
    if (m2 != m2 || *m != *m) {
        *m = NAN;
        *s = 1;
    } else if (m2 == -INFINITY || s2 == 0) {
        return;
    } else if (*m == -INFINITY || *s == 0) {
        *m = m2;
        *s = s2;
    } else if (m2 == INFINITY || *m == INFINITY) {
        *m = INFINITY;
        *s = 1;
    } else if (m2 > *m) {
        *s = *s * exp(*m - m2) + s2;
        *m = m2;
    } else {
        *s += s2 * exp(m2 - *m);
    }
}

#define DEFINE_KERNELS(E, SFX, T)             \
    RED_KERNEL(red_sum, SFX, T, SUM_BODY)     \
    RED_KERNEL(red_prod, SFX, T, PROD_BODY)   \
    RED_KERNEL(red_max, SFX, T, MAX_BODY)     \
    RED_KERNEL(red_min, SFX, T, MIN_BODY)     \
    RED_KERNEL(red_all, SFX, T, ALL_BODY)     \
    RED_KERNEL(red_any, SFX, T, ANY_BODY)     \
    RED_KERNEL(red_count, SFX, T, COUNT_BODY) \
    RED_KERNEL(red_var, SFX, T, VAR_BODY)     \
    RED_KERNEL(red_norm, SFX, T, NORM_BODY)   \
    RED_KERNEL(red_lse, SFX, T, LSE_BODY)
MT_FOR_ALL_DTYPES(DEFINE_KERNELS)

/* Sums of contiguous runs: blocks of SUM_BLOCK added in four 32-byte vector
 * accumulators, the block sums in double: as fast as a plain loop and far
 * more accurate. (Wider zmm accumulators measured slower on Zen 4.) With
 * parts = 2 the lanes of even and odd elements stay apart (a complex run's
 * real and imaginary parts): s[k] += the sum of the elements k mod parts. */
#define BLOCK_SUM(SFX, T)                                                                        \
    typedef T vec32_##SFX __attribute__((vector_size(32)));                                      \
    typedef T vec16_##SFX __attribute__((vector_size(16)));                                      \
    MT_CLONES_AVX2 static void block_sums_##SFX(const T *x, int64_t n, int parts, double *s)     \
    {                                                                                            \
        enum { W = 32 / sizeof(T) };                                                             \
        vec32_##SFX a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, v0, v1, v2, v3;                      \
        int64_t i = 0;                                                                           \
        for (; i + 4 * W <= n; i += 4 * W) {                                                     \
            memcpy(&v0, x + i, sizeof v0);                                                       \
            memcpy(&v1, x + i + W, sizeof v1);                                                   \
            memcpy(&v2, x + i + 2 * W, sizeof v2);                                               \
            memcpy(&v3, x + i + 3 * W, sizeof v3);                                               \
            a0 += v0;                                                                            \
            a1 += v1;                                                                            \
            a2 += v2;                                                                            \
            a3 += v3;                                                                            \
        }                                                                                        \
        T tail[2] = {0, 0};                                                                      \
        for (; i < n; i++)                                                                       \
            tail[i % parts] += x[i];                                                             \
        a0 = (a0 + a1) + (a2 + a3);                                                              \
        vec16_##SFX lo, hi;                                                                      \
        memcpy(&lo, &a0, sizeof lo);                                                             \
        memcpy(&hi, (char *)&a0 + sizeof lo, sizeof hi);                                         \
        lo += hi;                                                                                \
        T lane[W / 2];                                                                           \
        memcpy(lane, &lo, sizeof lane);                                                          \
        for (int w = W / 4; w >= parts; w /= 2)                                                  \
            for (int k = 0; k < w; k++)                                                          \
                lane[k] += lane[k + w];                                                          \
        for (int k = 0; k < parts; k++)                                                          \
            s[k] += (double)lane[k] + (double)tail[k];                                           \
    }                                                                                            \
    static double block_sum_##SFX(const T *x, int64_t n)                                         \
    {                                                                                            \
        double s = 0;                                                                            \
        block_sums_##SFX(x, n, 1, &s);                                                           \
        return s;                                                                                \
    }                                                                                            \
    static double sum_run_##SFX(const T *x, int64_t n)                                           \
    {                                                                                            \
        double total = 0;                                                                        \
        for (int64_t i = 0; i < n; i += SUM_BLOCK)                                               \
            total += block_sum_##SFX(x + i, n - i < SUM_BLOCK ? n - i : SUM_BLOCK);              \
        return total;                                                                            \
    }                                                                                            \
    static void pair_sums_##SFX(const T *x, int64_t n, double *s)                                \
    {                                                                                            \
        for (int64_t i = 0; i < n; i += SUM_BLOCK)                                               \
            block_sums_##SFX(x + i, n - i < SUM_BLOCK ? n - i : SUM_BLOCK, 2, s);                \
    }                                                                                            \
    static void red_sum_fast_##SFX(acc_t *a, const char *p, int64_t n, int64_t st, int64_t pos,  \
                                   double param)                                                 \
    {                                                                                            \
        if (st != sizeof(T))                                                                     \
            red_sum_##SFX(a, p, n, st, pos, param);                                              \
        else                                                                                     \
            a->f += sum_run_##SFX((const T *)p, n);                                              \
    }                                                                                            \
    /* Squared deviations of a block from m, in double lanes: the variance   */                  \
    /* of a contiguous run is merged a block at a time (Chan's update) rather */                 \
    /* than element by element, which costs a division each.                 */                  \
    typedef T v4_##SFX __attribute__((vector_size(4 * sizeof(T))));                              \
    typedef double v4d_##SFX __attribute__((vector_size(32)));                                   \
    MT_CLONES_AVX2 static double block_dev2_##SFX(const T *x, int64_t n, double *m)              \
    {                                                                                            \
        v4d_##SFX q0 = {0}, q1 = {0}, s0 = {0}, s1 = {0}, d0, d1;                                \
        v4_##SFX u, v;                                                                           \
        int64_t i = 0;                                                                           \
        for (; i + 8 <= n; i += 8) {                                                             \
            memcpy(&u, x + i, sizeof u);                                                         \
            memcpy(&v, x + i + 4, sizeof v);                                                     \
            d0 = __builtin_convertvector(u, v4d_##SFX) - *m;                                     \
            d1 = __builtin_convertvector(v, v4d_##SFX) - *m;                                     \
            q0 += d0 * d0;                                                                       \
            q1 += d1 * d1;                                                                       \
            s0 += d0;                                                                            \
            s1 += d1;                                                                            \
        }                                                                                        \
        q0 += q1;                                                                                \
        s0 += s1;                                                                                \
        double q = (q0[0] + q0[1]) + (q0[2] + q0[3]), sd = (s0[0] + s0[1]) + (s0[2] + s0[3]);    \
        for (; i < n; i++) {                                                                     \
            double d = (double)x[i] - *m;                                                        \
            q += d * d;                                                                          \
            sd += d;                                                                             \
        }                                                                                        \
        /* *m was the block mean up to the float sum's rounding: correct both */                 \
        if (n == 0)                                                                              \
            return 0;                                                                            \
        *m += sd / (double)n;                                                                    \
        return q - sd * sd / (double)n;                                                          \
    }                                                                                            \
    static void red_var_fast_##SFX(acc_t *a, const char *p, int64_t n, int64_t st, int64_t pos,  \
                                   double param)                                                 \
    {                                                                                            \
        if (st != sizeof(T)) {                                                                   \
            red_var_##SFX(a, p, n, st, pos, param);                                              \
            return;                                                                              \
        }                                                                                        \
        const T *x = (const T *)p;                                                               \
        for (int64_t i = 0; i < n; i += SUM_BLOCK) {                                             \
            int64_t len = n - i < SUM_BLOCK ? n - i : SUM_BLOCK, total = a->n + len;             \
            double mb = block_sum_##SFX(x + i, len) / (double)len;                               \
            double m2 = block_dev2_##SFX(x + i, len, &mb), delta = mb - a->f;                    \
            a->f += delta * (double)len / (double)total;                                         \
            a->g += m2 + delta * delta * (double)a->n * (double)len / (double)total;             \
            a->n = total;                                                                        \
        }                                                                                        \
    }                                                                                            \
    /* Many short rows, each contiguous: one call for all of them, since the  */                 \
    /* general per-output path costs more than summing a few hundred values. */                  \
    static void inner_sum_##SFX(char *out, int64_t os, const char *in, int64_t is, int64_t rows, \
                                int64_t len, bool mean)                                          \
    {                                                                                            \
        for (int64_t r = 0; r < rows; r++) {                                                     \
            double t = sum_run_##SFX((const T *)(in + r * is), len);                             \
            *(T *)(out + r * os) = (T)(mean ? t / (double)len : t);                              \
        }                                                                                        \
    }
BLOCK_SUM(f4, float)
BLOCK_SUM(f8, double)

/* max/min without positions: a loop the compiler vectorises (maxps), with NaN
 * tracked on the side so it still wins. */
#define LANE_b1 uint8_t
#define LANE_u1 uint8_t
#define LANE_i1 int8_t
#define LANE_i2 int16_t
#define LANE_i4 int32_t
#define LANE_i8 int64_t
#define LANE_f2 float
#define LANE_bf float
#define LANE_f4 float
#define LANE_f8 double
#define EXT_KERNEL(NAME, SFX, T, CMP)                                                             \
    MT_CLONES_AVX2 static void NAME##_##SFX(acc_t *a, const char *p, int64_t n, int64_t st,       \
                                            int64_t pos, double param)                            \
    {                                                                                             \
        typedef LANE_##SFX lane_t;                                                                \
        typedef lane_t vec_t __attribute__((vector_size(32)));                                    \
        typedef __typeof__((vec_t){0} < (vec_t){0}) mask_t;                                       \
        enum { W = 32 / sizeof(lane_t) };                                                         \
        (void)param;                                                                              \
        if (n == 0)                                                                               \
            return;                                                                               \
        lane_t m = (lane_t)MT_LOAD_##SFX(*(const T *)p), nans = 0;                                \
        int64_t i = 0;                                                                            \
        if (st == sizeof(T) && sizeof(T) == sizeof(lane_t) && n >= 2 * W) {                       \
            vec_t m0, m1, x0, x1, n0 = {0}, n1 = {0};                                             \
            memcpy(&m0, p, sizeof m0);                                                            \
            m1 = m0;                                                                              \
            for (; i + 2 * W <= n; i += 2 * W) {                                                  \
                memcpy(&x0, p + i * sizeof(T), sizeof x0);                                        \
                memcpy(&x1, p + (i + W) * sizeof(T), sizeof x1);                                  \
                mask_t c0 = x0 CMP m0, c1 = x1 CMP m1, u0 = x0 != x0, u1 = x1 != x1;              \
                m0 = (vec_t)((c0 & (mask_t)x0) | (~c0 & (mask_t)m0));                             \
                m1 = (vec_t)((c1 & (mask_t)x1) | (~c1 & (mask_t)m1));                             \
                n0 = (vec_t)((u0 & (mask_t)x0) | (~u0 & (mask_t)n0));                             \
                n1 = (vec_t)((u1 & (mask_t)x1) | (~u1 & (mask_t)n1));                             \
            }                                                                                     \
            for (int k = 0; k < W; k++) {                                                         \
                m = m0[k] CMP m ? m0[k] : m;                                                      \
                m = m1[k] CMP m ? m1[k] : m;                                                      \
                nans = n0[k] != n0[k] ? n0[k] : nans;                                             \
                nans = n1[k] != n1[k] ? n1[k] : nans;                                             \
            }                                                                                     \
        }                                                                                         \
        for (; i < n; i++) {                                                                      \
            lane_t x = (lane_t)MT_LOAD_##SFX(*(const T *)(p + i * st));                           \
            m = x CMP m ? x : m;                                                                  \
            nans = x != x ? x : nans;                                                             \
        }                                                                                         \
        VAL_##SFX v = nans != nans ? (VAL_##SFX)nans : (VAL_##SFX)m;                              \
        if (a->idx < 0 || v != v || (a->FIELD_##SFX == a->FIELD_##SFX && v CMP a->FIELD_##SFX)) { \
            a->FIELD_##SFX = v;                                                                   \
            a->idx = pos;                                                                         \
        }                                                                                         \
    }
#define DEFINE_EXT(E, SFX, T) EXT_KERNEL(red_amax, SFX, T, >) EXT_KERNEL(red_amin, SFX, T, <)
MT_FOR_ALL_DTYPES(DEFINE_EXT)

/* A whole complex tensor's sum is taken in chunks of PAIR_CHUNK values
 * (a multiple of SUM_BLOCK), summed on the threads and added in order: the
 * same bits at any thread count (at 2 threads 1M complex64 values took 1.7x
 * torch's time on one). */
#define PAIR_CHUNK (16 * SUM_BLOCK)
#define PAIR_STACK_CHUNKS 64
typedef struct {
    mt_dtype d;
    const char *x;
    int64_t n; /* values: twice the pairs */
    double *part;
} pair_job;

static void pair_chunks(void *arg, int64_t c0, int64_t c1)
{
    const pair_job *j = arg;
    int isz = j->d == MT_FLOAT32 ? 4 : 8;
    for (int64_t c = c0; c < c1; c++) {
        int64_t at = c * PAIR_CHUNK, len = j->n - at < PAIR_CHUNK ? j->n - at : PAIR_CHUNK;
        double *s = j->part + 2 * c;
        s[0] = s[1] = 0;
        if (j->d == MT_FLOAT32)
            pair_sums_f4((const float *)(j->x + at * isz), len, s);
        else
            pair_sums_f8((const double *)(j->x + at * isz), len, s);
    }
}

void mt_sum_pairs(mt_dtype d, const void *x, int64_t n, double *s)
{
    double stack[2 * PAIR_STACK_CHUNKS];
    pair_job j = {d, x, 2 * n, stack};
    int64_t chunks = (j.n + PAIR_CHUNK - 1) / PAIR_CHUNK;
    if (chunks > PAIR_STACK_CHUNKS && !(j.part = malloc(sizeof(double) * 2 * (size_t)chunks))) {
        /* no room for the partial sums: one run on this thread */
        j.part = stack;
        chunks = 1;
        stack[0] = stack[1] = 0;
        if (d == MT_FLOAT32)
            pair_sums_f4(x, 2 * n, stack);
        else
            pair_sums_f8(x, 2 * n, stack);
    } else {
        mt_parallel_for(0, chunks, 2, pair_chunks, &j);
    }
    s[0] = s[1] = 0;
    for (int64_t c = 0; c < chunks; c++) {
        s[0] += j.part[2 * c];
        s[1] += j.part[2 * c + 1];
    }
    if (j.part != stack)
        free(j.part);
}

static const red_fn sum_fns[MT_NUM_DTYPES] = {
    red_sum_b1, red_sum_u1, red_sum_i1, red_sum_i2,      red_sum_i4,
    red_sum_i8, red_sum_f2, red_sum_bf, red_sum_fast_f4, red_sum_fast_f8};
static const red_fn prod_fns[MT_NUM_DTYPES] = MT_ROW(red_prod);
static const red_fn max_fns[MT_NUM_DTYPES] = MT_ROW(red_max);
static const red_fn min_fns[MT_NUM_DTYPES] = MT_ROW(red_min);
static const red_fn amax_fns[MT_NUM_DTYPES] = MT_ROW(red_amax);
static const red_fn amin_fns[MT_NUM_DTYPES] = MT_ROW(red_amin);
static const red_fn all_fns[MT_NUM_DTYPES] = MT_ROW(red_all);
static const red_fn any_fns[MT_NUM_DTYPES] = MT_ROW(red_any);
static const red_fn count_fns[MT_NUM_DTYPES] = MT_ROW(red_count);
static const red_fn var_fns[MT_NUM_DTYPES] = {
    red_var_b1, red_var_u1, red_var_i1, red_var_i2,      red_var_i4,
    red_var_i8, red_var_f2, red_var_bf, red_var_fast_f4, red_var_fast_f8};
static const red_fn norm_fns[MT_NUM_DTYPES] = MT_ROW(red_norm);
static const red_fn lse_fns[MT_NUM_DTYPES] = MT_ROW(red_lse);

static const red_fn *const op_fns[] = {
#define MT_REDUCE_KERNEL(ID, FNS) [MT_RED_##ID] = FNS##_fns,
#include "reduce.def"
#undef MT_REDUCE_KERNEL
};
_Static_assert(sizeof op_fns / sizeof op_fns[0] == MT_NUM_RED, "a reduction without its row");

/* Outer reductions (the reduced dims are not the innermost in memory) add
 * whole rows into a vector of accumulators instead of walking each output's
 * column: row fns combine m contiguous elements into acc (first: overwrite). */
typedef void (*row_fn)(double *restrict acc, const char *row, int64_t m, bool first);
#define OUTER_ROW(NAME, SFX, T, EXPR)                                                         \
    MT_CLONES_AVX2 static void NAME##_##SFX(double *restrict acc, const char *row, int64_t m, \
                                            bool first)                                       \
    {                                                                                         \
        const T *restrict q = (const T *)row;                                                 \
        if (first) {                                                                          \
            for (int64_t k = 0; k < m; k++)                                                   \
                acc[k] = q[k];                                                                \
            return;                                                                           \
        }                                                                                     \
        for (int64_t k = 0; k < m; k++) {                                                     \
            double x = q[k], a = acc[k];                                                      \
            acc[k] = EXPR;                                                                    \
        }                                                                                     \
    }
#define DEFINE_OUTER(SFX, T)                            \
    OUTER_ROW(row_sum, SFX, T, a + x)                   \
    OUTER_ROW(row_prod, SFX, T, a *x)                   \
    OUTER_ROW(row_max, SFX, T, x > a || x != x ? x : a) \
    OUTER_ROW(row_min, SFX, T, x < a || x != x ? x : a)
DEFINE_OUTER(f4, float)
DEFINE_OUTER(f8, double)
#define OUTER_BLOCK 1024

typedef struct {
    mt_reduce_op op;
    double param;
    bool is_float; /* input dtype */
    red_fn fn;
    int rnd; /* reduced geometry, dim 0 innermost */
    int64_t rsizes[MT_MAX_DIMS];
    int64_t rstrides[MT_MAX_DIMS]; /* bytes */
    int64_t rnumel;
    mt_dtype out_dtype;
    bool has_idx, has_mean;
    bool split;   /* each reduction runs on several threads */
    row_fn outer; /* set when outputs adjacent in memory read adjacent inputs */
    /* set when each output sums one contiguous run of the input */
    void (*inner)(char *out, int64_t os, const char *in, int64_t is, int64_t rows, int64_t len,
                  bool mean);
    int64_t isz;
} plan_t;

static void acc_init(const plan_t *p, acc_t *s)
{
    memset(s, 0, sizeof *s);
    s->idx = -1;
    switch (p->op) {
    case MT_RED_PROD:
        s->f = 1;
        s->i = 1;
        break;
    case MT_RED_ALL:
        s->i = 1;
        break;
    case MT_RED_NORM:
        s->f = p->param == -INFINITY ? INFINITY : 0;
        break;
    case MT_RED_LOGSUMEXP:
        s->f = -INFINITY;
        break;
    default:
        break;
    }
}

static bool better(const plan_t *p, const acc_t *b, const acc_t *a)
{
    bool mx = p->op == MT_RED_MAX || p->op == MT_RED_ARGMAX;
    if (!p->is_float)
        return mx ? b->i > a->i : b->i < a->i;
    if (a->f != a->f)
        return false;
    return b->f != b->f || (mx ? b->f > a->f : b->f < a->f);
}

/* a <- a then b (b covers later positions). */
static void acc_combine(const plan_t *p, acc_t *a, const acc_t *b)
{
    switch (p->op) {
    case MT_RED_SUM:
    case MT_RED_MEAN:
    case MT_RED_COUNT_NZ:
        a->f += b->f;
        a->i += b->i;
        break;
    case MT_RED_PROD:
        a->f *= b->f;
        a->i *= b->i;
        break;
    case MT_RED_ALL:
        a->i &= b->i;
        break;
    case MT_RED_ANY:
        a->i |= b->i;
        break;
    case MT_RED_MAX:
    case MT_RED_MIN:
    case MT_RED_ARGMAX:
    case MT_RED_ARGMIN:
        if (b->idx >= 0 && (a->idx < 0 || better(p, b, a)))
            *a = *b;
        break;
    case MT_RED_VAR:
    case MT_RED_STD: {
        if (b->n == 0)
            break;
        if (a->n == 0) {
            *a = *b;
            break;
        }
        double n = (double)(a->n + b->n), d = b->f - a->f;
        a->g += b->g + d * d * (double)a->n * (double)b->n / n;
        a->f += d * (double)b->n / n;
        a->n += b->n;
        break;
    }
    case MT_RED_NORM:
        if (p->param == INFINITY)
            a->f = b->f > a->f || b->f != b->f ? b->f : a->f;
        else if (p->param == -INFINITY)
            a->f = b->f < a->f || b->f != b->f ? b->f : a->f;
        else
            a->f += b->f;
        break;
    case MT_RED_LOGSUMEXP:
        lse_merge(&a->f, &a->g, b->f, b->g);
        break;
    default:
        break;
    }
}

/* Reduces flat positions [begin, end) of the reduced geometry starting at base. */
static void reduce_range(const plan_t *p, const char *base, int64_t begin, int64_t end, acc_t *s)
{
    int64_t idx[MT_MAX_DIMS];
    if (begin >= end)
        return;
    int64_t rem = begin;
    const char *ptr = base;
    for (int d = 0; d < p->rnd; d++) {
        idx[d] = rem % p->rsizes[d];
        rem /= p->rsizes[d];
        ptr += idx[d] * p->rstrides[d];
    }
    int64_t pos = begin;
    while (pos < end) {
        int64_t n = p->rsizes[0] - idx[0];
        if (n > end - pos)
            n = end - pos;
        p->fn(s, ptr, n, p->rstrides[0], pos, p->param);
        pos += n;
        if (pos >= end)
            break;
        ptr -= idx[0] * p->rstrides[0];
        idx[0] = 0;
        for (int d = 1; d < p->rnd; d++) {
            idx[d]++;
            ptr += p->rstrides[d];
            if (idx[d] < p->rsizes[d])
                break;
            ptr -= idx[d] * p->rstrides[d];
            idx[d] = 0;
        }
    }
}

typedef struct {
    const plan_t *p;
    const char *base;
    int64_t chunk;
    acc_t *partials;
} split_job;

static void split_chunk(void *arg, int64_t begin, int64_t end)
{
    split_job *j = arg;
    for (int64_t b = begin; b < end; b++) {
        int64_t lo = b * j->chunk, hi = lo + j->chunk;
        acc_init(j->p, &j->partials[b]);
        reduce_range(j->p, j->base, lo, hi < j->p->rnumel ? hi : j->p->rnumel, &j->partials[b]);
    }
}

static void reduce_one(const plan_t *p, const char *base, acc_t *s)
{
    acc_init(p, s);
    if (!p->split) {
        reduce_range(p, base, 0, p->rnumel, s);
        return;
    }
    acc_t partials[MAX_PARTIALS];
    int64_t nb = 4 * (int64_t)mt_get_num_threads();
    if (nb > MAX_PARTIALS)
        nb = MAX_PARTIALS;
    if (nb > p->rnumel / (GRAIN / 4))
        nb = p->rnumel / (GRAIN / 4);
    if (nb < 1)
        nb = 1;
    split_job j = {p, base, (p->rnumel + nb - 1) / nb, partials};
    mt_parallel_for(0, nb, 1, split_chunk, &j);
    for (int64_t b = 0; b < nb; b++)
        acc_combine(p, s, &partials[b]);
}

static void store(mt_dtype d, char *ptr, double f, int64_t i, bool is_int)
{
    switch (d) {
#define STORE_CASE(E, SFX, T)                                       \
    case E:                                                         \
        *(T *)ptr = is_int ? MT_STORE_##SFX(i) : MT_STORE_##SFX(f); \
        break;
        MT_FOR_ALL_DTYPES(STORE_CASE)
#undef STORE_CASE
    default:
        break;
    }
}

static void finish(const plan_t *p, const acc_t *s, char **data)
{
    double f = s->f;
    bool is_int = !p->is_float;
    switch (p->op) {
    case MT_RED_MEAN:
        f = s->f / (double)p->rnumel;
        break;
    case MT_RED_ALL:
    case MT_RED_ANY:
    case MT_RED_COUNT_NZ:
        is_int = true;
        break;
    case MT_RED_ARGMAX:
    case MT_RED_ARGMIN:
        store(MT_INT64, data[0], 0, s->idx < 0 ? 0 : s->idx, true);
        return;
    case MT_RED_VAR:
    case MT_RED_STD: {
        double dof = (double)s->n - p->param;
        f = s->g / (dof > 0 ? dof : 0);
        if (p->op == MT_RED_STD)
            f = sqrt(f);
        is_int = false;
        if (p->has_mean)
            store(p->out_dtype, data[3], s->n ? s->f : NAN, 0, false);
        break;
    }
    case MT_RED_NORM:
        is_int = false;
        if (p->param == 2.0)
            f = sqrt(f);
        else if (p->param != 1.0 && p->param != 0.0 && isfinite(p->param))
            f = pow(f, 1.0 / p->param);
        break;
    case MT_RED_LOGSUMEXP:
        is_int = false;
        f = s->f == -INFINITY || s->g == 0 ? -INFINITY : s->f + log(s->g);
        break;
    default:
        break;
    }
    store(p->out_dtype, data[0], f, s->i, is_int);
    if (p->has_idx)
        store(MT_INT64, data[2], 0, s->idx < 0 ? 0 : s->idx, true);
}

static void outer_block(const plan_t *p, char **data, const int64_t *st, int64_t m)
{
    double acc[OUTER_BLOCK];
    int64_t idx[MT_MAX_DIMS] = {0};
    const char *ptr = data[1];
    for (int64_t r = 0; r < p->rnumel; r++) {
        p->outer(acc, ptr, m, r == 0);
        for (int d = 0; d < p->rnd; d++) {
            ptr += p->rstrides[d];
            if (++idx[d] < p->rsizes[d])
                break;
            ptr -= idx[d] * p->rstrides[d];
            idx[d] = 0;
        }
    }
    for (int64_t k = 0; k < m; k++) {
        acc_t s = {.f = acc[k]};
        char *ptrs[4] = {data[0] + k * st[0], NULL, data[2] + k * st[2], data[3] + k * st[3]};
        finish(p, &s, ptrs);
    }
}

static void out_loop(char **data, const int64_t *st, int64_t n, void *ctx)
{
    const plan_t *p = ctx;
    char *ptr[4] = {data[0], data[1], data[2], data[3]};
    if (p->inner) {
        p->inner(data[0], st[0], data[1], st[1], n, p->rnumel, p->op == MT_RED_MEAN);
        return;
    }
    /* a handful of columns reads better down each column, as one strided run */
    if (p->outer && !p->split && st[1] == p->isz && n >= 4) {
        for (int64_t j = 0; j < n; j += OUTER_BLOCK) {
            int64_t m = n - j < OUTER_BLOCK ? n - j : OUTER_BLOCK;
            char *blk[4];
            for (int q = 0; q < 4; q++)
                blk[q] = data[q] + j * st[q];
            outer_block(p, blk, st, m);
        }
        return;
    }
    for (int64_t k = 0; k < n; k++) {
        acc_t s;
        reduce_one(p, ptr[1], &s);
        finish(p, &s, ptr);
        for (int j = 0; j < 4; j++)
            ptr[j] += st[j];
    }
}

/* out's geometry seen with in's ndim: reduced dims have size 1 and stride 0. */
static void keepdim_view(mt_tensor *view, const mt_tensor *out, const mt_tensor *in,
                         const bool *mask)
{
    *view = *out;
    view->ndim = in->ndim;
    bool kept = out->ndim == in->ndim;
    for (int d = 0, j = 0; d < in->ndim; d++) {
        if (mask[d]) {
            view->sizes[d] = 1;
            view->strides[d] = 0;
            j += kept;
        } else {
            view->sizes[d] = out->sizes[j];
            view->strides[d] = out->strides[j];
            j++;
        }
    }
}

/* The reduced dims as (size, byte stride), innermost first, size-1 dims
 * dropped and mergeable neighbours merged. Order-free ops also sort by stride
 * so they read memory in order; ops that report positions keep C order. */
static void reduced_geometry(plan_t *p, const mt_tensor *in, const bool *mask)
{
    int n = 0;
    int64_t sz[MT_MAX_DIMS], stb[MT_MAX_DIMS];
    int isz = mt_itemsize(in->dtype);
    p->rnumel = 1;
    for (int d = in->ndim - 1; d >= 0; d--) {
        if (!mask[d])
            continue;
        p->rnumel *= in->sizes[d];
        if (in->sizes[d] == 1)
            continue;
        sz[n] = in->sizes[d];
        stb[n] = in->strides[d] * isz;
        n++;
    }
    if (!p->has_idx && p->op != MT_RED_ARGMAX && p->op != MT_RED_ARGMIN) {
        for (int i = 1; i < n; i++) {
            int64_t s = sz[i], t = stb[i];
            int j = i - 1;
            while (j >= 0 && llabs(stb[j]) > llabs(t)) {
                sz[j + 1] = sz[j];
                stb[j + 1] = stb[j];
                j--;
            }
            sz[j + 1] = s;
            stb[j + 1] = t;
        }
    }
    p->rnd = 0;
    for (int i = 0; i < n; i++) {
        if (p->rnd > 0 && stb[i] == p->rstrides[p->rnd - 1] * p->rsizes[p->rnd - 1]) {
            p->rsizes[p->rnd - 1] *= sz[i];
            continue;
        }
        p->rsizes[p->rnd] = sz[i];
        p->rstrides[p->rnd] = stb[i];
        p->rnd++;
    }
    if (p->rnd == 0) {
        p->rsizes[0] = 1;
        p->rstrides[0] = 0;
        p->rnd = 1;
    }
}

static row_fn outer_fn(const plan_t *p, mt_dtype d)
{
    if ((d != MT_FLOAT32 && d != MT_FLOAT64) || p->has_idx || p->rnumel == 0 ||
        p->rstrides[0] == p->isz)
        return NULL;
    bool f4 = d == MT_FLOAT32;
    switch (p->op) {
    case MT_RED_SUM:
    case MT_RED_MEAN:
        return f4 ? row_sum_f4 : row_sum_f8;
    case MT_RED_PROD:
        return f4 ? row_prod_f4 : row_prod_f8;
    case MT_RED_MAX:
        return f4 ? row_max_f4 : row_max_f8;
    case MT_RED_MIN:
        return f4 ? row_min_f4 : row_min_f8;
    default:
        return NULL;
    }
}

void mt_reduce(mt_tensor *out, mt_tensor *indices, const mt_tensor *in, const bool *mask,
               mt_reduce_op op, double param, mt_tensor *mean2)
{
    plan_t p;
    memset(&p, 0, sizeof p);
    p.op = op;
    p.param = param;
    p.is_float = mt_is_floating(in->dtype);
    p.fn = op_fns[op][in->dtype];
    if (!indices && (op == MT_RED_MAX || op == MT_RED_MIN))
        p.fn = (op == MT_RED_MAX ? amax_fns : amin_fns)[in->dtype];
    p.out_dtype = out->dtype;
    p.has_idx = indices != NULL;
    p.has_mean = mean2 != NULL;
    reduced_geometry(&p, in, mask);
    p.isz = mt_itemsize(in->dtype);
    p.outer = outer_fn(&p, in->dtype);

    mt_tensor ov, iv, xv, mv;
    keepdim_view(&ov, out, in, mask);
    keepdim_view(&xv, indices ? indices : out, in, mask);
    keepdim_view(&mv, mean2 ? mean2 : out, in, mask);
    iv = *in;
    for (int d = 0; d < in->ndim; d++)
        if (mask[d])
            iv.sizes[d] = 1;
    const mt_tensor *ops[4] = {&ov, &iv, &xv, &mv};
    mt_iter it;
    mt_iter_init(&it, 4, ops, in->ndim, ov.sizes);
    p.split = it.numel < mt_get_num_threads() && p.rnumel >= 2 * GRAIN;
    if (!p.split && (op == MT_RED_SUM || op == MT_RED_MEAN) && out->dtype == in->dtype &&
        p.rnd == 1 && p.rstrides[0] == p.isz)
        p.inner = in->dtype == MT_FLOAT32   ? inner_sum_f4
                  : in->dtype == MT_FLOAT64 ? inner_sum_f8
                                            : NULL;
    if (p.split)
        mt_iter_run_range(&it, out_loop, &p, 0, it.numel);
    else
        mt_iter_run(&it, out_loop, &p, p.rnumel >= GRAIN ? 1 : GRAIN / (p.rnumel + 1));
}

/* ------------------------------------------------------------ along a dim */

typedef struct {
    mt_line_fn fn;
    mt_line_idx_fn idx_fn; /* instead of fn when the lines also write positions */
    void *ctx;
    int64_t len, os, is, xs;
} line_job;

static void line_loop(char **data, const int64_t *st, int64_t n, void *ctx)
{
    const line_job *j = ctx;
    for (int64_t k = 0; k < n; k++) {
        if (j->idx_fn)
            j->idx_fn(data[0] + k * st[0], j->os, data[2] + k * st[2], j->xs, data[1] + k * st[1],
                      j->is, j->len);
        else
            j->fn(data[0] + k * st[0], j->os, data[1] + k * st[1], j->is, j->len, j->ctx);
    }
}

static void run_lines(mt_tensor *out, mt_tensor *indices, const mt_tensor *in, int dim, line_job *j)
{
    mt_tensor ov = *out, iv = *in, xv = indices ? *indices : *out;
    j->len = in->ndim ? in->sizes[dim] : 1;
    if (in->ndim) {
        j->os = out->strides[dim] * mt_itemsize(out->dtype);
        j->is = in->strides[dim] * mt_itemsize(in->dtype);
        j->xs = xv.strides[dim] * mt_itemsize(xv.dtype);
        ov.sizes[dim] = iv.sizes[dim] = xv.sizes[dim] = 1;
    }
    if (j->len == 0)
        return;
    const mt_tensor *ops[3] = {&ov, &iv, &xv};
    mt_iter it;
    mt_iter_init(&it, indices ? 3 : 2, ops, ov.ndim, ov.sizes);
    mt_iter_run(&it, line_loop, j, j->len >= GRAIN ? 1 : GRAIN / j->len);
}

void mt_along_dim(mt_tensor *out, const mt_tensor *in, int dim, mt_line_fn fn, void *ctx)
{
    line_job j = {.fn = fn, .ctx = ctx};
    run_lines(out, NULL, in, dim, &j);
}

void mt_along_dim_idx(mt_tensor *out, mt_tensor *indices, const mt_tensor *in, int dim,
                      mt_line_idx_fn fn)
{
    line_job j = {.idx_fn = fn};
    run_lines(out, indices, in, dim, &j);
}

#define AT(T, p, st, k) (*(T *)((p) + (k) * (st)))

#define SOFTMAX_LINES(E, SFX, T)                                                              \
    static void softmax_line_##SFX(char *o, int64_t os, const char *x, int64_t is, int64_t n, \
                                   bool logsm)                                                \
    {                                                                                         \
        double m = -INFINITY, s = 0;                                                          \
        for (int64_t k = 0; k < n; k++) {                                                     \
            double v = MT_LOAD_##SFX(AT(const T, x, is, k));                                  \
            m = v > m || v != v ? v : m;                                                      \
        }                                                                                     \
        for (int64_t k = 0; k < n; k++)                                                       \
            s += exp(MT_LOAD_##SFX(AT(const T, x, is, k)) - m);                               \
        double ls = log(s);                                                                   \
        for (int64_t k = 0; k < n; k++) {                                                     \
            double v = MT_LOAD_##SFX(AT(const T, x, is, k)) - m;                              \
            AT(T, o, os, k) = MT_STORE_##SFX(logsm ? v - ls : exp(v) / s);                    \
        }                                                                                     \
    }                                                                                         \
    static void softmax_##SFX(char *o, int64_t os, const char *x, int64_t is, int64_t n,      \
                              void *ctx)                                                      \
    {                                                                                         \
        softmax_line_##SFX(o, os, x, is, n, false);                                           \
    }                                                                                         \
    static void log_softmax_##SFX(char *o, int64_t os, const char *x, int64_t is, int64_t n,  \
                                  void *ctx)                                                  \
    {                                                                                         \
        softmax_line_##SFX(o, os, x, is, n, true);                                            \
    }

#define CUM_LINES(E, SFX, T)                                                                       \
    static void cumsum_##SFX(char *o, int64_t os, const char *x, int64_t is, int64_t n, void *ctx) \
    {                                                                                              \
        VAL_##SFX acc = 0;                                                                         \
        for (int64_t k = 0; k < n; k++) {                                                          \
            acc += (VAL_##SFX)MT_LOAD_##SFX(AT(const T, x, is, k));                                \
            AT(T, o, os, k) = MT_STORE_##SFX(acc);                                                 \
        }                                                                                          \
    }                                                                                              \
    static void cumprod_##SFX(char *o, int64_t os, const char *x, int64_t is, int64_t n,           \
                              void *ctx)                                                           \
    {                                                                                              \
        VAL_##SFX acc = 1;                                                                         \
        for (int64_t k = 0; k < n; k++) {                                                          \
            acc *= (VAL_##SFX)MT_LOAD_##SFX(AT(const T, x, is, k));                                \
            AT(T, o, os, k) = MT_STORE_##SFX(acc);                                                 \
        }                                                                                          \
    }
MT_FOR_ALL_DTYPES(CUM_LINES)

/* torch's running product of complex numbers: c10::complex's plain product
 * (ac - bd) + i(ad + bc), accumulated in double parts as its acc_type. */
#define CUMPROD_COMPLEX(SFX, P)                                                          \
    static void cumprod_##SFX(char *o, int64_t os, const char *x, int64_t is, int64_t n, \
                              void *ctx)                                                 \
    {                                                                                    \
        double re = 1, im = 0;                                                           \
        for (int64_t k = 0; k < n; k++) {                                                \
            const P *v = (const P *)(x + k * is);                                        \
            double c = v[0], d = v[1], next = re * c - im * d;                           \
            im = re * d + im * c;                                                        \
            re = next;                                                                   \
            P *w = (P *)(o + k * os);                                                    \
            w[0] = (P)re;                                                                \
            w[1] = (P)im;                                                                \
        }                                                                                \
    }
CUMPROD_COMPLEX(c8, float)
CUMPROD_COMPLEX(c16, double)

/* A NaN wins and keeps its position; otherwise an equal value moves the
 * position on (>=, <=), as torch's cummax_cummin_helper. */
#define CUM_EXTREMUM(NAME, SFX, T, CMP)                                                            \
    static void NAME##_##SFX(char *o, int64_t os, char *ix, int64_t xs, const char *x, int64_t is, \
                             int64_t n)                                                            \
    {                                                                                              \
        VAL_##SFX best = (VAL_##SFX)MT_LOAD_##SFX(AT(const T, x, is, 0));                          \
        int64_t at = 0;                                                                            \
        for (int64_t k = 0; k < n; k++) {                                                          \
            VAL_##SFX v = (VAL_##SFX)MT_LOAD_##SFX(AT(const T, x, is, k));                         \
            if (v != v || (best == best && v CMP best)) {                                          \
                best = v;                                                                          \
                at = k;                                                                            \
            }                                                                                      \
            AT(T, o, os, k) = MT_STORE_##SFX(best);                                                \
            AT(int64_t, ix, xs, k) = at;                                                           \
        }                                                                                          \
    }
#define CUM_EXTREMA(E, SFX, T) CUM_EXTREMUM(cummax, SFX, T, >=) CUM_EXTREMUM(cummin, SFX, T, <=)
MT_FOR_ALL_DTYPES(CUM_EXTREMA)

/* Accumulates in double with torch's log_add_exp_helper (NaN in either
 * operand wins; equal infinities stay themselves instead of giving inf - inf). */
#define LOGCUMSUMEXP_LINE(E, SFX, T)                                                          \
    static void logcumsumexp_##SFX(char *o, int64_t os, const char *x, int64_t is, int64_t n, \
                                   void *ctx)                                                 \
    {                                                                                         \
        double acc = -INFINITY;                                                               \
        for (int64_t k = 0; k < n; k++) {                                                     \
            double v = MT_LOAD_##SFX(AT(const T, x, is, k));                                  \
            double lo = acc != acc ? acc : acc < v ? acc : v;                                 \
            double hi = acc != acc ? acc : v < acc ? acc : v;                                 \
            if (lo != hi || isfinite(lo))                                                     \
                acc = log1p(exp(lo - hi)) + hi;                                               \
            else                                                                              \
                acc = v;                                                                      \
            AT(T, o, os, k) = MT_STORE_##SFX(acc);                                            \
        }                                                                                     \
    }
LOGCUMSUMEXP_LINE(MT_FLOAT16, f2, mt_f16)
LOGCUMSUMEXP_LINE(MT_BFLOAT16, bf, mt_bf16)
LOGCUMSUMEXP_LINE(MT_FLOAT32, f4, float)
LOGCUMSUMEXP_LINE(MT_FLOAT64, f8, double)

/* torch's complex running sum: from (-inf, 0), each element met with the sum
 * (the element first, as torch orders them), in double. */
#define CLOGCUMSUMEXP_LINE(E, SFX, T)                                                         \
    static void logcumsumexp_##SFX(char *o, int64_t os, const char *x, int64_t is, int64_t n, \
                                   void *ctx)                                                 \
    {                                                                                         \
        mt_c128 acc = mt_cmplx(-INFINITY, 0);                                                 \
        for (int64_t k = 0; k < n; k++) {                                                     \
            acc = mt_clog_add_exp((mt_c128)AT(const T, x, is, k), acc);                       \
            AT(T, o, os, k) = (T)acc;                                                         \
        }                                                                                     \
    }
MT_FOR_COMPLEX_DTYPES(CLOGCUMSUMEXP_LINE)

mt_line_idx_fn mt_cum_extremum_kernel(bool max, mt_dtype dtype)
{
    static const mt_line_idx_fn cummax_fns[MT_NUM_DTYPES] = MT_ROW(cummax);
    static const mt_line_idx_fn cummin_fns[MT_NUM_DTYPES] = MT_ROW(cummin);
    return (max ? cummax_fns : cummin_fns)[dtype];
}

SOFTMAX_LINES(MT_FLOAT16, f2, mt_f16)
SOFTMAX_LINES(MT_BFLOAT16, bf, mt_bf16)
SOFTMAX_LINES(MT_FLOAT32, f4, float)
SOFTMAX_LINES(MT_FLOAT64, f8, double)

mt_line_fn mt_line_kernel(mt_line_op op, mt_dtype dtype)
{
    static const mt_line_fn cumsum_fns[MT_NUM_DTYPES] = MT_ROW(cumsum);
    static const mt_line_fn cumprod_fns[MT_NUM_DTYPES] = MT_ROW_AND_COMPLEX(cumprod);
    static const mt_line_fn logcumsumexp_fns[MT_NUM_DTYPES] = {
        [MT_FLOAT16] = logcumsumexp_f2,   [MT_BFLOAT16] = logcumsumexp_bf,
        [MT_FLOAT32] = logcumsumexp_f4,   [MT_FLOAT64] = logcumsumexp_f8,
        [MT_COMPLEX64] = logcumsumexp_c8, [MT_COMPLEX128] = logcumsumexp_c16};
    static const mt_line_fn softmax_fns[MT_NUM_DTYPES] = MT_ROW_FLOAT(softmax);
    static const mt_line_fn log_softmax_fns[MT_NUM_DTYPES] = MT_ROW_FLOAT(log_softmax);
    switch (op) {
    case MT_LINE_SOFTMAX:
        return softmax_fns[dtype];
    case MT_LINE_LOG_SOFTMAX:
        return log_softmax_fns[dtype];
    case MT_LINE_CUMSUM:
        return cumsum_fns[dtype];
    case MT_LINE_CUMPROD:
        return cumprod_fns[dtype];
    case MT_LINE_LOGCUMSUMEXP:
        return logcumsumexp_fns[dtype];
    }
    return NULL;
}

typedef struct {
    uint64_t *out;
    const uint64_t *x;
    int64_t n;
} xor_job;

static void xor_some_rows(void *arg, int64_t r0, int64_t r1)
{
    const xor_job *j = arg;
    for (int64_t r = r0; r < r1; r++) {
        const uint64_t *q = j->x + r * j->n;
        uint64_t h = 0;
        for (int64_t k = 0; k < j->n; k++)
            h ^= q[k];
        j->out[r] = h;
    }
}

void mt_xor_rows(uint64_t *out, const uint64_t *x, int64_t rows, int64_t n)
{
    xor_job j = {out, x, n};
    int64_t grain = GRAIN / (n > 0 ? n : 1) + 1;
    mt_parallel_for(0, rows, grain, xor_some_rows, &j);
}
