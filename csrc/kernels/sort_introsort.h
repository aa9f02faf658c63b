/* The line items the sorting kernels order, their comparison (torch's:
 * NaN greater than everything), and the unstable orders of torch's CPU sort
 * and topk. Those come from libstdc++'s std::sort, std::nth_element and
 * std::partial_sort, whose results among equal keys are fixed by their
 * algorithms; sort_introsort.c runs the same algorithms step for step, so
 * that equal keys end where torch's do. */
#ifndef MT_KERNELS_SORT_INTROSORT_H
#define MT_KERNELS_SORT_INTROSORT_H

#include <stdbool.h>
#include <stdint.h>

/* Keys compare as int64 for integral dtypes (exact) and double for floats;
 * an item holds the one its line's dtype uses. */
typedef struct {
    union {
        double f;
        int64_t i;
    };
    int64_t idx;
} mt_sort_item;

typedef struct {
    bool is_float, descending;
    bool plain_less; /* a bare `<`, NaN before and after nothing (torch's mode) */
} mt_sort_cmp;

/* a before b in ascending order; NaN last */
static inline bool mt_sort_lt(const mt_sort_cmp *c, const mt_sort_item *a, const mt_sort_item *b)
{
    if (!c->is_float)
        return a->i < b->i;
    if (c->plain_less)
        return a->f < b->f;
    return a->f < b->f || (a->f == a->f && b->f != b->f);
}

/* a before b in c's direction; descending puts NaN first, as torch's */
static inline bool mt_sort_before(const mt_sort_cmp *c, const mt_sort_item *a,
                                  const mt_sort_item *b)
{
    return c->descending ? mt_sort_lt(c, b, a) : mt_sort_lt(c, a, b);
}

/* std::sort of n items */
void mt_introsort(const mt_sort_cmp *c, mt_sort_item *a, int64_t n);

/* std::nth_element: a[nth] is the item a sort would put there, those before
 * it come no later, those after it no earlier. */
void mt_nth_element(const mt_sort_cmp *c, mt_sort_item *a, int64_t n, int64_t nth);

/* std::partial_sort: the first k of the n items sorted into a[0..k). */
void mt_partial_sort(const mt_sort_cmp *c, mt_sort_item *a, int64_t k, int64_t n);

#endif
