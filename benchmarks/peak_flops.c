/* The machine's float32 multiply-add peak, measured: each thread runs
 * independent fused multiply-adds on registers, as wide as the CPU has, so
 * the matmul cases can report what fraction of the peak they reach.
 * benchmarks/peak.py compiles this with the system C compiler. */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>

#define CHAINS 16 /* enough independent chains to cover FMA latency x units */

#define FMA_LOOP(NAME, TARGET, V, SET1, FMADD, ADD, LANES)                                    \
    __attribute__((target(TARGET))) static float NAME(int64_t iters)                          \
    {                                                                                         \
        V acc[CHAINS], a = SET1(0.999999f), b = SET1(1e-7f);                                  \
        for (int c = 0; c < CHAINS; c++)                                                      \
            acc[c] = SET1((float)c);                                                          \
        for (int64_t i = 0; i < iters; i++)                                                   \
            _Pragma("GCC unroll 16") for (int c = 0; c < CHAINS; c++)                         \
                acc[c] = FMADD(acc[c], a, b);                                                 \
        V s = acc[0];                                                                         \
        for (int c = 1; c < CHAINS; c++)                                                      \
            s = ADD(s, acc[c]);                                                               \
        float out[LANES];                                                                     \
        __builtin_memcpy(out, &s, sizeof out);                                                \
        return out[0];                                                                        \
    }
FMA_LOOP(fma512, "avx512f", __m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, 16)
FMA_LOOP(fma256, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, 8)

static int lanes(void)
{
    if (__builtin_cpu_supports("avx512f"))
        return 16;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return 8;
    return 0;
}

typedef struct {
    int64_t iters;
    volatile float sink;
} job;

static void *run(void *arg)
{
    job *j = arg;
    j->sink = lanes() == 16 ? fma512(j->iters) : fma256(j->iters);
    return NULL;
}

/* GFLOPS (2 per multiply-add) of `threads` threads running `iters` loop
 * iterations each; 0 without AVX2+FMA or when a thread cannot start. */
double peak_gflops(int threads, int64_t iters)
{
    if (lanes() == 0 || threads < 1 || threads > 64)
        return 0;
    pthread_t th[64];
    job jobs[64];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int started = 0;
    for (; started < threads; started++) {
        jobs[started].iters = iters;
        if (pthread_create(&th[started], NULL, run, &jobs[started]) != 0)
            break;
    }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (started < threads)
        return 0;
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return 2.0 * CHAINS * lanes() * (double)iters * threads / secs / 1e9;
}
#else
double peak_gflops(int threads, int64_t iters)
{
    (void)threads;
    (void)iters;
    return 0;
}
#endif
