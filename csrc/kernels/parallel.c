#include "parallel.h"
#include "../core/error.h"

#include <stdatomic.h>
#include <stdbool.h>

#include "../core/portable.h"
#include "../core/threads.h"
#include "../core/hot.h"

#define MT_MAX_THREADS 64
/* Waking a sleeping thread costs from tens of microseconds to a millisecond
 * on a virtual machine, more than a kernel called back to back from Python
 * waits between calls. So workers (and a caller waiting for them) stay awake
 * this long: busy for SPIN_BUSY_NS, then yielding the core to anyone else
 * who wants it (another library's threads) until SPIN_NS. */
#define SPIN_BUSY_NS 50000
#define SPIN_NS 5000000

static int num_threads = 0; /* 0: not decided yet */
static int pool_size = 0;   /* workers started (excluding the caller) */
static mt_mutex lock = MT_MUTEX_INIT;
static mt_cond work_cv = MT_COND_INIT;
static mt_cond done_cv = MT_COND_INIT;
static mt_mutex submit_lock = MT_MUTEX_INIT;

/* Written by the submitter before it publishes the job in `work`; read by a
 * thread only after it has claimed a chunk, and the submitter waits for every
 * claimed chunk before it writes the next job. */
static _Alignas(64) struct {
    mt_range_fn fn;
    void *arg;
    int64_t begin, end, chunk;
} job;
/* generation << 32 | next chunk << 16 | number of chunks: a claim is one
 * compare-and-swap, and fails for a job that is no longer current. Read with
 * the job, so on its cache line; the count of finished chunks, which the
 * caller polls while the others claim, on another line. */
static _Atomic uint64_t work;
static _Alignas(64) atomic_int chunks_done;
/* Sleepers announce themselves (seq_cst) before re-checking their condition,
 * so a publisher that sees none knows they will see its update. */
static atomic_int workers_asleep;
static atomic_bool caller_asleep;

#define GEN(w) ((uint32_t)((w) >> 32))
#define NEXT(w) ((int)(((w) >> 16) & 0xffff))
#define COUNT(w) ((int)((w) & 0xffff))

/* Waits until ready(arg) or SPIN_NS pass; returns whether it became ready.
 * A pause takes about 25 ns on Zen 4, as long as reading the clock, so the
 * condition is checked after every pause and the clock only every
 * PAUSES_PER_CLOCK of them: a handoff is noticed within one pause. */
#define PAUSES_PER_CLOCK 32
static bool spin_until(bool (*ready)(void *), void *arg)
{
    int64_t start = mt_monotonic_ns();
    for (;;) {
        if (ready(arg))
            return true;
        int64_t waited = mt_monotonic_ns() - start;
        if (waited > SPIN_NS)
            return false;
        if (waited >= SPIN_BUSY_NS) {
            mt_yield();
            continue;
        }
        for (int r = 0; r < PAUSES_PER_CLOCK; r++) {
            mt_cpu_relax();
            if (ready(arg))
                return true;
        }
    }
}

/* Claims and runs chunks of the current job until none are left. */
static void run_chunks(void)
{
    uint64_t w = atomic_load(&work);
    while (NEXT(w) < COUNT(w)) {
        if (!atomic_compare_exchange_weak(&work, &w, w + ((uint64_t)1 << 16)))
            continue;
        int64_t b = job.begin + NEXT(w) * job.chunk;
        int64_t e = b + job.chunk < job.end ? b + job.chunk : job.end;
        int count = COUNT(w);
        if (b < e)
            job.fn(job.arg, b, e);
        if (atomic_fetch_add(&chunks_done, 1) == count - 1 && atomic_load(&caller_asleep)) {
            mt_mutex_lock(&lock);
            mt_cond_signal(&done_cv);
            mt_mutex_unlock(&lock);
        }
        w = atomic_load(&work);
    }
}

static bool new_generation(void *seen) { return GEN(atomic_load(&work)) != *(uint32_t *)seen; }

static bool all_done(void *count) { return atomic_load(&chunks_done) == *(int *)count; }

static void worker(void *unused)
{
    (void)unused;
    for (;;) {
        uint32_t seen = GEN(atomic_load(&work));
        run_chunks();
        if (spin_until(new_generation, &seen))
            continue;
        mt_mutex_lock(&lock);
        atomic_fetch_add(&workers_asleep, 1);
        while (!new_generation(&seen))
            mt_cond_wait(&work_cv, &lock);
        atomic_fetch_sub(&workers_asleep, 1);
        mt_mutex_unlock(&lock);
    }
}

/* A forked child has no workers: start again from none. */
static void after_fork_child(void)
{
    mt_mutex_init(&lock);
    mt_mutex_init(&submit_lock);
    mt_cond_init(&work_cv);
    mt_cond_init(&done_cv);
    pool_size = 0;
    atomic_store(&work, 0);
    atomic_store(&chunks_done, 0);
    atomic_store(&workers_asleep, 0);
    atomic_store(&caller_asleep, false);
}

static void ensure_pool(int want)
{
    static bool atfork_done = false;
    if (!atfork_done) {
        mt_at_fork_child(after_fork_child);
        atfork_done = true;
    }
    while (pool_size < want - 1) {
        if (!mt_thread_start(worker, NULL))
            break;
        pool_size++;
    }
}

int mt_get_num_threads(void)
{
    if (num_threads == 0) {
        long n = mt_cpu_count();
        num_threads = n < 1 ? 1 : (n > MT_MAX_THREADS ? MT_MAX_THREADS : (int)n);
    }
    return num_threads;
}

int mt_set_num_threads(int n)
{
    if (n < 1)
        return mt_error(MT_ERR_RUNTIME, "Number of threads must be positive, got %d", n);
    num_threads = n > MT_MAX_THREADS ? MT_MAX_THREADS : n;
    return 0;
}

MT_HOT void mt_parallel_for(int64_t begin, int64_t end, int64_t grain, mt_range_fn fn, void *arg)
{
    int64_t total = end - begin;
    int nt = mt_get_num_threads();
    if (grain < 1)
        grain = 1;
    if (nt <= 1 || total < 2 * grain || !mt_mutex_trylock(&submit_lock)) {
        /* Small work, one thread, or a nested/concurrent call: run inline. */
        if (total > 0)
            fn(arg, begin, end);
        return;
    }
    ensure_pool(nt);
    int threads = pool_size + 1 < nt ? pool_size + 1 : nt;
    /* One contiguous chunk per thread streams memory best (more, interleaved
     * chunks measured up to 15% slower on bandwidth-bound sums); chunks are
     * claimed, not assigned, so a thread that starts late leaves its chunk
     * to whoever is free. */
    int64_t nchunks = total / grain;
    if (nchunks > threads)
        nchunks = threads;
    job.fn = fn;
    job.arg = arg;
    job.begin = begin;
    job.end = end;
    job.chunk = (total + nchunks - 1) / nchunks;
    int count = (int)nchunks;
    atomic_store(&chunks_done, 0);
    uint64_t gen = (uint64_t)(GEN(atomic_load(&work)) + 1);
    atomic_store(&work, gen << 32 | (uint64_t)count);
    if (atomic_load(&workers_asleep) > 0) {
        mt_mutex_lock(&lock);
        mt_cond_broadcast(&work_cv);
        mt_mutex_unlock(&lock);
    }
    run_chunks();
    if (!spin_until(all_done, &count)) {
        mt_mutex_lock(&lock);
        atomic_store(&caller_asleep, true);
        while (!all_done(&count))
            mt_cond_wait(&done_cv, &lock);
        atomic_store(&caller_asleep, false);
        mt_mutex_unlock(&lock);
    }
    mt_mutex_unlock(&submit_lock);
}
