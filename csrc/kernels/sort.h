/* Sorting along one dim with torch's order for NaN (greater than
 * everything) and torch's order among equal elements: a stable merge sort,
 * or the unstable orders of torch's CPU kernels (sort_introsort.h); topk,
 * and the selections built on the sort (median, nanmedian, mode; kthvalue
 * selects without sorting). */
#ifndef MT_KERNELS_SORT_H
#define MT_KERNELS_SORT_H

#include "../core/tensor.h"

/* values (in's dtype) and indices (int64), both of in's shape, receive every
 * line of in along dim sorted; equal elements keep their order when stable,
 * else end where torch's unstable sort puts them. */
void mt_sort(mt_tensor *values, mt_tensor *indices, const mt_tensor *in, int dim, bool descending,
             bool stable);

/* values and indices, of in's shape with sizes[dim] == k, receive the k
 * largest (or smallest) of every line along dim, in torch's order: sorted
 * (NaN largest) when sorted or when k * 64 <= the line's length, and equal
 * elements where torch's selection leaves them. */
void mt_topk(mt_tensor *values, mt_tensor *indices, const mt_tensor *in, int dim, int64_t k,
             bool largest, bool sorted);

typedef enum {
    MT_PICK_MEDIAN,    /* the lower median (a line with NaN gives its first NaN) */
    MT_PICK_NANMEDIAN, /* the lower median of the values that are not NaN */
    MT_PICK_MODE,      /* the most frequent value (the smallest of a tie), at torch's position */
    MT_PICK_KTH,       /* the k-th smallest, k counted from 0, at torch's position among ties */
} mt_pick_op;

/* One element of every line along dim, chosen by pick, into values/indices
 * of in's shape with sizes[dim] == 1. */
void mt_pick(mt_tensor *values, mt_tensor *indices, const mt_tensor *in, int dim, mt_pick_op pick,
             int64_t k);

/* Numbers the distinct runs of a sorted contiguous 1-D tensor: groups[k] is
 * the run of element k (NaN never equals NaN, as in torch). Returns the count. */
int64_t mt_sorted_groups(const mt_tensor *sorted, int64_t *groups);

/* Sorts the rows of a contiguous [n, m] tensor lexicographically (stable; NaN
 * last) into perm, and numbers the runs of equal rows in sorted order into
 * groups. Returns the number of runs, -1 on error. */
int64_t mt_sorted_rows(const mt_tensor *rows, int64_t n, int64_t m, int64_t *perm, int64_t *groups);

#endif
