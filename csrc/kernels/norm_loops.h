/* The loops of kernels/norm.c, written once over a floating type: norm.c
 * includes this file once per dtype with T (the C type) and SFX (the dtype
 * suffix) defined. Sums run in vectors of independent T accumulators (32
 * bytes: one AVX2 register, two SSE ones) over blocks of BLOCK elements,
 * and the block totals add up in double: no division or dependency chain
 * per element, and float32 rows of any length keep float32-level accuracy. */

#define NAME_(k, s) k##_##s
#define NAME(k, s) NAME_(k, s)

typedef T NAME(vec, SFX) __attribute__((vector_size(32)));
#define VEC NAME(vec, SFX)
#define VL ((int64_t)(sizeof(VEC) / sizeof(T)))

/* (vectors go by pointer: passing one by value outside an AVX function
 * has an ABI of its own) */
static MT_INLINE void NAME(load, SFX)(VEC *v, const T *p) { memcpy(v, p, sizeof *v); }

/* the lanes of v added pairwise */
static MT_INLINE double NAME(fold, SFX)(const VEC *v)
{
    T acc[sizeof(VEC) / sizeof(T)];
    memcpy(acc, v, sizeof *v);
    for (int64_t w = VL / 2; w > 0; w /= 2)
        for (int64_t l = 0; l < w; l++)
            acc[l] += acc[l + w];
    return acc[0];
}

/* sum of (x - m)^k over n elements, k = 1 or 2; four accumulators keep four
 * additions in flight (with two, a row's sweeps wait on the adder's
 * latency: about 15% of a 4096x1024 float32 layer_norm). pf (or
 * NULL): the n elements to be read next, fetched a cache line per two
 * vectors: batch norm reads its channels in page-sized pieces far apart,
 * where the hardware prefetcher starts cold on every piece. */
static MT_INLINE double NAME(moment, SFX)(const T *x, int64_t n, T m, int k, const T *pf)
{
    double total = 0;
    for (int64_t b = 0; b < n; b += BLOCK) {
        const T *p = x + b;
        int64_t len = n - b < BLOCK ? n - b : BLOCK, i = 0;
        VEC a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, u0, u1, u2, u3;
        T tail = 0;
        for (; i + 4 * VL <= len; i += 4 * VL) {
            if (pf) {
                __builtin_prefetch(pf + b + i);
                __builtin_prefetch(pf + b + i + 2 * VL);
            }
            NAME(load, SFX)(&u0, p + i);
            NAME(load, SFX)(&u1, p + i + VL);
            NAME(load, SFX)(&u2, p + i + 2 * VL);
            NAME(load, SFX)(&u3, p + i + 3 * VL);
            u0 -= m;
            u1 -= m;
            u2 -= m;
            u3 -= m;
            if (k == 1) {
                a0 += u0;
                a1 += u1;
                a2 += u2;
                a3 += u3;
            } else {
                a0 += u0 * u0;
                a1 += u1 * u1;
                a2 += u2 * u2;
                a3 += u3 * u3;
            }
        }
        for (; i + VL <= len; i += VL) {
            NAME(load, SFX)(&u0, p + i);
            u0 -= m;
            a0 += k == 1 ? u0 : u0 * u0;
        }
        for (; i < len; i++)
            tail += k == 1 ? p[i] - m : (p[i] - m) * (p[i] - m);
        a0 += a1;
        a2 += a3;
        a0 += a2;
        total += NAME(fold, SFX)(&a0) + tail;
    }
    return total;
}

/* sum of g and of g * (x - m) over n elements; pg, px (or NULL) as moment's pf */
static MT_INLINE void NAME(dual, SFX)(const T *g, const T *x, int64_t n, T m, double *sg,
                                      double *sgx, const T *pg, const T *px)
{
    double t1 = 0, t2 = 0;
    for (int64_t b = 0; b < n; b += BLOCK) {
        int64_t len = n - b < BLOCK ? n - b : BLOCK, i = 0;
        const T *gp = g + b, *xp = x + b;
        VEC a1 = {0}, a2 = {0}, c1 = {0}, c2 = {0}, gu, gv, xu, xv;
        T r1 = 0, r2 = 0;
        for (; i + 2 * VL <= len; i += 2 * VL) {
            if (pg) {
                __builtin_prefetch(pg + b + i);
                __builtin_prefetch(px + b + i);
            }
            NAME(load, SFX)(&gu, gp + i);
            NAME(load, SFX)(&gv, gp + i + VL);
            NAME(load, SFX)(&xu, xp + i);
            NAME(load, SFX)(&xv, xp + i + VL);
            a1 += gu;
            c1 += gv;
            a2 += gu * (xu - m);
            c2 += gv * (xv - m);
        }
        for (; i < len; i++) {
            r1 += gp[i];
            r2 += gp[i] * (xp[i] - m);
        }
        a1 += c1;
        a2 += c2;
        t1 += NAME(fold, SFX)(&a1) + r1;
        t2 += NAME(fold, SFX)(&a2) + r2;
    }
    *sg = t1;
    *sgx = t2;
}

/* the elements of out before its first 16-byte aligned one, at most n: a
 * streamed row's scalar head. Streaming is turned off for a row no head can
 * align (out not on a T boundary), so the body's stores never test it. */
static MT_INLINE int64_t NAME(head, SFX)(const T *out, int64_t n, bool *stream)
{
    uintptr_t off = (uintptr_t)out & 15;
    if (off % sizeof(T) != 0)
        *stream = false;
    int64_t h = *stream ? (int64_t)((16 - off) & 15) / (int64_t)sizeof(T) : 0;
    return h < n ? h : n;
}

/* out = x * a + c over n elements (a channel of batch or group norm) */
static MT_INLINE void NAME(affine, SFX)(T *restrict out, const T *restrict x, int64_t n, T a, T c,
                                        bool stream)
{
    int64_t i = NAME(head, SFX)(out, n, &stream);
    for (int64_t h = 0; h < i; h++)
        out[h] = x[h] * a + c;
    for (; i + VL <= n; i += VL) {
        VEC v;
        NAME(load, SFX)(&v, x + i);
        v = v * a + c;
        mt_stream_put(out + i, &v, sizeof v, stream);
    }
    for (; i < n; i++)
        out[i] = x[i] * a + c;
}

/* out = (x - mean) * rstd * w + b over n elements (a layer norm row; the
 * same shape of loop as affine, but w and b per element, and x - mean
 * first so a large mean does not cancel away the row's precision) */
static MT_INLINE void NAME(normalize, SFX)(T *restrict out, const T *restrict x,
                                           const T *restrict w, const T *restrict b, int64_t n,
                                           T mean, T rstd, bool stream)
{
    int64_t i = NAME(head, SFX)(out, n, &stream);
    for (int64_t h = 0; h < i; h++)
        out[h] = (x[h] - mean) * rstd * w[h] + b[h];
    for (; i + VL <= n; i += VL) {
        VEC xv, wv, bv;
        NAME(load, SFX)(&xv, x + i);
        NAME(load, SFX)(&wv, w + i);
        NAME(load, SFX)(&bv, b + i);
        xv = (xv - mean) * rstd * wv + bv;
        mt_stream_put(out + i, &xv, sizeof xv, stream);
    }
    for (; i < n; i++)
        out[i] = (x[i] - mean) * rstd * w[i] + b[i];
}

/* sum of g * w and of g * w * xhat over a row, xhat = (x - mean) * rstd */
static MT_INLINE void NAME(row_sums, SFX)(const T *g, const T *x, const T *w, int64_t n, T mean,
                                          T rstd, double *s1, double *s2)
{
    double t1 = 0, t2 = 0;
    for (int64_t b = 0; b < n; b += BLOCK) {
        int64_t len = n - b < BLOCK ? n - b : BLOCK, i = 0;
        const T *gp = g + b, *xp = x + b, *wp = w + b;
        VEC a1 = {0}, a2 = {0};
        T r1 = 0, r2 = 0;
        for (; i + VL <= len; i += VL) {
            VEC gv, wv, xv;
            NAME(load, SFX)(&gv, gp + i);
            NAME(load, SFX)(&wv, wp + i);
            NAME(load, SFX)(&xv, xp + i);
            VEC gw = gv * wv;
            a1 += gw;
            a2 += gw * ((xv - mean) * rstd);
        }
        for (; i < len; i++) {
            T gw = gp[i] * wp[i];
            r1 += gw;
            r2 += gw * ((xp[i] - mean) * rstd);
        }
        t1 += NAME(fold, SFX)(&a1) + r1;
        t2 += NAME(fold, SFX)(&a2) + r2;
    }
    *s1 = t1;
    *s2 = t2;
}

/* grad_input of a row, and its terms of the weight and bias gradients */
static MT_INLINE void NAME(row_grads, SFX)(const T *restrict g, const T *restrict x,
                                           const T *restrict w, T *restrict gx, T *restrict dw,
                                           T *restrict db, int64_t n, T mean, T rstd, T c2, T c1)
{
    for (int64_t i = 0; i < n; i++) {
        T gi = g[i], xh = (x[i] - mean) * rstd;
        gx[i] = rstd * gi * w[i] - xh * c2 - c1;
        dw[i] += gi * xh;
        db[i] += gi;
    }
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
        T mean = j->rms ? 0 : (T)(NAME(moment, SFX)(x, D, 0, 1, NULL) / (double)D);
        double var = NAME(moment, SFX)(x, D, mean, 2, NULL) / (double)D;
        T rstd = (T)(1.0 / sqrt(var + j->eps));
        stats[2 * r] = mean;
        stats[2 * r + 1] = rstd;
        int64_t off = (r % j->groups) * j->cg;
        if (j->inner == 1) {
            NAME(normalize, SFX)(out, x, w + off, b + off, D, mean, rstd, j->stream);
        } else {
            for (int64_t c = 0; c < j->cg; c++) {
                T a = rstd * w[off + c];
                NAME(affine, SFX)(out + c * j->inner, x + c * j->inner, j->inner, a,
                                  b[off + c] - mean * a, j->stream);
            }
        }
    }
    if (j->stream)
        mt_stream_fence();
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
                NAME(row_sums, SFX)(g, x, wp, D, mean, rstd, &s1, &s2);
            } else {
                for (int64_t c = 0; c < j->cg; c++) {
                    double sg, sgx;
                    NAME(dual, SFX)(g + c * inner, x + c * inner, inner, mean, &sg, &sgx, NULL,
                                    NULL);
                    double sgxh = sgx * rstd;
                    dwp[c] += (T)sgxh;
                    dbp[c] += (T)sg;
                    s1 += wp[c] * sg;
                    s2 += wp[c] * sgxh;
                }
            }
            T c2 = (T)(rstd * s2 / (double)D), c1 = j->rms ? 0 : (T)(rstd * s1 / (double)D);
            if (inner == 1) {
                NAME(row_grads, SFX)(g, x, wp, gx, dwp, dbp, D, mean, rstd, c2, c1);
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
    const T *w = j->w, *b = j->b, *x = j->x;
    T *stats = j->stats;
    for (int64_t ch = begin; ch < end; ch++) {
        double s = 0, q = 0;
        for (int64_t i = 0; i < j->rows; i++)
            s += NAME(moment, SFX)(x + (i * C + ch) * inner, inner, 0, 1,
                                   i + 1 < j->rows ? x + ((i + 1) * C + ch) * inner : NULL);
        T mean = (T)(s / (double)M);
        for (int64_t i = 0; i < j->rows; i++)
            q += NAME(moment, SFX)(x + (i * C + ch) * inner, inner, mean, 2, NULL);
        double var = q / (double)M;
        T invstd = (T)(1.0 / sqrt(var + j->eps)), a = invstd * w[ch], c = b[ch] - mean * a;
        stats[ch] = mean;
        stats[C + ch] = invstd;
        for (int64_t i = 0; i < j->rows; i++)
            NAME(affine, SFX)((T *)j->out + (i * C + ch) * inner,
                              (const T *)j->x + (i * C + ch) * inner, inner, a, c, j->stream);
        running_update(j, ch, (double)mean, M > 1 ? q / (double)(M - 1) : var);
    }
    if (j->stream)
        mt_stream_fence();
}

MT_CLONES_AVX2_FMA static void NAME(batch_bwd, SFX)(void *arg, int64_t begin, int64_t end)
{
    const norm_job *j = arg;
    const int64_t C = j->groups, inner = j->inner, M = j->rows * inner;
    const T *w = j->w, *stats = j->stats, *g = j->g, *x = j->x;
    for (int64_t ch = begin; ch < end; ch++) {
        T mean = stats[ch], invstd = stats[C + ch];
        double sg = 0, sgx = 0;
        for (int64_t i = 0; i < j->rows; i++) {
            double a, c;
            int64_t at = (i * C + ch) * inner, next = at + C * inner;
            bool last = i + 1 == j->rows;
            NAME(dual, SFX)(g + at, x + at, inner, mean, &a, &c, last ? NULL : g + next,
                            last ? NULL : x + next);
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

#undef VL
#undef VEC
#undef NAME
#undef NAME_
