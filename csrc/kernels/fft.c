/* Complex discrete Fourier transforms of any length, in double: a recursive
 * mixed-radix Cooley-Tukey over factors 4, 2, 3 and 5 with one table of
 * twiddles per length, and Bluestein's chirp convolution (through a
 * power-of-two transform) for lengths with any other prime factor. Inverse
 * transforms conjugate on the way in and out, so one forward loop serves both.
 * float rows are widened to double and rounded once on the way out, which
 * keeps them within float32 rounding of torch's. Rows are independent and
 * split over threads (kernels/parallel.h). Plain C, no Python. */
#include "fft.h"
#include "parallel.h"

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

static void transform(const fft_plan *p, const double *in, double *out);

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
    double *b = calloc(2 * (size_t)m, sizeof(double));
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
    transform(p->sub, b, p->bf);
    free(b);
    return p;
fail:
    plan_free(p);
    return NULL;
}

/* The length-n transform of in (stride is complex elements) into out
 * (contiguous), n * s being the plan's length and fi the next factor. */
static void rec(const fft_plan *p, const double *in, int64_t is, double *out, int64_t n, int64_t s,
                int fi)
{
    if (n == 1) {
        out[0] = in[0];
        out[1] = in[1];
        return;
    }
    int r = p->fac[fi];
    int64_t m = n / r;
    for (int j = 0; j < r; j++)
        rec(p, in + 2 * j * is, is * r, out + 2 * j * m, m, s * r, fi + 1);
    const double *tw = p->tw;
    int64_t step = p->n / r; /* exp(-2 pi i / r) is tw[step] */
    for (int64_t k = 0; k < m; k++) {
        double tr[5], ti[5];
        for (int j = 0; j < r; j++) {
            double xr = out[2 * (j * m + k)], xi = out[2 * (j * m + k) + 1];
            if (j && k) {
                int64_t e = j * k * s;
                double wr = tw[2 * e], wi = tw[2 * e + 1];
                tr[j] = xr * wr - xi * wi;
                ti[j] = xr * wi + xi * wr;
            } else {
                tr[j] = xr;
                ti[j] = xi;
            }
        }
        double *y = out + 2 * k;
        int64_t ys = 2 * m;
        if (r == 2) {
            y[0] = tr[0] + tr[1];
            y[1] = ti[0] + ti[1];
            y[ys] = tr[0] - tr[1];
            y[ys + 1] = ti[0] - ti[1];
        } else if (r == 4) {
            double ar = tr[0] + tr[2], ai = ti[0] + ti[2], br = tr[0] - tr[2], bi = ti[0] - ti[2];
            double cr = tr[1] + tr[3], ci = ti[1] + ti[3], dr = tr[1] - tr[3], di = ti[1] - ti[3];
            y[0] = ar + cr;
            y[1] = ai + ci;
            y[2 * ys] = ar - cr;
            y[2 * ys + 1] = ai - ci;
            /* -i (t1 - t3) and +i (t1 - t3) */
            y[ys] = br + di;
            y[ys + 1] = bi - dr;
            y[3 * ys] = br - di;
            y[3 * ys + 1] = bi + dr;
        } else {
            for (int q = 0; q < r; q++) {
                double sr = 0, si = 0;
                for (int j = 0; j < r; j++) {
                    int64_t e = ((int64_t)j * q % r) * step;
                    double wr = tw[2 * e], wi = tw[2 * e + 1];
                    sr += tr[j] * wr - ti[j] * wi;
                    si += tr[j] * wi + ti[j] * wr;
                }
                y[q * ys] = sr;
                y[q * ys + 1] = si;
            }
        }
    }
}

/* Forward transform of contiguous in into out, both of the plan's length n,
 * as the cyclic convolution of the chirped input with the conjugate chirp;
 * a and fa are scratch of length m each. */
static void bluestein(const fft_plan *p, const double *in, double *out, double *a, double *fa)
{
    int64_t n = p->n, m = p->m;
    const double *w = p->chirp;
    memset(a, 0, sizeof(double) * 2 * (size_t)m);
    for (int64_t k = 0; k < n; k++) {
        double xr = in[2 * k], xi = in[2 * k + 1];
        a[2 * k] = xr * w[2 * k] - xi * w[2 * k + 1];
        a[2 * k + 1] = xr * w[2 * k + 1] + xi * w[2 * k];
    }
    rec(p->sub, a, 1, fa, m, 1, 0);
    /* multiply by bf and conjugate, so the forward loop inverts */
    for (int64_t k = 0; k < m; k++) {
        double xr = fa[2 * k], xi = fa[2 * k + 1], br = p->bf[2 * k], bi = p->bf[2 * k + 1];
        a[2 * k] = xr * br - xi * bi;
        a[2 * k + 1] = -(xr * bi + xi * br);
    }
    rec(p->sub, a, 1, fa, m, 1, 0);
    double inv_m = 1.0 / (double)m;
    for (int64_t k = 0; k < n; k++) {
        double xr = fa[2 * k] * inv_m, xi = -fa[2 * k + 1] * inv_m;
        out[2 * k] = xr * w[2 * k] - xi * w[2 * k + 1];
        out[2 * k + 1] = xr * w[2 * k + 1] + xi * w[2 * k];
    }
}

static int64_t scratch_len(const fft_plan *p) { return p->sub ? 4 * p->m : 0; }

static void transform_with(const fft_plan *p, const double *in, double *out, double *scratch)
{
    if (p->sub)
        bluestein(p, in, out, scratch, scratch + 2 * p->m);
    else
        rec(p, in, 1, out, p->n, 1, 0);
}

static void transform(const fft_plan *p, const double *in, double *out)
{
    rec(p, in, 1, out, p->n, 1, 0);
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
        transform_with(job->p, x, y, scratch);
        double sr = job->scale, si = sign * job->scale;
        if (job->single) {
            float *d = (float *)job->data;
            for (int64_t k = 0; k < n; k++) {
                d[2 * (base + k * inner)] = (float)(y[2 * k] * sr);
                d[2 * (base + k * inner) + 1] = (float)(y[2 * k + 1] * si);
            }
        } else {
            double *d = (double *)job->data;
            for (int64_t k = 0; k < n; k++) {
                d[2 * (base + k * inner)] = y[2 * k] * sr;
                d[2 * (base + k * inner) + 1] = y[2 * k + 1] * si;
            }
        }
    }
    free(buf);
}

int mt_fft_c2c(void *data, bool single, int64_t outer, int64_t n, int64_t inner, bool inverse,
               double scale)
{
    if (outer * n * inner == 0)
        return 0;
    fft_plan *p = plan_new(n);
    if (!p)
        return -1;
    rows_job job = {p, data, single, inverse, n, inner, scale, 0};
    int64_t rows = outer * inner;
    double work = (double)n * (p->sub ? 4.0 * (double)p->m / (double)n : 1.0) * log2((double)n + 1);
    mt_parallel_for(0, rows, (int64_t)(1 + 32768.0 / (work + 1)), run_rows, &job);
    plan_free(p);
    return job.failed ? -1 : 0;
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
