/* The loops of eigh_small.c written once over a real type and included
 * once per type, so float32 matrices are solved in float (as LAPACK's
 * ssyevd does) at twice double's numbers per vector. The includer defines
 * R (the type), FN(name) (the name's form for the type), R_EPS (its
 * epsilon), R_SQRT, R_HYPOT, R_ABS and R_MAX (its libm functions), and
 * R_SAFE_LO, R_SAFE_HI (the range where a sum of two squares neither
 * underflows nor overflows) and R_MAX_EXP (its largest binary exponent).
 * No include guard: it is meant to be included twice. */

/* z (n x n, column-major, both triangles) to tridiagonal (d, e): reflector k
 * is I - tau[k] v v^T with v = z[k+1.., k], left there. */
MT_CLONES_AVX2_FMA static void FN(tridiagonalize)(int64_t n, R *restrict z, R *restrict d,
                                                  R *restrict e, R *restrict tau, R *restrict p)
{
    for (int64_t k = 0; k + 2 < n; k++) {
        int64_t m = n - k - 1;
        R *v = z + k * n + k + 1, *b = z + (k + 1) * n + k + 1;
        R sigma = 0;
        for (int64_t i = 1; i < m; i++)
            sigma += v[i] * v[i];
        d[k] = z[k * n + k];
        if (sigma == 0) {
            e[k] = v[0];
            tau[k] = 0;
            continue;
        }
        R x0 = v[0], norm = R_SQRT(x0 * x0 + sigma), alpha = x0 >= 0 ? -norm : norm;
        R t = (R)1 / (norm * (norm + R_ABS(x0)));
        v[0] = x0 - alpha;
        e[k] = alpha;
        tau[k] = t;
        /* p = t B v, then w = p - (t/2)(v.p) v, and B -= v w^T + w v^T */
        for (int64_t i = 0; i < m; i++)
            p[i] = 0;
        for (int64_t j = 0; j < m; j++) {
            const R *bj = b + j * n;
            R vj = t * v[j];
            for (int64_t i = 0; i < m; i++)
                p[i] += bj[i] * vj;
        }
        R vp = 0;
        for (int64_t i = 0; i < m; i++)
            vp += v[i] * p[i];
        R kk = (R)0.5 * t * vp;
        for (int64_t i = 0; i < m; i++)
            p[i] -= kk * v[i];
        for (int64_t j = 0; j < m; j++) {
            R *bj = b + j * n, vj = v[j], wj = p[j];
            for (int64_t i = 0; i < m; i++)
                bj[i] -= v[i] * wj + p[i] * vj;
        }
    }
    if (n >= 2) {
        d[n - 2] = z[(n - 2) * n + n - 2];
        e[n - 2] = z[(n - 2) * n + n - 1];
    }
    d[n - 1] = z[(n - 1) * n + n - 1];
    e[n - 1] = 0;
}

/* q = the product of z's reflectors, from the last one back, so each
 * touches only the trailing block it changes. */
MT_CLONES_AVX2_FMA static void FN(accumulate)(int64_t n, const R *restrict z, const R *restrict tau,
                                              R *restrict q)
{
    memset(q, 0, sizeof(R) * (size_t)(n * n));
    for (int64_t i = 0; i < n; i++)
        q[i * n + i] = 1;
    for (int64_t k = n - 3; k >= 0; k--) {
        if (tau[k] == 0)
            continue;
        const R *v = z + k * n + k + 1;
        int64_t m = n - k - 1;
        for (int64_t j = k + 1; j < n; j++) {
            R *qj = q + j * n + k + 1, s = 0;
            for (int64_t i = 0; i < m; i++)
                s += v[i] * qj[i];
            s *= tau[k];
            for (int64_t i = 0; i < m; i++)
                qj[i] -= s * v[i];
        }
    }
}

/* R_SQRT(x^2 + y^2): libm's hypot guards every call against overflow and
 * took a third of the time; the entries are scaled near 1 (load), so only a
 * result near underflow needs its care. */
static inline R FN(norm2)(R x, R y)
{
    R r = R_SQRT(x * x + y * y);
    return r > R_SAFE_LO && r < R_SAFE_HI ? r : R_HYPOT(x, y);
}

/* Columns i and i + 1 of q turned by the rotation (c, s). */
MT_CLONES_AVX2_FMA static void FN(rotate)(int64_t n, R *restrict a, R *restrict b, R c, R s)
{
    for (int64_t k = 0; k < n; k++) {
        R f = b[k];
        b[k] = s * a[k] + c * f;
        a[k] = c * a[k] - s * f;
    }
}

/* The eigenvalues of the tridiagonal (d, e[0..n-1), e[n-1] = 0) into d, q's
 * columns turned along (when q): 0, or the 1-based index of an eigenvalue
 * that did not converge. */
static int64_t FN(ql_implicit)(int64_t n, R *d, R *e, R *q)
{
    /* an off-diagonal below rounding of the matrix's scale is zero too: a
     * cluster of tiny eigenvalues (a rank-deficient matrix) otherwise never
     * meets the relative test, its entries being rounding noise themselves */
    R tnorm = 0;
    for (int64_t i = 0; i < n; i++)
        tnorm = R_MAX(tnorm, R_ABS(d[i]) + R_ABS(e[i]));
    R tiny = (R)0.5 * R_EPS * tnorm;
    for (int64_t l = 0; l < n; l++) {
        int sweeps = 0;
        for (;;) {
            int64_t m = l;
            for (; m + 1 < n; m++)
                if (R_ABS(e[m]) <= R_EPS * (R_ABS(d[m]) + R_ABS(d[m + 1])) || R_ABS(e[m]) <= tiny)
                    break;
            if (m == l)
                break;
            if (++sweeps > MAX_SWEEPS)
                return l + 1;
            R g = (d[l + 1] - d[l]) / ((R)2 * e[l]), r = FN(norm2)(g, (R)1);
            g = d[m] - d[l] + e[l] / (g + (g >= 0 ? r : -r));
            R s = 1, c = 1, p = 0;
            int64_t i = m - 1;
            for (; i >= l; i--) {
                R f = s * e[i], b = c * e[i];
                e[i + 1] = r = FN(norm2)(f, g);
                if (r == 0) {
                    /* an underflowed rotation: deflate here and sweep again */
                    d[i + 1] -= p;
                    e[m] = 0;
                    break;
                }
                R inv = (R)1 / r;
                s = f * inv;
                c = g * inv;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + (R)2 * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
                if (q)
                    FN(rotate)(n, q + i * n, q + (i + 1) * n, c, s);
            }
            if (r == 0 && i >= l)
                continue;
            d[l] -= p;
            e[l] = g;
            e[m] = 0;
        }
    }
    return 0;
}

/* Reads a's triangle into z (both triangles), scaled by a power of
 * two (exact) to entries at most 1, so no square overflows and rounding's
 * tests have one scale: false on an infinity or NaN. *scale is the factor
 * to undo on the eigenvalues. */
static bool FN(load)(bool upper, int64_t n, const R *a, int64_t lda, R *z, R *scale)
{
    R amax = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = j; i < n; i++) {
            int64_t at = upper ? j + i * lda : i + j * lda;
            R v = a[at];
            if (!isfinite(v))
                return false;
            z[j * n + i] = z[i * n + j] = v;
            amax = R_MAX(amax, R_ABS(v));
        }
    *scale = 1;
    int ex = 0;
    frexp((double)amax, &ex);
    /* 2^-ex and 2^ex must both be finite in R: the largest and the
     * subnormal entries end a little off 1 */
    ex = ex < 4 - R_MAX_EXP ? 4 - R_MAX_EXP : ex > R_MAX_EXP - 1 ? R_MAX_EXP - 1 : ex;
    if (amax > 0 && ex) {
        R f = (R)ldexp(1.0, -ex);
        for (int64_t k = 0; k < n * n; k++)
            z[k] *= f;
        *scale = (R)ldexp(1.0, ex);
    }
    return true;
}

/* The whole solve of eigh_small.h's contract for a of type R, through
 * scratch (2 n^2 + 4 n of R). */
static int64_t FN(solve)(bool vectors, bool upper, int64_t n, R *a, int64_t lda, R *w, R *z)
{
    R *q = z + n * n, *d = q + n * n, *e = d + n, *tau = e + n, *p = tau + n, scale;
    if (!FN(load)(upper, n, a, lda, z, &scale))
        return MT_EIGH_SMALL_DECLINED;
    FN(tridiagonalize)(n, z, d, e, tau, p);
    if (vectors)
        FN(accumulate)(n, z, tau, q);
    int64_t info = FN(ql_implicit)(n, d, e, vectors ? q : NULL);
    /* ascending, by selection: each eigenvalue's column moves with it */
    for (int64_t i = 0; i + 1 < n; i++) {
        int64_t k = i;
        for (int64_t j = i + 1; j < n; j++)
            if (d[j] < d[k])
                k = j;
        if (k == i)
            continue;
        R t = d[i];
        d[i] = d[k];
        d[k] = t;
        if (vectors)
            for (int64_t r = 0; r < n; r++) {
                t = q[i * n + r];
                q[i * n + r] = q[k * n + r];
                q[k * n + r] = t;
            }
    }
    for (int64_t j = 0; j < n; j++) {
        w[j] = d[j] * scale;
        if (vectors)
            memcpy(a + j * lda, q + j * n, sizeof(R) * (size_t)n);
    }
    return info;
}
