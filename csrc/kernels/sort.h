/* Sorting along one dim: stable merge sort of every line, with torch's order
 * for NaN (greater than everything), and the selections built on it (median,
 * mode). */
#ifndef MT_KERNELS_SORT_H
#define MT_KERNELS_SORT_H

#include "../core/tensor.h"

/* values (in's dtype) and indices (int64), both of in's shape, receive every
 * line of in along dim sorted; equal elements keep their order. */
void mt_sort(mt_tensor *values, mt_tensor *indices, const mt_tensor *in, int dim,
             bool descending);

/* The lower median of every line along dim (a NaN line gives its first NaN),
 * into values/indices of in's shape with sizes[dim] == 1. */
void mt_median(mt_tensor *values, mt_tensor *indices, const mt_tensor *in, int dim);

/* The most frequent value of every line along dim (the smallest when several
 * tie) and its last position, shaped as mt_median's. */
void mt_mode(mt_tensor *values, mt_tensor *indices, const mt_tensor *in, int dim);

/* Numbers the distinct runs of a sorted contiguous 1-D tensor: groups[k] is
 * the run of element k (NaN never equals NaN, as in torch). Returns the count. */
int64_t mt_sorted_groups(const mt_tensor *sorted, int64_t *groups);

/* Sorts the rows of a contiguous [n, m] tensor lexicographically (stable; NaN
 * last) into perm, and numbers the runs of equal rows in sorted order into
 * groups. Returns the number of runs, -1 on error. */
int64_t mt_sorted_rows(const mt_tensor *rows, int64_t n, int64_t m, int64_t *perm,
                       int64_t *groups);

#endif
