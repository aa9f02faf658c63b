/* mt_thread_start and mt_at_fork_child (threads.h): the two thread services
 * that are functions, not inline wrappers. A started thread gets fn and arg
 * through a small malloc'd record the thread frees. */
#include "threads.h"

#include <stdlib.h>

#ifdef _WIN32
#include <process.h>
#endif

typedef struct {
    void (*fn)(void *);
    void *arg;
} start_record;

#ifdef _WIN32
static unsigned __stdcall trampoline(void *p)
#else
static void *trampoline(void *p)
#endif
{
    start_record r = *(start_record *)p;
    free(p);
    r.fn(r.arg);
    return 0;
}

bool mt_thread_start(void (*fn)(void *), void *arg)
{
    start_record *r = malloc(sizeof *r);
    if (!r)
        return false;
    r->fn = fn;
    r->arg = arg;
#ifdef _WIN32
    uintptr_t h = _beginthreadex(NULL, 0, trampoline, r, 0, NULL);
    if (h) {
        CloseHandle((HANDLE)h);
        return true;
    }
#else
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&th, &attr, trampoline, r);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        return true;
#endif
    free(r);
    return false;
}

void mt_at_fork_child(void (*fn)(void))
{
#ifdef _WIN32
    (void)fn;
#else
    pthread_atfork(NULL, NULL, fn);
#endif
}
