/* Intra-op parallelism: a small persistent pool that splits a range. */
#ifndef MT_KERNELS_PARALLEL_H
#define MT_KERNELS_PARALLEL_H

#include <stdint.h>

typedef void (*mt_range_fn)(void *arg, int64_t begin, int64_t end);

/* Calls fn on disjoint chunks covering [begin, end); runs inline when the
 * range is below grain elements or one thread is configured. */
void mt_parallel_for(int64_t begin, int64_t end, int64_t grain, mt_range_fn fn, void *arg);
int mt_get_num_threads(void);
int mt_set_num_threads(int n);

#endif
