#include "random.h"
#include "copy.h"
#include "../core/philox.h"
#include "parallel.h"
#include "typed.h"

#include <math.h>

#define MT_RANDOM_GRAIN 16384
#define TWO_PI 6.283185307179586476925286766559

/* Mantissa digits: uniform floats are multiples of 2**-digits, so they never
 * round up to the upper bound in their own dtype. */
static int float_digits(mt_dtype d)
{
    switch (d) {
    case MT_FLOAT16: return 11;
    case MT_BFLOAT16: return 8;
    case MT_FLOAT32: return 24;
    default: return 53;
    }
}

static inline uint64_t bits64(uint32_t lo, uint32_t hi)
{
    return (uint64_t)lo | ((uint64_t)hi << 32);
}

static inline double unit53(uint64_t x)
{
    return (double)(x >> 11) * 0x1.0p-53;
}

typedef struct {
    const mt_rand_params *p;
    char *data;
    uint64_t seed, first;
    int digits;
    double scale; /* 2**-digits */
} fill_ctx;

static inline mt_philox_block block(const fill_ctx *c, int64_t i)
{
    return mt_philox4x32_10(c->seed, c->first + (uint64_t)i, 0);
}

static inline double draw_uniform(const fill_ctx *c, int64_t i)
{
    mt_philox_block r = block(c, i);
    double u = (double)(bits64(r.v[0], r.v[1]) >> (64 - c->digits)) * c->scale;
    return u * (c->p->b - c->p->a) + c->p->a;
}

static inline double draw_normal(const fill_ctx *c, int64_t i)
{
    mt_philox_block r = block(c, i);
    double u1 = 1.0 - unit53(bits64(r.v[0], r.v[1])); /* (0, 1]: log stays finite */
    double u2 = unit53(bits64(r.v[2], r.v[3]));
    return c->p->a + c->p->b * sqrt(-2.0 * log(u1)) * cos(TWO_PI * u2);
}

static inline double draw_bernoulli(const fill_ctx *c, int64_t i)
{
    mt_philox_block r = block(c, i);
    return unit53(bits64(r.v[0], r.v[1])) < c->p->a ? 1.0 : 0.0;
}

static inline double draw_exponential(const fill_ctx *c, int64_t i)
{
    mt_philox_block r = block(c, i);
    return -log1p(-unit53(bits64(r.v[0], r.v[1]))) / c->p->a;
}

static inline int64_t draw_int(const fill_ctx *c, int64_t i)
{
    mt_philox_block r = block(c, i);
    uint64_t x = bits64(r.v[0], r.v[1]);
    uint64_t off = c->p->range ? x % c->p->range : x;
    return (int64_t)((uint64_t)c->p->lo + off);
}

#define FILL_LOOP(SFX, DRAW)                      \
    for (int64_t i = begin; i < end; i++)         \
        out[i] = MT_STORE_##SFX(DRAW(c, i));      \
    break;

#define FILL_FN(DE, SFX, CT)                                                       \
    static void fill_##SFX(void *arg, int64_t begin, int64_t end)                  \
    {                                                                              \
        const fill_ctx *c = arg;                                                   \
        CT *out = (CT *)c->data;                                                   \
        switch (c->p->kind) {                                                      \
        case MT_RAND_UNIFORM: FILL_LOOP(SFX, draw_uniform)                         \
        case MT_RAND_NORMAL: FILL_LOOP(SFX, draw_normal)                           \
        case MT_RAND_BERNOULLI: FILL_LOOP(SFX, draw_bernoulli)                     \
        case MT_RAND_EXPONENTIAL: FILL_LOOP(SFX, draw_exponential)                 \
        case MT_RAND_INT_RANGE: FILL_LOOP(SFX, draw_int)                           \
        }                                                                          \
    }
MT_FOR_ALL_DTYPES(FILL_FN)

#define FILL_ROW(DE, SFX, CT) [DE] = fill_##SFX,
static const mt_range_fn fill_table[MT_NUM_DTYPES] = {MT_FOR_ALL_DTYPES(FILL_ROW)};

int mt_random_fill(mt_tensor *t, uint64_t seed, uint64_t first, const mt_rand_params *p)
{
    if (t->numel == 0)
        return 0;
    if (!mt_tensor_is_non_overlapping_and_dense(t)) {
        mt_tensor tmp;
        if (mt_tensor_init_contiguous(&tmp, t->dtype, t->ndim, t->sizes, false) < 0)
            return -1;
        mt_random_fill(&tmp, seed, first, p);
        mt_copy(t, &tmp);
        mt_tensor_release(&tmp);
        return 0;
    }
    int digits = float_digits(t->dtype);
    fill_ctx c = {p, mt_data(t), seed, first, digits, ldexp(1.0, -digits)};
    mt_parallel_for(0, t->numel, MT_RANDOM_GRAIN, fill_table[t->dtype], &c);
    return 0;
}

void mt_randperm(int64_t *out, int64_t n, uint64_t seed, uint64_t first)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        mt_philox_block r = mt_philox4x32_10(seed, first + (uint64_t)i, 0);
        int64_t j = (int64_t)(bits64(r.v[0], r.v[1]) % (uint64_t)(i + 1));
        int64_t tmp = out[i];
        out[i] = out[j];
        out[j] = tmp;
    }
}
