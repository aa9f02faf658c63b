/* Random sampling: rand/randn/randint/randperm, their _like forms and the
 * in-place samplers, in plain C. Every draw reserves numel counters of a
 * generator: the one passed, or the core's default; multinomial draws
 * categories from rows of probabilities. Tensors are made through
 * core/owner.h; checks fail with torch's messages through mt_error. */
#include "complex.h"
#include "runtime/args.h"
#include "runtime/call.h"
#include "creation.h"
#include "memory_format.h"
#include "out_param.h"
#include "reduce.h"
#include "runtime/table.h"

#include "../kernels/copy.h"
#include "../kernels/random.h"

#include <math.h>
#include <stdlib.h>

/* The generator of a `Generator? generator` argument. */
static mt_generator *generator_of(const mt_value *v)
{
    return v->obj ? v->gen : &mt_default_generator;
}

static int sample(const mt_value *gen, mt_tensor *t, const mt_rand_params *p)
{
    if (mt_is_complex(t->dtype)) {
        /* both parts drawn, as torch draws a complex tensor's real view; a
         * normal one's parts with the std over sqrt(2), so |z| has it */
        mt_tensor pairs = mt_complex_pairs(t);
        mt_rand_params q = *p;
        if (q.kind == MT_RAND_NORMAL)
            q.b *= 0.70710678118654752440;
        return sample(gen, &pairs, &q);
    }
    mt_generator *g = generator_of(gen);
    uint64_t first = mt_generator_reserve(g, (uint64_t)t->numel);
    return mt_random_fill(t, g->seed, first, p);
}

static bool floating_or_raise(mt_dtype d, const char *kernel)
{
    if (mt_is_inexact(d))
        return true;
    mt_error(MT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", kernel,
             mt_dtype_infos[d].scalar_name);
    return false;
}

static bool check_std(double std)
{
    if (std >= 0.0)
        return true;
    mt_error(MT_ERR_RUNTIME, "normal expects std >= 0.0, but found std %g", std);
    return false;
}

static bool check_range(int64_t from, int64_t to)
{
    if (from < to)
        return true;
    mt_error(MT_ERR_RUNTIME,
             "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
             (long long)from, (long long)to);
    return false;
}

static mt_rand_params uniform01 = {MT_RAND_UNIFORM, 0.0, 1.0, 0, 0};
static mt_rand_params normal01 = {MT_RAND_NORMAL, 0.0, 1.0, 0, 0};

static mt_rand_params int_range(int64_t lo, int64_t hi)
{
    return (mt_rand_params){MT_RAND_INT_RANGE, 0, 0, lo, (uint64_t)hi - (uint64_t)lo};
}

/* New tensor of (ndim, sizes), filled by p; gen/dtype/requires_grad at the given indices. */
static int new_sample(mt_args *a, mt_result *r, int ndim, const int64_t *sizes,
                      const mt_tensor *like, int gi, mt_dtype d, int rgi, const mt_rand_params *p)
{
    /* a *_like row's memory_format follows its requires_grad */
    mt_tensor *t = like ? mt_new_in_format(like, d, mt_format_arg(a, rgi + 1, MT_FORMAT_PRESERVE))
                        : mt_new(d, ndim, sizes, false);
    if (t && sample(&a->v[gi], t, p) < 0) {
        mt_release(t);
        return -1;
    }
    return mt_result_made(r, t, a->v[rgi].b);
}

/* rand/randn(size, *, generator, dtype, layout, device, requires_grad, pin_memory) */
int impl_rand(mt_args *a, mt_result *r)
{
    mt_dtype d = mt_dtype_arg(a, 2, mt_default_dtype);
    if (!floating_or_raise(d, "check_uniform_bounds"))
        return -1;
    return new_sample(a, r, a->v[0].nints, a->v[0].ints, NULL, 1, d, 5, &uniform01);
}

int impl_randn(mt_args *a, mt_result *r)
{
    mt_dtype d = mt_dtype_arg(a, 2, mt_default_dtype);
    if (!floating_or_raise(d, "normal_kernel_cpu"))
        return -1;
    return new_sample(a, r, a->v[0].nints, a->v[0].ints, NULL, 1, d, 5, &normal01);
}

/* rand_like/randn_like(input, *, generator, dtype, layout, device, requires_grad, memory_format) */
int impl_rand_like(mt_args *a, mt_result *r)
{
    mt_dtype d = mt_dtype_arg(a, 2, a->v[0].t->dtype);
    if (!floating_or_raise(d, "check_uniform_bounds"))
        return -1;
    return new_sample(a, r, 0, NULL, a->v[0].t, 1, d, 5, &uniform01);
}

int impl_randn_like(mt_args *a, mt_result *r)
{
    mt_dtype d = mt_dtype_arg(a, 2, a->v[0].t->dtype);
    if (!floating_or_raise(d, "normal_kernel_cpu"))
        return -1;
    return new_sample(a, r, 0, NULL, a->v[0].t, 1, d, 5, &normal01);
}

/* randint([low,] high, size, *, generator, dtype, layout, device, requires_grad) */
static int randint(mt_args *a, mt_result *r, int64_t low, int64_t high, int base)
{
    if (!check_range(low, high))
        return -1;
    mt_rand_params p = int_range(low, high);
    mt_dtype d = mt_dtype_arg(a, base + 2, MT_INT64);
    return new_sample(a, r, a->v[base].nints, a->v[base].ints, NULL, base + 1, d, base + 5, &p);
}

int impl_randint(mt_args *a, mt_result *r) { return randint(a, r, 0, a->v[0].i, 1); }
int impl_randint_low(mt_args *a, mt_result *r) { return randint(a, r, a->v[0].i, a->v[1].i, 2); }

/* randint_like(input, [low,] high, *, generator, dtype, layout, device, requires_grad, memory_format) */
static int randint_like(mt_args *a, mt_result *r, int64_t low, int64_t high, int base)
{
    if (!check_range(low, high))
        return -1;
    mt_rand_params p = int_range(low, high);
    mt_dtype d = mt_dtype_arg(a, base + 1, a->v[0].t->dtype);
    return new_sample(a, r, 0, NULL, a->v[0].t, base, d, base + 4, &p);
}

int impl_randint_like(mt_args *a, mt_result *r) { return randint_like(a, r, 0, a->v[1].i, 2); }
int impl_randint_like_low(mt_args *a, mt_result *r)
{
    return randint_like(a, r, a->v[1].i, a->v[2].i, 3);
}

/* randperm(n, *, generator, dtype, layout, device, requires_grad, pin_memory) */
int impl_randperm(mt_args *a, mt_result *r)
{
    int64_t n = a->v[0].i;
    mt_dtype d = mt_dtype_arg(a, 2, MT_INT64);
    mt_tensor *perm = mt_new(MT_INT64, 1, &n, false);
    if (!perm)
        return -1;
    mt_generator *g = generator_of(&a->v[1]);
    mt_randperm((int64_t *)mt_data(perm), n, g->seed, mt_generator_reserve(g, (uint64_t)n));
    if (d != MT_INT64) {
        mt_tensor *cast = mt_new(d, 1, &n, false);
        if (cast)
            mt_copy(cast, perm);
        mt_release(perm);
        perm = cast;
    }
    return mt_result_made(r, perm, a->v[5].b);
}

/* ------------------------------------------------------------- in place */

static int sample_inplace(mt_args *a, mt_result *r, int gi, const mt_rand_params *p)
{
    mt_tensor *self = a->v[0].t;
    if (sample(&a->v[gi], self, p) < 0)
        return -1;
    mt_bump_version(self);
    mt_retain(self);
    return mt_result_tensor(r, self);
}

/* uniform_(input, from=0, to=1, *, generator) */
int impl_uniform_(mt_args *a, mt_result *r)
{
    double from = a->v[1].f, to = a->v[2].f;
    if (!floating_or_raise(a->v[0].t->dtype, "check_uniform_bounds"))
        return -1;
    if (!(from <= to)) {
        mt_error(MT_ERR_RUNTIME,
                 "uniform_ expects to return a [from, to) range, but found from=%g > to=%g", from,
                 to);
        return -1;
    }
    mt_rand_params p = {MT_RAND_UNIFORM, from, to, 0, 0};
    return sample_inplace(a, r, 3, &p);
}

/* normal_(input, mean=0, std=1, *, generator) */
int impl_normal_(mt_args *a, mt_result *r)
{
    if (!floating_or_raise(a->v[0].t->dtype, "normal_kernel_cpu") || !check_std(a->v[2].f))
        return -1;
    mt_rand_params p = {MT_RAND_NORMAL, a->v[1].f, a->v[2].f, 0, 0};
    return sample_inplace(a, r, 3, &p);
}

/* normal(mean, std, size, *, generator, dtype, layout, device, requires_grad, pin_memory) */
int impl_normal_size(mt_args *a, mt_result *r)
{
    mt_dtype d = mt_dtype_arg(a, 4, mt_default_dtype);
    if (!floating_or_raise(d, "normal_kernel_cpu") || !check_std(a->v[1].f))
        return -1;
    mt_rand_params p = {MT_RAND_NORMAL, a->v[0].f, a->v[1].f, 0, 0};
    return new_sample(a, r, a->v[2].nints, a->v[2].ints, NULL, 3, d, 7, &p);
}

/* normal with a tensor mean, a tensor std, or both: z ~ N(0, 1) of the
 * broadcast shape, scaled and shifted by the operands. The arithmetic runs
 * below autograd (mt_exec records nothing): torch's derivative of a draw is
 * zeros (the row's node), not the reparameterized one the arithmetic would
 * record. */
static int normal_tensor(mt_args *a, mt_result *r, mt_tensor *mean, mt_tensor *std, double mean_f,
                         double std_f)
{
    if (std) {
        mt_tensor *low = mt_exec(MT_OP_lt, "Tf", std, 0.0);
        mt_tensor *any = low ? mt_exec(MT_OP_any, "T", low) : NULL;
        bool bad = any && *(const bool *)mt_data(any);
        mt_xrelease(low);
        mt_xrelease(any);
        if (!any)
            return -1;
        if (bad)
            return mt_error(MT_ERR_RUNTIME, "normal expects all elements of std >= 0.0");
    } else if (!check_std(std_f)) {
        return -1;
    }
    if (mean && !floating_or_raise(mean->dtype, "normal_kernel_cpu"))
        return -1;
    if (std && !floating_or_raise(std->dtype, "normal_kernel_cpu"))
        return -1;
    mt_tensor *like = mean && std ? mt_exec(MT_OP_add, "TT", mean, std) : NULL;
    const mt_tensor *shape = mean && std ? like : mean ? mean : std;
    mt_tensor *z = shape ? mt_empty_like(shape, shape->dtype) : NULL;
    mt_tensor *scaled = NULL, *out = NULL;
    if (z && sample(&a->v[2], z, &normal01) == 0)
        scaled = std ? mt_exec(MT_OP_mul, "TT", z, std) : mt_exec(MT_OP_mul, "Tf", z, std_f);
    if (scaled)
        out = mean ? mt_exec(MT_OP_add, "TT", scaled, mean)
                   : mt_exec(MT_OP_add, "Tf", scaled, mean_f);
    mt_xrelease(like);
    mt_xrelease(z);
    mt_xrelease(scaled);
    return out ? mt_result_tensor(r, out) : -1;
}

/* normal(mean, std, *, generator) with mean, std or both tensors */
int impl_normal_tensor_float(mt_args *a, mt_result *r)
{
    return normal_tensor(a, r, a->v[0].t, NULL, 0.0, a->v[1].f);
}

int impl_normal_float_tensor(mt_args *a, mt_result *r)
{
    return normal_tensor(a, r, NULL, a->v[1].t, a->v[0].f, 0.0);
}

int impl_normal_tensor_tensor(mt_args *a, mt_result *r)
{
    return normal_tensor(a, r, a->v[0].t, a->v[1].t, 0.0, 0.0);
}

/* The inclusive upper end random_ uses when no bound is given: the largest
 * integer the dtype holds exactly. */
static int64_t dtype_top(mt_dtype d)
{
    switch (d) {
    case MT_BOOL:
        return 1;
    case MT_UINT8:
        return UINT8_MAX;
    case MT_INT8:
        return INT8_MAX;
    case MT_INT16:
        return INT16_MAX;
    case MT_INT32:
        return INT32_MAX;
    case MT_INT64:
        return INT64_MAX;
    case MT_FLOAT16:
        return 1 << 11;
    case MT_BFLOAT16:
        return 1 << 8;
    case MT_FLOAT32:
        return 1 << 24;
    default:
        return (int64_t)1 << 53;
    }
}

static int random_range(mt_args *a, mt_result *r, int64_t from, int64_t to_inclusive, int gi)
{
    mt_rand_params p = {MT_RAND_INT_RANGE, 0, 0, from, (uint64_t)to_inclusive - (uint64_t)from + 1};
    return sample_inplace(a, r, gi, &p);
}

int impl_random_(mt_args *a, mt_result *r)
{
    return random_range(a, r, 0, dtype_top(a->v[0].t->dtype), 1);
}

int impl_random_to(mt_args *a, mt_result *r)
{
    if (!check_range(0, a->v[1].i))
        return -1;
    return random_range(a, r, 0, a->v[1].i - 1, 2);
}

int impl_random_from(mt_args *a, mt_result *r)
{
    int64_t from = a->v[1].i;
    if (mt_is_none(a, 2))
        return random_range(a, r, from, dtype_top(a->v[0].t->dtype), 3);
    if (!check_range(from, a->v[2].i))
        return -1;
    return random_range(a, r, from, a->v[2].i - 1, 3);
}

/* bernoulli_(input, p=0.5, *, generator) */
int impl_bernoulli_(mt_args *a, mt_result *r)
{
    double p = a->v[1].f;
    if (!(p >= 0.0 && p <= 1.0)) {
        mt_error(MT_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
        return -1;
    }
    mt_rand_params rp = {MT_RAND_BERNOULLI, p, 0, 0, 0};
    return sample_inplace(a, r, 2, &rp);
}

/* bernoulli(input, p, *, generator): input's shape and dtype, each element 1
 * with probability p. */
int impl_bernoulli_p(mt_args *a, mt_result *r)
{
    double p = a->v[1].f;
    if (!(p >= 0.0 && p <= 1.0))
        return mt_error(MT_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
    mt_tensor *out = mt_empty_like(a->v[0].t, a->v[0].t->dtype);
    mt_rand_params rp = {MT_RAND_BERNOULLI, p, 0, 0, 0};
    if (!out || sample(&a->v[2], out, &rp) < 0) {
        mt_xrelease(out);
        return -1;
    }
    return mt_result_tensor(r, out);
}

/* exponential_(input, lambd=1, *, generator) */
int impl_exponential_(mt_args *a, mt_result *r)
{
    double l = a->v[1].f;
    if (!floating_or_raise(a->v[0].t->dtype, "exponential_cpu"))
        return -1;
    if (!(l > 0.0)) {
        mt_error(MT_ERR_RUNTIME, "exponential_ expects lambda > 0.0, but found lambda=%g", l);
        return -1;
    }
    mt_rand_params p = {MT_RAND_EXPONENTIAL, l, 0, 0, 0};
    return sample_inplace(a, r, 2, &p);
}

/* bernoulli(input, *, generator, out): each element is 1 with the probability
 * input holds; out= takes the draws in any dtype, as torch draws in out's. */
int impl_bernoulli(mt_args *a, mt_result *r)
{
    const mt_tensor *probs = a->v[0].t;
    if (!floating_or_raise(probs->dtype, "bernoulli_tensor_cpu_p_"))
        return -1;
    mt_tensor *out = mt_empty_like(probs, probs->dtype);
    mt_tensor *u = out ? mt_new(MT_FLOAT64, probs->ndim, probs->sizes, false) : NULL;
    mt_tensor *p = u ? mt_new(MT_FLOAT64, probs->ndim, probs->sizes, false) : NULL;
    if (!p || sample(&a->v[1], u, &uniform01) < 0)
        goto fail;
    mt_copy(p, probs);
    double *ud = (double *)mt_data(u), *pd = (double *)mt_data(p);
    for (int64_t i = 0; i < probs->numel; i++) {
        if (!(pd[i] >= 0.0 && pd[i] <= 1.0)) {
            mt_error(MT_ERR_RUNTIME, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
            goto fail;
        }
        ud[i] = ud[i] < pd[i];
    }
    mt_copy(out, u);
    mt_release(u);
    mt_release(p);
    mt_tensor *given = mt_out_target(a);
    return given ? mt_result_into_out(r, out, given) : mt_result_tensor(r, out);
fail:
    mt_xrelease(out);
    mt_xrelease(u);
    mt_xrelease(p);
    return -1;
}

/* multinomial's checks, in torch's order, on the float64 copy p of the input. */
static bool check_multinomial(const mt_tensor *in, const double *p, int64_t k, int64_t n,
                              bool replacement)
{
    if (n <= 0)
        return mt_error(MT_ERR_RUNTIME, "cannot sample n_sample <= 0 samples"), false;
    if (!replacement && n > k)
        return mt_error(MT_ERR_RUNTIME,
                        "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
               false;
    /* torch draws through float32 category indices */
    if (k > ((int64_t)1 << 24))
        return mt_error(MT_ERR_RUNTIME, "number of categories cannot exceed 2^24"), false;
    if (k == 0 && replacement)
        return mt_error(MT_ERR_RUNTIME,
                        "aminmax(): cannot compute aminmax over an empty dimension as the "
                        "operation has no identity."),
               false;
    /* torch checks the whole tensor first where it draws without
     * replacement (or once), and each entry as it scans a row otherwise */
    bool whole = !replacement || n == 1;
    for (int64_t i = 0; whole && i < in->numel; i++)
        if (!(p[i] >= 0.0 && p[i] < INFINITY))
            return mt_error(MT_ERR_RUNTIME,
                            "probability tensor contains either `inf`, `nan` or element < 0"),
                   false;
    for (int64_t i = 0; i < in->numel; i += k) {
        double sum = 0.0;
        for (int64_t j = 0; j < k; j++) {
            if (!(p[i + j] >= 0.0))
                return mt_error(MT_ERR_RUNTIME, "invalid multinomial distribution (encountering "
                                                "probability entry < 0)"),
                       false;
            if (!isfinite(p[i + j]))
                return mt_error(MT_ERR_RUNTIME, "invalid multinomial distribution (encountering "
                                                "probability entry = infinity or NaN)"),
                       false;
            sum += p[i + j];
        }
        if (!(sum > 0.0))
            return mt_error(MT_ERR_RUNTIME,
                            "invalid multinomial distribution (sum of probabilities <= 0)"),
                   false;
    }
    return true;
}

/* multinomial(input, num_samples, replacement=False, *, generator, out): int64
 * category indices drawn from each row of input's (unnormalised) probabilities. */
int impl_multinomial(mt_args *a, mt_result *r)
{
    const mt_tensor *in = a->v[0].t;
    int64_t n = a->v[1].i;
    bool replacement = a->v[2].b;
    mt_tensor *out_arg = mt_out_target(a);
    if (in->ndim != 1 && in->ndim != 2)
        return mt_error(MT_ERR_RUNTIME, "prob_dist must be 1 or 2 dim");
    if (!mt_is_floating(in->dtype))
        return mt_error(MT_ERR_RUNTIME,
                        "multinomial only supports floating-point dtypes for input, got: %s",
                        mt_dtype_infos[in->dtype].scalar_name);
    if (out_arg && out_arg->dtype != MT_INT64)
        return mt_error(MT_ERR_RUNTIME, "multinomial expects Long tensor out, got: %s",
                        mt_dtype_infos[out_arg->dtype].scalar_name);
    int64_t k = in->sizes[in->ndim - 1], rows = in->ndim == 2 ? in->sizes[0] : 1;
    int64_t shape[2] = {rows, n};
    const int64_t *oshape = in->ndim == 2 ? shape : &shape[1];
    mt_tensor *p = mt_contiguous_as(in, MT_FLOAT64);
    mt_tensor *out = NULL;
    mt_keyed *scratch = NULL;
    if (!p || !check_multinomial(in, (const double *)mt_data(p), k, n, replacement))
        goto fail;
    out = mt_new(MT_INT64, in->ndim, oshape, false);
    scratch = replacement ? NULL : malloc(sizeof(mt_keyed) * (size_t)(rows * k + 1));
    if (!out || (!replacement && !scratch && mt_error(MT_ERR_MEMORY, "out of memory")))
        goto fail;
    mt_generator *g = generator_of(&a->v[3]);
    uint64_t first = mt_generator_reserve(g, (uint64_t)(rows * (replacement ? n : k)));
    mt_multinomial((double *)mt_data(p), rows, k, n, replacement, scratch, (int64_t *)mt_data(out),
                   g->seed, first);
    free(scratch);
    mt_release(p);
    return out_arg ? mt_result_into_out(r, out, out_arg) : mt_result_tensor(r, out);
fail:
    free(scratch);
    mt_xrelease(p);
    mt_xrelease(out);
    return -1;
}
