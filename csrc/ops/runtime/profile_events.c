/* The profiler's event recorder: contract in profile_events.h. Events go to
 * one growing array under a lock (taken only while a session is active);
 * each thread remembers its innermost open event, which becomes the parent
 * of the next one it opens and the one its memory is counted against. A
 * token carries its session's number, so an event closed after its session
 * ended (a record_function left after stop()) touches nothing. */
#include "profile_events.h"

#include "op_watch.h"
#include "run.h"
#include "../../core/storage.h"
#include "../../core/threads.h"

#include <stdlib.h>
#include <string.h>

bool mt_profile_active;

static mt_mutex lock = MT_MUTEX_INIT;
static bool record_shapes;
static uint32_t session; /* the running session's number; 0 before the first */
static int64_t start_ns;
static int64_t threads; /* threads given a number so far */
static mt_profile_event *events;
static int64_t nevents, cap_events;
static char *text;
static int64_t ntext, cap_text;
static int64_t *shapes;
static int64_t nshapes, cap_shapes;

static _Thread_local uint32_t my_session; /* the session my_event belongs to */
static _Thread_local int64_t my_event = -1;
static _Thread_local int64_t my_thread;

static bool grow(void **p, int64_t *cap, int64_t need, size_t item)
{
    if (need <= *cap)
        return true;
    int64_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * item);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

/* This thread's innermost open event of the running session, or -1. */
static int64_t current(void) { return my_session == session ? my_event : -1; }

/* Appends an event opened now on this thread; its index, or -1 when out of
 * memory (the event is then not recorded). Under the lock. */
static int64_t append(mt_profile_kind kind, const mt_op *op, const char *name)
{
    size_t len = name ? strlen(name) + 1 : 0;
    if (!grow((void **)&events, &cap_events, nevents + 1, sizeof *events) ||
        !grow((void **)&text, &cap_text, ntext + (int64_t)len, 1))
        return -1;
    if (!my_thread)
        my_thread = ++threads;
    mt_profile_event *e = &events[nevents];
    e->kind = kind;
    e->op = op;
    e->inplace = false;
    e->name = -1;
    if (name) {
        memcpy(text + ntext, name, len);
        e->name = ntext;
        ntext += (int64_t)len;
    }
    e->parent = current();
    e->thread = my_thread;
    e->alloc_bytes = e->freed_bytes = 0;
    e->shapes = -1;
    e->start_ns = e->end_ns = mt_monotonic_ns();
    return nevents++;
}

static void observe_memory(int64_t nbytes)
{
    mt_mutex_lock(&lock);
    int64_t at = current();
    if (at < 0 && (at = append(MT_PROFILE_MEMORY, NULL, NULL)) < 0) {
        mt_mutex_unlock(&lock);
        return;
    }
    if (nbytes > 0)
        events[at].alloc_bytes += nbytes;
    else
        events[at].freed_bytes -= nbytes;
    mt_mutex_unlock(&lock);
}

static void reset(void) { nevents = ntext = nshapes = 0; }

int mt_profile_start(bool shapes_wanted, bool profile_memory)
{
    mt_mutex_lock(&lock);
    bool replaced = mt_profile_active;
    reset();
    session++;
    record_shapes = shapes_wanted;
    start_ns = mt_monotonic_ns();
    mt_storage_observer = profile_memory ? observe_memory : NULL;
    mt_profile_active = true;
    mt_op_watchers |= MT_WATCH_PROFILE;
    mt_mutex_unlock(&lock);
    return replaced;
}

int mt_profile_stop(mt_profile_log *log)
{
    memset(log, 0, sizeof *log);
    mt_mutex_lock(&lock);
    if (!mt_profile_active) {
        mt_mutex_unlock(&lock);
        return 0;
    }
    mt_profile_active = false;
    mt_op_watchers &= (unsigned char)~MT_WATCH_PROFILE;
    mt_storage_observer = NULL;
    session++;
    int64_t now = mt_monotonic_ns();
    for (int64_t i = 0; i < nevents; i++)
        if (events[i].kind != MT_PROFILE_MEMORY && events[i].end_ns == events[i].start_ns)
            events[i].end_ns = now;
    log->events = events;
    log->n = nevents;
    log->text = text;
    log->shapes = shapes;
    log->start_ns = start_ns;
    events = NULL;
    text = NULL;
    shapes = NULL;
    cap_events = cap_text = cap_shapes = 0;
    reset();
    mt_mutex_unlock(&lock);
    return 1;
}

void mt_profile_log_free(mt_profile_log *log)
{
    free(log->events);
    free(log->text);
    free(log->shapes);
    memset(log, 0, sizeof *log);
}

static int64_t open_event(mt_profile_kind kind, const mt_op *op, const char *name)
{
    int64_t at = append(kind, op, name);
    if (at < 0)
        return -1;
    my_session = session;
    my_event = at;
    return (int64_t)session << 32 | at;
}

int64_t mt_profile_begin(mt_profile_kind kind, const char *name)
{
    mt_mutex_lock(&lock);
    int64_t token = mt_profile_active ? open_event(kind, NULL, name) : -1;
    mt_mutex_unlock(&lock);
    return token;
}

void mt_profile_end(int64_t token)
{
    if (token < 0)
        return;
    int64_t now = mt_monotonic_ns();
    mt_mutex_lock(&lock);
    int64_t at = token & 0xffffffff;
    if ((uint32_t)(token >> 32) == session && mt_profile_active && at < nevents) {
        /* a zero-length event would read as still open at stop */
        events[at].end_ns = now > events[at].start_ns ? now : events[at].start_ns + 1;
        if (my_session == session)
            my_event = events[at].parent;
    }
    mt_mutex_unlock(&lock);
}

/* torch's Input Dims: one entry per parameter, a tensor's sizes or []
 * (numbers, lists, tensor lists); out= only when given, and no inplace=
 * flag (torch runs relu_ for relu(x, inplace=True)). */
static void note_shapes(int64_t at, const mt_args *a)
{
    const mt_signature *s = a->sig;
    int64_t need = nshapes + 1 + (int64_t)s->nparams * (1 + MT_MAX_DIMS);
    if (!grow((void **)&shapes, &cap_shapes, need, sizeof *shapes))
        return;
    int64_t head = nshapes++, count = 0;
    for (int p = 0; p < s->nparams; p++) {
        if ((p == s->out_param && !a->v[p].obj) || p == s->inplace_param)
            continue;
        count++;
        const mt_tensor *t =
            s->params[p].type == MT_ARG_TENSOR && !a->v[p].is_scalar ? a->v[p].t : NULL;
        if (!t) {
            shapes[nshapes++] = -1;
            continue;
        }
        shapes[nshapes++] = t->ndim;
        for (int d = 0; d < t->ndim; d++)
            shapes[nshapes++] = t->sizes[d];
    }
    shapes[head] = count;
    events[at].shapes = head;
}

int mt_op_exec_profiled(const mt_op *op, mt_args *a, mt_result *r, mt_tensor *target)
{
    mt_mutex_lock(&lock);
    int64_t token = -1;
    if (mt_profile_active && (token = open_event(MT_PROFILE_OP, op, NULL)) >= 0) {
        int ip = op->sig->inplace_param;
        events[token & 0xffffffff].inplace = ip >= 0 && a->v[ip].b;
        if (record_shapes)
            note_shapes(token & 0xffffffff, a);
    }
    mt_mutex_unlock(&lock);
    int rc = mt_op_exec_plain(op, a, r, target);
    mt_profile_end(token);
    return rc;
}
