/* torch.gather and torch.scatter along one dim (mt_gather_dim, mt_scatter_dim).
 * The index's shape is walked as rows along its last dim with offsets that
 * advance incrementally; each row is moved by a row loop chosen per item size
 * (gather, scatter set) or per dtype and reduction (scatter add, multiply,
 * max, min) once per call, which checks the row's indices in the pass that
 * moves (gathers with AVX-512 vector gathers where the CPU has them).
 *
 * Threads split one dim of the index, s, into ranges; each range is a narrowed
 * view of index, values and (when s is not the gathered dim) self. A gather may
 * split any dim. A scatter splits a dim other than dim: positions that differ
 * there write different elements of self, so no two threads collide and each
 * element sees its writes in index order, as serially. */
#include "index.h"
#include "parallel.h"
#include "copy.h"
#include "typed.h"

#include "../core/error.h"
#include "../core/portable.h"

#include <stdatomic.h>
#include <stdbool.h>
#ifdef MT_HAVE_X86_DISPATCH
#include <immintrin.h>
#endif
#include <string.h>

/* One row of n index entries ix[i * xs]; self's element for entry i is at
 * t + i * ti + ix * td, the value's at v + i * vs. A row checks its own
 * indices against size (self's length along dim) as it goes and returns
 * false at one outside [0, size): a scatter has then written the entries
 * before it (as torch's kernel, which checks per element), a gather leaves
 * its values unspecified; the op fails either way. */
typedef bool (*dim_row_fn)(char *t, int64_t ti, int64_t td, const int64_t *ix, int64_t xs, char *v,
                           int64_t vs, int64_t n, int64_t size);

/* A gather checks while it moves, in one pass over the index: an index out
 * of range reads element 0 instead and marks the row. */
#define MOVE_ROWS(N, CT)                                                                       \
    static bool gather_row_##N(char *t, int64_t ti, int64_t td, const int64_t *ix, int64_t xs, \
                               char *v, int64_t vs, int64_t n, int64_t size)                   \
    {                                                                                          \
        const CT *s = (const CT *)t;                                                           \
        CT *d = (CT *)v;                                                                       \
        uint64_t lim = (uint64_t)size, bad = 0;                                                \
        for (int64_t i = 0; i < n; i++) {                                                      \
            uint64_t x = (uint64_t)ix[i * xs];                                                 \
            bad |= x >= lim;                                                                   \
            d[i * vs] = s[i * ti + (int64_t)(x < lim ? x : 0) * td];                           \
        }                                                                                      \
        return bad == 0;                                                                       \
    }                                                                                          \
    static bool set_row_##N(char *t, int64_t ti, int64_t td, const int64_t *ix, int64_t xs,    \
                            char *v, int64_t vs, int64_t n, int64_t size)                      \
    {                                                                                          \
        CT *d = (CT *)t;                                                                       \
        const CT *s = (const CT *)v;                                                           \
        for (int64_t i = 0; i < n; i++) {                                                      \
            uint64_t x = (uint64_t)ix[i * xs];                                                 \
            if (x >= (uint64_t)size)                                                           \
                return false;                                                                  \
            d[i * ti + (int64_t)x * td] = s[i * vs];                                           \
        }                                                                                      \
        return true;                                                                           \
    }
MOVE_ROWS(1, uint8_t)
MOVE_ROWS(2, uint16_t)
MOVE_ROWS(4, uint32_t)
MOVE_ROWS(8, uint64_t)
MOVE_ROWS(16, mt_item16)

#ifdef MT_HAVE_AVX512
/* Gathers of 4- and 8-byte items along a dense row of self, by a dense index
 * into dense values, with AVX-512 masked vector gathers: the range check is
 * the gather's mask. Chosen per call where mt_use_avx512() allows; other rows
 * take the loops above. */
#define AVX512_GATHER(N, VEC, GATHER, STORE)                                                     \
    MT_TARGET_AVX512 static bool gather_row_##N##_avx512(char *t, int64_t ti, int64_t td,        \
                                                         const int64_t *ix, int64_t xs, char *v, \
                                                         int64_t vs, int64_t n, int64_t size)    \
    {                                                                                            \
        if (!(xs == 1 && vs == 1 && ti == 0 && td == 1))                                         \
            return gather_row_##N(t, ti, td, ix, xs, v, vs, n, size);                            \
        __m512i lim = _mm512_set1_epi64(size);                                                   \
        __mmask8 bad = 0;                                                                        \
        int64_t i = 0;                                                                           \
        for (; i + 16 <= n; i += 16) {                                                           \
            __m512i a = _mm512_loadu_si512(ix + i), b = _mm512_loadu_si512(ix + i + 8);          \
            __mmask8 ka = _mm512_cmplt_epu64_mask(a, lim), kb = _mm512_cmplt_epu64_mask(b, lim); \
            bad |= (__mmask8)(~ka | ~kb);                                                        \
            VEC ga = GATHER(ka, a, t), gb = GATHER(kb, b, t);                                    \
            STORE(v + i * N, ga);                                                                \
            STORE(v + (i + 8) * N, gb);                                                          \
        }                                                                                        \
        return gather_row_##N(t, 0, 1, ix + i, 1, v + i * N, 1, n - i, size) && bad == 0;        \
    }
#define GATHER_4(k, x, base) _mm512_mask_i64gather_ps(_mm256_setzero_ps(), k, x, base, 4)
#define GATHER_8(k, x, base) _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), k, x, base, 8)
#define STORE_4(p, x) _mm256_storeu_ps((float *)(p), x)
#define STORE_8(p, x) _mm512_storeu_si512(p, x)
AVX512_GATHER(4, __m256, GATHER_4, STORE_4)
AVX512_GATHER(8, __m512i, GATHER_8, STORE_8)
#endif

/* *p += v in the compute type of dtype suffix SFX */
#define ADD_AT(SFX, p, v) \
    (*(p) = MT_STORE_##SFX((MT_ACC_##SFX)MT_LOAD_##SFX(*(p)) + (MT_ACC_##SFX)MT_LOAD_##SFX(v)))

#define COMBINE_ROWS(E, SFX, CT)                                                              \
    static bool add_row_##SFX(char *t, int64_t ti, int64_t td, const int64_t *ix, int64_t xs, \
                              char *v, int64_t vs, int64_t n, int64_t size)                   \
    {                                                                                         \
        CT *d = (CT *)t;                                                                      \
        const CT *s = (const CT *)v;                                                          \
        int64_t i = 0;                                                                        \
        /* a dense row four entries a step, checked together: a step with an            \
         * index out of range is left to the loop below, which writes the               \
         * entries before it */     \
        for (; xs == 1 && vs == 1 && ti == 0 && td == 1 && i + 4 <= n; i += 4) {              \
            uint64_t x0 = (uint64_t)ix[i], x1 = (uint64_t)ix[i + 1];                          \
            uint64_t x2 = (uint64_t)ix[i + 2], x3 = (uint64_t)ix[i + 3];                      \
            if (x0 >= (uint64_t)size || x1 >= (uint64_t)size || x2 >= (uint64_t)size ||       \
                x3 >= (uint64_t)size)                                                         \
                break;                                                                        \
            ADD_AT(SFX, d + x0, s[i]);                                                        \
            ADD_AT(SFX, d + x1, s[i + 1]);                                                    \
            ADD_AT(SFX, d + x2, s[i + 2]);                                                    \
            ADD_AT(SFX, d + x3, s[i + 3]);                                                    \
        }                                                                                     \
        for (; i < n; i++) {                                                                  \
            uint64_t x = (uint64_t)ix[i * xs];                                                \
            if (x >= (uint64_t)size)                                                          \
                return false;                                                                 \
            ADD_AT(SFX, d + i * ti + (int64_t)x * td, s[i * vs]);                             \
        }                                                                                     \
        return true;                                                                          \
    }                                                                                         \
    static bool mul_row_##SFX(char *t, int64_t ti, int64_t td, const int64_t *ix, int64_t xs, \
                              char *v, int64_t vs, int64_t n, int64_t size)                   \
    {                                                                                         \
        CT *d = (CT *)t;                                                                      \
        const CT *s = (const CT *)v;                                                          \
        for (int64_t i = 0; i < n; i++) {                                                     \
            uint64_t x = (uint64_t)ix[i * xs];                                                \
            if (x >= (uint64_t)size)                                                          \
                return false;                                                                 \
            CT *p = d + i * ti + (int64_t)x * td;                                             \
            *p = MT_STORE_##SFX((MT_ACC_##SFX)MT_LOAD_##SFX(*p) *                             \
                                (MT_ACC_##SFX)MT_LOAD_##SFX(s[i * vs]));                      \
        }                                                                                     \
        return true;                                                                          \
    }
MT_FOR_ALL_DTYPES(COMBINE_ROWS)
MT_FOR_COMPLEX_DTYPES(COMBINE_ROWS)

/* *p becomes v where v is NaN or beats it (v OP *p): as torch's amax/amin,
 * NaN propagates and a tie keeps the value already there */
#define EXTREME_ROW(E, SFX, CT, NAME, OP)                                                        \
    static bool NAME##_row_##SFX(char *t, int64_t ti, int64_t td, const int64_t *ix, int64_t xs, \
                                 char *v, int64_t vs, int64_t n, int64_t size)                   \
    {                                                                                            \
        CT *d = (CT *)t;                                                                         \
        const CT *s = (const CT *)v;                                                             \
        for (int64_t i = 0; i < n; i++) {                                                        \
            uint64_t x = (uint64_t)ix[i * xs];                                                   \
            if (x >= (uint64_t)size)                                                             \
                return false;                                                                    \
            CT *p = d + i * ti + (int64_t)x * td;                                                \
            MT_ACC_##SFX a = (MT_ACC_##SFX)MT_LOAD_##SFX(s[i * vs]);                             \
            MT_ACC_##SFX old = (MT_ACC_##SFX)MT_LOAD_##SFX(*p);                                  \
            if (a OP old || a != a)                                                              \
                *p = s[i * vs];                                                                  \
        }                                                                                        \
        return true;                                                                             \
    }
#define EXTREME_ROWS(NAME, OP)                    \
    EXTREME_ROW(MT_BOOL, b1, uint8_t, NAME, OP)   \
    MT_FOR_INT_DTYPES_ARGS(EXTREME_ROW, NAME, OP) \
    MT_FOR_FLOAT_DTYPES_ARGS(EXTREME_ROW, NAME, OP)
EXTREME_ROWS(max, >)
EXTREME_ROWS(min, <)

static const dim_row_fn add_rows[MT_NUM_DTYPES] = MT_ROW_AND_COMPLEX(add_row);
static const dim_row_fn mul_rows[MT_NUM_DTYPES] = MT_ROW_AND_COMPLEX(mul_row);
static const dim_row_fn max_rows[MT_NUM_DTYPES] = MT_ROW(max_row);
static const dim_row_fn min_rows[MT_NUM_DTYPES] = MT_ROW(min_row);

static dim_row_fn by_size(int isz, bool gather)
{
#ifdef MT_HAVE_AVX512
    if (gather && (isz == 4 || isz == 8) && mt_use_avx512())
        return isz == 4 ? gather_row_4_avx512 : gather_row_8_avx512;
#endif
    switch (isz) {
    case 1:
        return gather ? gather_row_1 : set_row_1;
    case 2:
        return gather ? gather_row_2 : set_row_2;
    case 4:
        return gather ? gather_row_4 : set_row_4;
    case 8:
        return gather ? gather_row_8 : set_row_8;
    default:
        return gather ? gather_row_16 : set_row_16;
    }
}

typedef struct {
    mt_tensor t, ix, v; /* at least 1-d */
    int dim, split;
    dim_row_fn row;
    /* fill self's row along dim just before scattering into it: from init
     * (its data at element init_delta from self's) or with zeros */
    bool fill;
    const char *init;
    int64_t init_delta;
    _Atomic int64_t bad; /* first out-of-range index seen, or INT64_MIN */
} dim_job;

/* The rows of t, ix, v (ix's shape, t seen along ix's positions). */
static void run_dim(dim_job *w, const mt_tensor *t, const mt_tensor *ix, const mt_tensor *v)
{
    int nd = ix->ndim, last = nd - 1, isz = mt_itemsize(t->dtype);
    if (ix->numel == 0)
        return;
    int64_t size = t->sizes[w->dim], td = t->strides[w->dim];
    int64_t row_ts[MT_MAX_DIMS], pos[MT_MAX_DIMS] = {0};
    for (int d = 0; d < nd; d++)
        row_ts[d] = d == w->dim ? 0 : t->strides[d];
    int64_t n = ix->sizes[last];
    int64_t to = t->offset, xo = ix->offset, vo = v->offset;
    const int64_t *xbase = (const int64_t *)ix->storage->data;
    char *tbase = (char *)t->storage->data, *vbase = (char *)v->storage->data;
    int64_t xs = ix->strides[last], vs = v->strides[last], ti = row_ts[last];
    if (size == 0) {
        /* no index is valid, and a row must not read element 0 */
        int64_t none = INT64_MIN;
        atomic_compare_exchange_strong(&w->bad, &none, xbase[xo]);
        return;
    }
    for (;;) {
        const int64_t *x = xbase + xo;
        if (w->fill && w->init)
            memcpy(tbase + to * isz, w->init + (to + w->init_delta) * isz, (size_t)(size * isz));
        else if (w->fill)
            memset(tbase + to * isz, 0, (size_t)(size * isz));
        if (!w->row(tbase + to * isz, ti, td, x, xs, vbase + vo * isz, vs, n, size)) {
            for (int64_t i = 0; i < n; i++)
                if ((uint64_t)x[i * xs] >= (uint64_t)size) {
                    int64_t none = INT64_MIN;
                    atomic_compare_exchange_strong(&w->bad, &none, x[i * xs]);
                    return;
                }
        }
        int d = last - 1;
        for (; d >= 0; d--) {
            to += row_ts[d];
            xo += ix->strides[d];
            vo += v->strides[d];
            if (++pos[d] < ix->sizes[d])
                break;
            to -= row_ts[d] * ix->sizes[d];
            xo -= ix->strides[d] * ix->sizes[d];
            vo -= v->strides[d] * ix->sizes[d];
            pos[d] = 0;
        }
        if (d < 0 || atomic_load_explicit(&w->bad, memory_order_relaxed) != INT64_MIN)
            return;
    }
}

static void narrow(mt_tensor *v, int d, int64_t b, int64_t e)
{
    v->offset += b * v->strides[d];
    v->numel = v->sizes[d] ? v->numel / v->sizes[d] * (e - b) : 0;
    v->sizes[d] = e - b;
}

static void dim_range(void *arg, int64_t b, int64_t e)
{
    dim_job *w = arg;
    mt_tensor t = w->t, ix = w->ix, v = w->v;
    narrow(&ix, w->split, b, e);
    narrow(&v, w->split, b, e);
    if (w->split != w->dim)
        narrow(&t, w->split, b, e);
    run_dim(w, &t, &ix, &v);
}

static int run_split(const mt_tensor *t, int dim, const mt_tensor *index, const mt_tensor *v,
                     dim_row_fn row, bool may_split_dim, const mt_tensor *fill_from, bool fill)
{
    /* an empty index may have any shape (torch checks none) */
    if (index->numel == 0)
        return 0;
    dim_job w = {.t = mt_at_least_1d(t),
                 .ix = mt_at_least_1d(index),
                 .v = mt_at_least_1d(v),
                 .dim = dim,
                 .split = -1,
                 .row = row,
                 .fill = fill};
    if (fill && fill_from) {
        w.init = (const char *)fill_from->storage->data;
        w.init_delta = fill_from->offset - t->offset;
    }
    atomic_init(&w.bad, INT64_MIN);
    for (int d = 0; d < w.ix.ndim; d++)
        if ((d != dim || may_split_dim) && (w.split < 0 || w.ix.sizes[d] > w.ix.sizes[w.split]))
            w.split = d;
    if (w.split < 0)
        run_dim(&w, &w.t, &w.ix, &w.v);
    else {
        int64_t len = w.ix.sizes[w.split], per = len ? w.ix.numel / len : 0;
        mt_parallel_for(0, len, 32768 / (per + 1) + 1, dim_range, &w);
    }
    int64_t bad = atomic_load(&w.bad);
    if (bad != INT64_MIN)
        return mt_error(MT_ERR_RUNTIME,
                        "index %lld is out of bounds for dimension %d with size %lld",
                        (long long)bad, dim, (long long)w.t.sizes[dim]);
    return 0;
}

int mt_gather_dim(const mt_tensor *t, int dim, const mt_tensor *index, mt_tensor *out)
{
    return run_split(t, dim, index, out, by_size(mt_itemsize(t->dtype), true), true, NULL, false);
}

static dim_row_fn scatter_row(mt_dtype dtype, mt_put_op op)
{
    switch (op) {
    case MT_PUT_SET:
        return by_size(mt_itemsize(dtype), false);
    case MT_PUT_ADD:
        return add_rows[dtype];
    case MT_PUT_MUL:
        return mul_rows[dtype];
    case MT_PUT_MAX:
        return max_rows[dtype];
    default:
        return min_rows[dtype];
    }
}

int mt_scatter_dim(mt_tensor *t, int dim, const mt_tensor *index, const mt_tensor *src,
                   mt_put_op op)
{
    return run_split(t, dim, index, src, scatter_row(t->dtype, op), false, NULL, false);
}

int mt_scatter_dim_into(mt_tensor *out, const mt_tensor *init, int dim, const mt_tensor *index,
                        const mt_tensor *src, mt_put_op op)
{
    /* when each row of out along its last dim is one row of the index, the
     * row is filled in cache just before its writes, by the thread that
     * makes them; otherwise out is filled whole first */
    bool rows = index->numel > 0 && out->ndim == index->ndim && dim == out->ndim - 1 &&
                mt_tensor_is_contiguous(out) && (!init || mt_tensor_is_contiguous(init));
    for (int d = 0; rows && d < dim; d++)
        rows = index->sizes[d] == out->sizes[d];
    if (!rows && init)
        mt_copy(out, init);
    else if (!rows)
        memset(mt_data(out), 0, (size_t)out->numel * (size_t)mt_itemsize(out->dtype));
    return run_split(out, dim, index, src, scatter_row(out->dtype, op), false, init, rows);
}
