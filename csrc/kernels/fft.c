/* Complex discrete Fourier transforms of any length, in double: Stockham
 * autosort passes of radix 4, 8, 2, 3 and 5 with one table of twiddles per
 * length, and Bluestein's chirp convolution (through a
 * power-of-two transform) for lengths with any other prime factor. Long
 * lengths (SPLIT_MIN and up) go by the four-step method, n = n1 n2: n2
 * transforms of length n1 down the columns, a twiddle, n1 of length n2
 * along the rows, and a transpose, so each short transform stays in cache.
 * Inverse transforms conjugate on the way in and out, so one forward loop
 * serves both. float rows are widened to double and rounded once on the way
 * out, which keeps them within float32 rounding of torch's. Rows are
 * independent and split over threads (kernels/parallel.h); rows along an
 * inner dim are gathered a block of neighbours at a time, so every cache
 * line read serves several rows. Plans are cached per length. Plain C, no
 * Python. */
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
    double *tw; /* exp(-2 pi i k / n), k < n, as (re, im) pairs */
    int nf;
    int fac[64];
    /* Bluestein, for lengths with a prime factor above 5 */
    int64_t m;
    struct fft_plan *sub; /* the power-of-two plan of length m */
    double *chirp;        /* exp(-pi i k^2 / n), k < n */
    double *bf;           /* the transform of the conjugate chirp, length m */
    /* four-step, for long factorable lengths: n = n1 n2, plans of n1 and n2 */
    struct fft_plan *s1, *s2;
} fft_plan;

/* The length from which a factorable transform goes by four steps: its
 * double buffers (16 n bytes, twice) no longer fit in a core's L2. */
#define SPLIT_MIN 65536
/* At most this many neighbouring rows (or columns) are gathered together. */
#define BLOCK_MAX 16
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
    free(p->chirp);
    free(p->bf);
    free(p);
}

/* The longest plan whose passes are of radix 8 where they can be (the sweep
 * beside torch: 4096 and 8192 gain from it, 16384 loses). */
#define RADIX8_MAX 8192

static bool factor(fft_plan *p)
{
    int64_t n = p->n;
    p->nf = 0;
    /* one radix-4 pass first (its points are single, with a pass of its own),
     * then radix 8 while it divides: fewer passes over the row; the radix-8
     * passes thus always see s a multiple of 4. Their eight points lie n / 8
     * apart; past RADIX8_MAX those strides (32 KiB and more) put the sixteen
     * streams of a pass in too few cache sets, and radix 4 is faster. */
    if (n % 4 == 0) {
        p->fac[p->nf++] = 4;
        n /= 4;
        while (p->n <= RADIX8_MAX && n % 8 == 0) {
            p->fac[p->nf++] = 8;
            n /= 8;
        }
    }
    while (n % 4 == 0) {
        p->fac[p->nf++] = 4;
        n /= 4;
    }
    static const int small[] = {2, 3, 5};
    for (int i = 0; i < 3; i++)
        while (n % small[i] == 0) {
            p->fac[p->nf++] = small[i];
            n /= small[i];
        }
    return n == 1;
}

static double *stockham(const fft_plan *p, double *x, double *work);

/* The divisor of n nearest its square root from below (n1 <= n2). */
static int64_t split_point(int64_t n)
{
    int64_t d = (int64_t)sqrt((double)n);
    while (d > 1 && n % d)
        d--;
    return d;
}

/* A plan for length n; split allows the four-step form (Bluestein's inner
 * power-of-two plan is called through stockham directly, so it is never split). */
static fft_plan *plan_new(int64_t n, bool split)
{
    fft_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n = n;
    if (factor(p)) {
        if (!(p->tw = malloc(sizeof(double) * 2 * (size_t)n)))
            goto fail;
        for (int64_t k = 0; k < n; k++) {
            double a = TWO_PI * (double)k / (double)n;
            p->tw[2 * k] = cos(a);
            p->tw[2 * k + 1] = -sin(a);
        }
        int64_t n1 = split && n >= SPLIT_MIN ? split_point(n) : 1;
        if (n1 > 1 && (!(p->s1 = plan_new(n1, false)) || !(p->s2 = plan_new(n / n1, false))))
            goto fail;
        return p;
    }
    int64_t m = 1;
    while (m < 2 * n - 1)
        m *= 2;
    p->m = m;
    p->chirp = malloc(sizeof(double) * 2 * (size_t)n);
    p->bf = calloc(2 * (size_t)m, sizeof(double));
    double *b = calloc(4 * (size_t)m, sizeof(double));
    if (!p->chirp || !p->bf || !b || !(p->sub = plan_new(m, false))) {
        free(b);
        goto fail;
    }
    /* k^2 mod 2n, kept by (k+1)^2 = k^2 + 2k + 1, holds the angle small and exact */
    for (int64_t k = 0, q = 0; k < n; q = (q + 2 * k + 1) % (2 * n), k++) {
        double a = TWO_PI * 0.5 * (double)q / (double)n;
        p->chirp[2 * k] = cos(a);
        p->chirp[2 * k + 1] = -sin(a);
    }
    for (int64_t k = 0; k < n; k++) {
        b[2 * k] = p->chirp[2 * k];
        b[2 * k + 1] = -p->chirp[2 * k + 1];
        if (k) {
            b[2 * (m - k)] = b[2 * k];
            b[2 * (m - k) + 1] = b[2 * k + 1];
        }
    }
    memcpy(p->bf, stockham(p->sub, b, b + 2 * m), sizeof(double) * 2 * (size_t)m);
    free(b);
    return p;
fail:
    plan_free(p);
    return NULL;
}

/* x * w for complex pairs */
#define CMUL_RE(xr, xi, wr, wi) ((xr) * (wr) - (xi) * (wi))
#define CMUL_IM(xr, xi, wr, wi) ((xr) * (wi) + (xi) * (wr))

/* The radix-r passes of the Stockham autosort transform: src holds r * m
 * blocks of s interleaved sequences; each sequence's r points q + s (j + i m)
 * go through a length-r transform, twiddled by exp(-2 pi i j k / (r m)) =
 * tw[j k s] on the way into dst's points q + s (r j + k). Every access runs
 * along q, so the passes stream through memory; j = 0 needs no twiddle. */

/* the radix-4 butterfly of the points x[0], x[xs], x[2 xs], x[3 xs] into
 * u0..u3 (u1 = b - i d, u3 = b + i d) */
#define BFLY4(x, xs)                                                                  \
    double ar = x[0] + x[2 * xs], ai = x[1] + x[2 * xs + 1];                          \
    double br = x[0] - x[2 * xs], bi = x[1] - x[2 * xs + 1];                          \
    double cr = x[xs] + x[3 * xs], ci = x[xs + 1] + x[3 * xs + 1];                    \
    double dr = x[xs] - x[3 * xs], di = x[xs + 1] - x[3 * xs + 1];                    \
    double u0r = ar + cr, u0i = ai + ci, u1r = br + di, u1i = bi - dr, u2r = ar - cr; \
    double u2i = ai - ci, u3r = br - di, u3i = bi + dr

/* Two neighbouring sequences q, q + 1 as one vector (re, im, re, im); the
 * vector forms do the scalar ones' operations in the same order, so results
 * are the same bits. */
MT_VINLINE mt_v4d vload(const double *p)
{
    mt_v4d v;
    memcpy(&v, p, sizeof v);
    return v;
}
MT_VINLINE void vstore(double *p, mt_v4d v) { memcpy(p, &v, sizeof v); }
MT_VINLINE mt_v4d vswap(mt_v4d v) { return __builtin_shufflevector(v, v, 1, 0, 3, 2); }
/* v times (wr, wi) in both complex lanes: re = vr wr - vi wi, im = vi wr + vr wi */
MT_VINLINE mt_v4d vcmul(mt_v4d v, double wr, double wi)
{
    mt_v4d r = {wr, wr, wr, wr}, i = {-wi, wi, -wi, wi};
    return v * r + vswap(v) * i;
}

/* The radix-4 butterfly of sequences q and q + 1 (x at q's first point),
 * u1 and u3 twiddled unless j is 0. */
MT_VINLINE void bfly4_pair(const double *x, double *y, int64_t xs, int64_t ys, bool twiddle,
                           const double w[6])
{
    const mt_v4d pm = {1.0, -1.0, 1.0, -1.0};
    mt_v4d x0 = vload(x), x1 = vload(x + xs), x2 = vload(x + 2 * xs), x3 = vload(x + 3 * xs);
    mt_v4d a = x0 + x2, b = x0 - x2, c = x1 + x3, d = vswap(x1 - x3) * pm;
    mt_v4d u0 = a + c, u1 = b + d, u2 = a - c, u3 = b - d;
    if (twiddle) {
        u1 = vcmul(u1, w[0], w[1]);
        u2 = vcmul(u2, w[2], w[3]);
        u3 = vcmul(u3, w[4], w[5]);
    }
    vstore(y, u0);
    vstore(y + ys, u1);
    vstore(y + 2 * ys, u2);
    vstore(y + 3 * ys, u3);
}

/* v times the per-lane complex w = (wr, wi, wr', wi') */
MT_VINLINE mt_v4d vcmulv(mt_v4d v, mt_v4d w)
{
    const mt_v4d pm = {-1.0, 1.0, -1.0, 1.0};
    mt_v4d re = __builtin_shufflevector(w, w, 0, 0, 2, 2);
    mt_v4d im = __builtin_shufflevector(w, w, 1, 1, 3, 3) * pm;
    return v * re + vswap(v) * im;
}

MT_VINLINE mt_v4d vpair(const double *a, const double *b)
{
    mt_v4d v = {a[0], a[1], b[0], b[1]};
    return v;
}

/* The first radix-4 pass (s = 1), two j at a time: its sequences are single
 * points, so the vectors run along j, with a twiddle per lane. */
MT_VINLINE void pass4_first_pair(const double *tw, int64_t m, int64_t j, const double *src,
                                 double *dst)
{
    const mt_v4d pm = {1.0, -1.0, 1.0, -1.0};
    const double *x = src + 2 * j;
    mt_v4d x0 = vload(x), x1 = vload(x + 2 * m), x2 = vload(x + 4 * m), x3 = vload(x + 6 * m);
    mt_v4d a = x0 + x2, b = x0 - x2, c = x1 + x3, d = vswap(x1 - x3) * pm;
    mt_v4d u0 = a + c;
    mt_v4d u1 = vcmulv(b + d, vload(tw + 2 * j));
    mt_v4d u2 = vcmulv(a - c, vpair(tw + 4 * j, tw + 4 * j + 4));
    mt_v4d u3 = vcmulv(b - d, vpair(tw + 6 * j, tw + 6 * j + 6));
    double *y = dst + 8 * j;
    vstore(y, __builtin_shufflevector(u0, u1, 0, 1, 4, 5));
    vstore(y + 4, __builtin_shufflevector(u2, u3, 0, 1, 4, 5));
    vstore(y + 8, __builtin_shufflevector(u0, u1, 2, 3, 6, 7));
    vstore(y + 12, __builtin_shufflevector(u2, u3, 2, 3, 6, 7));
}

MT_CLONES_AVX2 static void pass4(const double *restrict tw, int64_t m, int64_t s,
                                 const double *restrict src, double *restrict dst)
{
    int64_t xs = 2 * s * m, ys = 2 * s, j0 = 0;
    /* s = 1: j from 1 in vector pairs; j = 0 (no twiddle) and any j past the
     * last pair go through the loop below, which then skips from 0 to j0 */
    if (s == 1)
        for (j0 = 1; j0 + 1 < m; j0 += 2)
            pass4_first_pair(tw, m, j0, src, dst);
    for (int64_t j = 0; j < m; j = j == 0 && j0 > 1 ? j0 : j + 1) {
        const double w[6] = {tw[2 * j * s],     tw[2 * j * s + 1], tw[4 * j * s],
                             tw[4 * j * s + 1], tw[6 * j * s],     tw[6 * j * s + 1]};
        const double *xj = src + 2 * s * j;
        double *yj = dst + 2 * s * 4 * j;
        int64_t q = 0;
        for (; q + 1 < s; q += 2)
            bfly4_pair(xj + 2 * q, yj + 2 * q, xs, ys, j > 0, w);
        for (; q < s; q++) {
            const double *x = xj + 2 * q;
            double *y = yj + 2 * q;
            BFLY4(x, xs);
            y[0] = u0r;
            y[1] = u0i;
            y[ys] = j ? CMUL_RE(u1r, u1i, w[0], w[1]) : u1r;
            y[ys + 1] = j ? CMUL_IM(u1r, u1i, w[0], w[1]) : u1i;
            y[2 * ys] = j ? CMUL_RE(u2r, u2i, w[2], w[3]) : u2r;
            y[2 * ys + 1] = j ? CMUL_IM(u2r, u2i, w[2], w[3]) : u2i;
            y[3 * ys] = j ? CMUL_RE(u3r, u3i, w[4], w[5]) : u3r;
            y[3 * ys + 1] = j ? CMUL_IM(u3r, u3i, w[4], w[5]) : u3i;
        }
    }
}

/* -i v for the complex lanes of v */
MT_VINLINE mt_v4d vmul_negi(mt_v4d v)
{
    const mt_v4d pm = {1.0, -1.0, 1.0, -1.0};
    return vswap(v) * pm;
}

/* The radix-8 pass, for s even (two sequences q, q + 1 per vector): the
 * length-4 transforms of the even and the odd points, the odd ones turned by
 * exp(-2 pi i k / 8), combined; then the twiddles tw[j k s] unless j is 0. */
MT_CLONES_AVX2 static void pass8(const double *restrict tw, int64_t m, int64_t s,
                                 const double *restrict src, double *restrict dst)
{
    const double h = 0.70710678118654752440084436210484904;
    int64_t xs = 2 * s * m, ys = 2 * s;
    for (int64_t j = 0; j < m; j++) {
        double w[14];
        for (int k = 1; k < 8; k++) {
            w[2 * k - 2] = tw[2 * j * k * s];
            w[2 * k - 1] = tw[2 * j * k * s + 1];
        }
        const double *xj = src + 2 * s * j;
        double *yj = dst + 2 * s * 8 * j;
        for (int64_t q = 0; q < s; q += 2) {
            const double *x = xj + 2 * q;
            mt_v4d x0 = vload(x), x1 = vload(x + xs), x2 = vload(x + 2 * xs);
            mt_v4d x3 = vload(x + 3 * xs), x4 = vload(x + 4 * xs), x5 = vload(x + 5 * xs);
            mt_v4d x6 = vload(x + 6 * xs), x7 = vload(x + 7 * xs);
            mt_v4d a = x0 + x4, b = x0 - x4, c = x2 + x6, d = vmul_negi(x2 - x6);
            mt_v4d e0 = a + c, e1 = b + d, e2 = a - c, e3 = b - d;
            a = x1 + x5;
            b = x1 - x5;
            c = x3 + x7;
            d = vmul_negi(x3 - x7);
            mt_v4d o0 = a + c, o1 = b + d, o2 = a - c, o3 = b - d;
            o1 = (o1 + vmul_negi(o1)) * h;
            o2 = vmul_negi(o2);
            o3 = (vmul_negi(o3) - o3) * h;
            mt_v4d y[8] = {e0 + o0, e1 + o1, e2 + o2, e3 + o3, e0 - o0, e1 - o1, e2 - o2, e3 - o3};
            double *out = yj + 2 * q;
            vstore(out, y[0]);
            for (int k = 1; k < 8; k++)
                vstore(out + k * ys, j ? vcmul(y[k], w[2 * k - 2], w[2 * k - 1]) : y[k]);
        }
    }
}

MT_CLONES_AVX2 static void pass2(const double *restrict tw, int64_t m, int64_t s,
                                 const double *restrict src, double *restrict dst)
{
    int64_t xs = 2 * s * m, ys = 2 * s;
    for (int64_t j = 0; j < m; j++) {
        double wr = tw[2 * j * s], wi = tw[2 * j * s + 1];
        const double *xj = src + 2 * s * j;
        double *yj = dst + 2 * s * 2 * j;
        int64_t q = 0;
        for (; q + 1 < s; q += 2) {
            mt_v4d x0 = vload(xj + 2 * q), x1 = vload(xj + 2 * q + xs);
            mt_v4d u = x0 - x1;
            vstore(yj + 2 * q, x0 + x1);
            vstore(yj + 2 * q + ys, j ? vcmul(u, wr, wi) : u);
        }
        for (; q < s; q++) {
            const double *x = xj + 2 * q;
            double *y = yj + 2 * q;
            double ur = x[0] - x[xs], ui = x[1] - x[xs + 1];
            y[0] = x[0] + x[xs];
            y[1] = x[1] + x[xs + 1];
            y[ys] = j ? CMUL_RE(ur, ui, wr, wi) : ur;
            y[ys + 1] = j ? CMUL_IM(ur, ui, wr, wi) : ui;
        }
    }
}

/* The length-3 transform of x[0..3) into y, on two complex lanes:
 * y1, y2 = x0 - (x1 + x2) / 2 -+ i sin(2 pi / 3) (x1 - x2). */
MT_VINLINE void bfly3(mt_v4d *y, const mt_v4d *x)
{
    const double sin3 = 0.86602540378443864676372317075293618;
    mt_v4d t1 = x[1] + x[2], t2 = x[0] - t1 * 0.5, t3 = vmul_negi((x[1] - x[2]) * sin3);
    y[0] = x[0] + t1;
    y[1] = t2 + t3;
    y[2] = t2 - t3;
}

/* The length-5 transform of x[0..5) into y, on two complex lanes, from the
 * sums and differences of the points k and 5 - k. */
MT_VINLINE void bfly5(mt_v4d *y, const mt_v4d *x)
{
    const double c1 = 0.30901699437494742410229341718281906;  /* cos(2 pi / 5) */
    const double c2 = -0.80901699437494742410229341718281906; /* cos(4 pi / 5) */
    const double s1 = 0.95105651629515357211643933337938214;  /* sin(2 pi / 5) */
    const double s2 = 0.58778525229247312916870595463907277;  /* sin(4 pi / 5) */
    mt_v4d a1 = x[1] + x[4], b1 = x[1] - x[4], a2 = x[2] + x[3], b2 = x[2] - x[3];
    mt_v4d r1 = x[0] + a1 * c1 + a2 * c2, r2 = x[0] + a1 * c2 + a2 * c1;
    mt_v4d i1 = vmul_negi(b1 * s1 + b2 * s2), i2 = vmul_negi(b1 * s2 - b2 * s1);
    y[0] = x[0] + a1 + a2;
    y[1] = r1 + i1;
    y[4] = r1 - i1;
    y[2] = r2 + i2;
    y[3] = r2 - i2;
}

/* The radix-3 and radix-5 passes, two sequences q, q + 1 per vector (a lone
 * last one in the low lanes when s is odd). */
MT_CLONES_AVX2 static void pass35(int r, const double *restrict tw, int64_t m, int64_t s,
                                  const double *restrict src, double *restrict dst)
{
    static const double zero[2] = {0.0, 0.0};
    int64_t xs = 2 * s * m, ys = 2 * s;
    for (int64_t j = 0; j < m; j++) {
        double w[8];
        for (int k = 1; k < r; k++) {
            w[2 * k - 2] = tw[2 * j * k * s];
            w[2 * k - 1] = tw[2 * j * k * s + 1];
        }
        const double *xj = src + 2 * s * j;
        double *yj = dst + 2 * s * r * j;
        for (int64_t q = 0; q < s; q += 2) {
            bool pair = q + 1 < s;
            mt_v4d x[5], y[5];
            for (int i = 0; i < r; i++) {
                const double *p = xj + 2 * q + i * xs;
                x[i] = pair ? vload(p) : vpair(p, zero);
            }
            if (r == 3)
                bfly3(y, x);
            else
                bfly5(y, x);
            double *out = yj + 2 * q;
            for (int k = 0; k < r; k++) {
                mt_v4d v = j && k ? vcmul(y[k], w[2 * k - 2], w[2 * k - 1]) : y[k];
                if (pair) {
                    vstore(out + k * ys, v);
                } else {
                    out[k * ys] = v[0];
                    out[k * ys + 1] = v[1];
                }
            }
        }
    }
}

/* The forward transform of x (the plan's length, contiguous) using work of
 * the same length: a pointer to the result, x or work. */
static double *stockham(const fft_plan *p, double *x, double *work)
{
    double *src = x, *dst = work;
    int64_t s = 1, len = p->n;
    for (int f = 0; f < p->nf; f++) {
        int r = p->fac[f];
        if (r == 8)
            pass8(p->tw, len / r, s, src, dst);
        else if (r == 4)
            pass4(p->tw, len / r, s, src, dst);
        else if (r == 2)
            pass2(p->tw, len / r, s, src, dst);
        else
            pass35(r, p->tw, len / r, s, src, dst);
        double *t = src;
        src = dst;
        dst = t;
        s *= r;
        len /= r;
    }
    return src;
}

/* The forward transform of contiguous in into out, both of the plan's
 * length n, as the cyclic convolution of the chirped input with the
 * conjugate chirp; a and fa are scratch of length m each. */
static void bluestein(const fft_plan *p, const double *in, double *out, double *a, double *fa)
{
    int64_t n = p->n, m = p->m;
    const double *w = p->chirp;
    memset(a, 0, sizeof(double) * 2 * (size_t)m);
    for (int64_t k = 0; k < n; k++) {
        a[2 * k] = CMUL_RE(in[2 * k], in[2 * k + 1], w[2 * k], w[2 * k + 1]);
        a[2 * k + 1] = CMUL_IM(in[2 * k], in[2 * k + 1], w[2 * k], w[2 * k + 1]);
    }
    double *res = stockham(p->sub, a, fa), *other = res == a ? fa : a;
    /* times bf, conjugated so the forward transform inverts */
    for (int64_t k = 0; k < m; k++) {
        double xr = res[2 * k], xi = res[2 * k + 1], br = p->bf[2 * k], bi = p->bf[2 * k + 1];
        other[2 * k] = CMUL_RE(xr, xi, br, bi);
        other[2 * k + 1] = -CMUL_IM(xr, xi, br, bi);
    }
    res = stockham(p->sub, other, res);
    double inv_m = 1.0 / (double)m;
    for (int64_t k = 0; k < n; k++) {
        double xr = res[2 * k] * inv_m, xi = -res[2 * k + 1] * inv_m;
        out[2 * k] = CMUL_RE(xr, xi, w[2 * k], w[2 * k + 1]);
        out[2 * k + 1] = CMUL_IM(xr, xi, w[2 * k], w[2 * k + 1]);
    }
}

/* Rows of length n gathered together: enough to fill a few cache lines of
 * each point, few enough that the block stays in L2. */
static int64_t block_rows(int64_t n, int64_t avail)
{
    int64_t b = 32768 / (n > 0 ? n : 1);
    b = b < 1 ? 1 : b > BLOCK_MAX ? BLOCK_MAX : b;
    return b < avail ? b : avail;
}

static int64_t four_step_block(const fft_plan *p) { return block_rows(p->s1->n, p->s2->n); }

static int64_t scratch_len(const fft_plan *p)
{
    if (p->sub)
        return 4 * p->m;
    if (p->s1) {
        int64_t n1 = p->s1->n, n2 = p->s2->n;
        return 2 * four_step_block(p) * PADDED(n1) + 2 * (n1 > n2 ? n1 : n2);
    }
    return 0;
}

/* One end of a four-step transform: complex pairs of float (single) or of
 * double at p, each part multiplied by f[0] (real) or f[1] (imaginary) as
 * it is read or written, so the conversion, conjugation and scale of a row
 * ride along with the gather and the transpose instead of passes of their own. */
typedef struct {
    void *p;
    bool single;
    double f[2];
} io_view;

MT_VINLINE void io_get(const io_view *v, int64_t e, double *re, double *im)
{
    if (v->single) {
        const float *s = (const float *)v->p + 2 * e;
        *re = (double)s[0] * v->f[0];
        *im = (double)s[1] * v->f[1];
    } else {
        const double *s = (const double *)v->p + 2 * e;
        *re = s[0] * v->f[0];
        *im = s[1] * v->f[1];
    }
}

MT_VINLINE void io_put(const io_view *v, int64_t e, double re, double im)
{
    if (v->single) {
        float *d = (float *)v->p + 2 * e;
        d[0] = (float)(re * v->f[0]);
        d[1] = (float)(im * v->f[1]);
    } else {
        double *d = (double *)v->p + 2 * e;
        d[0] = re * v->f[0];
        d[1] = im * v->f[1];
    }
}

/* Rows this far ahead of a strided gather are prefetched: its rows are pages
 * apart, beyond what the hardware prefetchers follow. */
#define PREFETCH_AHEAD 8

MT_VINLINE const char *row_address(const io_view *v, int64_t e)
{
    return (const char *)v->p + (size_t)e * (v->single ? 8 : 16);
}

/* A macro, as __builtin_prefetch takes its read/write hint only as a constant
 * (clang refuses one passed through a function's parameter). */
#define PREFETCH_ROW(v, e, write)                                                                  \
    do {                                                                                           \
        const char *row_ = row_address(v, e);                                                      \
        __builtin_prefetch(row_, write);                                                           \
        __builtin_prefetch(row_ + 64, write);                                                      \
    } while (0)

/* The four-step transform of in (length n = n1 n2, read as [n1][n2]) into
 * out: columns gathered from in, transformed and twiddled into x, rows of x
 * transformed in place, then x[k1][k2] written to out[k1 + n1 k2]. in may be
 * x itself. */
static void four_step(const fft_plan *p, const io_view *in, const io_view *out, double *x,
                      double *scratch)
{
    const fft_plan *p1 = p->s1, *p2 = p->s2;
    int64_t n1 = p1->n, n2 = p2->n, bs = four_step_block(p);
    int64_t ld = PADDED(n1);
    double *cols = scratch, *work = scratch + 2 * bs * ld;
    for (int64_t c0 = 0; c0 < n2; c0 += bs) {
        int64_t b = n2 - c0 < bs ? n2 - c0 : bs;
        for (int64_t j1 = 0; j1 < n1; j1++) {
            if (j1 + PREFETCH_AHEAD < n1)
                PREFETCH_ROW(in, (j1 + PREFETCH_AHEAD) * n2 + c0, 0);
            for (int64_t c = 0; c < b; c++)
                io_get(in, j1 * n2 + c0 + c, &cols[2 * (c * ld + j1)],
                       &cols[2 * (c * ld + j1) + 1]);
        }
        for (int64_t c = 0; c < b; c++) {
            double *col = cols + 2 * c * ld, *res = stockham(p1, col, work);
            if (res != col)
                memcpy(col, res, sizeof(double) * 2 * (size_t)n1);
        }
        /* exp(-2 pi i j2 k1 / n) as exp(-2 pi i hi / n1) exp(-2 pi i lo / n) with
         * j2 k1 = hi n2 + lo: two small tables instead of strides through the
         * length-n one, which for long lengths missed the cache at every point */
        int64_t hi[BLOCK_MAX] = {0}, lo[BLOCK_MAX] = {0};
        for (int64_t k1 = 0; k1 < n1; k1++)
            for (int64_t c = 0; c < b; c++) {
                const double *wh = p1->tw + 2 * hi[c], *wl = p->tw + 2 * lo[c];
                double wr = CMUL_RE(wh[0], wh[1], wl[0], wl[1]);
                double wi = CMUL_IM(wh[0], wh[1], wl[0], wl[1]);
                double vr = cols[2 * (c * ld + k1)], vi = cols[2 * (c * ld + k1) + 1];
                x[2 * (k1 * n2 + c0 + c)] = CMUL_RE(vr, vi, wr, wi);
                x[2 * (k1 * n2 + c0 + c) + 1] = CMUL_IM(vr, vi, wr, wi);
                if ((lo[c] += c0 + c) >= n2) {
                    lo[c] -= n2;
                    hi[c]++;
                }
            }
    }
    for (int64_t r0 = 0; r0 < n1; r0 += bs) {
        int64_t b = n1 - r0 < bs ? n1 - r0 : bs;
        for (int64_t r = r0; r < r0 + b; r++) {
            double *row = x + 2 * r * n2, *res = stockham(p2, row, work);
            if (res != row)
                memcpy(row, res, sizeof(double) * 2 * (size_t)n2);
        }
        for (int64_t k2 = 0; k2 < n2; k2++) {
            if (k2 + PREFETCH_AHEAD < n2)
                PREFETCH_ROW(out, r0 + n1 * (k2 + PREFETCH_AHEAD), 1);
            for (int64_t r = r0; r < r0 + b; r++)
                io_put(out, r + n1 * k2, x[2 * (r * n2 + k2)], x[2 * (r * n2 + k2) + 1]);
        }
    }
}

/* The forward transform of x into x or y (the pointer returned). */
static double *transform_row(const fft_plan *p, double *x, double *y, double *scratch)
{
    if (p->s1) {
        const io_view in = {x, false, {1.0, 1.0}}, out = {y, false, {1.0, 1.0}};
        four_step(p, &in, &out, x, scratch);
        return y;
    }
    if (!p->sub)
        return stockham(p, x, y);
    bluestein(p, x, y, scratch, scratch + 2 * p->m);
    return y;
}

/* A task's buffers, from the caching allocator: long transforms need tens of
 * MiB, which fresh from malloc would page-fault in on every call. */
typedef struct {
    void *block;
    size_t size;
} scratch_block;

static double *scratch_new(int64_t doubles, scratch_block *sb)
{
    void *data = NULL;
    sb->block = mt_alloc(sizeof(double) * (size_t)doubles, 64, false, &data, &sb->size);
    return sb->block ? data : NULL;
}

typedef struct {
    const fft_plan *p;
    const void *src;
    void *dst;
    bool single, inverse;
    int64_t n, inner, block, nblocks; /* nblocks: blocks of `block` rows per outer index */
    double scale;
    int failed;
} rows_job;

/* Rows i0..i0+b of an [n][inner] complex slab d in and out of b double rows
 * of x, PADDED(n) points apart, times the (re, im) factors f[0], f[1] (a
 * conjugation, a scale). A lone contiguous row is one flat loop the compiler
 * vectorizes (its factors as two scalars: indexed by k & 1 they became a
 * gather). */
#define SLAB_COPY(T)                                                                            \
    MT_CLONES_AVX2 static void slab_in_##T(double *restrict x, const T *restrict d, int64_t n,  \
                                           int64_t inner, int64_t b, const double f[2])         \
    {                                                                                           \
        if (b == 1 && inner == 1) {                                                             \
            const double f0 = f[0], f1 = f[1];                                                  \
            for (int64_t k = 0; k < n; k++) {                                                   \
                x[2 * k] = (double)d[2 * k] * f0;                                               \
                x[2 * k + 1] = (double)d[2 * k + 1] * f1;                                       \
            }                                                                                   \
            return;                                                                             \
        }                                                                                       \
        for (int64_t k = 0; k < n; k++) {                                                       \
            const T *src = d + 2 * k * inner;                                                   \
            if (k + PREFETCH_AHEAD < n) {                                                       \
                __builtin_prefetch(src + 2 * PREFETCH_AHEAD * inner);                           \
                __builtin_prefetch((const char *)(src + 2 * PREFETCH_AHEAD * inner) + 64);      \
            }                                                                                   \
            for (int64_t c = 0; c < b; c++) {                                                   \
                x[2 * (c * PADDED(n) + k)] = (double)src[2 * c] * f[0];                         \
                x[2 * (c * PADDED(n) + k) + 1] = (double)src[2 * c + 1] * f[1];                 \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    MT_CLONES_AVX2 static void slab_out_##T(T *restrict d, const double *restrict x, int64_t n, \
                                            int64_t inner, int64_t b, const double f[2])        \
    {                                                                                           \
        if (b == 1 && inner == 1) {                                                             \
            const double f0 = f[0], f1 = f[1];                                                  \
            for (int64_t k = 0; k < n; k++) {                                                   \
                d[2 * k] = (T)(x[2 * k] * f0);                                                  \
                d[2 * k + 1] = (T)(x[2 * k + 1] * f1);                                          \
            }                                                                                   \
            return;                                                                             \
        }                                                                                       \
        for (int64_t k = 0; k < n; k++) {                                                       \
            T *dst = d + 2 * k * inner;                                                         \
            if (k + PREFETCH_AHEAD < n) {                                                       \
                __builtin_prefetch(dst + 2 * PREFETCH_AHEAD * inner, 1);                        \
                __builtin_prefetch((char *)(dst + 2 * PREFETCH_AHEAD * inner) + 64, 1);         \
            }                                                                                   \
            for (int64_t c = 0; c < b; c++) {                                                   \
                dst[2 * c] = (T)(x[2 * (c * PADDED(n) + k)] * f[0]);                            \
                dst[2 * c + 1] = (T)(x[2 * (c * PADDED(n) + k) + 1] * f[1]);                    \
            }                                                                                   \
        }                                                                                       \
    }
SLAB_COPY(float)
SLAB_COPY(double)

static void run_rows(void *ctx, int64_t begin, int64_t end)
{
    rows_job *job = ctx;
    int64_t n = job->n, inner = job->inner, bs = job->block;
    double sign = job->inverse ? -1.0 : 1.0;
    scratch_block sb;
    /* y holds a row's result unless the four steps write it out themselves */
    int64_t ylen = inner == 1 && job->p->s1 ? 0 : 2 * n;
    double *buf = scratch_new(2 * PADDED(n) * bs + ylen + scratch_len(job->p), &sb);
    if (!buf) {
        job->failed = 1;
        return;
    }
    double *x = buf, *y = buf + 2 * PADDED(n) * bs, *scratch = y + ylen;
    size_t esize = job->single ? 2 * sizeof(float) : 2 * sizeof(double);
    for (int64_t task = begin; task < end; task++) {
        int64_t o = task / job->nblocks, i0 = (task % job->nblocks) * bs;
        int64_t b = inner - i0 < bs ? inner - i0 : bs;
        size_t at = (size_t)(o * n * inner + i0) * esize;
        const char *in = (const char *)job->src + at;
        char *slab = (char *)job->dst + at;
        const double in_f[2] = {1.0, sign}, out_f[2] = {job->scale, sign * job->scale};
        if (b == 1 && inner == 1 && job->p->s1) {
            /* a lone long row: the four steps read and write the slab themselves */
            const io_view vin = {(void *)in, job->single, {in_f[0], in_f[1]}};
            const io_view vout = {slab, job->single, {out_f[0], out_f[1]}};
            four_step(job->p, &vin, &vout, x, scratch);
            continue;
        }
        if (job->single)
            slab_in_float(x, (const float *)in, n, inner, b, in_f);
        else
            slab_in_double(x, (const double *)in, n, inner, b, in_f);
        const double *out = x;
        if (b == 1)
            out = transform_row(job->p, x, y, scratch);
        else
            for (int64_t c = 0; c < b; c++) {
                double *row = x + 2 * c * PADDED(n), *res = transform_row(job->p, row, y, scratch);
                if (res != row)
                    memcpy(row, res, sizeof(double) * 2 * (size_t)n);
            }
        if (job->single)
            slab_out_float((float *)slab, out, n, inner, b, out_f);
        else
            slab_out_double((double *)slab, out, n, inner, b, out_f);
    }
    mt_alloc_free(sb.block, sb.size);
}

/* Plans of the lengths transformed so far, kept for the process's life (a
 * plan is read-only once made, so threads share them); lengths past the
 * cache's room get a plan per call. */
#define PLAN_CACHE 64
static fft_plan *cached[PLAN_CACHE];
static int ncached;
static mt_mutex cache_lock = MT_MUTEX_INIT;

static fft_plan *plan_for(int64_t n, bool *owned)
{
    fft_plan *p = NULL;
    *owned = false;
    mt_mutex_lock(&cache_lock);
    for (int i = 0; i < ncached && !p; i++)
        if (cached[i]->n == n)
            p = cached[i];
    if (!p && (p = plan_new(n, true))) {
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
    fft_plan *p = plan_for(n, &owned);
    if (!p)
        return -1;
    int64_t block = inner > 1 ? block_rows(n, inner) : 1, nblocks = (inner + block - 1) / block;
    rows_job job = {p, src, dst, single, inverse, n, inner, block, nblocks, scale, 0};
    double work =
        (double)(n * block) * (p->sub ? 4.0 * (double)p->m / (double)n : 1.0) * log2((double)n + 1);
    mt_parallel_for(0, outer * nblocks, (int64_t)(1 + 32768.0 / (work + 1)), run_rows, &job);
    if (owned)
        plan_free(p);
    return job.failed ? -1 : 0;
}

/* A real row of even length n as the complex row z_k = x_2k + i x_2k+1 of
 * length h = n / 2: its transform Z gives the even and odd samples' spectra
 * E_k = (Z_k + conj Z_h-k) / 2 and O_k = (Z_k - conj Z_h-k) / 2i, and
 * X_k = E_k + exp(-2 pi i k / n) O_k for k <= h. */
typedef struct {
    const fft_plan *half, *full; /* full: only its twiddles */
    const void *src;
    void *dst;
    bool single;
    int64_t n, inner;
    double scale;
    int failed;
} r2c_job;

static void run_r2c(void *ctx, int64_t begin, int64_t end)
{
    r2c_job *job = ctx;
    int64_t n = job->n, h = n / 2, inner = job->inner;
    scratch_block sb;
    double *buf = scratch_new(4 * h + scratch_len(job->half), &sb);
    if (!buf) {
        job->failed = 1;
        return;
    }
    const double *tw = job->full->tw;
    double sc = job->scale;
    for (int64_t row = begin; row < end; row++) {
        int64_t o = row / inner, i = row % inner;
        int64_t sbase = o * n * inner + i, dbase = o * (h + 1) * inner + i;
        if (job->single) {
            const float *x = job->src;
            for (int64_t k = 0; k < n; k++)
                buf[k] = x[sbase + k * inner];
        } else {
            const double *x = job->src;
            for (int64_t k = 0; k < n; k++)
                buf[k] = x[sbase + k * inner];
        }
        const double *z = transform_row(job->half, buf, buf + 2 * h, buf + 4 * h);
        for (int64_t k = 0; k <= h; k++) {
            double xr, xi;
            if (k == 0 || k == h) {
                xr = k == 0 ? z[0] + z[1] : z[0] - z[1];
                xi = 0.0;
            } else {
                double ar = z[2 * k], ai = z[2 * k + 1];
                double br = z[2 * (h - k)], bi = -z[2 * (h - k) + 1];
                double er = 0.5 * (ar + br), ei = 0.5 * (ai + bi);
                double odr = 0.5 * (ai - bi), odi = -0.5 * (ar - br);
                xr = er + CMUL_RE(odr, odi, tw[2 * k], tw[2 * k + 1]);
                xi = ei + CMUL_IM(odr, odi, tw[2 * k], tw[2 * k + 1]);
            }
            int64_t d = 2 * (dbase + k * inner);
            if (job->single) {
                float *y = job->dst;
                y[d] = (float)(xr * sc);
                y[d + 1] = (float)(xi * sc);
            } else {
                double *y = job->dst;
                y[d] = xr * sc;
                y[d + 1] = xi * sc;
            }
        }
    }
    mt_alloc_free(sb.block, sb.size);
}

int mt_fft_r2c_half(const void *src, void *dst, bool single, int64_t outer, int64_t n,
                    int64_t inner, double scale)
{
    if (n < 2 || n % 2)
        return 1;
    bool owned_half, owned_full;
    fft_plan *half = plan_for(n / 2, &owned_half);
    fft_plan *full = half && !half->sub ? plan_for(n, &owned_full) : NULL;
    int rc = 1;
    if (full && !full->sub) {
        r2c_job job = {half, full, src, dst, single, n, inner, scale, 0};
        double work = (double)n * log2((double)n + 1);
        mt_parallel_for(0, outer * inner, (int64_t)(1 + 32768.0 / (work + 1)), run_r2c, &job);
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
