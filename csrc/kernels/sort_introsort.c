/* libstdc++'s unstable sorting algorithms, step for step, as torch's CPU sort
 * (std::sort) and topk (std::partial_sort, std::nth_element then std::sort)
 * run them: which of equal keys ends where follows from each comparison and
 * swap, so these keep libstdc++'s choices: introsort with the median of
 * (first + 1, middle, last - 1) moved to first as pivot, an unguarded
 * partition, recursion on the right part, a depth limit of 2 floor(log2 n)
 * and a heap sort beyond it, left parts of 16 or fewer items to one final
 * insertion sort; the heap is libstdc++'s (hole moved down to a leaf, the
 * value pushed back up). */
#include "sort_introsort.h"

#define THRESHOLD 16

static inline void swap_at(mt_sort_item *a, int64_t i, int64_t j)
{
    mt_sort_item t = a[i];
    a[i] = a[j];
    a[j] = t;
}

static int64_t floor_log2(int64_t n)
{
    int64_t k = 0;
    while (n > 1) {
        n >>= 1;
        k++;
    }
    return k;
}

static void adjust_heap(const mt_sort_cmp *c, mt_sort_item *a, int64_t hole, int64_t len,
                        mt_sort_item value)
{
    int64_t top = hole, child = hole;
    while (child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (mt_sort_before(c, &a[child], &a[child - 1]))
            child--;
        a[hole] = a[child];
        hole = child;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        a[hole] = a[child - 1];
        hole = child - 1;
    }
    int64_t parent = (hole - 1) / 2;
    while (hole > top && mt_sort_before(c, &a[parent], &value)) {
        a[hole] = a[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    a[hole] = value;
}

static void make_heap(const mt_sort_cmp *c, mt_sort_item *a, int64_t len)
{
    if (len < 2)
        return;
    for (int64_t parent = (len - 2) / 2;; parent--) {
        adjust_heap(c, a, parent, len, a[parent]);
        if (parent == 0)
            return;
    }
}

/* moves the heap's top to a[at] and heaps a[at]'s former value into a[0..len) */
static void pop_heap(const mt_sort_cmp *c, mt_sort_item *a, int64_t len, int64_t at)
{
    mt_sort_item value = a[at];
    a[at] = a[0];
    adjust_heap(c, a, 0, len, value);
}

/* a[0..middle) becomes a heap of the middle items that sort first of a[0..n) */
static void heap_select(const mt_sort_cmp *c, mt_sort_item *a, int64_t middle, int64_t n)
{
    make_heap(c, a, middle);
    for (int64_t i = middle; i < n; i++)
        if (mt_sort_before(c, &a[i], &a[0]))
            pop_heap(c, a, middle, i);
}

static void sort_heap(const mt_sort_cmp *c, mt_sort_item *a, int64_t len)
{
    while (len > 1) {
        len--;
        pop_heap(c, a, len, len);
    }
}

static void move_median_to_first(const mt_sort_cmp *c, mt_sort_item *a, int64_t to, int64_t x,
                                 int64_t y, int64_t z)
{
    int64_t m;
    if (mt_sort_before(c, &a[x], &a[y]))
        m = mt_sort_before(c, &a[y], &a[z]) ? y : mt_sort_before(c, &a[x], &a[z]) ? z : x;
    else
        m = mt_sort_before(c, &a[x], &a[z]) ? x : mt_sort_before(c, &a[y], &a[z]) ? z : y;
    swap_at(a, to, m);
}

/* partitions a[1..n) around the pivot at a[0]; returns where the right part starts */
static int64_t partition_pivot(const mt_sort_cmp *c, mt_sort_item *a, int64_t n)
{
    move_median_to_first(c, a, 0, 1, n / 2, n - 1);
    int64_t first = 1, last = n;
    for (;;) {
        while (mt_sort_before(c, &a[first], &a[0]))
            first++;
        last--;
        while (mt_sort_before(c, &a[0], &a[last]))
            last--;
        if (first >= last)
            return first;
        swap_at(a, first, last);
        first++;
    }
}

/* inserts a[i] into the sorted run before it, which holds an item not after
 * it; the bound is libstdc++'s sentinel, kept only for a plain `<` among NaN,
 * which orders nothing strictly and could otherwise walk off the front */
static void unguarded_insert(const mt_sort_cmp *c, mt_sort_item *a, int64_t i)
{
    mt_sort_item value = a[i];
    while (i > 0 && mt_sort_before(c, &value, &a[i - 1])) {
        a[i] = a[i - 1];
        i--;
    }
    a[i] = value;
}

static void insertion_sort(const mt_sort_cmp *c, mt_sort_item *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        if (mt_sort_before(c, &a[i], &a[0])) {
            mt_sort_item value = a[i];
            for (int64_t j = i; j > 0; j--)
                a[j] = a[j - 1];
            a[0] = value;
        } else {
            unguarded_insert(c, a, i);
        }
    }
}

static void introsort_loop(const mt_sort_cmp *c, mt_sort_item *a, int64_t n, int64_t depth)
{
    while (n > THRESHOLD) {
        if (depth == 0) {
            heap_select(c, a, n, n);
            sort_heap(c, a, n);
            return;
        }
        depth--;
        int64_t cut = partition_pivot(c, a, n);
        introsort_loop(c, a + cut, n - cut, depth);
        n = cut;
    }
}

void mt_introsort(const mt_sort_cmp *c, mt_sort_item *a, int64_t n)
{
    if (n < 2)
        return;
    introsort_loop(c, a, n, 2 * floor_log2(n));
    if (n <= THRESHOLD) {
        insertion_sort(c, a, n);
        return;
    }
    insertion_sort(c, a, THRESHOLD);
    for (int64_t i = THRESHOLD; i < n; i++)
        unguarded_insert(c, a, i);
}

void mt_nth_element(const mt_sort_cmp *c, mt_sort_item *a, int64_t n, int64_t nth)
{
    if (n == 0 || nth == n)
        return;
    int64_t depth = 2 * floor_log2(n), lo = 0;
    while (n - lo > 3) {
        if (depth == 0) {
            heap_select(c, a + lo, nth - lo + 1, n - lo);
            swap_at(a, lo, nth);
            return;
        }
        depth--;
        int64_t cut = lo + partition_pivot(c, a + lo, n - lo);
        if (cut <= nth)
            lo = cut;
        else
            n = cut;
    }
    insertion_sort(c, a + lo, n - lo);
}

void mt_partial_sort(const mt_sort_cmp *c, mt_sort_item *a, int64_t k, int64_t n)
{
    heap_select(c, a, k, n);
    sort_heap(c, a, k);
}
