/* The loops of kernels/norm.c, written once over a floating type: norm.c
 * includes this file once per dtype with T (the C type) and SFX (the dtype
 * suffix) defined. Sums run in LANES independent T accumulators (which the
 * compiler keeps in vector registers) over blocks of BLOCK elements, and the
 * block totals add up in double: no division or dependency chain per
 * element, and float32 rows of any length keep float32-level accuracy. */

#define NAME_(k, s) k##_##s
#define NAME(k, s) NAME_(k, s)

static inline T NAME(fold, SFX)(T *acc)
{
    for (int w = LANES / 2; w > 0; w /= 2)
        for (int l = 0; l < w; l++)
            acc[l] += acc[l + w];
    return acc[0];
}

/* sum of (x - m)^k over n elements, k = 1 or 2 */
static inline double NAME(moment, SFX)(const T *x, int64_t n, T m, int k)
{
    double total = 0;
    for (int64_t b = 0; b < n; b += BLOCK) {
        const T *p = x + b;
        int64_t len = n - b < BLOCK ? n - b : BLOCK, i = 0;
        T acc[LANES] = {0};
        if (k == 1) {
            for (; i + LANES <= len; i += LANES)
                for (int l = 0; l < LANES; l++)
                    acc[l] += p[i + l] - m;
            for (; i < len; i++)
                acc[i % LANES] += p[i] - m;
        } else {
            for (; i + LANES <= len; i += LANES)
                for (int l = 0; l < LANES; l++)
                    acc[l] += (p[i + l] - m) * (p[i + l] - m);
            for (; i < len; i++)
                acc[i % LANES] += (p[i] - m) * (p[i] - m);
        }
        total += NAME(fold, SFX)(acc);
    }
    return total;
}

/* sum of g and of g * (x - m) over n elements */
static inline void NAME(dual, SFX)(const T *g, const T *x, int64_t n, T m, double *sg,
                                   double *sgx)
{
    double t1 = 0, t2 = 0;
    for (int64_t b = 0; b < n; b += BLOCK) {
        int64_t len = n - b < BLOCK ? n - b : BLOCK, i = 0;
        const T *gp = g + b, *xp = x + b;
        T a1[LANES] = {0}, a2[LANES] = {0};
        for (; i + LANES <= len; i += LANES)
            for (int l = 0; l < LANES; l++) {
                a1[l] += gp[i + l];
                a2[l] += gp[i + l] * (xp[i + l] - m);
            }
        for (; i < len; i++) {
            a1[i % LANES] += gp[i];
            a2[i % LANES] += gp[i] * (xp[i] - m);
        }
        t1 += NAME(fold, SFX)(a1);
        t2 += NAME(fold, SFX)(a2);
    }
    *sg = t1;
    *sgx = t2;
}

/* out = x * a + c over n elements */
static inline void NAME(affine, SFX)(T *out, const T *x, int64_t n, T a, T c)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = x[i] * a + c;
}

MT_CLONES_AVX2_FMA static void NAME(rows_fwd, SFX)(void *arg, int64_t begin, int64_t end)
{
    const norm_job *j = arg;
    const int64_t D = j->cg * j->inner;
    const T *w = j->w, *b = j->b;
    T *stats = j->stats;
    for (int64_t r = begin; r < end; r++) {
        const T *x = (const T *)j->x + r * D;
        T *out = (T *)j->out + r * D;
        T mean = j->rms ? 0 : (T)(NAME(moment, SFX)(x, D, 0, 1) / (double)D);
        double var = NAME(moment, SFX)(x, D, mean, 2) / (double)D;
        T rstd = (T)(1.0 / sqrt(var + j->eps));
        stats[2 * r] = mean;
        stats[2 * r + 1] = rstd;
        int64_t off = (r % j->groups) * j->cg;
        if (j->inner == 1) {
            const T *wp = w + off, *bp = b + off;
            for (int64_t i = 0; i < D; i++)
                out[i] = (x[i] - mean) * rstd * wp[i] + bp[i];
        } else {
            for (int64_t c = 0; c < j->cg; c++) {
                T a = rstd * w[off + c];
                NAME(affine, SFX)(out + c * j->inner, x + c * j->inner, j->inner, a,
                                  b[off + c] - mean * a);
            }
        }
    }
}

/* One part of the rows: its partial weight and bias gradients go to its own
 * slice of the scratch, summed in a fixed order afterwards. */
MT_CLONES_AVX2_FMA static void NAME(rows_bwd, SFX)(void *arg, int64_t pbegin, int64_t pend)
{
    const norm_job *j = arg;
    const int64_t D = j->cg * j->inner, inner = j->inner;
    const T *w = j->w, *stats = j->stats;
    for (int64_t p = pbegin; p < pend; p++) {
        T *dw = (T *)j->part_w + p * j->nparams, *db = (T *)j->part_b + p * j->nparams;
        for (int64_t r = j->rows * p / j->nparts; r < j->rows * (p + 1) / j->nparts; r++) {
            const T *x = (const T *)j->x + r * D, *g = (const T *)j->g + r * D;
            T *gx = (T *)j->gx + r * D;
            T mean = stats[2 * r], rstd = stats[2 * r + 1];
            int64_t off = (r % j->groups) * j->cg;
            const T *wp = w + off;
            T *dwp = dw + off, *dbp = db + off;
            double s1 = 0, s2 = 0;
            if (inner == 1) {
                for (int64_t bl = 0; bl < D; bl += BLOCK) {
                    int64_t len = D - bl < BLOCK ? D - bl : BLOCK, i = bl;
                    T a1[LANES] = {0}, a2[LANES] = {0};
                    for (; i + LANES <= bl + len; i += LANES)
                        for (int l = 0; l < LANES; l++) {
                            T gi = g[i + l], xh = (x[i + l] - mean) * rstd, gw = gi * wp[i + l];
                            a1[l] += gw;
                            a2[l] += gw * xh;
                            dwp[i + l] += gi * xh;
                            dbp[i + l] += gi;
                        }
                    for (; i < bl + len; i++) {
                        T gi = g[i], xh = (x[i] - mean) * rstd, gw = gi * wp[i];
                        a1[i % LANES] += gw;
                        a2[i % LANES] += gw * xh;
                        dwp[i] += gi * xh;
                        dbp[i] += gi;
                    }
                    s1 += NAME(fold, SFX)(a1);
                    s2 += NAME(fold, SFX)(a2);
                }
            } else {
                for (int64_t c = 0; c < j->cg; c++) {
                    double sg, sgx;
                    NAME(dual, SFX)(g + c * inner, x + c * inner, inner, mean, &sg, &sgx);
                    double sgxh = sgx * rstd;
                    dwp[c] += (T)sgxh;
                    dbp[c] += (T)sg;
                    s1 += wp[c] * sg;
                    s2 += wp[c] * sgxh;
                }
            }
            T c2 = (T)(rstd * s2 / (double)D), c1 = j->rms ? 0 : (T)(rstd * s1 / (double)D);
            if (inner == 1) {
                for (int64_t i = 0; i < D; i++)
                    gx[i] = rstd * g[i] * wp[i] - (x[i] - mean) * rstd * c2 - c1;
            } else {
                T kx = -rstd * c2, k0 = mean * rstd * c2 - c1;
                for (int64_t c = 0; c < j->cg; c++) {
                    const T *gc = g + c * inner, *xc = x + c * inner;
                    T *oc = gx + c * inner, a = rstd * wp[c];
                    for (int64_t i = 0; i < inner; i++)
                        oc[i] = a * gc[i] + kx * xc[i] + k0;
                }
            }
        }
    }
}

MT_CLONES_AVX2_FMA static void NAME(batch_fwd, SFX)(void *arg, int64_t begin, int64_t end)
{
    const norm_job *j = arg;
    const int64_t C = j->groups, inner = j->inner, M = j->rows * inner;
    const T *w = j->w, *b = j->b;
    T *stats = j->stats;
    for (int64_t ch = begin; ch < end; ch++) {
        double s = 0, q = 0;
        for (int64_t i = 0; i < j->rows; i++)
            s += NAME(moment, SFX)((const T *)j->x + (i * C + ch) * inner, inner, 0, 1);
        T mean = (T)(s / (double)M);
        for (int64_t i = 0; i < j->rows; i++)
            q += NAME(moment, SFX)((const T *)j->x + (i * C + ch) * inner, inner, mean, 2);
        double var = q / (double)M;
        T invstd = (T)(1.0 / sqrt(var + j->eps)), a = invstd * w[ch], c = b[ch] - mean * a;
        stats[ch] = mean;
        stats[C + ch] = invstd;
        for (int64_t i = 0; i < j->rows; i++)
            NAME(affine, SFX)((T *)j->out + (i * C + ch) * inner,
                              (const T *)j->x + (i * C + ch) * inner, inner, a, c);
        running_update(j, ch, (double)mean, M > 1 ? q / (double)(M - 1) : var);
    }
}

MT_CLONES_AVX2_FMA static void NAME(batch_bwd, SFX)(void *arg, int64_t begin, int64_t end)
{
    const norm_job *j = arg;
    const int64_t C = j->groups, inner = j->inner, M = j->rows * inner;
    const T *w = j->w, *stats = j->stats;
    for (int64_t ch = begin; ch < end; ch++) {
        T mean = stats[ch], invstd = stats[C + ch];
        double sg = 0, sgx = 0;
        for (int64_t i = 0; i < j->rows; i++) {
            double a, c;
            int64_t at = (i * C + ch) * inner;
            NAME(dual, SFX)((const T *)j->g + at, (const T *)j->x + at, inner, mean, &a, &c);
            sg += a;
            sgx += c;
        }
        ((T *)j->part_w)[ch] = (T)(sgx * invstd);
        ((T *)j->part_b)[ch] = (T)sg;
        T a = invstd * w[ch];
        T kx = (T)(-(double)a * invstd * invstd * sgx / (double)M);
        T k0 = (T)(-(double)a * sg / (double)M) - kx * mean;
        for (int64_t i = 0; i < j->rows; i++) {
            int64_t at = (i * C + ch) * inner;
            const T *gc = (const T *)j->g + at, *xc = (const T *)j->x + at;
            T *oc = (T *)j->gx + at;
            for (int64_t k = 0; k < inner; k++)
                oc[k] = a * gc[k] + kx * xc[k] + k0;
        }
    }
}

#undef NAME
#undef NAME_
