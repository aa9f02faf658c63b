#include "sort.h"
#include "iter.h"
#include "sort_introsort.h"
#include "typed.h"
#include "../core/error.h"

#include <stdlib.h>
#include <string.h>

typedef mt_sort_item item;

/* What a line's kernel writes: all of its sorted items, the first k (topk),
 * or one (an mt_pick_op). */
#define KEEP_ALL (-1)
#define KEEP_TOPK (-2)

/* How a line is ordered: torch's stable_sort, std::sort (introsort),
 * quickselect (kthvalue) or topk's selection. */
typedef enum { ORDER_STABLE, ORDER_INTROSORT, ORDER_QUICKSELECT, ORDER_TOPK } line_order;

typedef struct {
    int64_t len, vs, is, xs; /* line length; byte strides of values, indices, in along dim */
    mt_sort_cmp cmp;
    line_order order;
    int pick;    /* an mt_pick, KEEP_ALL or KEEP_TOPK */
    int64_t k;   /* MT_PICK_KTH: 0-based position in the sorted line; KEEP_TOPK: the count */
    bool sorted; /* KEEP_TOPK: the k sorted */
    mt_dtype dtype;
    int isz;
} sort_plan;

static inline bool lt(const sort_plan *p, const item *a, const item *b)
{
    return mt_sort_lt(&p->cmp, a, b);
}

static inline bool before(const sort_plan *p, const item *a, const item *b)
{
    return mt_sort_before(&p->cmp, a, b);
}

/* Bottom-up merge sort of n items (stable); returns the buffer holding the result. */
static item *merge_sort(const sort_plan *p, item *a, item *tmp, int64_t n)
{
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = before(p, &a[j], &a[i]) ? a[j++] : a[i++];
            while (i < mid)
                tmp[k++] = a[i++];
            while (j < hi)
                tmp[k++] = a[j++];
        }
        item *s = a;
        a = tmp;
        tmp = s;
    }
    return a;
}

/* LSD radix sort of n integral keys, a byte per pass (stable, as the merge
 * sort, so either gives the same order); passes whose byte all keys share
 * are skipped. Returns the buffer holding the result. */
static item *radix_sort(item *a, item *tmp, int64_t n)
{
    const uint64_t sign = (uint64_t)1 << 63; /* flipped, so unsigned order is signed order */
    int64_t count[8][256];
    memset(count, 0, sizeof count);
    for (int64_t k = 0; k < n; k++) {
        uint64_t u = (uint64_t)a[k].i ^ sign;
        for (int b = 0; b < 8; b++)
            count[b][(u >> (8 * b)) & 255]++;
    }
    for (int b = 0; b < 8; b++) {
        int64_t *c = count[b];
        if (c[(((uint64_t)a[0].i ^ sign) >> (8 * b)) & 255] == n)
            continue;
        for (int64_t v = 0, sum = 0; v < 256; v++) {
            int64_t here = c[v];
            c[v] = sum;
            sum += here;
        }
        for (int64_t k = 0; k < n; k++)
            tmp[c[(((uint64_t)a[k].i ^ sign) >> (8 * b)) & 255]++] = a[k];
        item *s = a;
        a = tmp;
        tmp = s;
    }
    return a;
}

static inline void swap_items(item *a, int64_t i, int64_t j)
{
    item t = a[i];
    a[i] = a[j];
    a[j] = t;
}

/* Puts the k-th smallest of n items at a[k] by the quickselect torch's
 * kthvalue runs (Sedgewick's, median-of-three pivot), so that among ties and
 * NaN it picks the same position torch does. */
static void quick_select(const sort_plan *p, item *a, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    while (hi > lo) {
        if (hi == lo + 1) {
            if (lt(p, &a[hi], &a[lo]))
                swap_items(a, lo, hi);
            return;
        }
        swap_items(a, (lo + hi) >> 1, lo + 1);
        if (lt(p, &a[hi], &a[lo + 1]))
            swap_items(a, lo + 1, hi);
        if (lt(p, &a[hi], &a[lo]))
            swap_items(a, lo, hi);
        if (lt(p, &a[lo], &a[lo + 1]))
            swap_items(a, lo + 1, lo);
        int64_t i = lo + 1, j = hi;
        item pivot = a[lo];
        for (;;) {
            do
                i++;
            while (lt(p, &a[i], &pivot));
            do
                j--;
            while (lt(p, &pivot, &a[j]));
            if (j < i)
                break;
            swap_items(a, i, j);
        }
        swap_items(a, lo, j);
        if (j <= k)
            lo = i;
        if (j >= k)
            hi = j - 1;
    }
}

static void load_keys(const sort_plan *p, item *it, const char *x)
{
    switch (p->dtype) {
#define LOAD_CASE(E, SFX, T)                         \
    case E:                                          \
        for (int64_t k = 0; k < p->len; k++) {       \
            T v = *(const T *)(x + k * p->xs);       \
            if (p->cmp.is_float)                     \
                it[k].f = (double)MT_LOAD_##SFX(v);  \
            else                                     \
                it[k].i = (int64_t)MT_LOAD_##SFX(v); \
            it[k].idx = k;                           \
        }                                            \
        break;
        MT_FOR_ALL_DTYPES(LOAD_CASE)
#undef LOAD_CASE
/* unsigned keys in int64's order: uint64's top bit flipped (x - 2^63) */
#define UNSIGNED_CASE(E, SFX, T, TOP)                            \
    case E:                                                      \
        for (int64_t k = 0; k < p->len; k++) {                   \
            uint64_t v = *(const T *)(x + k * p->xs);            \
            it[k].i = (int64_t)(E == MT_UINT64 ? v ^ (TOP) : v); \
            it[k].idx = k;                                       \
        }                                                        \
        break;
        MT_FOR_UNSIGNED_DTYPES_ARGS(UNSIGNED_CASE, UINT64_C(1) << 63)
#undef UNSIGNED_CASE
    default:
        break;
    }
}

/* Where the lower median sits in a sorted line: a line with NaN gives its
 * first NaN, as torch's. */
static int64_t median_position(const sort_plan *p, const item *s)
{
    int64_t pos = (p->len - 1) / 2;
    if (p->cmp.is_float && s[p->len - 1].f != s[p->len - 1].f) {
        pos = p->len - 1;
        while (pos > 0 && s[pos - 1].f != s[pos - 1].f)
            pos--;
    }
    return pos;
}

/* The lower median of the values that are not NaN (NaN sort last); in a
 * line of only NaN, its first. */
static int64_t nanmedian_position(const sort_plan *p, const item *s)
{
    int64_t n = p->len;
    while (p->cmp.is_float && n > 0 && s[n - 1].f != s[n - 1].f)
        n--;
    return n ? (n - 1) / 2 : 0;
}

/* The most frequent value of a line as torch's mode finds it: std::sort by a
 * bare `<`, then the first longest run of equal neighbours (a NaN equals
 * none), and the position of that run's last item. */
static int64_t mode_position(const sort_plan *p, const item *s)
{
    int64_t best = 0, best_count = 0, start = 0;
    for (int64_t k = 1; k <= p->len; k++) {
        if (k < p->len && (p->cmp.is_float ? s[k].f == s[k - 1].f : s[k].i == s[k - 1].i))
            continue;
        if (k - start > best_count) {
            best_count = k - start;
            best = k - 1;
        }
        start = k;
    }
    return best;
}

/* Orders the line's items as p says; returns where the ordered items are
 * (buf, or buf + len after an odd number of merge passes). */
static item *order_line(const sort_plan *p, item *buf)
{
    switch (p->order) {
    case ORDER_STABLE:
        if (!p->cmp.is_float && !p->cmp.descending && p->len >= 64)
            return radix_sort(buf, buf + p->len, p->len);
        return merge_sort(p, buf, buf + p->len, p->len);
    case ORDER_INTROSORT:
        mt_introsort(&p->cmp, buf, p->len);
        break;
    case ORDER_QUICKSELECT:
        quick_select(p, buf, p->len, p->k);
        break;
    case ORDER_TOPK:
        /* torch's topk: a heap's partial sort for few of many, else the k-th
         * put in place and the k - 1 before it sorted when asked */
        if (p->k * 64 <= p->len) {
            mt_partial_sort(&p->cmp, buf, p->k, p->len);
        } else {
            mt_nth_element(&p->cmp, buf, p->len, p->k - 1);
            if (p->sorted)
                mt_introsort(&p->cmp, buf, p->k - 1);
        }
        break;
    }
    return buf;
}

static void sort_loop(char **data, const int64_t *st, int64_t n, void *ctx)
{
    const sort_plan *p = ctx;
    item *buf = malloc(2 * (size_t)p->len * sizeof *buf);
    if (!buf)
        return; /* the caller checked the size; nothing sensible remains */
    int64_t keep = p->pick == KEEP_ALL ? p->len : p->pick == KEEP_TOPK ? p->k : 1;
    for (int64_t l = 0; l < n; l++) {
        char *v = data[0] + l * st[0], *ix = data[1] + l * st[1];
        const char *x = data[2] + l * st[2];
        load_keys(p, buf, x);
        item *s = order_line(p, buf);
        if (p->pick >= 0) {
            int64_t pos = p->pick == MT_PICK_MEDIAN      ? median_position(p, s)
                          : p->pick == MT_PICK_NANMEDIAN ? nanmedian_position(p, s)
                          : p->pick == MT_PICK_MODE      ? mode_position(p, s)
                                                         : p->k;
            s += pos;
        }
        for (int64_t k = 0; k < keep; k++) {
            memcpy(v + k * p->vs, x + s[k].idx * p->xs, p->isz);
            *(int64_t *)(ix + k * p->is) = s[k].idx;
        }
    }
    free(buf);
}

/* Runs p over every line of in along dim; p says how to order and what to
 * keep, this fills in the line's geometry. */
static void run_lines(mt_tensor *values, mt_tensor *indices, const mt_tensor *in, int dim,
                      sort_plan p)
{
    if (in->numel == 0 || (p.pick == KEEP_TOPK && p.k == 0))
        return;
    p.len = in->ndim ? in->sizes[dim] : 1;
    p.cmp.is_float = mt_is_floating(in->dtype);
    p.dtype = in->dtype;
    p.isz = mt_itemsize(in->dtype);
    mt_tensor vv = *values, iv = *indices, xv = *in;
    if (in->ndim) {
        p.vs = values->strides[dim] * p.isz;
        p.is = indices->strides[dim] * (int64_t)sizeof(int64_t);
        p.xs = in->strides[dim] * p.isz;
        vv.sizes[dim] = iv.sizes[dim] = xv.sizes[dim] = 1;
    }
    const mt_tensor *ops[3] = {&vv, &iv, &xv};
    mt_iter it;
    mt_iter_init(&it, 3, ops, xv.ndim, xv.sizes);
    int64_t work = p.len * 8;
    mt_iter_run(&it, sort_loop, &p, work >= 32768 ? 1 : 32768 / work);
}

/* torch sorts the lines of an unstable sort by std::sort, except a line
 * along which the input repeats one element (stride 0: left in place), and
 * a 1-D integral input of 32768 elements or more in ascending order (fbgemm's
 * radix sort): both orders are the stable one. */
void mt_sort(mt_tensor *values, mt_tensor *indices, const mt_tensor *in, int dim, bool descending,
             bool stable)
{
    bool radix =
        in->ndim == 1 && !descending && mt_is_integral(in->dtype, false) && in->numel >= 32768;
    bool repeated = in->ndim && in->strides[dim] == 0;
    sort_plan p = {.cmp = {.descending = descending},
                   .order = stable || radix || repeated ? ORDER_STABLE : ORDER_INTROSORT,
                   .pick = KEEP_ALL};
    run_lines(values, indices, in, dim, p);
}

void mt_topk(mt_tensor *values, mt_tensor *indices, const mt_tensor *in, int dim, int64_t k,
             bool largest, bool sorted)
{
    sort_plan p = {.cmp = {.descending = largest},
                   .order = ORDER_TOPK,
                   .pick = KEEP_TOPK,
                   .k = k,
                   .sorted = sorted};
    run_lines(values, indices, in, dim, p);
}

void mt_pick(mt_tensor *values, mt_tensor *indices, const mt_tensor *in, int dim, mt_pick_op pick,
             int64_t k)
{
    sort_plan p = {.cmp = {.plain_less = pick == MT_PICK_MODE},
                   .order = pick == MT_PICK_KTH    ? ORDER_QUICKSELECT
                            : pick == MT_PICK_MODE ? ORDER_INTROSORT
                                                   : ORDER_STABLE,
                   .pick = pick,
                   .k = k};
    run_lines(values, indices, in, dim, p);
}

int64_t mt_sorted_groups(const mt_tensor *sorted, int64_t *groups)
{
    sort_plan p = {.len = sorted->numel,
                   .xs = mt_itemsize(sorted->dtype),
                   .cmp = {.is_float = mt_is_floating(sorted->dtype)},
                   .dtype = sorted->dtype};
    if (p.len == 0)
        return 0;
    item *it = malloc((size_t)p.len * sizeof *it);
    if (!it) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        return -1;
    }
    load_keys(&p, it, mt_data(sorted));
    int64_t g = 0;
    groups[0] = 0;
    for (int64_t k = 1; k < p.len; k++) {
        bool same = p.cmp.is_float ? it[k].f == it[k - 1].f : it[k].i == it[k - 1].i;
        g += !same;
        groups[k] = g;
    }
    free(it);
    return g + 1;
}

/* -1, 0, 1 as row a sorts before, with, after row b */
static int row_cmp(const sort_plan *p, const item *it, int64_t m, int64_t a, int64_t b)
{
    for (int64_t k = 0; k < m; k++) {
        const item *x = &it[a * m + k], *y = &it[b * m + k];
        if (lt(p, x, y))
            return -1;
        if (lt(p, y, x))
            return 1;
    }
    return 0;
}

static bool rows_equal(const sort_plan *p, const item *it, int64_t m, int64_t a, int64_t b)
{
    for (int64_t k = 0; k < m; k++) {
        const item *x = &it[a * m + k], *y = &it[b * m + k];
        if (p->cmp.is_float ? x->f != y->f : x->i != y->i)
            return false;
    }
    return true;
}

int64_t mt_sorted_rows(const mt_tensor *rows, int64_t n, int64_t m, int64_t *perm, int64_t *groups)
{
    sort_plan p = {.len = n * m,
                   .xs = mt_itemsize(rows->dtype),
                   .cmp = {.is_float = mt_is_floating(rows->dtype)},
                   .dtype = rows->dtype};
    if (n == 0)
        return 0;
    item *it = malloc((size_t)(p.len ? p.len : 1) * sizeof *it);
    int64_t *tmp = malloc((size_t)n * sizeof *tmp);
    if (!it || !tmp) {
        free(it);
        free(tmp);
        mt_error(MT_ERR_MEMORY, "out of memory");
        return -1;
    }
    load_keys(&p, it, mt_data(rows));
    for (int64_t r = 0; r < n; r++)
        perm[r] = r;
    int64_t *a = perm, *b = tmp;
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                b[k++] = row_cmp(&p, it, m, a[j], a[i]) < 0 ? a[j++] : a[i++];
            while (i < mid)
                b[k++] = a[i++];
            while (j < hi)
                b[k++] = a[j++];
        }
        int64_t *s = a;
        a = b;
        b = s;
    }
    if (a != perm)
        memcpy(perm, a, (size_t)n * sizeof *perm);
    int64_t g = 0;
    groups[0] = 0;
    for (int64_t r = 1; r < n; r++) {
        g += !rows_equal(&p, it, m, perm[r], perm[r - 1]);
        groups[r] = g;
    }
    free(it);
    free(tmp);
    return g + 1;
}
