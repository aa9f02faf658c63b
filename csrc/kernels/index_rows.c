/* Advanced indexing by an mt_index_plan: out <- t[plan] (mt_index_gather) and
 * t[plan] (op)= vals (mt_index_put). The result is walked as rows: one row per
 * (position in t's dims before the indexed ones, index entry), each row the
 * block of t's dims after the indexed ones. Offsets advance incrementally; the
 * block, collapsed to as few dims as possible, is moved by a run loop chosen
 * per item size (copies) or per dtype (accumulation) once per call, so a
 * contiguous block is one memcpy or one vector loop; plain rows (one index
 * over dim 0, contiguous rows) skip the block walk. mt_index_add_into is
 * index_add out of place (and index_select's backward, into zeros) in one
 * pass that fills each destination row just before adding into it.
 *
 * Threads: a gather splits rows freely. A put may hit one destination from
 * several rows (duplicate indices), so it splits only where destinations are
 * disjoint, the block's last dim or the leading dims, and otherwise runs
 * serially in index order: results are deterministic and a duplicate set keeps
 * the last value written, as torch's CPU kernel. */
#include "index.h"
#include "copy.h"
#include "parallel.h"
#include "typed.h"

#include "../core/portable.h"

#include <stdlib.h>
#include <string.h>

/* A strided run of n items: dst[i * ds] (op)= src[i * ss]. */
typedef void (*run_fn)(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n, double af,
                       int64_t ai);

#define COPY_RUN(N, CT)                                                                     \
    static void copy_run_##N(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n, \
                             double af, int64_t ai)                                         \
    {                                                                                       \
        (void)af;                                                                           \
        (void)ai;                                                                           \
        CT *d = (CT *)dst;                                                                  \
        const CT *s = (const CT *)src;                                                      \
        if (ds == 1 && ss == 1) {                                                           \
            memcpy(d, s, (size_t)n * sizeof(CT));                                           \
            return;                                                                         \
        }                                                                                   \
        for (int64_t i = 0; i < n; i++)                                                     \
            d[i * ds] = s[i * ss];                                                          \
    }
COPY_RUN(1, uint8_t)
COPY_RUN(2, uint16_t)
COPY_RUN(4, uint32_t)
COPY_RUN(8, uint64_t)
COPY_RUN(16, mt_item16)

static run_fn copy_run(int isz)
{
    switch (isz) {
    case 1:
        return copy_run_1;
    case 2:
        return copy_run_2;
    case 4:
        return copy_run_4;
    case 8:
        return copy_run_8;
    default:
        return copy_run_16;
    }
}

/* Accumulation in the dtype's compute type, alpha converted to it first, as
 * torch does (so float32 adds round like torch's, not through double). Bool
 * accumulates as logical or. */
#define ACC_RUNS(E, SFX, CT)                                                                     \
    MT_CLONES_AVX2 static void add_run_##SFX(char *dst, int64_t ds, const char *src, int64_t ss, \
                                             int64_t n, double af, int64_t ai)                   \
    {                                                                                            \
        CT *d = (CT *)dst;                                                                       \
        const CT *s = (const CT *)src;                                                           \
        MT_ACC_##SFX a = mt_is_inexact(E) ? (MT_ACC_##SFX)af : (MT_ACC_##SFX)ai;                 \
        if (ds == 1 && ss == 1 && a == 1) {                                                      \
            for (int64_t i = 0; i < n; i++)                                                      \
                d[i] = MT_STORE_##SFX((MT_ACC_##SFX)MT_LOAD_##SFX(d[i]) +                        \
                                      (MT_ACC_##SFX)MT_LOAD_##SFX(s[i]));                        \
            return;                                                                              \
        }                                                                                        \
        for (int64_t i = 0; i < n; i++)                                                          \
            d[i * ds] = MT_STORE_##SFX((MT_ACC_##SFX)MT_LOAD_##SFX(d[i * ds]) +                  \
                                       (MT_ACC_##SFX)MT_LOAD_##SFX(s[i * ss]) * a);              \
    }                                                                                            \
    MT_CLONES_AVX2 static void add_from_run_##SFX(char *dst, const char *from, const char *src,  \
                                                  int64_t n, double af, int64_t ai)              \
    {                                                                                            \
        CT *d = (CT *)dst;                                                                       \
        const CT *f = (const CT *)from, *s = (const CT *)src;                                    \
        MT_ACC_##SFX a = mt_is_inexact(E) ? (MT_ACC_##SFX)af : (MT_ACC_##SFX)ai;                 \
        if (!f) {                                                                                \
            for (int64_t i = 0; i < n; i++)                                                      \
                d[i] = MT_STORE_##SFX((MT_ACC_##SFX)0 + (MT_ACC_##SFX)MT_LOAD_##SFX(s[i]) * a);  \
        } else if (a == 1) {                                                                     \
            for (int64_t i = 0; i < n; i++)                                                      \
                d[i] = MT_STORE_##SFX((MT_ACC_##SFX)MT_LOAD_##SFX(f[i]) +                        \
                                      (MT_ACC_##SFX)MT_LOAD_##SFX(s[i]));                        \
        } else {                                                                                 \
            for (int64_t i = 0; i < n; i++)                                                      \
                d[i] = MT_STORE_##SFX((MT_ACC_##SFX)MT_LOAD_##SFX(f[i]) +                        \
                                      (MT_ACC_##SFX)MT_LOAD_##SFX(s[i]) * a);                    \
        }                                                                                        \
    }                                                                                            \
    static void mul_run_##SFX(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n,     \
                              double af, int64_t ai)                                             \
    {                                                                                            \
        (void)af;                                                                                \
        (void)ai;                                                                                \
        CT *d = (CT *)dst;                                                                       \
        const CT *s = (const CT *)src;                                                           \
        for (int64_t i = 0; i < n; i++)                                                          \
            d[i * ds] = MT_STORE_##SFX((MT_ACC_##SFX)MT_LOAD_##SFX(d[i * ds]) *                  \
                                       (MT_ACC_##SFX)MT_LOAD_##SFX(s[i * ss]));                  \
    }
MT_FOR_ALL_DTYPES(ACC_RUNS)
MT_FOR_COMPLEX_DTYPES(ACC_RUNS)

static const run_fn add_runs[MT_NUM_DTYPES] = MT_ROW_AND_COMPLEX(add_run);
static const run_fn mul_runs[MT_NUM_DTYPES] = MT_ROW_AND_COMPLEX(mul_run);
/* A dense row's first addition, fused with its fill: dst = from + alpha * src,
 * or 0 + alpha * src without from (so -0 becomes +0, as in zeros + src). */
typedef void (*add_from_fn)(char *dst, const char *from, const char *src, int64_t n, double af,
                            int64_t ai);
static const add_from_fn add_from_runs[MT_NUM_DTYPES] = MT_ROW_AND_COMPLEX(add_from_run);

typedef struct {
    char *t_data, *v_data; /* at element 0 of their storages */
    int isz;
    bool put;
    run_fn run;
    double af;
    int64_t ai;
    /* rows: pre dims of t (and of v), then the index entries */
    int npre;
    int64_t pre_sizes[MT_MAX_DIMS], pre_ts[MT_MAX_DIMS], pre_vs[MT_MAX_DIMS];
    int64_t t_base, v_base, nidx;
    const mt_index_plan *p;
    const int64_t *idx_ts; /* t's strides of the indexed dims */
    /* v's geometry over the index dims; NULL when v's rows are dense */
    const int64_t *vi_sizes, *vi_strides;
    int nvi;
    /* the block, collapsed; its last dim is the run */
    int nb;
    int64_t b_sizes[MT_MAX_DIMS], b_ts[MT_MAX_DIMS], b_vs[MT_MAX_DIMS];
    int64_t block; /* items per row */
    /* one index array over t's first dim, t's rows and v contiguous: rows
     * are plain runs found from the index alone (embedding, index_select
     * and index_add_ along dim 0) */
    bool plain;
} rows_job;

/* Offset in t of index entry j, relative to the row's pre position. */
static inline int64_t index_offset(const rows_job *w, int64_t j)
{
    const mt_index_plan *p = w->p;
    int64_t off = p->index[0][j] * w->idx_ts[0];
    for (int k = 1; k < p->k; k++)
        off += p->index[k][j] * w->idx_ts[k];
    return off;
}

/* v's offset of index entry j, relative to the row's pre position. */
static inline int64_t value_offset(const rows_job *w, int64_t j)
{
    if (!w->vi_sizes)
        return j * w->block;
    int64_t off = 0;
    for (int d = w->nvi - 1; d >= 0; d--) {
        off += (j % w->vi_sizes[d]) * w->vi_strides[d];
        j /= w->vi_sizes[d];
    }
    return off;
}

/* Moves the block of one row, restricted to [c0, c1) of its last dim. */
static void move_block(const rows_job *w, int64_t t_off, int64_t v_off, int64_t c0, int64_t c1)
{
    int last = w->nb - 1, isz = w->isz;
    int64_t n = c1 - c0, ts = w->b_ts[last], vs = w->b_vs[last];
    int64_t pos[MT_MAX_DIMS];
    t_off += c0 * ts;
    v_off += c0 * vs;
    /* only the outer dims' counters: this runs once per row */
    for (int d = 0; d < last; d++)
        pos[d] = 0;
    for (;;) {
        char *t = w->t_data + t_off * isz, *v = w->v_data + v_off * isz;
        if (w->put)
            w->run(t, ts, v, vs, n, w->af, w->ai);
        else
            w->run(v, vs, t, ts, n, w->af, w->ai);
        int d = last - 1;
        for (; d >= 0; d--) {
            t_off += w->b_ts[d];
            v_off += w->b_vs[d];
            if (++pos[d] < w->b_sizes[d])
                break;
            t_off -= w->b_ts[d] * w->b_sizes[d];
            v_off -= w->b_vs[d] * w->b_sizes[d];
            pos[d] = 0;
        }
        if (d < 0)
            return;
    }
}

/* Offsets in t and v of the pre position o. */
static void pre_offsets(const rows_job *w, int64_t o, int64_t *t_off, int64_t *v_off)
{
    int64_t to = w->t_base, vo = w->v_base;
    for (int d = w->npre - 1; d >= 0; d--) {
        int64_t c = o % w->pre_sizes[d];
        o /= w->pre_sizes[d];
        to += c * w->pre_ts[d];
        vo += c * w->pre_vs[d];
    }
    *t_off = to;
    *v_off = vo;
}

/* Plain rows [r0, r1), columns [c0, c1). */
static void run_plain_rows(const rows_job *w, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    const int64_t *ix = w->p->index[0];
    int64_t st = w->idx_ts[0], isz = w->isz, n = c1 - c0;
    char *t = w->t_data + (w->t_base + c0) * isz, *v = w->v_data + (w->v_base + c0) * isz;
    for (int64_t r = r0; r < r1; r++) {
        char *tr = t + ix[r] * st * isz, *vr = v + r * w->block * isz;
        if (w->put)
            w->run(tr, 1, vr, 1, n, w->af, w->ai);
        else
            w->run(vr, 1, tr, 1, n, w->af, w->ai);
    }
}

/* Rows [r0, r1) (row r = pre position r / nidx, index entry r % nidx),
 * block columns [c0, c1). */
static void run_rows(const rows_job *w, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
    if (r0 >= r1 || c0 >= c1)
        return;
    if (w->plain) {
        run_plain_rows(w, r0, r1, c0, c1);
        return;
    }
    int64_t o = r0 / w->nidx, j = r0 % w->nidx, to, vo;
    pre_offsets(w, o, &to, &vo);
    for (int64_t r = r0; r < r1; r++) {
        move_block(w, to + index_offset(w, j), vo + value_offset(w, j), c0, c1);
        if (++j == w->nidx && r + 1 < r1) {
            j = 0;
            pre_offsets(w, ++o, &to, &vo);
        }
    }
}

static void rows_range(void *arg, int64_t b, int64_t e)
{
    const rows_job *w = arg;
    run_rows(w, b, e, 0, w->b_sizes[w->nb - 1]);
}

static void pre_range(void *arg, int64_t b, int64_t e)
{
    const rows_job *w = arg;
    run_rows(w, b * w->nidx, e * w->nidx, 0, w->b_sizes[w->nb - 1]);
}

static void columns_range(void *arg, int64_t b, int64_t e)
{
    const rows_job *w = arg;
    int64_t rows = w->nidx;
    for (int d = 0; d < w->npre; d++)
        rows *= w->pre_sizes[d];
    run_rows(w, 0, rows, b, e);
}

/* Fills the geometry of w for t indexed by p, v holding the result shape. */
static void plan_job(rows_job *w, const mt_tensor *t, const mt_index_plan *p, const mt_tensor *v)
{
    int post = t->ndim - p->pre - p->k, vpost = p->pre + p->index_ndim;
    w->t_data = (char *)t->storage->data;
    w->v_data = (char *)v->storage->data;
    w->isz = mt_itemsize(t->dtype);
    w->p = p;
    w->t_base = t->offset;
    w->v_base = v->offset;
    w->nidx = p->index_numel;
    w->idx_ts = t->strides + p->pre;
    w->npre = p->pre;
    for (int d = 0; d < p->pre; d++) {
        w->pre_sizes[d] = t->sizes[d];
        w->pre_ts[d] = t->strides[d];
        w->pre_vs[d] = v->strides[d];
    }
    /* the block's dims, dropping size-1 ones and merging those that step
     * alike in t and v */
    w->nb = 0;
    w->block = 1;
    for (int d = 0; d < post; d++) {
        int64_t s = t->sizes[p->pre + p->k + d];
        int64_t ts = t->strides[p->pre + p->k + d], vs = v->strides[vpost + d];
        w->block *= s;
        if (s == 1)
            continue;
        int b = w->nb - 1;
        if (b >= 0 && w->b_ts[b] == ts * s && w->b_vs[b] == vs * s) {
            w->b_sizes[b] *= s;
            w->b_ts[b] = ts;
            w->b_vs[b] = vs;
            continue;
        }
        w->b_sizes[++b] = s;
        w->b_ts[b] = ts;
        w->b_vs[b] = vs;
        w->nb = b + 1;
    }
    if (w->nb == 0) {
        w->nb = 1;
        w->b_sizes[0] = 1;
        w->b_ts[0] = w->b_vs[0] = 1;
    }
    /* v's rows are dense when its index dims step by the block in C order */
    int64_t expect = w->block;
    bool dense = true;
    for (int d = p->index_ndim - 1; d >= 0; d--) {
        if (p->index_sizes[d] != 1 && v->strides[p->pre + d] != expect)
            dense = false;
        expect *= p->index_sizes[d];
    }
    w->vi_sizes = dense ? NULL : p->index_sizes;
    w->vi_strides = v->strides + p->pre;
    w->nvi = p->index_ndim;
    w->plain =
        dense && p->pre == 0 && p->k == 1 && w->nb == 1 && w->b_ts[0] == 1 && w->b_vs[0] == 1;
}

/* Gathers of single items by one index array into a dense result (take,
 * x[mask], 1-d index_select): out[j] = t[index[j] * stride], with no per-item
 * block bookkeeping. */
#define PICK(N, CT)                                               \
    static void pick_##N(const rows_job *w, int64_t b, int64_t e) \
    {                                                             \
        const CT *s = (const CT *)w->t_data + w->t_base;          \
        CT *o = (CT *)w->v_data + w->v_base;                      \
        const int64_t *ix = w->p->index[0];                       \
        int64_t st = w->idx_ts[0];                                \
        for (int64_t j = b; j < e; j++)                           \
            o[j] = s[ix[j] * st];                                 \
    }
PICK(1, uint8_t)
PICK(2, uint16_t)
PICK(4, uint32_t)
PICK(8, uint64_t)
PICK(16, mt_item16)

static void pick_range(void *arg, int64_t b, int64_t e)
{
    const rows_job *w = arg;
    switch (w->isz) {
    case 1:
        pick_1(w, b, e);
        break;
    case 2:
        pick_2(w, b, e);
        break;
    case 4:
        pick_4(w, b, e);
        break;
    case 8:
        pick_8(w, b, e);
        break;
    default:
        pick_16(w, b, e);
        break;
    }
}

/* Items per thread chunk below which threads cost more than they save. */
#define GRAIN_ITEMS 16384

void mt_index_gather(const mt_tensor *t, const mt_index_plan *p, mt_tensor *out)
{
    if (out->numel == 0)
        return;
    rows_job w;
    plan_job(&w, t, p, out);
    w.put = false;
    w.run = copy_run(w.isz);
    w.af = 0;
    w.ai = 0;
    int64_t rows = out->numel / w.block;
    if (w.block == 1 && p->k == 1 && p->pre == 0 && !w.vi_sizes) {
        mt_parallel_for(0, rows, GRAIN_ITEMS, pick_range, &w);
        return;
    }
    int64_t grain = GRAIN_ITEMS / w.block + 1;
    mt_parallel_for(0, rows, grain, rows_range, &w);
}

void mt_index_put(mt_tensor *t, const mt_index_plan *p, const mt_tensor *vals, mt_put_op op,
                  double alpha_f, int64_t alpha_i)
{
    if (vals->numel == 0)
        return;
    rows_job w;
    plan_job(&w, t, p, vals);
    w.put = true;
    w.run = op == MT_PUT_SET ? copy_run(w.isz) : (op == MT_PUT_ADD ? add_runs : mul_runs)[t->dtype];
    w.af = alpha_f;
    w.ai = alpha_i;
    int64_t pre = 1, cols = w.b_sizes[w.nb - 1];
    for (int d = 0; d < p->pre; d++)
        pre *= t->sizes[d];
    int64_t per_pre = vals->numel / pre;
    if (pre >= 2 * mt_get_num_threads())
        mt_parallel_for(0, pre, GRAIN_ITEMS / per_pre + 1, pre_range, &w);
    else if (cols >= 64)
        mt_parallel_for(0, cols, GRAIN_ITEMS / (vals->numel / cols) + 1, columns_range, &w);
    else
        pre_range(&w, 0, pre);
}

/* mt_index_add_into by destination rows: a row is out's block at one (pre
 * position, index value), dense in out, init and vals. Each thread owns a
 * range of rows and finishes each in turn while it is in cache: its first
 * addition also fills it from init (or zeros), the others follow in index
 * order; a row without one is copied (or cleared). entries lists the index
 * entries by value (a stable counting sort); those of value x are
 * entries[first[x]] .. entries[first[x + 1] - 1]. */
typedef struct {
    rows_job w;
    add_from_fn first_add;
    const char *init; /* at out's element 0; NULL: zeros */
    int64_t size;     /* out's length along the indexed dim */
    int64_t *first, *entries;
} into_job;

static void into_range(void *arg, int64_t lo, int64_t hi)
{
    const into_job *z = arg;
    const rows_job *w = &z->w;
    size_t row = (size_t)w->block * (size_t)w->isz;
    char *t = w->t_data + w->t_base * w->isz;
    const char *v = w->v_data + w->v_base * w->isz;
    for (int64_t r = lo; r < hi; r++) {
        int64_t o = r / z->size, x = r % z->size, e = z->first[x], end = z->first[x + 1];
        char *tr = t + (size_t)r * row;
        const char *ir = z->init ? z->init + (size_t)r * row : NULL;
        const char *vo = v + (size_t)(o * w->nidx) * row;
        if (e == end) {
            if (ir)
                memcpy(tr, ir, row);
            else
                memset(tr, 0, row);
            continue;
        }
        z->first_add(tr, ir, vo + (size_t)z->entries[e] * row, w->block, w->af, w->ai);
        while (++e < end)
            w->run(tr, 1, vo + (size_t)z->entries[e] * row, 1, w->block, w->af, w->ai);
    }
}

/* The counting sort of into_job; false when out of memory. */
static bool sort_entries(into_job *z, const int64_t *ix, int64_t n)
{
    z->first = calloc((size_t)z->size + 2, sizeof(int64_t));
    z->entries = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (!z->first || !z->entries)
        return false;
    for (int64_t j = 0; j < n; j++)
        z->first[ix[j] + 2]++;
    for (int64_t x = 2; x < z->size + 2; x++)
        z->first[x] += z->first[x - 1];
    for (int64_t j = 0; j < n; j++)
        z->entries[z->first[ix[j] + 1]++] = j;
    return true;
}

void mt_index_add_into(mt_tensor *out, const mt_tensor *init, const mt_index_plan *p,
                       const mt_tensor *vals, double alpha_f, int64_t alpha_i)
{
    if (out->numel == 0)
        return;
    into_job z = {.first_add = add_from_runs[out->dtype],
                  .init = init ? mt_data(init) : NULL,
                  .size = out->sizes[p->pre]};
    plan_job(&z.w, out, p, vals);
    z.w.put = true;
    z.w.run = add_runs[out->dtype];
    z.w.af = alpha_f;
    z.w.ai = alpha_i;
    /* rows shorter than a cache line cost more in per-row steps than a
     * second pass over out does */
    bool rows = p->k == 1 && z.w.block * z.w.isz >= 64 && mt_tensor_is_contiguous(out) &&
                mt_tensor_is_contiguous(vals) && (!init || mt_tensor_is_contiguous(init));
    if (rows && sort_entries(&z, p->index[0], p->index_numel)) {
        mt_parallel_for(0, out->numel / z.w.block, GRAIN_ITEMS / z.w.block + 1, into_range, &z);
    } else {
        if (init)
            mt_copy(out, init);
        else
            memset(mt_data(out), 0, (size_t)out->numel * (size_t)mt_itemsize(out->dtype));
        mt_index_put(out, p, vals, MT_PUT_ADD, alpha_f, alpha_i);
    }
    free(z.first);
    free(z.entries);
}
