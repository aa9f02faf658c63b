/* Complex discrete Fourier transforms of any length, float rows in float and
 * double rows in double (fft_typed.h, once per type): Stockham autosort
 * passes of radix 4, 8, 2, 3 and 5 (and 16 for batches) with one table of
 * twiddles per length, and Bluestein's chirp convolution (through a
 * power-of-two transform) for lengths with any other prime factor. Long lengths (SPLIT_MIN and up) go by
 * the four-step method, n = n1 n2: n2 transforms of length n1 down the
 * columns, a twiddle, n1 of length n2 along the rows, and a transpose, so
 * each short transform stays in cache; its column and row passes are split
 * over threads. Inverse transforms conjugate on the way in and out, so one
 * forward loop serves both. Rows are independent and split over threads
 * (kernels/parallel.h); rows along an inner dim are read a block of
 * neighbours at a time and transformed as one interleaved batch, so every
 * cache line read serves several rows. Plans
 * (their tables in the rows' type) are cached per length and type. Plain C,
 * no Python. */
#include "fft.h"
#include "parallel.h"
#include "simd/vmath.h"

#include "../core/allocator.h"
#include "../core/portable.h"
#include "../core/threads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TWO_PI 6.28318530717958647692528676655900577

typedef struct fft_plan {
    int64_t n;
    bool single; /* its tables are of float, else of double */
    void *tw;    /* exp(-2 pi i k / n), k < n, as (re, im) pairs */
    void *twn;   /* the same as (-im, im) pairs: with tw's real part, both
                  * halves of VCMULT's product come from broadcast loads */
    void *tw4;   /* the first radix-4 pass's twiddles tw[j k], k = 1, 2, 3, in
                  * blocks of a vector's points of j: see first_pass_table */
    void *tw4w;  /* the same in blocks of a wide vector's, for the 16-lane
                  * float loops */
    int nf, nfb, nfw;
    int fac[64];  /* the radices of its passes, first to last */
    int facb[64]; /* those for interleaved batches, when nfb is not 0
                   * (radix 16 only there) */
    int facw[64]; /* those of a lone row in the 16-lane float loops, when
                   * nfw is not 0: radix 8 first (see pass8_first) */
    void *tw8w;   /* that first pass's twiddles (see wide_first_table) */
    /* Bluestein, for lengths with a prime factor above 5 */
    int64_t m;
    struct fft_plan *sub; /* the power-of-two plan of length m */
    void *chirp;          /* exp(-pi i k^2 / n), k < n */
    void *bf;             /* the transform of the conjugate chirp, length m */
    /* four-step, for long factorable lengths: n = n1 n2, plans of n1 and n2,
     * and twc[k1][c] = exp(-2 pi i k1 c / n), k1 < n1, c < its column block */
    struct fft_plan *s1, *s2;
    void *twc;
} fft_plan;

/* The length from which a factorable transform goes by four steps: its
 * double buffers (16 n bytes, twice) no longer fit in a core's L2. */
#define SPLIT_MIN 65536
/* At most this many neighbouring rows (or columns) are read together: 16
 * complex64 are 128 bytes of each row of a slab, two 16-lane vectors. With
 * the slab passes prefetching their rows, 1000x1000 and 512x512 along dim
 * 0 measured faster than with 32 (and with 8); before, 32 had been. */
#define BLOCK_MAX 16
/* Contiguous rows shorter than this many points go through each pass this
 * many points of them at a time (16 KiB of float rows: the rows and their
 * two scratch halves stay in L1; 4096 measured slower for rows of 256 and
 * 1000): one call per pass instead of per row, which for 64-point rows was
 * half their time. */
#define LONE_GROUP 2048
/* The stride, in complex points, between the gathered rows of a block of
 * length-n rows: one cache line more than n, so that the block's rows, a
 * power of two apart otherwise, do not all fall in the same few cache sets
 * as a gather writes (and a scatter reads) one point of each in turn. */
#define PADDED(n) ((n) + 4)

static void plan_free(fft_plan *p)
{
    if (!p)
        return;
    plan_free(p->sub);
    plan_free(p->s1);
    plan_free(p->s2);
    free(p->tw);
    free(p->twn);
    free(p->tw4);
    free(p->tw4w);
    free(p->tw8w);
    free(p->twc);
    free(p->chirp);
    free(p->bf);
    free(p);
}

/* The longest plan whose passes are of radix 8 where they can be (the sweep
 * beside torch: 4096 and 8192 gain from it, 16384 loses). */
#define RADIX8_MAX 8192

/* The radices of a transform of length len, first pass to last, into fac
 * (their count into nf): true when they make up len. */
static bool factor_into(int64_t len, bool lead4, bool radix16, int *fac, int *nf)
{
    int64_t n = len;
    *nf = 0;
    /* radix16: radix 16 first while it divides (interleaved batches only,
     * whose passes all see s a multiple of a vector's points) */
    while (radix16 && len <= RADIX8_MAX && n % 16 == 0) {
        fac[(*nf)++] = 16;
        n /= 16;
    }
    /* lead4: one radix-4 pass first (a lone row's points are single there,
     * with a pass of its own), then radix 8 while it divides: fewer passes
     * over the row; the radix-8 passes thus always see s a multiple of 4.
     * Their eight points lie n / 8 apart; past RADIX8_MAX those strides
     * (32 KiB and more) put the sixteen streams of a pass in too few cache
     * sets, and radix 4 is faster. */
    if (lead4 && n % 4 == 0) {
        fac[(*nf)++] = 4;
        n /= 4;
    }
    while (len <= RADIX8_MAX && n % 8 == 0) {
        fac[(*nf)++] = 8;
        n /= 8;
    }
    while (n % 4 == 0) {
        fac[(*nf)++] = 4;
        n /= 4;
    }
    static const int small[] = {2, 3, 5};
    for (int i = 0; i < 3; i++)
        while (n % small[i] == 0) {
            fac[(*nf)++] = small[i];
            n /= small[i];
        }
    return n == 1;
}

/* A lone row's passes, and those of interleaved batches (whose first pass
 * already has whole vectors, so radix 8 may lead) where that takes fewer
 * passes: 512 as 8 8 8 instead of 4 8 8 2; and radix 16 where it takes
 * fewer still: 256 as 16 16, a pass fewer than 8 8 4 (512 stays 8 8 8, as
 * 16 16 2 would be as many passes). */
static bool factor(fft_plan *p)
{
    if (!factor_into(p->n, true, false, p->fac, &p->nf))
        return false;
    factor_into(p->n, false, false, p->facb, &p->nfb);
#ifdef MT_HAVE_AVX512
    /* the wide loops' lone row: radix 8 first where it fills a vector of
     * j (eight points) at least once */
    if (p->single && p->nfb && p->facb[0] == 8 && p->n >= 64) {
        memcpy(p->facw, p->facb, sizeof p->facw);
        p->nfw = p->nfb;
    }
#endif
    int f16[64], nf16;
    factor_into(p->n, false, true, f16, &nf16);
    if (nf16 < p->nfb) {
        memcpy(p->facb, f16, sizeof f16);
        p->nfb = nf16;
    }
    if (p->nfb >= p->nf)
        p->nfb = 0;
    return true;
}

/* The divisor of n nearest its square root from below (n1 <= n2). */
static int64_t split_point(int64_t n)
{
    int64_t d = (int64_t)sqrt((double)n);
    while (d > 1 && n % d)
        d--;
    return d;
}

/* x * w for complex pairs */
#define CMUL_RE(xr, xi, wr, wi) ((xr) * (wr) - (xi) * (wi))
#define CMUL_IM(xr, xi, wr, wi) ((xr) * (wi) + (xi) * (wr))

/* Rows of length n gathered together: enough to fill a few cache lines of
 * each point, few enough that the block stays in L2. */
static int64_t block_rows(int64_t n, int64_t avail)
{
    int64_t b = 32768 / (n > 0 ? n : 1);
    b = b < 1 ? 1 : b > BLOCK_MAX ? BLOCK_MAX : b;
    return b < avail ? b : avail;
}

static int64_t four_step_block(const fft_plan *p) { return block_rows(p->s1->n, p->s2->n); }

/* A task's buffers, from the caching allocator: long transforms need tens of
 * MiB, which fresh from malloc would page-fault in on every call. */
typedef struct {
    void *block;
    size_t size;
} scratch_block;

static void *scratch_new(int64_t bytes, scratch_block *sb)
{
    void *data = NULL;
    sb->block = mt_alloc((size_t)bytes, 64, false, &data, &sb->size);
    return sb->block ? data : NULL;
}

/* Rows this far ahead of a strided gather are prefetched: its rows are pages
 * apart, beyond what the hardware prefetchers follow. A macro, as
 * __builtin_prefetch takes its read/write hint only as a constant (clang
 * refuses one passed through a function's parameter). */
#define PREFETCH_AHEAD 8
/* The same for the passes that read or write a slab's rows themselves: they
 * spend longer per row, so fewer rows ahead (4 measured faster than 8 and
 * 16 for 1000 x 1000 along dim 0). */
#define PASS_PREFETCH_AHEAD 4
#define PREFETCH_PAIR(addr, write)                            \
    do {                                                      \
        __builtin_prefetch((addr), write);                    \
        __builtin_prefetch((const char *)(addr) + 64, write); \
    } while (0)

/* Every row of an [outer][n][inner] slab, in blocks of `block` neighbouring
 * rows, nblocks of them per outer index. */
typedef struct {
    const fft_plan *p;
    const void *src;
    void *dst;
    bool inverse;
    int64_t n, inner, block, nblocks;
    double scale;
    int failed;
} rows_job;

/* A real row of even length n as the complex row z_k = x_2k + i x_2k+1 of
 * length h = n / 2: its transform Z gives the even and odd samples' spectra
 * E_k = (Z_k + conj Z_h-k) / 2 and O_k = (Z_k - conj Z_h-k) / 2i, and
 * X_k = E_k + exp(-2 pi i k / n) O_k for k <= h. */
typedef struct {
    const fft_plan *half, *full; /* full: only its twiddles */
    const void *src;
    void *dst;
    int64_t n, inner;
    double scale;
    int failed;
} r2c_job;

/* The float complex at p in every lane of a vector of type vt (of
 * uint64_t), one broadcast load. */
#define FFT_PAIR_SPLAT(vt, p, ...) \
    ({                             \
        uint64_t u_;               \
        memcpy(&u_, (p), 8);       \
        (vt){__VA_ARGS__};         \
    })
typedef uint64_t fft_v4u __attribute__((vector_size(32)));

#define FFT_VEC_FN MT_CLONES_AVX2_FMA
#define FFT_MOVE_FN MT_CLONES_AVX2
#define FFT_TW4(p) ((const FFT_R *)(p)->tw4)

#define FFT_R float
#define FFT_V mt_v8f
#define FFT_L 4
#define FFT_FN(name) name##_f
#define FFT_VSWAP(v) __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6)
#define FFT_VRE(v) __builtin_shufflevector(v, v, 0, 0, 2, 2, 4, 4, 6, 6)
#define FFT_VIM(v) __builtin_shufflevector(v, v, 1, 1, 3, 3, 5, 5, 7, 7)
#define FFT_SPLAT(a) ((mt_v8f){a, a, a, a, a, a, a, a})
#define FFT_ALT ((mt_v8f){-1, 1, -1, 1, -1, 1, -1, 1})
#define FFT_SPLAT2(p) ((mt_v8f)FFT_PAIR_SPLAT(fft_v4u, p, u_, u_, u_, u_))
/* a 4x4 transpose of complex points, each a pair of floats moved as one */
#define FFT_STORE4T(y, u)                                                            \
    do {                                                                             \
        mt_v8f t0 = __builtin_shufflevector(u[0], u[1], 0, 1, 8, 9, 4, 5, 12, 13);   \
        mt_v8f t1 = __builtin_shufflevector(u[0], u[1], 2, 3, 10, 11, 6, 7, 14, 15); \
        mt_v8f t2 = __builtin_shufflevector(u[2], u[3], 0, 1, 8, 9, 4, 5, 12, 13);   \
        mt_v8f t3 = __builtin_shufflevector(u[2], u[3], 2, 3, 10, 11, 6, 7, 14, 15); \
        mt_v8f r[4] = {__builtin_shufflevector(t0, t2, 0, 1, 2, 3, 8, 9, 10, 11),    \
                       __builtin_shufflevector(t1, t3, 0, 1, 2, 3, 8, 9, 10, 11),    \
                       __builtin_shufflevector(t0, t2, 4, 5, 6, 7, 12, 13, 14, 15),  \
                       __builtin_shufflevector(t1, t3, 4, 5, 6, 7, 12, 13, 14, 15)}; \
        memcpy((y), r, sizeof r);                                                    \
    } while (0)
#include "fft_typed.h"

#define FFT_VEC_FN MT_CLONES_AVX2_FMA
#define FFT_MOVE_FN MT_CLONES_AVX2
#define FFT_TW4(p) ((const FFT_R *)(p)->tw4)
#define FFT_R double
#define FFT_V mt_v4d
#define FFT_L 2
#define FFT_FN(name) name##_d
#define FFT_VSWAP(v) __builtin_shufflevector(v, v, 1, 0, 3, 2)
#define FFT_VRE(v) __builtin_shufflevector(v, v, 0, 0, 2, 2)
#define FFT_VIM(v) __builtin_shufflevector(v, v, 1, 1, 3, 3)
#define FFT_SPLAT(a) ((mt_v4d){a, a, a, a})
#define FFT_ALT ((mt_v4d){-1, 1, -1, 1})
#define FFT_SPLAT2(p) ((mt_v4d){(p)[0], (p)[1], (p)[0], (p)[1]})
#define FFT_STORE4T(y, u)                                                \
    do {                                                                 \
        mt_v4d r[4] = {__builtin_shufflevector(u[0], u[1], 0, 1, 4, 5),  \
                       __builtin_shufflevector(u[2], u[3], 0, 1, 4, 5),  \
                       __builtin_shufflevector(u[0], u[1], 2, 3, 6, 7),  \
                       __builtin_shufflevector(u[2], u[3], 2, 3, 6, 7)}; \
        memcpy((y), r, sizeof r);                                        \
    } while (0)
#include "fft_typed.h"

#ifdef MT_HAVE_AVX512
/* Float rows again with 16-lane vectors (8 complex points), where
 * mt_use_avx512(): half the instructions of every pass. GCC in ISO C mode
 * fuses multiply-adds only when told to. */
#if defined(__clang__)
#define FFT_VEC_FN MT_TARGET_AVX512
#else
#define FFT_VEC_FN MT_TARGET_AVX512 __attribute__((optimize("fp-contract=fast")))
#endif
#define FFT_MOVE_FN MT_TARGET_AVX512
#define FFT_TW4(p) ((const FFT_R *)(p)->tw4w)
#define FFT_NARROW(name) name##_f
typedef float fft_v16f __attribute__((vector_size(64)));
typedef uint64_t fft_v8u __attribute__((vector_size(64)));
#define FFT_R float
#define FFT_V fft_v16f
#define FFT_L 8
#define FFT_FN(name) name##_w
#define FFT_VSWAP(v) \
    __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14)
#define FFT_VRE(v) \
    __builtin_shufflevector(v, v, 0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14)
#define FFT_VIM(v) \
    __builtin_shufflevector(v, v, 1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15)
/* every lane written out: {0} + a would be an addition (0 + -0 is +0),
 * which GCC kept inside the passes' loops */
#define FFT_SPLAT(a) \
    ((fft_v16f){(a), (a), (a), (a), (a), (a), (a), (a), (a), (a), (a), (a), (a), (a), (a), (a)})
#define FFT_ALT ((fft_v16f){-1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1})
#define FFT_SPLAT2(p) ((fft_v16f)FFT_PAIR_SPLAT(fft_v8u, p, u_, u_, u_, u_, u_, u_, u_, u_))
/* each complex point one 64-bit lane: the 4 x 8 transpose in two rounds */
#define FFT_STORE4T(y, u)                                                               \
    do {                                                                                \
        fft_v8u a0 = (fft_v8u)u[0], a1 = (fft_v8u)u[1], a2 = (fft_v8u)u[2];             \
        fft_v8u a3 = (fft_v8u)u[3];                                                     \
        fft_v8u l01 = __builtin_shufflevector(a0, a1, 0, 8, 1, 9, 2, 10, 3, 11);        \
        fft_v8u h01 = __builtin_shufflevector(a0, a1, 4, 12, 5, 13, 6, 14, 7, 15);      \
        fft_v8u l23 = __builtin_shufflevector(a2, a3, 0, 8, 1, 9, 2, 10, 3, 11);        \
        fft_v8u h23 = __builtin_shufflevector(a2, a3, 4, 12, 5, 13, 6, 14, 7, 15);      \
        fft_v8u r[4] = {__builtin_shufflevector(l01, l23, 0, 1, 8, 9, 2, 3, 10, 11),    \
                        __builtin_shufflevector(l01, l23, 4, 5, 12, 13, 6, 7, 14, 15),  \
                        __builtin_shufflevector(h01, h23, 0, 1, 8, 9, 2, 3, 10, 11),    \
                        __builtin_shufflevector(h01, h23, 4, 5, 12, 13, 6, 7, 14, 15)}; \
        memcpy((y), r, sizeof r);                                                       \
    } while (0)
/* the 8 x 8 transpose of complex points (64-bit lanes) in three rounds */
#define FFT_STORE8T(y, u)                                                                          \
    do {                                                                                           \
        fft_v8u t_[8], s_[8], r_[8];                                                               \
        for (int i_ = 0; i_ < 8; i_ += 2) {                                                        \
            fft_v8u a_ = (fft_v8u)u[i_], b_ = (fft_v8u)u[i_ + 1];                                  \
            t_[i_] = __builtin_shufflevector(a_, b_, 0, 8, 2, 10, 4, 12, 6, 14);                   \
            t_[i_ + 1] = __builtin_shufflevector(a_, b_, 1, 9, 3, 11, 5, 13, 7, 15);               \
        }                                                                                          \
        for (int i_ = 0; i_ < 8; i_ += 4)                                                          \
            for (int o_ = 0; o_ < 2; o_++) {                                                       \
                fft_v8u a_ = t_[i_ + o_], b_ = t_[i_ + o_ + 2];                                    \
                s_[i_ + 2 * o_] = __builtin_shufflevector(a_, b_, 0, 1, 8, 9, 4, 5, 12, 13);       \
                s_[i_ + 2 * o_ + 1] = __builtin_shufflevector(a_, b_, 2, 3, 10, 11, 6, 7, 14, 15); \
            }                                                                                      \
        /* s_[0..4): lanes {0, 4}, {2, 6}, {1, 5}, {3, 7} of u[0..4); s_[4..8) of u[4..8) */       \
        static const int lo_[4] = {0, 2, 1, 3};                                                    \
        for (int i_ = 0; i_ < 4; i_++) {                                                           \
            fft_v8u a_ = s_[i_], b_ = s_[i_ + 4];                                                  \
            r_[lo_[i_]] = __builtin_shufflevector(a_, b_, 0, 1, 2, 3, 8, 9, 10, 11);               \
            r_[lo_[i_] + 4] = __builtin_shufflevector(a_, b_, 4, 5, 6, 7, 12, 13, 14, 15);         \
        }                                                                                          \
        memcpy((y), r_, sizeof r_);                                                                \
    } while (0)
#include "fft_typed.h"
#endif

/* The float loops for this machine: 16-lane where it has AVX-512. */
static void run_rows_single(void *ctx, int64_t begin, int64_t end)
{
#ifdef MT_HAVE_AVX512
    if (mt_use_avx512()) {
        run_rows_w(ctx, begin, end);
        return;
    }
#endif
    run_rows_f(ctx, begin, end);
}

static void run_r2c_single(void *ctx, int64_t begin, int64_t end)
{
#ifdef MT_HAVE_AVX512
    if (mt_use_avx512()) {
        run_r2c_w(ctx, begin, end);
        return;
    }
#endif
    run_r2c_f(ctx, begin, end);
}

/* Entry k of a table of complex pairs of float (single) or of double. */
static void put_pair(void *table, bool single, int64_t k, double re, double im)
{
    if (single) {
        ((float *)table)[2 * k] = (float)re;
        ((float *)table)[2 * k + 1] = (float)im;
    } else {
        ((double *)table)[2 * k] = re;
        ((double *)table)[2 * k + 1] = im;
    }
}

/* The first radix-4 pass's twiddles exp(-2 pi i j k / n), j < m = n / 4,
 * k = 1, 2, 3, for loads of a vector's L points of j at once: the block of
 * j = j0 .. j0 + L - 1 holds k = 1's L points, then k = 2's, then k = 3's
 * (L = 4 for float, 2 for double); the last m % L, done without vectors,
 * have none. The 16-lane float loops read a copy laid out for L = 8. */
static void *first_pass_table(int64_t n, bool single, int64_t lanes)
{
    int64_t m = n / 4;
    void *t = malloc((single ? sizeof(float) : sizeof(double)) * 6 * (size_t)m);
    if (!t)
        return NULL;
    /* only whole blocks: the pass does the last j < L by itself */
    for (int64_t j = 0; j < m - m % lanes; j++)
        for (int k = 1; k < 4; k++) {
            double a = TWO_PI * (double)(j * k) / (double)n;
            int64_t at = (j / lanes) * 3 * lanes + (k - 1) * lanes + j % lanes;
            put_pair(t, single, at, cos(a), -sin(a));
        }
    return t;
}

/* The wide loops' first radix-8 pass's twiddles exp(-2 pi i j k / n),
 * j < m = n / 8, k = 1 .. 7, for loads of 8 values of j at once: per block
 * of j = j0 .. j0 + 7, for each k in turn, 8 points (re, re) and then 8
 * points (-im, im), VCMUL's form; the last block padded with zeros. */
static void *wide_first_table(int64_t n)
{
    size_t m = (size_t)n / 8, blocks = (m + 7) / 8;
    float *t = calloc(blocks * 7 * 32, sizeof(float));
    if (!t)
        return NULL;
    for (int64_t j = 0; j < (int64_t)m; j++)
        for (int k = 1; k < 8; k++) {
            double a = TWO_PI * (double)(j * k) / (double)n;
            float *e = t + (j / 8) * 7 * 32 + (k - 1) * 32 + 2 * (j % 8);
            e[0] = e[1] = (float)cos(a);
            e[16] = (float)sin(a);
            e[17] = (float)-sin(a);
        }
    return t;
}

/* A plan for length n, its tables in float when single (each entry computed
 * in double and rounded once); split allows the four-step form (Bluestein's
 * inner power-of-two plan is called through stockham directly, so it is
 * never split). */
static fft_plan *plan_new(int64_t n, bool split, bool single)
{
    fft_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    size_t es = single ? sizeof(float) : sizeof(double);
    p->n = n;
    p->single = single;
    if (factor(p)) {
        if (!(p->tw = malloc(es * 2 * (size_t)n)) || !(p->twn = malloc(es * 2 * (size_t)n)))
            goto fail;
        for (int64_t k = 0; k < n; k++) {
            double a = TWO_PI * (double)k / (double)n;
            put_pair(p->tw, single, k, cos(a), -sin(a));
            put_pair(p->twn, single, k, sin(a), -sin(a));
        }
        if (p->nf && p->fac[0] == 4) {
            if (!(p->tw4 = first_pass_table(n, single, single ? 4 : 2)))
                goto fail;
#ifdef MT_HAVE_AVX512
            if (single && !(p->tw4w = first_pass_table(n, true, 8)))
                goto fail;
#endif
        }
        if (p->nfw && !(p->tw8w = wide_first_table(n)))
            goto fail;
        int64_t n1 = split && n >= SPLIT_MIN ? split_point(n) : 1;
        if (n1 > 1) {
            if (!(p->s1 = plan_new(n1, false, single)) ||
                !(p->s2 = plan_new(n / n1, false, single)))
                goto fail;
            int64_t bs = four_step_block(p);
            if (!(p->twc = malloc(es * 2 * (size_t)(n1 * bs))))
                goto fail;
            for (int64_t k1 = 0; k1 < n1; k1++)
                for (int64_t c = 0; c < bs; c++) {
                    double a = TWO_PI * (double)(k1 * c) / (double)n;
                    put_pair(p->twc, single, k1 * bs + c, cos(a), -sin(a));
                }
        }
        return p;
    }
    int64_t m = 1;
    while (m < 2 * n - 1)
        m *= 2;
    p->m = m;
    p->chirp = malloc(es * 2 * (size_t)n);
    p->bf = malloc(es * 2 * (size_t)m);
    void *b = calloc(4 * (size_t)m, es);
    if (!p->chirp || !p->bf || !b || !(p->sub = plan_new(m, false, single))) {
        free(b);
        goto fail;
    }
    /* k^2 mod 2n, kept by (k+1)^2 = k^2 + 2k + 1, holds the angle small and
     * exact; b is the conjugate chirp, wrapped around for the cyclic convolution */
    for (int64_t k = 0, q = 0; k < n; q = (q + 2 * k + 1) % (2 * n), k++) {
        double a = TWO_PI * 0.5 * (double)q / (double)n, c = cos(a), s = sin(a);
        put_pair(p->chirp, single, k, c, -s);
        put_pair(b, single, k, c, s);
        if (k)
            put_pair(b, single, m - k, c, s);
    }
    const void *bf = single ? (void *)stockham_f(p->sub, 1, b, (float *)b + 2 * m)
                            : (void *)stockham_d(p->sub, 1, b, (double *)b + 2 * m);
    memcpy(p->bf, bf, es * 2 * (size_t)m);
    free(b);
    return p;
fail:
    plan_free(p);
    return NULL;
}

/* Plans of the lengths transformed so far, kept for the process's life (a
 * plan is read-only once made, so threads share them); lengths past the
 * cache's room get a plan per call. */
#define PLAN_CACHE 64
static fft_plan *cached[PLAN_CACHE];
static int ncached;
static mt_mutex cache_lock = MT_MUTEX_INIT;

static fft_plan *plan_for(int64_t n, bool single, bool *owned)
{
    fft_plan *p = NULL;
    *owned = false;
    mt_mutex_lock(&cache_lock);
    for (int i = 0; i < ncached && !p; i++)
        if (cached[i]->n == n && cached[i]->single == single)
            p = cached[i];
    if (!p && (p = plan_new(n, true, single))) {
        if (ncached < PLAN_CACHE)
            cached[ncached++] = p;
        else
            *owned = true;
    }
    mt_mutex_unlock(&cache_lock);
    return p;
}

int mt_fft_c2c(const void *src, void *dst, bool single, int64_t outer, int64_t n, int64_t inner,
               bool inverse, double scale)
{
    if (outer * n * inner == 0)
        return 0;
    bool owned;
    fft_plan *p = plan_for(n, single, &owned);
    if (!p)
        return -1;
    int64_t block = inner > 1 ? block_rows(n, inner) : 1, nblocks = (inner + block - 1) / block;
    rows_job job = {p, src, dst, inverse, n, inner, block, nblocks, scale, 0};
    double work =
        (double)(n * block) * (p->sub ? 4.0 * (double)p->m / (double)n : 1.0) * log2((double)n + 1);
    mt_parallel_for(0, outer * nblocks, (int64_t)(1 + 32768.0 / (work + 1)),
                    single ? run_rows_single : run_rows_d, &job);
    if (owned)
        plan_free(p);
    return job.failed ? -1 : 0;
}

int mt_fft_r2c_half(const void *src, void *dst, bool single, int64_t outer, int64_t n,
                    int64_t inner, double scale)
{
    if (n < 2 || n % 2)
        return 1;
    bool owned_half, owned_full;
    fft_plan *half = plan_for(n / 2, single, &owned_half);
    fft_plan *full = half && !half->sub ? plan_for(n, single, &owned_full) : NULL;
    int rc = 1;
    if (full && !full->sub) {
        r2c_job job = {half, full, src, dst, n, inner, scale, 0};
        double work = (double)n * log2((double)n + 1);
        mt_parallel_for(0, outer * inner, (int64_t)(1 + 32768.0 / (work + 1)),
                        single ? run_r2c_single : run_r2c_d, &job);
        rc = job.failed ? -1 : 0;
    } else if (!half || (!half->sub && !full)) {
        rc = -1;
    }
    if (half && owned_half)
        plan_free(half);
    if (full && owned_full)
        plan_free(full);
    return rc;
}

void mt_fft_hermitian_fill(void *dst, const void *src, bool single, int64_t outer, int64_t h,
                           int64_t n, int64_t inner)
{
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < n; k++) {
            int64_t j = k <= n / 2 ? k : n - k;
            double conj = k <= n / 2 ? 1.0 : -1.0;
            for (int64_t i = 0; i < inner; i++) {
                int64_t di = 2 * ((o * n + k) * inner + i), si = 2 * ((o * h + j) * inner + i);
                if (single) {
                    float *d = dst;
                    const float *s = src;
                    d[di] = j < h ? s[si] : 0.0f;
                    d[di + 1] = j < h ? (float)conj * s[si + 1] : 0.0f;
                } else {
                    double *d = dst;
                    const double *s = src;
                    d[di] = j < h ? s[si] : 0.0;
                    d[di + 1] = j < h ? conj * s[si + 1] : 0.0;
                }
            }
        }
}
