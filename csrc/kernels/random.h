/* Random fills: each element draws from Philox with counter first + its
 * position, so the result does not depend on how threads split the work. */
#ifndef MT_KERNELS_RANDOM_H
#define MT_KERNELS_RANDOM_H

#include "../core/tensor.h"

typedef enum {
    MT_RAND_UNIFORM,     /* [a, b) */
    MT_RAND_NORMAL,      /* mean a, std b */
    MT_RAND_INT_RANGE,   /* lo + [0, range); range 0 means 2**64 */
    MT_RAND_BERNOULLI,   /* 1 with probability a */
    MT_RAND_EXPONENTIAL, /* rate a */
} mt_rand_kind;

typedef struct {
    mt_rand_kind kind;
    double a, b;
    int64_t lo;
    uint64_t range;
} mt_rand_params;

/* Fills t (any layout) with numel draws using counters [first, first + numel). */
int mt_random_fill(mt_tensor *t, uint64_t seed, uint64_t first, const mt_rand_params *p);
/* A random permutation of 0..n-1 into a contiguous int64 buffer, using
 * counters [first, first + n). */
void mt_randperm(int64_t *out, int64_t n, uint64_t seed, uint64_t first);

/* multinomial: n draws of a category from each of rows distributions of k
 * categories (probs: contiguous float64, checked non-negative with a positive
 * sum per row) into a contiguous int64 out of rows x n. With replacement each
 * draw uses counter first + row * n + draw and probs becomes its running sums;
 * without, each category uses first + row * k + category and scratch holds
 * rows * k entries. */
typedef struct {
    double key;
    int64_t index;
} mt_keyed;

void mt_multinomial(double *probs, int64_t rows, int64_t k, int64_t n, bool replacement,
                    mt_keyed *scratch, int64_t *out, uint64_t seed, uint64_t first);

#endif
