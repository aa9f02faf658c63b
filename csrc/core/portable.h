/* Compiler, ISA and C library switches, kept in this header so that the rest
 * of the C code chooses SIMD levels and pins libc versions through its names
 * and builds with GCC and clang on x86-64 and aarch64 (Linux, macOS). The few
 * files that test a compiler or platform macro themselves say why (a section
 * attribute, a POSIX call, an intrinsic of one ISA).
 *
 * SIMD is chosen at run time and degrades to portable code:
 *  - MT_CLONES_AVX2 / MT_CLONES_AVX2_FMA put on a loop compile it twice, an
 *    AVX2 (+FMA) clone and the baseline, and the loader picks one per machine.
 *    They need target_clones, i.e. GCC or clang >= 14 on an x86-64 ELF target
 *    with ifunc (not macOS, not MinGW); elsewhere they expand to nothing and
 *    the loop is compiled once for the baseline (NEON on aarch64 by the
 *    compiler's own vectorizer). Keep a cloned function static: clang names
 *    a clone's dispatcher apart from the plain symbol, so other files cannot
 *    link to it; an extern entry is a plain function that calls the clone
 *    (mt_index_all_below in kernels/index.c).
 *  - MT_TARGET_AVX2_FMA + mt_cpu_has_avx2_fma() is the explicit form for code
 *    written with intrinsics: available wherever GCC or clang targets x86-64
 *    (any object format), MT_HAVE_X86_DISPATCH says so; mt_use_avx2_fma()
 *    for the elementwise rows' AVX2 level, which MINITORCH_NO_AVX2 turns off.
 *  - MT_TARGET_AVX512 + mt_use_avx512() (MT_HAVE_AVX512) the same for every
 *    AVX-512 kernel (kernels/simd/vmath16.h, the small GEMM, vector
 *    gathers), so MINITORCH_NO_AVX512 turns them all off at once.
 *
 * On x86-64 and aarch64 glibc, calls to functions whose default symbol
 * version is newer than glibc 2.17 (the manylinux2014 floor) are bound to
 * their old versions, which newer glibc keeps, so an extension built on a new
 * system still loads on an old one: every file calling one of the functions
 * listed at the end includes this header (threads.h and dynlib.c do). */
#ifndef MT_CORE_PORTABLE_H
#define MT_CORE_PORTABLE_H

#include <limits.h> /* defines __GLIBC__ on glibc, for the pinning below */

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
#include <stdlib.h>
#define MT_HAVE_X86_DISPATCH 1
#define MT_TARGET_AVX2_FMA __attribute__((target("avx2,fma")))
static inline int mt_cpu_has_avx2_fma(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/* Whether a path is taken: has(), unless the environment variable knob is
 * set (to anything but "" or "0"); known once per file (*state 0 not yet, 1
 * no, 2 yes; racing writers agree). */
static inline int mt_path_on(int *state, int (*has)(void), const char *knob)
{
    int s = __atomic_load_n(state, __ATOMIC_RELAXED);
    if (s == 0) {
        const char *off = getenv(knob);
        int forced_off = off && off[0] && !(off[0] == '0' && off[1] == 0);
        s = has() && !forced_off ? 2 : 1;
        __atomic_store_n(state, s, __ATOMIC_RELAXED);
    }
    return s == 2;
}

/* The AVX2 + FMA intrinsic forms of kernels that have one (kernels/
 * simd/vmath_avx2.h); MINITORCH_NO_AVX2=1 keeps the portable code instead (its
 * AVX2 clone, on such a machine), so tests can run it. */
static inline int mt_use_avx2_fma(void)
{
    static int state;
    return mt_path_on(&state, mt_cpu_has_avx2_fma, "MINITORCH_NO_AVX2");
}
#endif

/* The 16-lane float path of kernels/simd/vmath16.h: AVX-512F+DQ code behind
 * MT_TARGET_AVX512, taken when mt_use_avx512() says so. Not on Windows, where
 * GCC does not align the stack for 64-byte vector spills (GCC bug 54412).
 * MINITORCH_NO_AVX512=1 in the environment keeps the 8-lane paths on an
 * AVX-512 machine, so tests can run them; it is read once per file. */
#if defined(MT_HAVE_X86_DISPATCH) && !defined(_WIN32)
#define MT_HAVE_AVX512 1
#define MT_TARGET_AVX512 __attribute__((target("avx2,fma,avx512f,avx512dq")))
static inline int mt_cpu_has_avx512(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}
static inline int mt_use_avx512(void)
{
    static int state;
    return mt_path_on(&state, mt_cpu_has_avx512, "MINITORCH_NO_AVX512");
}
#endif

#if defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__) && \
    (!defined(__clang__) || __clang_major__ >= 14)
#define MT_HAVE_CLONES 1
#define MT_CLONES_AVX2 __attribute__((target_clones("avx2", "default")))
#if !defined(__clang__) && __GNUC__ >= 11
/* x86-64-v3 is AVX2 with FMA; fp-contract lets GCC fuse a*b+c in the clone */
#define MT_CLONES_AVX2_FMA \
    __attribute__((target_clones("arch=x86-64-v3", "default"), optimize("fp-contract=fast")))
#elif defined(__clang__)
#define MT_CLONES_AVX2_FMA __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
/* GCC 10 (manylinux2014's) has no x86-64-v3 level: AVX2 alone */
#define MT_CLONES_AVX2_FMA MT_CLONES_AVX2
#endif
#else
#define MT_CLONES_AVX2
#define MT_CLONES_AVX2_FMA
#endif

/* A hint inside spin-wait loops: lets the sibling hyperthread run. */
static inline void mt_cpu_relax(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) && defined(__GNUC__)
    __asm__ __volatile__("yield");
#endif
}

#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))
#if defined(__x86_64__)
#define MT_GLIBC_BASE "GLIBC_2.2.5"
#else
#define MT_GLIBC_BASE "GLIBC_2.17"
#endif
#define MT_GLIBC_PIN(sym) __asm__(".symver " #sym "," #sym "@" MT_GLIBC_BASE)
/* moved into libc (new default versions 2.34) or changed (2.32) since 2.17 */
MT_GLIBC_PIN(pthread_create);
MT_GLIBC_PIN(pthread_mutex_trylock);
MT_GLIBC_PIN(pthread_getattr_np);
MT_GLIBC_PIN(pthread_attr_getstack);
MT_GLIBC_PIN(dlopen);
MT_GLIBC_PIN(dlsym);
MT_GLIBC_PIN(dlclose);
#endif

#endif
