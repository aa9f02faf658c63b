#include "optim.h"
#include "../core/portable.h"
#include "parallel.h"

#include <math.h>

#ifdef MT_HAVE_X86_DISPATCH
#include <immintrin.h>
#endif

/* Below this many elements an update runs on the calling thread. */
#define OPTIM_GRAIN 32768

typedef struct {
    const mt_optim_operands *o;
    const void *hyper;
} optim_job;

#define T float
#define SFX f4
#define SQRT sqrtf
#ifdef MT_HAVE_X86_DISPATCH
#define ADAM_VEC adam_vec_f4
#endif
#include "optim_loops.h"
#undef T
#undef SFX
#undef SQRT
#undef ADAM_VEC

#define T double
#define SFX f8
#define SQRT sqrt
#include "optim_loops.h"
#undef T
#undef SFX
#undef SQRT

#ifdef MT_HAVE_X86_DISPATCH
/* The float32 Adam loop in vectors of W lanes (P: the intrinsics' prefix, V:
 * the vector type). Each lane does the scalar loop's operations in its order,
 * without fused multiply-adds, so results match it bit for bit; the flags are
 * loop invariant, so their branches are taken the same way every time.
 * KEEP_MAX(mx, v): mx where it is above v or NaN (torch.maximum), else v. */
#define ADAM_VEC_BODY(P, V, W, KEEP_MAX)                                                     \
    {                                                                                        \
        float *p = k->p, *m = k->m, *v = k->v, *vmax = k->vmax;                              \
        const float *gr = k->gr;                                                             \
        const V wd = P##_set1_ps(k->wd), decay = P##_set1_ps(k->decay);                      \
        const V w1 = P##_set1_ps(k->w1), keep1 = P##_set1_ps(1.0f - k->w1);                  \
        const V b2 = P##_set1_ps(k->b2), w2 = P##_set1_ps(k->w2), eps = P##_set1_ps(k->eps); \
        const V neg_step = P##_set1_ps(k->neg_step), bc2_sqrt = P##_set1_ps(k->bc2_sqrt);    \
        const V sign = P##_set1_ps(-0.0f);                                                   \
        int64_t i = begin;                                                                   \
        for (; i + W <= end; i += W) {                                                       \
            V g = P##_loadu_ps(gr + i), pi = P##_loadu_ps(p + i);                            \
            V mi = P##_loadu_ps(m + i), vi = P##_loadu_ps(v + i);                            \
            if (k->maximize)                                                                 \
                g = P##_xor_ps(g, sign);                                                     \
            if (k->decoupled_wd)                                                             \
                pi = P##_mul_ps(pi, decay);                                                  \
            else if (k->coupled_wd)                                                          \
                g = P##_add_ps(g, P##_mul_ps(wd, pi));                                       \
            const V diff = P##_sub_ps(g, mi);                                                \
            mi = k->small_w1 ? P##_add_ps(mi, P##_mul_ps(w1, diff))                          \
                             : P##_sub_ps(g, P##_mul_ps(diff, keep1));                       \
            vi = P##_add_ps(P##_mul_ps(vi, b2), P##_mul_ps(P##_mul_ps(w2, g), g));           \
            P##_storeu_ps(m + i, mi);                                                        \
            P##_storeu_ps(v + i, vi);                                                        \
            V second = vi;                                                                   \
            if (k->amsgrad) {                                                                \
                const V mx = P##_loadu_ps(vmax + i);                                         \
                second = KEEP_MAX(mx, vi);                                                   \
                P##_storeu_ps(vmax + i, second);                                             \
            }                                                                                \
            const V denom = P##_add_ps(P##_div_ps(P##_sqrt_ps(second), bc2_sqrt), eps);      \
            pi = P##_add_ps(pi, P##_mul_ps(neg_step, P##_div_ps(mi, denom)));                \
            P##_storeu_ps(p + i, pi);                                                        \
        }                                                                                    \
        return i;                                                                            \
    }

#define KEEP_MAX_AVX2(mx, v) \
    _mm256_blendv_ps(        \
        v, mx,               \
        _mm256_or_ps(_mm256_cmp_ps(mx, v, _CMP_GT_OQ), _mm256_cmp_ps(mx, mx, _CMP_UNORD_Q)))
MT_TARGET_AVX2_FMA static int64_t adam_avx2_f4(const adam_k_f4 *k, int64_t begin, int64_t end)
    ADAM_VEC_BODY(_mm256, __m256, 8, KEEP_MAX_AVX2)

#ifdef MT_HAVE_AVX512
#define KEEP_MAX_AVX512(mx, v) \
    _mm512_mask_blend_ps(      \
        _mm512_cmp_ps_mask(mx, v, _CMP_GT_OQ) | _mm512_cmp_ps_mask(mx, mx, _CMP_UNORD_Q), v, mx)
        MT_TARGET_AVX512 static int64_t
    adam_avx512_f4(const adam_k_f4 *k, int64_t begin, int64_t end)
        ADAM_VEC_BODY(_mm512, __m512, 16, KEEP_MAX_AVX512)
#endif

            static int64_t adam_vec_f4(const adam_k_f4 *k, int64_t begin, int64_t end)
{
#ifdef MT_HAVE_AVX512
    if (mt_use_avx512())
        return adam_avx512_f4(k, begin, end);
#endif
    if (mt_cpu_has_avx2_fma())
        return adam_avx2_f4(k, begin, end);
    return begin;
}
#endif

static void run(const mt_optim_operands *o, const void *hyper, mt_range_fn f4, mt_range_fn f8)
{
    optim_job j = {o, hyper};
    mt_parallel_for(0, o->numel, OPTIM_GRAIN, o->dtype == MT_FLOAT64 ? f8 : f4, &j);
}

void mt_optim_sgd(const mt_optim_operands *o, const mt_sgd_hyper *h) { run(o, h, sgd_f4, sgd_f8); }

void mt_optim_adam(const mt_optim_operands *o, const mt_adam_hyper *h)
{
    run(o, h, adam_f4, adam_f8);
}

void mt_optim_rmsprop(const mt_optim_operands *o, const mt_rmsprop_hyper *h)
{
    run(o, h, rmsprop_f4, rmsprop_f8);
}

void mt_optim_adagrad(const mt_optim_operands *o, const mt_adagrad_hyper *h)
{
    run(o, h, adagrad_f4, adagrad_f8);
}

void mt_optim_nadam(const mt_optim_operands *o, const mt_nadam_hyper *h)
{
    run(o, h, nadam_f4, nadam_f8);
}

void mt_optim_radam(const mt_optim_operands *o, const mt_radam_hyper *h)
{
    run(o, h, radam_f4, radam_f8);
}

void mt_optim_adamax(const mt_optim_operands *o, const mt_adamax_hyper *h)
{
    run(o, h, adamax_f4, adamax_f8);
}

void mt_optim_rprop(const mt_optim_operands *o, const mt_rprop_hyper *h)
{
    run(o, h, rprop_f4, rprop_f8);
}

void mt_optim_asgd(const mt_optim_operands *o, const mt_asgd_hyper *h)
{
    run(o, h, asgd_f4, asgd_f8);
}
