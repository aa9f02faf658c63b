/* The transform loops of fft.c written once over a real type and included
 * once per type and vector width, so float rows are transformed in float
 * (as torch's pocketfft does) at twice double's points per vector, and
 * double rows in double. The includer defines FFT_R (the real type), FFT_V
 * (a vector of it), FFT_L (the complex points in one FFT_V), FFT_FN(name) (the
 * name's form for the type), FFT_STORE4T(y, u) (the four vectors u[0..4)
 * stored transposed: lane l's four points to y's points 4 l .. 4 l + 3),
 * FFT_SPLAT(a) (a in every lane), FFT_SPLAT2(p) (the complex point at p
 * in every complex lane), FFT_ALT (-1, 1 in every complex lane),
 * FFT_VSWAP(v), FFT_VRE(v), FFT_VIM(v): each complex lane's parts
 * swapped, its real part in both, its imaginary part in both; FFT_VEC_FN
 * and FFT_MOVE_FN (the target attributes of the vector loops and of the
 * gathers), FFT_TW4(p) (p's first-pass table laid out for L points); and
 * FFT_NARROW(name), when the vectors are wider than some passes' sequences,
 * the name of the same loops for narrower vectors of the type, with
 * FFT_STORE8T(y, u) (as FFT_STORE4T for eight vectors of eight points),
 * which turns on the lone row's first radix-8 pass. fft.c defines
 * the plan and the shared helpers first. No include guard: it is meant to
 * be included more than once, and it undefines those parameters at its end. */

#define R FFT_R
#define V FFT_V
/* a lone row's passes: the wide loops lead with radix 8 where they can */
#ifdef FFT_STORE8T
#define LONE_FAC(p) ((p)->nfw ? (p)->facw : (p)->fac)
#define LONE_NF(p) ((p)->nfw ? (p)->nfw : (p)->nf)
#else
#define LONE_FAC(p) ((p)->fac)
#define LONE_NF(p) ((p)->nf)
#endif
#define L FFT_L
#define FN FFT_FN

/* Vector loads, stores and products as macros (GNU statement expressions),
 * not functions: clang refuses a 32-byte vector passed to or returned from
 * a function in the default (pre-AVX) clone, inlined or not. */
#define VLOAD(p)                       \
    ({                                 \
        V vl_;                         \
        memcpy(&vl_, (p), sizeof vl_); \
        vl_;                           \
    })
#define VSTORE(p, v)                   \
    do {                               \
        V vs_ = (v);                   \
        memcpy((p), &vs_, sizeof vs_); \
    } while (0)
/* the first cnt (< L) points at p, zeros after; and their store back */
#define VLOAD_PART(p, cnt)                                \
    ({                                                    \
        V vp_ = {0};                                      \
        memcpy(&vp_, (p), sizeof(R) * 2 * (size_t)(cnt)); \
        vp_;                                              \
    })
#define VSTORE_PART(p, v, cnt)                            \
    do {                                                  \
        V vq_ = (v);                                      \
        memcpy((p), &vq_, sizeof(R) * 2 * (size_t)(cnt)); \
    } while (0)
/* v times (wr, wi) in every complex lane */
#define VCMUL(v, wr, wi)                                                 \
    ({                                                                   \
        V vc_ = (v);                                                     \
        vc_ *FFT_SPLAT(wr) + FFT_VSWAP(vc_) * (FFT_SPLAT(wi) * FFT_ALT); \
    })
/* v times twiddle k of the plan's tables tw and twn, both parts broadcast
 * straight from memory: no arithmetic or shuffle spent on the twiddle,
 * which splatted in registers had been, inside the passes' loops */
#define VCMULT(v, tw, twn, k)                                                         \
    ({                                                                                \
        V vt_ = (v);                                                                  \
        vt_ *FFT_SPLAT((tw)[2 * (k)]) + FFT_VSWAP(vt_) * FFT_SPLAT2((twn) + 2 * (k)); \
    })
/* v times the per-lane complex w */
#define VCMULV(v, w)                                                   \
    ({                                                                 \
        V vv_ = (v), vw_ = (w);                                        \
        vv_ *FFT_VRE(vw_) + FFT_VSWAP(vv_) * (FFT_VIM(vw_) * FFT_ALT); \
    })
/* -i v for the complex lanes of v */
#define VMUL_NEGI(v)               \
    ({                             \
        V vn_ = (v);               \
        FFT_VSWAP(vn_) * -FFT_ALT; \
    })

/* The r runs of s points a pass reads st[6] values of j after xj, when it
 * asks for that (st[6] not 0) and those exist. */
MT_VINLINE void FN(prefetch_ahead)(const R *xj, int r, int64_t s, const int64_t st[8], bool exists)
{
    if (!st[6] || !exists)
        return;
    const char *p = (const char *)(xj + st[1] * st[6]);
    size_t run = sizeof(R) * 2 * (size_t)s;
    for (int i = 0; i < r; i++)
        for (size_t o = 0; o < run; o += 64)
            __builtin_prefetch(p + (size_t)st[0] * sizeof(R) * (size_t)i + o, 0);
}

/* The r runs of s points a pass writes st[7] runs after dst (a last pass
 * of one j), when it asks for that and they exist. */
MT_VINLINE void FN(prefetch_out)(const R *dst, int r, int64_t s, const int64_t st[8], bool exists)
{
    if (!st[7] || !exists)
        return;
    const char *p = (const char *)(dst + st[5] * st[7]);
    size_t run = sizeof(R) * 2 * (size_t)s;
    for (int i = 0; i < r; i++)
        for (size_t o = 0; o < run; o += 64)
            __builtin_prefetch(p + (size_t)st[2] * sizeof(R) * (size_t)i + o, 1);
}

/* The radix-r passes of the Stockham autosort transform: src holds r * m
 * blocks of s interleaved sequences; each sequence's r points q + s (j + i m)
 * go through a length-r transform, twiddled by exp(-2 pi i j k / (r m)) =
 * tw[j k ts] (ts = s for a lone row) on the way into dst's points
 * q + s (r j + k). Every access runs along q, L sequences per vector, so
 * the passes stream through memory; j = 0 needs no twiddle. */

/* The radix-4 butterfly of L neighbouring sequences (x at the first one's
 * first point), u1..u3 twiddled by the tables' entries jt, 2 jt, 3 jt
 * unless jt is 0. */
MT_VINLINE void FN(bfly4_vec)(const R *x, R *y, int64_t xs, int64_t ys, const R *tw, const R *twn,
                              int64_t jt)
{
    V x0 = VLOAD(x), x1 = VLOAD(x + xs), x2 = VLOAD(x + 2 * xs);
    V x3 = VLOAD(x + 3 * xs);
    V a = x0 + x2, b = x0 - x2, c = x1 + x3, d = VMUL_NEGI(x1 - x3);
    V u0 = a + c, u1 = b + d, u2 = a - c, u3 = b - d;
    if (jt) {
        u1 = VCMULT(u1, tw, twn, jt);
        u2 = VCMULT(u2, tw, twn, 2 * jt);
        u3 = VCMULT(u3, tw, twn, 3 * jt);
    }
    VSTORE(y, u0);
    VSTORE(y + ys, u1);
    VSTORE(y + 2 * ys, u2);
    VSTORE(y + 3 * ys, u3);
}

/* The first radix-4 pass (s = 1), L values of j at a time: its sequences are
 * single points, so the vectors run along j, with a twiddle per lane read
 * from the plan's tw4 (laid out for these loads), and each lane's four
 * results are written out as one contiguous group. */
MT_VINLINE void FN(pass4_first_vec)(const R *tw4, int64_t m, int64_t j, const R *src, R *dst)
{
    const R *x = src + 2 * j, *w = tw4 + 6 * j;
    V x0 = VLOAD(x), x1 = VLOAD(x + 2 * m), x2 = VLOAD(x + 4 * m);
    V x3 = VLOAD(x + 6 * m);
    V a = x0 + x2, b = x0 - x2, c = x1 + x3, d = VMUL_NEGI(x1 - x3);
    V u[4] = {a + c, VCMULV(b + d, VLOAD(w)), VCMULV(a - c, VLOAD(w + 2 * L)),
              VCMULV(b - d, VLOAD(w + 4 * L))};
    FFT_STORE4T(dst + 8 * j, u);
}

FFT_VEC_FN static void FN(pass4)(const R *restrict tw, const R *restrict twn, const R *restrict tw4,
                                 int64_t m, int64_t s, int64_t ts, const int64_t st[8],
                                 int64_t rows, const R *restrict src, R *restrict dst)
{
    for (int64_t row_ = 0; row_ < rows; row_++, src += st[4], dst += st[5]) {
        FN(prefetch_out)(dst, 4, s, st, row_ + st[7] < rows);
        int64_t xs = st[0], ys = st[2], j0 = 0;
        /* s = 1: j in whole vectors; any j past the last one goes through the
         * loop below, which then starts at j0 */
        if (s == 1)
            for (; j0 + L <= m; j0 += L)
                FN(pass4_first_vec)(tw4, m, j0, src, dst);
        for (int64_t j = j0; j < m; j++) {
            const R *xj = src + st[1] * j;
            FN(prefetch_ahead)(xj, 4, s, st, j + st[6] < m);
            R *yj = dst + st[3] * j;
            int64_t q = 0;
            for (; q + L <= s; q += L)
                FN(bfly4_vec)(xj + 2 * q, yj + 2 * q, xs, ys, tw, twn, j * ts);
            for (; q < s; q++) {
                const R *x = xj + 2 * q;
                R *y = yj + 2 * q;
                R ar = x[0] + x[2 * xs], ai = x[1] + x[2 * xs + 1];
                R br = x[0] - x[2 * xs], bi = x[1] - x[2 * xs + 1];
                R cr = x[xs] + x[3 * xs], ci = x[xs + 1] + x[3 * xs + 1];
                R dr = x[xs] - x[3 * xs], di = x[xs + 1] - x[3 * xs + 1];
                R u[8] = {ar + cr, ai + ci, br + di, bi - dr, ar - cr, ai - ci, br - di, bi + dr};
                y[0] = u[0];
                y[1] = u[1];
                for (int k = 1; k < 4; k++) {
                    R wr = tw[2 * j * k * ts], wi = tw[2 * j * k * ts + 1];
                    R ur = u[2 * k], ui = u[2 * k + 1];
                    y[k * ys] = j ? CMUL_RE(ur, ui, wr, wi) : ur;
                    y[k * ys + 1] = j ? CMUL_IM(ur, ui, wr, wi) : ui;
                }
            }
        }
    }
}

/* The length-8 transform of x[0..8) into y, lane by lane: the length-4
 * transforms of the even and the odd points, the odd ones turned by
 * exp(-2 pi i k / 8), combined. */
MT_VINLINE void FN(bfly8)(V *y, const V *x)
{
    const R h = (R)0.70710678118654752440084436210484904;
    V a = x[0] + x[4], b = x[0] - x[4], c = x[2] + x[6], d = VMUL_NEGI(x[2] - x[6]);
    V e0 = a + c, e1 = b + d, e2 = a - c, e3 = b - d;
    a = x[1] + x[5];
    b = x[1] - x[5];
    c = x[3] + x[7];
    d = VMUL_NEGI(x[3] - x[7]);
    V o0 = a + c, o1 = b + d, o2 = a - c, o3 = b - d;
    o1 = (o1 + VMUL_NEGI(o1)) * h;
    o2 = VMUL_NEGI(o2);
    o3 = (VMUL_NEGI(o3) - o3) * h;
    y[0] = e0 + o0;
    y[1] = e1 + o1;
    y[2] = e2 + o2;
    y[3] = e3 + o3;
    y[4] = e0 - o0;
    y[5] = e1 - o1;
    y[6] = e2 - o2;
    y[7] = e3 - o3;
}

/* The length-16 transform of x[0..16) into y, lane by lane, as 4 x 4:
 * the length-4 transforms of the points n2, n2 + 4, n2 + 8, n2 + 12, each
 * result k1 turned by exp(-2 pi i n2 k1 / 16), then those along n2. */
MT_VINLINE void FN(bfly16)(V *y, const V *x)
{
    const R c1 = (R)0.92387953251128675612818318939678829; /* cos(2 pi / 16) */
    const R s1 = (R)0.38268343236508977172845998403039887; /* sin(2 pi / 16) */
    const R h = (R)0.70710678118654752440084436210484904;
    V u[16];
    for (int n2 = 0; n2 < 4; n2++) {
        V a = x[n2] + x[n2 + 8], b = x[n2] - x[n2 + 8], c = x[n2 + 4] + x[n2 + 12];
        V d = VMUL_NEGI(x[n2 + 4] - x[n2 + 12]);
        u[n2] = a + c;
        u[4 + n2] = b + d;
        u[8 + n2] = a - c;
        u[12 + n2] = b - d;
    }
    /* u[4 k1 + n2] times exp(-2 pi i n2 k1 / 16) */
    u[5] = VCMUL(u[5], c1, -s1);
    u[6] = VCMUL(u[6], h, -h);
    u[7] = VCMUL(u[7], s1, -c1);
    u[9] = VCMUL(u[9], h, -h);
    u[10] = VMUL_NEGI(u[10]);
    u[11] = VCMUL(u[11], -h, -h);
    u[13] = VCMUL(u[13], s1, -c1);
    u[14] = VCMUL(u[14], -h, -h);
    u[15] = VCMUL(u[15], -c1, s1);
    for (int k1 = 0; k1 < 4; k1++) {
        const V *v = u + 4 * k1;
        V a = v[0] + v[2], b = v[0] - v[2], c = v[1] + v[3], d = VMUL_NEGI(v[1] - v[3]);
        y[k1] = a + c;
        y[k1 + 4] = b + d;
        y[k1 + 8] = a - c;
        y[k1 + 12] = b - d;
    }
}

/* The radix-8 and radix-16 passes, for s a multiple of L (radix 8 always
 * follows a radix-4 pass or the first radix-8 one below; radix 16 is taken
 * by interleaved batches): the length-r transforms, then the twiddles
 * tw[j k ts] unless j is 0. r is a constant in each of the two, so its
 * arrays stay in registers. */
MT_VINLINE void FN(pass8_16)(const int r, const R *restrict tw, const R *restrict twn, int64_t m,
                             int64_t s, int64_t ts, const int64_t st[8], int64_t rows,
                             const R *restrict src, R *restrict dst)
{
    for (int64_t row_ = 0; row_ < rows; row_++, src += st[4], dst += st[5]) {
        FN(prefetch_out)(dst, r, s, st, row_ + st[7] < rows);
        int64_t xs = st[0], ys = st[2];
        for (int64_t j = 0; j < m; j++) {
            const R *xj = src + st[1] * j;
            FN(prefetch_ahead)(xj, r, s, st, j + st[6] < m);
            R *yj = dst + st[3] * j;
            for (int64_t q = 0; q < s; q += L) {
                const R *x = xj + 2 * q;
                V xv[16], y[16];
                for (int i = 0; i < r; i++)
                    xv[i] = VLOAD(x + i * xs);
                if (r == 16)
                    FN(bfly16)(y, xv);
                else
                    FN(bfly8)(y, xv);
                R *out = yj + 2 * q;
                VSTORE(out, y[0]);
                for (int k = 1; k < r; k++)
                    VSTORE(out + k * ys, j ? VCMULT(y[k], tw, twn, j * k * ts) : y[k]);
            }
        }
    }
}

FFT_VEC_FN static void FN(pass8)(const R *restrict tw, const R *restrict twn, int64_t m, int64_t s,
                                 int64_t ts, const int64_t st[8], int64_t rows,
                                 const R *restrict src, R *restrict dst)
{
    FN(pass8_16)(8, tw, twn, m, s, ts, st, rows, src, dst);
}

FFT_VEC_FN static void FN(pass16)(const R *restrict tw, const R *restrict twn, int64_t m, int64_t s,
                                  int64_t ts, const int64_t st[8], int64_t rows,
                                  const R *restrict src, R *restrict dst)
{
    FN(pass8_16)(16, tw, twn, m, s, ts, st, rows, src, dst);
}

#ifdef FFT_STORE8T
/* A lone row's first pass as radix 8 (s = 1), L values of j at a time, as
 * the first radix-4 pass: the vectors run along j, each lane twiddled by
 * the plan's tw8w (k = 1 .. 7 per block of L values of j, each as its real
 * part in both halves of a point, then its imaginary part signed as
 * VCMUL's), and each lane's eight results stored as one contiguous group
 * (FFT_STORE8T). The last m % L values of j in a partly filled vector,
 * through a buffer. */
FFT_VEC_FN static void FN(pass8_first)(const R *restrict tw8, int64_t m, int64_t rows,
                                       const R *restrict src, R *restrict dst)
{
    const int64_t rs_ = 2 * 8 * m;
    for (int64_t row_ = 0; row_ < rows; row_++, src += rs_, dst += rs_) {
        for (int64_t j = 0; j < m; j += L) {
            int64_t cnt = m - j < L ? m - j : L;
            const R *x = src + 2 * j, *w = tw8 + 28 * j;
            V xv[8], y[8];
            for (int i = 0; i < 8; i++)
                xv[i] = cnt == L ? VLOAD(x + 2 * i * m) : VLOAD_PART(x + 2 * i * m, cnt);
            FN(bfly8)(y, xv);
            for (int k = 1; k < 8; k++) {
                const R *wk = w + 4 * L * (k - 1);
                y[k] = y[k] * VLOAD(wk) + FFT_VSWAP(y[k]) * VLOAD(wk + 2 * L);
            }
            if (cnt == L) {
                FFT_STORE8T(dst + 16 * j, y);
            } else {
                R part[16 * L];
                FFT_STORE8T(part, y);
                memcpy(dst + 16 * j, part, sizeof(R) * 16 * (size_t)cnt);
            }
        }
    }
}
/* Rows of 64 points whole in registers: the first radix-8 pass as
 * pass8_first (one vector of j), its transposed results straight into the
 * second pass's length-8 transforms, whose outputs are the row's 64
 * results in order, eight to a vector. */
FFT_VEC_FN static void FN(rows64)(const R *restrict tw8, int64_t rows, const R *src, R *dst)
{
    for (int64_t row = 0; row < rows; row++, src += 128, dst += 128) {
        V xv[8], y[8];
        for (int i = 0; i < 8; i++)
            xv[i] = VLOAD(src + 16 * i);
        FN(bfly8)(y, xv);
        for (int k = 1; k < 8; k++) {
            const R *wk = tw8 + 4 * L * (k - 1);
            y[k] = y[k] * VLOAD(wk) + FFT_VSWAP(y[k]) * VLOAD(wk + 2 * L);
        }
        FFT_STORE8T(xv, y);
        FN(bfly8)(y, xv);
        for (int k = 0; k < 8; k++)
            VSTORE(dst + 16 * k, y[k]);
    }
}
#endif

FFT_VEC_FN static void FN(pass2)(const R *restrict tw, const R *restrict twn, int64_t m, int64_t s,
                                 int64_t ts, const int64_t st[8], int64_t rows,
                                 const R *restrict src, R *restrict dst)
{
    for (int64_t row_ = 0; row_ < rows; row_++, src += st[4], dst += st[5]) {
        FN(prefetch_out)(dst, 2, s, st, row_ + st[7] < rows);
        int64_t xs = st[0], ys = st[2];
        for (int64_t j = 0; j < m; j++) {
            R wr = tw[2 * j * ts], wi = tw[2 * j * ts + 1];
            const R *xj = src + st[1] * j;
            FN(prefetch_ahead)(xj, 2, s, st, j + st[6] < m);
            R *yj = dst + st[3] * j;
            int64_t q = 0;
            for (; q + L <= s; q += L) {
                V x0 = VLOAD(xj + 2 * q), x1 = VLOAD(xj + 2 * q + xs);
                V u = x0 - x1;
                VSTORE(yj + 2 * q, x0 + x1);
                VSTORE(yj + 2 * q + ys, j ? VCMULT(u, tw, twn, j * ts) : u);
            }
            for (; q < s; q++) {
                const R *x = xj + 2 * q;
                R *y = yj + 2 * q;
                R ur = x[0] - x[xs], ui = x[1] - x[xs + 1];
                y[0] = x[0] + x[xs];
                y[1] = x[1] + x[xs + 1];
                y[ys] = j ? CMUL_RE(ur, ui, wr, wi) : ur;
                y[ys + 1] = j ? CMUL_IM(ur, ui, wr, wi) : ui;
            }
        }
    }
}

/* The length-3 transform of x[0..3) into y, lane by lane:
 * y1, y2 = x0 - (x1 + x2) / 2 -+ i sin(2 pi / 3) (x1 - x2). */
MT_VINLINE void FN(bfly3)(V *y, const V *x)
{
    const R sin3 = (R)0.86602540378443864676372317075293618;
    V t1 = x[1] + x[2], t2 = x[0] - t1 * (R)0.5, t3 = VMUL_NEGI((x[1] - x[2]) * sin3);
    y[0] = x[0] + t1;
    y[1] = t2 + t3;
    y[2] = t2 - t3;
}

/* The length-5 transform of x[0..5) into y, lane by lane, from the sums and
 * differences of the points k and 5 - k. */
MT_VINLINE void FN(bfly5)(V *y, const V *x)
{
    const R c1 = (R)0.30901699437494742410229341718281906;  /* cos(2 pi / 5) */
    const R c2 = (R)-0.80901699437494742410229341718281906; /* cos(4 pi / 5) */
    const R s1 = (R)0.95105651629515357211643933337938214;  /* sin(2 pi / 5) */
    const R s2 = (R)0.58778525229247312916870595463907277;  /* sin(4 pi / 5) */
    V a1 = x[1] + x[4], b1 = x[1] - x[4], a2 = x[2] + x[3], b2 = x[2] - x[3];
    V r1 = x[0] + a1 * c1 + a2 * c2, r2 = x[0] + a1 * c2 + a2 * c1;
    V i1 = VMUL_NEGI(b1 * s1 + b2 * s2), i2 = VMUL_NEGI(b1 * s2 - b2 * s1);
    y[0] = x[0] + a1 + a2;
    y[1] = r1 + i1;
    y[4] = r1 - i1;
    y[2] = r2 + i2;
    y[3] = r2 - i2;
}

/* The radix-3 and radix-5 passes, L sequences per vector (the last ones,
 * fewer than L, in a partly filled vector); r is a constant in each of the
 * two loops below, so its arrays stay in registers. */
/* The r points (r = 3 or 5) of cnt <= L neighbouring sequences at x, xs
 * apart, transformed, twiddled by the tables' entries k jt unless jt is 0,
 * into y, ys apart; cnt is the constant L in the main loop, so its checks
 * fold away. */
MT_VINLINE void FN(bfly35_at)(const int r, const R *x, R *y, int64_t xs, int64_t ys,
                              const int64_t cnt, const R *tw, const R *twn, int64_t jt)
{
    V xv[5], yv[5];
    for (int i = 0; i < r; i++)
        xv[i] = cnt == L ? VLOAD(x + i * xs) : VLOAD_PART(x + i * xs, cnt);
    if (r == 3)
        FN(bfly3)(yv, xv);
    else
        FN(bfly5)(yv, xv);
    if (jt)
        for (int k = 1; k < r; k++)
            yv[k] = VCMULT(yv[k], tw, twn, k * jt);
    for (int k = 0; k < r; k++) {
        if (cnt == L)
            VSTORE(y + k * ys, yv[k]);
        else
            VSTORE_PART(y + k * ys, yv[k], cnt);
    }
}

MT_VINLINE void FN(pass35)(const int r, const R *restrict tw, const R *restrict twn, int64_t m,
                           int64_t s, int64_t ts, const int64_t st[8], int64_t rows,
                           const R *restrict src, R *restrict dst)
{
    int64_t xs = st[0], ys = st[2];
    for (int64_t row_ = 0; row_ < rows; row_++, src += st[4], dst += st[5]) {
        FN(prefetch_out)(dst, r, s, st, row_ + st[7] < rows);
        for (int64_t j = 0; j < m; j++) {
            const R *xj = src + st[1] * j;
            FN(prefetch_ahead)(xj, r, s, st, j + st[6] < m);
            R *yj = dst + st[3] * j;
            int64_t q = 0;
            if (j)
                for (; q + L <= s; q += L)
                    FN(bfly35_at)(r, xj + 2 * q, yj + 2 * q, xs, ys, L, tw, twn, j * ts);
            else
                for (; q + L <= s; q += L)
                    FN(bfly35_at)(r, xj + 2 * q, yj + 2 * q, xs, ys, L, tw, twn, 0);
            if (q < s)
                FN(bfly35_at)(r, xj + 2 * q, yj + 2 * q, xs, ys, s - q, tw, twn, j * ts);
        }
    }
}

FFT_VEC_FN static void FN(pass3)(const R *restrict tw, const R *restrict twn, int64_t m, int64_t s,
                                 int64_t ts, const int64_t st[8], int64_t rows,
                                 const R *restrict src, R *restrict dst)
{
    FN(pass35)(3, tw, twn, m, s, ts, st, rows, src, dst);
}

FFT_VEC_FN static void FN(pass5)(const R *restrict tw, const R *restrict twn, int64_t m, int64_t s,
                                 int64_t ts, const int64_t st[8], int64_t rows,
                                 const R *restrict src, R *restrict dst)
{
    FN(pass35)(5, tw, twn, m, s, ts, st, rows, src, dst);
}

/* One radix-r pass of p's transform (see above) with the strides st, in
 * reals: between a sequence's r points read (s m points in a buffer), from
 * one j to the next in src (s), between its r points written (s), and from
 * one j to the next in dst (s r); a pass reading or writing a tensor's rows
 * directly has its row length in place of s. Its twiddles are read ts
 * apart: ts is s but for a batch of b interleaved transforms, whose
 * sequences are b times further apart. The pass is repeated over rows
 * runs of sequences, st[4] apart in src and st[5] in dst: consecutive
 * lone rows (r m s points each), or the runs of columns of a last pass
 * that writes a slab; st[6], when not 0, is how many values of j ahead its
 * reads are prefetched (those of a slab's rows, pages apart), and st[7]
 * how many runs ahead its writes are. */
static void FN(pass_strided)(const fft_plan *p, int r, int64_t m, int64_t s, int64_t ts,
                             const int64_t st[8], int64_t rows, const R *src, R *dst)
{
    const R *tw = p->tw, *twn = p->twn;
#ifdef FFT_STORE8T
    if (r == 8 && s == 1) {
        FN(pass8_first)(p->tw8w, m, rows, src, dst);
        return;
    }
#endif
#ifdef FFT_NARROW
    /* sequences fewer than a wide vector's points (a lone row's early
     * passes) go by the narrow loops, whose vectors they fill */
    if (s % L && !(r == 4 && s == 1)) {
        FFT_NARROW(pass_strided)(p, r, m, s, ts, st, rows, src, dst);
        return;
    }
#endif
    if (r == 16)
        FN(pass16)(tw, twn, m, s, ts, st, rows, src, dst);
    else if (r == 8)
        FN(pass8)(tw, twn, m, s, ts, st, rows, src, dst);
    else if (r == 4)
        FN(pass4)(tw, twn, FFT_TW4(p), m, s, ts, st, rows, src, dst);
    else if (r == 2)
        FN(pass2)(tw, twn, m, s, ts, st, rows, src, dst);
    else if (r == 3)
        FN(pass3)(tw, twn, m, s, ts, st, rows, src, dst);
    else
        FN(pass5)(tw, twn, m, s, ts, st, rows, src, dst);
}

/* A pass between buffers laid out as the Stockham passes leave them. */
static void FN(pass)(const fft_plan *p, int r, int64_t m, int64_t s, int64_t ts, int64_t rows,
                     const R *src, R *dst)
{
    const int64_t st[8] = {2 * s * m, 2 * s, 2 * s, 2 * s * r, 2 * r * m * s, 2 * r * m * s, 0, 0};
    FN(pass_strided)(p, r, m, s, ts, st, rows, src, dst);
}

/* The forward transforms of b interleaved rows of the plan's length (point
 * k of row c at x[k b + c]; b = 1 for one contiguous row) using work of the
 * same size: a pointer to the results, laid out alike, in x or work. */
static R *FN(stockham)(const fft_plan *p, int64_t b, R *x, R *work)
{
    R *src = x, *dst = work;
    int64_t ts = 1, len = p->n;
    bool whole = b % L == 0 && p->nfb;
    const int *fac = whole ? p->facb : b == 1 ? LONE_FAC(p) : p->fac;
    int nf = whole ? p->nfb : b == 1 ? LONE_NF(p) : p->nf;
    for (int f = 0; f < nf; f++) {
        int r = fac[f];
        FN(pass)(p, r, len / r, ts * b, ts, 1, src, dst);
        R *t = src;
        src = dst;
        dst = t;
        ts *= r;
        len /= r;
    }
    return src;
}

/* The forward transforms of b neighbouring rows of an [n][inner] slab in,
 * as b interleaved transforms whose first pass reads in's rows directly (no
 * copy into a buffer first), through x and y (each as long as the block): a
 * pointer to the results, in x or y, laid out as stockham's; or, given out
 * (an [n][inner] slab like in), the last pass writes them there and out is
 * returned. b is a
 * multiple of L, so the passes are those of interleaved batches. */
static R *FN(stockham_slab)(const fft_plan *p, int64_t b, const R *in, int64_t inner, R *x, R *y,
                            R *out)
{
    const int *fac = p->nfb ? p->facb : p->fac, nf = p->nfb ? p->nfb : p->nf;
    int r = fac[0];
    int64_t m = p->n / r;
    /* its reads, b points in each of the slab's rows, are pages apart:
     * prefetched PASS_PREFETCH_AHEAD values of j ahead */
    const int64_t st[8] = {2 * inner * m,       2 * inner, 2 * b, 2 * b * r, 0, 0,
                           PASS_PREFETCH_AHEAD, 0};
    FN(pass_strided)(p, r, m, b, 1, st, 1, in, x);
    R *src = x, *dst = y;
    int64_t ts = r, len = m;
    for (int f = 1; f < nf; f++) {
        r = fac[f];
        if (out && f == nf - 1) {
            /* one j: its sequences q = c + b k, column c's k-th point, as ts
             * runs of the b columns, each written to its place in out */
            /* and its writes, into rows pages apart, prefetched as many runs ahead */
            const int64_t so[8] = {2 * b * ts, 0, 2 * ts * inner,     0, 2 * b,
                                   2 * inner,  0, PASS_PREFETCH_AHEAD};
            FN(pass_strided)(p, r, 1, b, ts, so, ts, src, out);
            return out;
        }
        FN(pass)(p, r, len / r, ts * b, ts, 1, src, dst);
        R *t = src;
        src = dst;
        dst = t;
        ts *= r;
        len /= r;
    }
    return src;
}

/* The forward transforms of rows consecutive contiguous rows of the plan's
 * length (no Bluestein) from in into out through work (twice rows n
 * points), each pass over all the rows in one call: the passes alternate
 * between out and work so that the last one lands in out and in is only
 * read, which spares the rows their copies in and out. In place (in ==
 * out) with an odd number of passes, those before the last alternate
 * between work's halves (a single pass is copied back). */
static void FN(stockham_into)(const fft_plan *p, int64_t rows, const R *in, R *out, R *work)
{
    const int *fac = LONE_FAC(p), nf = LONE_NF(p);
    size_t bytes = sizeof(R) * 2 * (size_t)(p->n * rows);
    if (nf == 0) {
        if (in != out)
            memcpy(out, in, bytes);
        return;
    }
#ifdef FFT_STORE8T
    if (p->n == 64 && nf == 2) {
        FN(rows64)(p->tw8w, rows, in, out);
        return;
    }
#endif
    /* in place with an odd count: the passes before the last alternate
     * between work's two halves instead */
    bool two = in == out && nf % 2;
    R *other = work + 2 * p->n * rows;
    const R *src = in;
    int64_t s = 1, len = p->n;
    for (int f = 0; f < nf; f++) {
        int r = fac[f];
        R *dst = two                ? (f == nf - 1 && nf > 1 ? out
                                       : f % 2               ? other
                                                             : work)
                 : (nf - 1 - f) % 2 ? work
                                    : out;
        FN(pass)(p, r, len / r, s, s, rows, src, dst);
        src = dst;
        s *= r;
        len /= r;
    }
    if (two && nf == 1)
        memcpy(out, work, bytes);
}

/* The forward transform of contiguous in into out, both of the plan's
 * length n, as the cyclic convolution of the chirped input with the
 * conjugate chirp; a and fa are scratch of length m each. */
static void FN(bluestein)(const fft_plan *p, const R *in, R *out, R *a, R *fa)
{
    int64_t n = p->n, m = p->m;
    const R *w = p->chirp, *bf = p->bf;
    memset(a, 0, sizeof(R) * 2 * (size_t)m);
    for (int64_t k = 0; k < n; k++) {
        a[2 * k] = CMUL_RE(in[2 * k], in[2 * k + 1], w[2 * k], w[2 * k + 1]);
        a[2 * k + 1] = CMUL_IM(in[2 * k], in[2 * k + 1], w[2 * k], w[2 * k + 1]);
    }
    R *res = FN(stockham)(p->sub, 1, a, fa), *other = res == a ? fa : a;
    /* times bf, conjugated so the forward transform inverts */
    for (int64_t k = 0; k < m; k++) {
        R xr = res[2 * k], xi = res[2 * k + 1], br = bf[2 * k], bi = bf[2 * k + 1];
        other[2 * k] = CMUL_RE(xr, xi, br, bi);
        other[2 * k + 1] = -CMUL_IM(xr, xi, br, bi);
    }
    res = FN(stockham)(p->sub, 1, other, res);
    R inv_m = (R)(1.0 / (double)m);
    for (int64_t k = 0; k < n; k++) {
        R xr = res[2 * k] * inv_m, xi = -res[2 * k + 1] * inv_m;
        out[2 * k] = CMUL_RE(xr, xi, w[2 * k], w[2 * k + 1]);
        out[2 * k + 1] = CMUL_IM(xr, xi, w[2 * k], w[2 * k + 1]);
    }
}

/* One end of a four-step transform: complex pairs at p, each part
 * multiplied by f[0] (real) or f[1] (imaginary) as it is read or written, so
 * a row's conjugation and scale ride along with the gather and the
 * transpose instead of passes of their own. */
typedef struct {
    R *p;
    R f[2];
} FN(io_view);

/* A four-step transform's shared state: its column blocks, then its row
 * blocks, are split over threads, each with scratch of its own. */
typedef struct {
    const fft_plan *p;
    const FN(io_view) * in, *out;
    R *x;
    int failed;
} FN(four_job);

/* Column blocks [begin, end): b neighbouring columns gathered from in's
 * rows as they lie (b interleaved transforms), transformed together, and
 * twiddled into x by exp(-2 pi i k1 j2 / n), j2 = c0 + c, as
 * exp(-2 pi i k1 c0 / n) times the plan's twc[k1][c] = exp(-2 pi i k1 c / n),
 * a vector of c at a time. */
FFT_VEC_FN static void FN(four_cols)(void *ctx, int64_t begin, int64_t end)
{
    FN(four_job) *job = ctx;
    const fft_plan *p = job->p, *p1 = p->s1;
    const FN(io_view) *in = job->in;
    const R *tw = p->tw, *tw1 = p1->tw, *twc = p->twc, f0 = in->f[0], f1 = in->f[1];
    int64_t n1 = p1->n, n2 = p->s2->n, bs = four_step_block(p);
    scratch_block sb;
    R *cols = scratch_new(4 * bs * n1 * (int64_t)sizeof(R), &sb), *x = job->x;
    if (!cols) {
        job->failed = 1;
        return;
    }
    R *work = cols + 2 * bs * n1;
    for (int64_t blk = begin; blk < end; blk++) {
        int64_t c0 = blk * bs, b = n2 - c0 < bs ? n2 - c0 : bs;
        for (int64_t j1 = 0; j1 < n1; j1++) {
            const R *src = in->p + 2 * (j1 * n2 + c0);
            if (j1 + PREFETCH_AHEAD < n1)
                PREFETCH_PAIR(src + 2 * PREFETCH_AHEAD * n2, 0);
            R *dst = cols + 2 * j1 * b;
            for (int64_t c = 0; c < b; c++) {
                dst[2 * c] = src[2 * c] * f0;
                dst[2 * c + 1] = src[2 * c + 1] * f1;
            }
        }
        const R *res = FN(stockham)(p1, b, cols, work);
        for (int64_t k1 = 0; k1 < n1; k1++) {
            /* exp(-2 pi i k1 c0 / n) as exp(-2 pi i q / n1) exp(-2 pi i r / n) with
             * k1 c0 = q n2 + r: two small tables, where one index into the
             * length-n one would miss the cache at every k1 */
            int64_t q = k1 * c0 / n2, rr = k1 * c0 - q * n2;
            const R *wq = tw1 + 2 * q, *wr = tw + 2 * rr;
            const R t[2] = {CMUL_RE(wq[0], wq[1], wr[0], wr[1]),
                            CMUL_IM(wq[0], wq[1], wr[0], wr[1])};
            const R *v = res + 2 * k1 * b, *e = twc + 2 * k1 * bs;
            R *dst = x + 2 * (k1 * n2 + c0);
            int64_t c = 0;
            for (; c + L <= b; c += L)
                VSTORE(dst + 2 * c, VCMULV(VLOAD(v + 2 * c), VCMUL(VLOAD(e + 2 * c), t[0], t[1])));
            for (; c < b; c++) {
                R wr = CMUL_RE(e[2 * c], e[2 * c + 1], t[0], t[1]);
                R wi = CMUL_IM(e[2 * c], e[2 * c + 1], t[0], t[1]);
                dst[2 * c] = CMUL_RE(v[2 * c], v[2 * c + 1], wr, wi);
                dst[2 * c + 1] = CMUL_IM(v[2 * c], v[2 * c + 1], wr, wi);
            }
        }
    }
    mt_alloc_free(sb.block, sb.size);
}

/* Row blocks [begin, end): rows of x transformed in place, then x[k1][k2]
 * written to out[k1 + n1 k2]. */
static void FN(four_rows)(void *ctx, int64_t begin, int64_t end)
{
    FN(four_job) *job = ctx;
    const fft_plan *p = job->p, *p2 = p->s2;
    const FN(io_view) *out = job->out;
    int64_t n1 = p->s1->n, n2 = p2->n, bs = four_step_block(p);
    scratch_block sb;
    R *work = scratch_new(2 * n2 * (int64_t)sizeof(R), &sb), *x = job->x;
    if (!work) {
        job->failed = 1;
        return;
    }
    for (int64_t blk = begin; blk < end; blk++) {
        int64_t r0 = blk * bs, b = n1 - r0 < bs ? n1 - r0 : bs;
        for (int64_t r = r0; r < r0 + b; r++) {
            R *row = x + 2 * r * n2, *res = FN(stockham)(p2, 1, row, work);
            if (res != row)
                memcpy(row, res, sizeof(R) * 2 * (size_t)n2);
        }
        for (int64_t k2 = 0; k2 < n2; k2++) {
            R *dst = out->p + 2 * (r0 + n1 * k2);
            if (k2 + PREFETCH_AHEAD < n2)
                PREFETCH_PAIR(dst + 2 * n1 * PREFETCH_AHEAD, 1);
            for (int64_t r = 0; r < b; r++) {
                dst[2 * r] = x[2 * ((r0 + r) * n2 + k2)] * out->f[0];
                dst[2 * r + 1] = x[2 * ((r0 + r) * n2 + k2) + 1] * out->f[1];
            }
        }
    }
    mt_alloc_free(sb.block, sb.size);
}

/* The four-step transform of in (length n = n1 n2, read as [n1][n2]) into
 * out, through x (n points; in may be x itself): 0, or -1 when out of
 * memory. From a single thread the passes use the pool; inside a pool's
 * task they run inline. */
static int FN(four_step)(const fft_plan *p, const FN(io_view) * in, const FN(io_view) * out, R *x)
{
    FN(four_job) job = {p, in, out, x, 0};
    int64_t bs = four_step_block(p), n1 = p->s1->n, n2 = p->s2->n;
    mt_parallel_for(0, (n2 + bs - 1) / bs, 1, FN(four_cols), &job);
    if (!job.failed)
        mt_parallel_for(0, (n1 + bs - 1) / bs, 1, FN(four_rows), &job);
    return job.failed ? -1 : 0;
}

/* The forward transform of x into x or y (the pointer returned; NULL when
 * out of memory). */
static R *FN(transform_row)(const fft_plan *p, R *x, R *y, R *scratch)
{
    if (p->s1) {
        const FN(io_view) in = {x, {1, 1}}, out = {y, {1, 1}};
        return FN(four_step)(p, &in, &out, x) < 0 ? NULL : y;
    }
    if (!p->sub)
        return FN(stockham)(p, 1, x, y);
    FN(bluestein)(p, x, y, scratch, scratch + 2 * p->m);
    return y;
}

/* Rows i0..i0+b of an [n][inner] complex slab d in and out of b rows of x,
 * PADDED(n) points apart, times the (re, im) factors f[0], f[1] (a
 * conjugation, a scale). A lone contiguous row is one flat loop the compiler
 * vectorizes (its factors as two scalars: indexed by k & 1 they became a
 * gather). */
FFT_VEC_FN static void FN(slab_in)(R *restrict x, const R *restrict d, int64_t n, int64_t inner,
                                   int64_t b, const R f[2])
{
    const R f0 = f[0], f1 = f[1];
    if (b == 1 && inner == 1) {
        for (int64_t k = 0; k < n; k++) {
            x[2 * k] = d[2 * k] * f0;
            x[2 * k + 1] = d[2 * k + 1] * f1;
        }
        return;
    }
    for (int64_t k = 0; k < n; k++) {
        const R *src = d + 2 * k * inner;
        if (k + PREFETCH_AHEAD < n)
            PREFETCH_PAIR(src + 2 * PREFETCH_AHEAD * inner, 0);
        for (int64_t c = 0; c < b; c++) {
            x[2 * (c * PADDED(n) + k)] = src[2 * c] * f0;
            x[2 * (c * PADDED(n) + k) + 1] = src[2 * c + 1] * f1;
        }
    }
}

FFT_VEC_FN static void FN(slab_out)(R *restrict d, const R *restrict x, int64_t n, int64_t inner,
                                    int64_t b, const R f[2])
{
    const R f0 = f[0], f1 = f[1];
    if (b == 1 && inner == 1) {
        for (int64_t k = 0; k < n; k++) {
            d[2 * k] = x[2 * k] * f0;
            d[2 * k + 1] = x[2 * k + 1] * f1;
        }
        return;
    }
    for (int64_t k = 0; k < n; k++) {
        R *dst = d + 2 * k * inner;
        if (k + PREFETCH_AHEAD < n)
            PREFETCH_PAIR(dst + 2 * PREFETCH_AHEAD * inner, 1);
        for (int64_t c = 0; c < b; c++) {
            dst[2 * c] = x[2 * (c * PADDED(n) + k)] * f0;
            dst[2 * c + 1] = x[2 * (c * PADDED(n) + k) + 1] * f1;
        }
    }
}

/* Rows i0..i0+b of an [n][inner] complex slab d in and out of x as b
 * interleaved rows (point k of row c at x[k b + c]), times the factors f:
 * each of the n reads or writes is b neighbouring points, a vector of L at
 * a time. */
#define FFT_FACTORS(fv, f)               \
    do {                                 \
        R fa_[2 * L];                    \
        for (int l_ = 0; l_ < L; l_++) { \
            fa_[2 * l_] = (f)[0];        \
            fa_[2 * l_ + 1] = (f)[1];    \
        }                                \
        memcpy(&(fv), fa_, sizeof fa_);  \
    } while (0)

FFT_MOVE_FN static void FN(slab_in_batch)(R *restrict x, const R *restrict d, int64_t n,
                                          int64_t inner, int64_t b, const R f[2])
{
    V fv;
    FFT_FACTORS(fv, f);
    for (int64_t k = 0; k < n; k++) {
        const R *src = d + 2 * k * inner;
        R *dst = x + 2 * k * b;
        if (k + PREFETCH_AHEAD < n)
            PREFETCH_PAIR(src + 2 * PREFETCH_AHEAD * inner, 0);
        int64_t c = 0;
        for (; c + L <= b; c += L)
            VSTORE(dst + 2 * c, VLOAD(src + 2 * c) * fv);
        for (; c < b; c++) {
            dst[2 * c] = src[2 * c] * f[0];
            dst[2 * c + 1] = src[2 * c + 1] * f[1];
        }
    }
}

FFT_MOVE_FN static void FN(slab_out_batch)(R *restrict d, const R *restrict x, int64_t n,
                                           int64_t inner, int64_t b, const R f[2])
{
    V fv;
    FFT_FACTORS(fv, f);
    for (int64_t k = 0; k < n; k++) {
        R *dst = d + 2 * k * inner;
        const R *src = x + 2 * k * b;
        if (k + PREFETCH_AHEAD < n)
            PREFETCH_PAIR(dst + 2 * PREFETCH_AHEAD * inner, 1);
        int64_t c = 0;
        for (; c + L <= b; c += L)
            VSTORE(dst + 2 * c, VLOAD(src + 2 * c) * fv);
        for (; c < b; c++) {
            dst[2 * c] = src[2 * c] * f[0];
            dst[2 * c + 1] = src[2 * c + 1] * f[1];
        }
    }
}
#undef FFT_FACTORS

/* Tasks [begin, end) of a rows_job: blocks of neighbouring rows, gathered,
 * transformed and scattered back. */
static void FN(run_rows)(void *ctx, int64_t begin, int64_t end)
{
    rows_job *job = ctx;
    const fft_plan *p = job->p;
    int64_t n = job->n, inner = job->inner, bs = job->block;
    R sign = job->inverse ? -1 : 1, scale = (R)job->scale;
    scratch_block sb;
    /* y holds a row's result unless the four steps write it out themselves;
     * a block of interleaved rows needs as much room as x */
    bool batched = inner > 1 && !p->sub && !p->s1;
    int64_t ylen = batched ? 2 * PADDED(n) * bs : inner == 1 && p->s1 ? 0 : 2 * n;
    int64_t len = 2 * PADDED(n) * bs + ylen + (p->sub ? 4 * p->m : 0);
    /* contiguous forward rows go through the passes a group at a time */
    bool lone = inner == 1 && !p->sub && !p->s1 && !job->inverse && job->scale == 1.0;
    int64_t group = lone && n < LONE_GROUP ? LONE_GROUP / n : 1;
    if (lone && len < 4 * n * group)
        len = 4 * n * group;
    R *x = scratch_new(len * (int64_t)sizeof(R), &sb);
    if (!x) {
        job->failed = 1;
        return;
    }
    R *y = x + 2 * PADDED(n) * bs, *scratch = y + ylen;
    const R in_f[2] = {1, sign}, out_f[2] = {scale, sign * scale};
    for (int64_t task = begin; task < end; task++) {
        int64_t o = task / job->nblocks, i0 = (task % job->nblocks) * bs;
        int64_t b = inner - i0 < bs ? inner - i0 : bs;
        const R *in = (const R *)job->src + 2 * (o * n * inner + i0);
        R *slab = (R *)job->dst + 2 * (o * n * inner + i0);
        if (b == 1 && inner == 1 && p->s1) {
            /* a lone long row: the four steps read and write the slab themselves */
            const FN(io_view) vin = {(R *)in, {in_f[0], in_f[1]}};
            const FN(io_view) vout = {slab, {out_f[0], out_f[1]}};
            if (FN(four_step)(p, &vin, &vout, x) < 0)
                job->failed = 1;
            continue;
        }
        if (lone) {
            /* contiguous forward rows need no copy in, and out only when
             * transformed in place by an odd number of passes; each pass
             * takes a group of them in one call */
            int64_t g = end - task < group ? end - task : group;
            FN(stockham_into)(p, g, in, slab, x);
            task += g - 1;
            continue;
        }
        if (batched) {
            /* the block's rows as they lie, b interleaved transforms at once;
             * a forward one's first pass reads the slab itself */
            if (!job->inverse && b % L == 0 && p->nf) {
                /* unscaled, its last pass writes the slab itself (after
                 * the first one has read all of the block) */
                bool direct = job->scale == 1.0 && (p->nfb ? p->nfb : p->nf) > 1;
                R *res = FN(stockham_slab)(p, b, in, inner, x, y, direct ? slab : NULL);
                if (!direct)
                    FN(slab_out_batch)(slab, res, n, inner, b, out_f);
                continue;
            }
            FN(slab_in_batch)(x, in, n, inner, b, in_f);
            FN(slab_out_batch)(slab, FN(stockham)(p, b, x, y), n, inner, b, out_f);
            continue;
        }
        FN(slab_in)(x, in, n, inner, b, in_f);
        const R *out = x;
        for (int64_t c = 0; c < b && out; c++) {
            R *row = x + 2 * c * PADDED(n), *res = FN(transform_row)(p, row, y, scratch);
            if (b == 1)
                out = res;
            else if (res && res != row)
                memcpy(row, res, sizeof(R) * 2 * (size_t)n);
            else if (!res)
                out = NULL;
        }
        if (out)
            FN(slab_out)(slab, out, n, inner, b, out_f);
        else
            job->failed = 1;
    }
    mt_alloc_free(sb.block, sb.size);
}

/* Rows [begin, end) of an r2c_job (see there). */
static void FN(run_r2c)(void *ctx, int64_t begin, int64_t end)
{
    r2c_job *job = ctx;
    int64_t n = job->n, h = n / 2, inner = job->inner;
    scratch_block sb;
    int64_t len = 4 * h + (job->half->sub ? 4 * job->half->m : 0);
    R *buf = scratch_new(len * (int64_t)sizeof(R), &sb);
    if (!buf) {
        job->failed = 1;
        return;
    }
    const R *tw = job->full->tw, *x = job->src;
    R sc = (R)job->scale, *y = job->dst;
    for (int64_t row = begin; row < end; row++) {
        int64_t o = row / inner, i = row % inner;
        int64_t sbase = o * n * inner + i, dbase = o * (h + 1) * inner + i;
        for (int64_t k = 0; k < n; k++)
            buf[k] = x[sbase + k * inner];
        const R *z = FN(transform_row)(job->half, buf, buf + 2 * h, buf + 4 * h);
        if (!z) {
            job->failed = 1;
            break;
        }
        for (int64_t k = 0; k <= h; k++) {
            R xr, xi;
            if (k == 0 || k == h) {
                xr = k == 0 ? z[0] + z[1] : z[0] - z[1];
                xi = 0;
            } else {
                R ar = z[2 * k], ai = z[2 * k + 1];
                R br = z[2 * (h - k)], bi = -z[2 * (h - k) + 1];
                R er = (R)0.5 * (ar + br), ei = (R)0.5 * (ai + bi);
                R odr = (R)0.5 * (ai - bi), odi = (R)-0.5 * (ar - br);
                xr = er + CMUL_RE(odr, odi, tw[2 * k], tw[2 * k + 1]);
                xi = ei + CMUL_IM(odr, odi, tw[2 * k], tw[2 * k + 1]);
            }
            int64_t d = 2 * (dbase + k * inner);
            y[d] = xr * sc;
            y[d + 1] = xi * sc;
        }
    }
    mt_alloc_free(sb.block, sb.size);
}

#undef VLOAD
#undef VSTORE
#undef VLOAD_PART
#undef VSTORE_PART
#undef VCMUL
#undef VCMULV
#undef VMUL_NEGI
#undef LONE_FAC
#undef LONE_NF
#undef R
#undef V
#undef L
#undef FN
#undef VCMULT

/* the includer's parameters, so the next inclusion defines its own */
#undef FFT_R
#undef FFT_V
#undef FFT_L
#undef FFT_FN
#undef FFT_VSWAP
#undef FFT_VRE
#undef FFT_VIM
#undef FFT_SPLAT
#undef FFT_SPLAT2
#undef FFT_ALT
#undef FFT_STORE4T
#undef FFT_STORE8T
#undef FFT_NARROW
#undef FFT_VEC_FN
#undef FFT_MOVE_FN
#undef FFT_TW4
