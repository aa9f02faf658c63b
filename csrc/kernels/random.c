#include "random.h"
#include "copy.h"
#include "../core/philox.h"
#include "parallel.h"
#include "typed.h"

#include <math.h>
#include <stdlib.h>

#define MT_RANDOM_GRAIN 16384
#define TWO_PI 6.283185307179586476925286766559

/* Mantissa digits: uniform floats are multiples of 2**-digits, so they never
 * round up to the upper bound in their own dtype. */
static int float_digits(mt_dtype d)
{
    switch (d) {
    case MT_FLOAT16:
        return 11;
    case MT_BFLOAT16:
        return 8;
    case MT_FLOAT32:
        return 24;
    default:
        return 53;
    }
}

static inline uint64_t bits64(uint32_t lo, uint32_t hi)
{
    return (uint64_t)lo | ((uint64_t)hi << 32);
}

static inline double unit53(uint64_t x) { return (double)(x >> 11) * 0x1.0p-53; }

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

#define FILL_LOOP(SFX, DRAW)                 \
    for (int64_t i = begin; i < end; i++)    \
        out[i] = MT_STORE_##SFX(DRAW(c, i)); \
    break;

#define FILL_FN(DE, SFX, CT)                                      \
    static void fill_##SFX(void *arg, int64_t begin, int64_t end) \
    {                                                             \
        const fill_ctx *c = arg;                                  \
        CT *out = (CT *)c->data;                                  \
        switch (c->p->kind) {                                     \
        case MT_RAND_UNIFORM:                                     \
            FILL_LOOP(SFX, draw_uniform)                          \
        case MT_RAND_NORMAL:                                      \
            FILL_LOOP(SFX, draw_normal)                           \
        case MT_RAND_BERNOULLI:                                   \
            FILL_LOOP(SFX, draw_bernoulli)                        \
        case MT_RAND_EXPONENTIAL:                                 \
            FILL_LOOP(SFX, draw_exponential)                      \
        case MT_RAND_INT_RANGE:                                   \
            FILL_LOOP(SFX, draw_int)                              \
        }                                                         \
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

typedef struct {
    double *probs;
    int64_t k, n;
    mt_keyed *scratch;
    int64_t *out;
    uint64_t seed, first;
} multinomial_ctx;

/* With replacement: invert the running sums at a uniform draw scaled to the
 * row's total; the first sum above it never belongs to a zero-probability
 * category. */
static void multinomial_with(void *arg, int64_t begin, int64_t end)
{
    const multinomial_ctx *c = arg;
    for (int64_t row = begin; row < end; row++) {
        double *cdf = c->probs + row * c->k;
        for (int64_t j = 1; j < c->k; j++)
            cdf[j] += cdf[j - 1];
        double total = cdf[c->k - 1];
        for (int64_t s = 0; s < c->n; s++) {
            uint64_t ctr = c->first + (uint64_t)(row * c->n + s);
            mt_philox_block r = mt_philox4x32_10(c->seed, ctr, 0);
            double u = unit53(bits64(r.v[0], r.v[1])) * total;
            int64_t lo = 0, hi = c->k - 1;
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (cdf[mid] > u)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            c->out[row * c->n + s] = lo;
        }
    }
}

/* Larger key first; equal keys (zero probabilities) in index order. */
static int by_key_descending(const void *pa, const void *pb)
{
    const mt_keyed *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Without replacement: the n largest p / E with E ~ Exp(1) per category are
 * a draw of n categories in sequence, each in proportion to what is left. */
static void multinomial_without(void *arg, int64_t begin, int64_t end)
{
    const multinomial_ctx *c = arg;
    for (int64_t row = begin; row < end; row++) {
        mt_keyed *keys = c->scratch + row * c->k;
        for (int64_t j = 0; j < c->k; j++) {
            uint64_t ctr = c->first + (uint64_t)(row * c->k + j);
            mt_philox_block r = mt_philox4x32_10(c->seed, ctr, 0);
            /* u in (0, 1), so E is finite and positive */
            double u = ((double)(bits64(r.v[0], r.v[1]) >> 11) + 0.5) * 0x1.0p-53;
            keys[j].key = c->probs[row * c->k + j] / -log(u);
            keys[j].index = j;
        }
        qsort(keys, (size_t)c->k, sizeof *keys, by_key_descending);
        for (int64_t s = 0; s < c->n; s++)
            c->out[row * c->n + s] = keys[s].index;
    }
}

void mt_multinomial(double *probs, int64_t rows, int64_t k, int64_t n, bool replacement,
                    mt_keyed *scratch, int64_t *out, uint64_t seed, uint64_t first)
{
    multinomial_ctx c = {probs, k, n, scratch, out, seed, first};
    int64_t per_row = replacement ? n + k : k * 8;
    int64_t grain = per_row >= MT_RANDOM_GRAIN ? 1 : MT_RANDOM_GRAIN / per_row;
    mt_parallel_for(0, rows, grain, replacement ? multinomial_with : multinomial_without, &c);
}
