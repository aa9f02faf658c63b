/* Philox4x32-10, the counter-based generator, and the generator state built
 * on it. Every random element is a pure function of (seed, counter), so work
 * split across threads draws exactly the values one thread would. */
#ifndef MT_CORE_PHILOX_H
#define MT_CORE_PHILOX_H

#include <stdint.h>

typedef struct {
    uint32_t v[4];
} mt_philox_block;

/* Ten rounds of Philox4x32 over a 128-bit counter with a 64-bit key. */
mt_philox_block mt_philox4x32_10(uint64_t key, uint64_t counter_lo, uint64_t counter_hi);

typedef struct {
    uint64_t seed;
    uint64_t offset; /* counters already handed out */
} mt_generator;

#define MT_DEFAULT_SEED 67280421310721ULL

/* The generator ops use when the caller names none (minitorch.default_generator). */
extern mt_generator mt_default_generator;

void mt_generator_manual_seed(mt_generator *g, uint64_t seed);
/* Hands out n fresh counters: the first one is returned, the next call gets
 * counters after the last of these. */
uint64_t mt_generator_reserve(mt_generator *g, uint64_t n);

#endif
