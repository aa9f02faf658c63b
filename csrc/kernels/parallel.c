#include "parallel.h"
#include "../core/error.h"

#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#define MT_MAX_THREADS 64

static int num_threads = 0; /* 0: not decided yet */
static int pool_size = 0;   /* workers started (excluding the caller) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t submit_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    mt_range_fn fn;
    void *arg;
    int64_t begin, end, chunk;
    int nchunks;
    uint64_t generation;
    int pending;
} job;

static void *worker(void *p)
{
    int id = (int)(intptr_t)p; /* worker id >= 1; chunk 0 is the caller's */
    uint64_t seen = 0;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (job.generation == seen)
            pthread_cond_wait(&work_cv, &lock);
        seen = job.generation;
        if (id >= job.nchunks)
            continue;
        int64_t b = job.begin + id * job.chunk;
        int64_t e = b + job.chunk < job.end ? b + job.chunk : job.end;
        mt_range_fn fn = job.fn;
        void *arg = job.arg;
        pthread_mutex_unlock(&lock);
        fn(arg, b, e);
        pthread_mutex_lock(&lock);
        if (--job.pending == 0)
            pthread_cond_signal(&done_cv);
    }
    return NULL;
}

/* A forked child has no workers: start again from none. */
static void after_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
    pthread_mutex_init(&submit_lock, NULL);
    pthread_cond_init(&work_cv, NULL);
    pthread_cond_init(&done_cv, NULL);
    pool_size = 0;
    job.generation = 0;
}

static void ensure_pool(int want)
{
    static bool atfork_done = false;
    if (!atfork_done) {
        pthread_atfork(NULL, NULL, after_fork_child);
        atfork_done = true;
    }
    while (pool_size < want - 1) {
        pthread_t th;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&th, &attr, worker, (void *)(intptr_t)(pool_size + 1)) != 0) {
            pthread_attr_destroy(&attr);
            break;
        }
        pthread_attr_destroy(&attr);
        pool_size++;
    }
}

int mt_get_num_threads(void)
{
    if (num_threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
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

void mt_parallel_for(int64_t begin, int64_t end, int64_t grain, mt_range_fn fn, void *arg)
{
    int64_t total = end - begin;
    int nt = mt_get_num_threads();
    if (grain < 1)
        grain = 1;
    if (nt <= 1 || total < 2 * grain || pthread_mutex_trylock(&submit_lock) != 0) {
        /* Small work, one thread, or a nested/concurrent call: run inline. */
        if (total > 0)
            fn(arg, begin, end);
        return;
    }
    int64_t nchunks = total / grain;
    if (nchunks > nt)
        nchunks = nt;
    pthread_mutex_lock(&lock);
    ensure_pool((int)nchunks);
    if (pool_size + 1 < nchunks)
        nchunks = pool_size + 1;
    job.fn = fn;
    job.arg = arg;
    job.begin = begin;
    job.end = end;
    job.chunk = (total + nchunks - 1) / nchunks;
    job.nchunks = (int)nchunks;
    job.pending = (int)nchunks - 1;
    job.generation++;
    pthread_cond_broadcast(&work_cv);
    pthread_mutex_unlock(&lock);
    fn(arg, begin, begin + job.chunk < end ? begin + job.chunk : end);
    pthread_mutex_lock(&lock);
    while (job.pending > 0)
        pthread_cond_wait(&done_cv, &lock);
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&submit_lock);
}
