#include "philox.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

static inline uint32_t mulhilo(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t p = (uint64_t)a * b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

mt_philox_block mt_philox4x32_10(uint64_t key, uint64_t counter_lo, uint64_t counter_hi)
{
    uint32_t c0 = (uint32_t)counter_lo, c1 = (uint32_t)(counter_lo >> 32);
    uint32_t c2 = (uint32_t)counter_hi, c3 = (uint32_t)(counter_hi >> 32);
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (int r = 0; r < 10; r++) {
        uint32_t hi0, hi1;
        uint32_t lo0 = mulhilo(PHILOX_M0, c0, &hi0);
        uint32_t lo1 = mulhilo(PHILOX_M1, c2, &hi1);
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    return (mt_philox_block){{c0, c1, c2, c3}};
}

mt_generator mt_default_generator = {MT_DEFAULT_SEED, 0};

void mt_generator_manual_seed(mt_generator *g, uint64_t seed)
{
    g->seed = seed;
    g->offset = 0;
}

uint64_t mt_generator_reserve(mt_generator *g, uint64_t n)
{
    uint64_t first = g->offset;
    g->offset += n;
    return first;
}
