/* Complex discrete Fourier transforms of any length, in double: Stockham
 * autosort passes of radix 4, 2, 3 and 5 with one table of twiddles per
 * length, and Bluestein's chirp convolution (through a
 * power-of-two transform) for lengths with any other prime factor. Inverse
 * transforms conjugate on the way in and out, so one forward loop serves both.
 * float rows are widened to double and rounded once on the way out, which
 * keeps them within float32 rounding of torch's. Rows are independent and
 * split over threads (kernels/parallel.h); plans are cached per length. Plain
 * C, no Python. */
#include "fft.h"
#include "parallel.h"

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
} fft_plan;

static void plan_free(fft_plan *p)
{
    if (!p)
        return;
    plan_free(p->sub);
    free(p->tw);
    free(p->chirp);
    free(p->bf);
    free(p);
}

static bool factor(fft_plan *p)
{
    int64_t n = p->n;
    p->nf = 0;
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

static fft_plan *plan_new(int64_t n)
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
        return p;
    }
    int64_t m = 1;
    while (m < 2 * n - 1)
        m *= 2;
    p->m = m;
    p->chirp = malloc(sizeof(double) * 2 * (size_t)n);
    p->bf = calloc(2 * (size_t)m, sizeof(double));
    double *b = calloc(4 * (size_t)m, sizeof(double));
    if (!p->chirp || !p->bf || !b || !(p->sub = plan_new(m))) {
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

/* One radix-r pass of the Stockham autosort transform: src holds r * m
 * blocks of s interleaved sequences; each sequence's r points p + j m go
 * through a length-r transform, twiddled by exp(-2 pi i p k / (r m)) on the
 * way into dst's points r p + k. Every access runs along q, so the passes
 * stream through memory. */
static void pass(const fft_plan *p, int r, int64_t m, int64_t s, const double *src, double *dst)
{
    const double *tw = p->tw;
    int64_t step = p->n / r; /* exp(-2 pi i / r) is tw[step] */
    for (int64_t j = 0; j < m; j++) {
        const double *w1 = tw + 2 * j * s;
        for (int64_t q = 0; q < s; q++) {
            const double *x = src + 2 * (q + s * j);
            double *y = dst + 2 * (q + s * r * j);
            int64_t xs = 2 * s * m, ys = 2 * s;
            if (r == 4) {
                const double *w2 = tw + 4 * j * s, *w3 = tw + 6 * j * s;
                double ar = x[0] + x[2 * xs], ai = x[1] + x[2 * xs + 1];
                double br = x[0] - x[2 * xs], bi = x[1] - x[2 * xs + 1];
                double cr = x[xs] + x[3 * xs], ci = x[xs + 1] + x[3 * xs + 1];
                double dr = x[xs] - x[3 * xs], di = x[xs + 1] - x[3 * xs + 1];
                /* u1 = b - i d, u3 = b + i d */
                double u1r = br + di, u1i = bi - dr, u2r = ar - cr, u2i = ai - ci;
                double u3r = br - di, u3i = bi + dr;
                y[0] = ar + cr;
                y[1] = ai + ci;
                y[ys] = CMUL_RE(u1r, u1i, w1[0], w1[1]);
                y[ys + 1] = CMUL_IM(u1r, u1i, w1[0], w1[1]);
                y[2 * ys] = CMUL_RE(u2r, u2i, w2[0], w2[1]);
                y[2 * ys + 1] = CMUL_IM(u2r, u2i, w2[0], w2[1]);
                y[3 * ys] = CMUL_RE(u3r, u3i, w3[0], w3[1]);
                y[3 * ys + 1] = CMUL_IM(u3r, u3i, w3[0], w3[1]);
            } else if (r == 2) {
                double ur = x[0] - x[xs], ui = x[1] - x[xs + 1];
                y[0] = x[0] + x[xs];
                y[1] = x[1] + x[xs + 1];
                y[ys] = CMUL_RE(ur, ui, w1[0], w1[1]);
                y[ys + 1] = CMUL_IM(ur, ui, w1[0], w1[1]);
            } else {
                for (int k = 0; k < r; k++) {
                    double sr = 0, si = 0;
                    for (int i = 0; i < r; i++) {
                        const double *w = tw + 2 * ((int64_t)(i * k % r) * step);
                        sr += CMUL_RE(x[i * xs], x[i * xs + 1], w[0], w[1]);
                        si += CMUL_IM(x[i * xs], x[i * xs + 1], w[0], w[1]);
                    }
                    const double *w = tw + 2 * (j * k * s);
                    y[k * ys] = CMUL_RE(sr, si, w[0], w[1]);
                    y[k * ys + 1] = CMUL_IM(sr, si, w[0], w[1]);
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
        pass(p, r, len / r, s, src, dst);
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

static int64_t scratch_len(const fft_plan *p) { return p->sub ? 4 * p->m : 0; }

/* The forward transform of x into x or y (the pointer returned). */
static double *transform_row(const fft_plan *p, double *x, double *y, double *scratch)
{
    if (!p->sub)
        return stockham(p, x, y);
    bluestein(p, x, y, scratch, scratch + 2 * p->m);
    return y;
}

typedef struct {
    const fft_plan *p;
    void *data;
    bool single, inverse;
    int64_t n, inner;
    double scale;
    int failed;
} rows_job;

static void run_rows(void *ctx, int64_t begin, int64_t end)
{
    rows_job *job = ctx;
    int64_t n = job->n, inner = job->inner;
    double sign = job->inverse ? -1.0 : 1.0;
    double *buf = malloc(sizeof(double) * (size_t)(4 * n + scratch_len(job->p)));
    if (!buf) {
        job->failed = 1;
        return;
    }
    double *x = buf, *y = buf + 2 * n, *scratch = buf + 4 * n;
    for (int64_t row = begin; row < end; row++) {
        int64_t o = row / inner, i = row % inner;
        int64_t base = o * n * inner + i;
        if (job->single) {
            float *d = (float *)job->data;
            for (int64_t k = 0; k < n; k++) {
                x[2 * k] = d[2 * (base + k * inner)];
                x[2 * k + 1] = sign * d[2 * (base + k * inner) + 1];
            }
        } else {
            double *d = (double *)job->data;
            for (int64_t k = 0; k < n; k++) {
                x[2 * k] = d[2 * (base + k * inner)];
                x[2 * k + 1] = sign * d[2 * (base + k * inner) + 1];
            }
        }
        const double *res = transform_row(job->p, x, y, scratch);
        double sr = job->scale, si = sign * job->scale;
        if (job->single) {
            float *d = (float *)job->data;
            for (int64_t k = 0; k < n; k++) {
                d[2 * (base + k * inner)] = (float)(res[2 * k] * sr);
                d[2 * (base + k * inner) + 1] = (float)(res[2 * k + 1] * si);
            }
        } else {
            double *d = (double *)job->data;
            for (int64_t k = 0; k < n; k++) {
                d[2 * (base + k * inner)] = res[2 * k] * sr;
                d[2 * (base + k * inner) + 1] = res[2 * k + 1] * si;
            }
        }
    }
    free(buf);
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
    if (!p && (p = plan_new(n))) {
        if (ncached < PLAN_CACHE)
            cached[ncached++] = p;
        else
            *owned = true;
    }
    mt_mutex_unlock(&cache_lock);
    return p;
}

int mt_fft_c2c(void *data, bool single, int64_t outer, int64_t n, int64_t inner, bool inverse,
               double scale)
{
    if (outer * n * inner == 0)
        return 0;
    bool owned;
    fft_plan *p = plan_for(n, &owned);
    if (!p)
        return -1;
    rows_job job = {p, data, single, inverse, n, inner, scale, 0};
    int64_t rows = outer * inner;
    double work = (double)n * (p->sub ? 4.0 * (double)p->m / (double)n : 1.0) * log2((double)n + 1);
    mt_parallel_for(0, rows, (int64_t)(1 + 32768.0 / (work + 1)), run_rows, &job);
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
    double *buf = malloc(sizeof(double) * (size_t)(4 * h));
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
        const double *z = stockham(job->half, buf, buf + 2 * h);
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
    free(buf);
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
