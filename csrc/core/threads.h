/* Threads, locks and the few OS services the thread pool (kernels/parallel.c)
 * and the caching allocator need, behind mt_ names so those files name no OS:
 * POSIX threads, or on Windows SRW locks, condition variables and
 * _beginthreadex. The Windows branch is compiled by tools/ci_portability.sh
 * with MinGW-w64 (the plain-C floors only) but never run. */
#ifndef MT_CORE_THREADS_H
#define MT_CORE_THREADS_H

#include <stdbool.h>
#include <stdint.h>

#include "portable.h"

#ifdef _WIN32
#include <windows.h>

typedef SRWLOCK mt_mutex;
typedef CONDITION_VARIABLE mt_cond;
#define MT_MUTEX_INIT SRWLOCK_INIT
#define MT_COND_INIT CONDITION_VARIABLE_INIT

static inline void mt_mutex_init(mt_mutex *m) { InitializeSRWLock(m); }
static inline void mt_mutex_lock(mt_mutex *m) { AcquireSRWLockExclusive(m); }
static inline void mt_mutex_unlock(mt_mutex *m) { ReleaseSRWLockExclusive(m); }
static inline bool mt_mutex_trylock(mt_mutex *m) { return TryAcquireSRWLockExclusive(m) != 0; }
static inline void mt_cond_init(mt_cond *c) { InitializeConditionVariable(c); }
static inline void mt_cond_wait(mt_cond *c, mt_mutex *m)
{
    SleepConditionVariableSRW(c, m, INFINITE, 0);
}
static inline void mt_cond_signal(mt_cond *c) { WakeConditionVariable(c); }
static inline void mt_cond_broadcast(mt_cond *c) { WakeAllConditionVariable(c); }
static inline void mt_yield(void) { SwitchToThread(); }
static inline int64_t mt_monotonic_ns(void)
{
    LARGE_INTEGER freq, count;
    QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&count);
    return (int64_t)((double)count.QuadPart * (1e9 / (double)freq.QuadPart));
}
static inline long mt_cpu_count(void)
{
    return (long)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
}
#else
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

typedef pthread_mutex_t mt_mutex;
typedef pthread_cond_t mt_cond;
#define MT_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define MT_COND_INIT PTHREAD_COND_INITIALIZER

static inline void mt_mutex_init(mt_mutex *m) { pthread_mutex_init(m, NULL); }
static inline void mt_mutex_lock(mt_mutex *m) { pthread_mutex_lock(m); }
static inline void mt_mutex_unlock(mt_mutex *m) { pthread_mutex_unlock(m); }
static inline bool mt_mutex_trylock(mt_mutex *m) { return pthread_mutex_trylock(m) == 0; }
static inline void mt_cond_init(mt_cond *c) { pthread_cond_init(c, NULL); }
static inline void mt_cond_wait(mt_cond *c, mt_mutex *m) { pthread_cond_wait(c, m); }
static inline void mt_cond_signal(mt_cond *c) { pthread_cond_signal(c); }
static inline void mt_cond_broadcast(mt_cond *c) { pthread_cond_broadcast(c); }
static inline void mt_yield(void) { sched_yield(); }
static inline int64_t mt_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static inline long mt_cpu_count(void) { return sysconf(_SC_NPROCESSORS_ONLN); }
#endif

/* Runs fn(arg) on a new detached thread; false when none could be started. */
bool mt_thread_start(void (*fn)(void *), void *arg);
/* Registers fn to run in the child after fork() (POSIX; Windows has no fork). */
void mt_at_fork_child(void (*fn)(void));

#endif
