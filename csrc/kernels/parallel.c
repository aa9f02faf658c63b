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
/* generation << 32 | number of chunks, read with the job, so on its cache
 * line; the count of finished chunks, which the caller polls while the others
 * claim, on another line. */
static _Atomic uint64_t work;
static _Alignas(64) atomic_int chunks_done;
/* Chunk i of job g is free while its slot holds g - 1 (the submitter writes
 * that before publishing) and taken once it holds g: a claim is one
 * compare-and-swap, and fails for a chunk already taken and for a job that is
 * no longer current. Each slot on its own line, as two threads claim
 * neighbours at the same moment. */
static struct {
    _Alignas(64) _Atomic uint32_t gen;
} claimed[MT_MAX_THREADS];
/* Sleepers announce themselves (seq_cst) before re-checking their condition,
 * so a publisher that sees none knows they will see its update. */
static atomic_int workers_asleep;
static atomic_bool caller_asleep;

#define GEN(w) ((uint32_t)((w) >> 32))
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

static bool claim(int i, uint32_t gen)
{
    uint32_t free = gen - 1;
    return atomic_compare_exchange_strong(&claimed[i].gen, &free, gen);
}

static void run_chunk(int i, int count)
{
    int64_t b = job.begin + i * job.chunk;
    int64_t e = b + job.chunk < job.end ? b + job.chunk : job.end;
    if (b < e)
        job.fn(job.arg, b, e);
    if (atomic_fetch_add(&chunks_done, 1) == count - 1 && atomic_load(&caller_asleep)) {
        mt_mutex_lock(&lock);
        mt_cond_signal(&done_cv);
        mt_mutex_unlock(&lock);
    }
}

/* Runs the chunk numbered `self` first, then any left unclaimed. Thread i
 * running chunk i of every job keeps a kernel called back to back on the same
 * data in the same core's cache: a 3 MB operand split over two cores' L2 runs
 * 25% faster than when the halves swap cores between calls. A thread that
 * starts late still leaves its chunk to whoever is free. */
static void run_chunks(int self)
{
    uint64_t w = atomic_load(&work);
    uint32_t gen = GEN(w);
    int count = COUNT(w);
    if (self < count && claim(self, gen))
        run_chunk(self, count);
    for (int i = 0; i < count; i++)
        if (i != self && claim(i, gen))
            run_chunk(i, count);
}

static bool new_generation(void *seen) { return GEN(atomic_load(&work)) != *(uint32_t *)seen; }

static bool all_done(void *count) { return atomic_load(&chunks_done) == *(int *)count; }

static void worker(void *id)
{
    for (;;) {
        uint32_t seen = GEN(atomic_load(&work));
        run_chunks((int)(intptr_t)id);
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
        if (!mt_thread_start(worker, (void *)(intptr_t)(pool_size + 1)))
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
     * chunks measured up to 15% slower on bandwidth-bound sums). */
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
    uint32_t gen = GEN(atomic_load(&work)) + 1;
    for (int i = 0; i < count; i++)
        atomic_store(&claimed[i].gen, gen - 1);
    atomic_store(&work, (uint64_t)gen << 32 | (uint64_t)count);
    if (atomic_load(&workers_asleep) > 0) {
        mt_mutex_lock(&lock);
        mt_cond_broadcast(&work_cv);
        mt_mutex_unlock(&lock);
    }
    run_chunks(0);
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
