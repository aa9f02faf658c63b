/* The profiler's event recorder (torch.profiler's CPU events). While a
 * session is active, every op-table row the runner executes, every backward
 * node the engine runs and every user range (record_function) becomes one
 * event: what ran, on which thread, its start and end on the monotonic
 * clock, the event enclosing it on that thread (so self time is its time
 * minus its children's), its inputs' shapes when asked for, and the bytes of
 * tensor memory allocated and freed while it was the innermost event. With
 * no session the whole cost is the read of mt_profile_active: the runner
 * and the engine test it once per call and take their out-of-line profiled
 * path only when it is set. One session at a time in the process, as in
 * torch: starting one while another runs takes its place. Plain C: the
 * host turns the events it is handed into its own objects. */
#ifndef MT_OPS_PROFILE_EVENTS_H
#define MT_OPS_PROFILE_EVENTS_H

#include "args.h"

struct mt_op;

extern bool mt_profile_active;

typedef enum {
    MT_PROFILE_OP,        /* an op-table row: op */
    MT_PROFILE_NODE_EVAL, /* the engine's whole turn at a node: name is its kind */
    MT_PROFILE_NODE,      /* the node's formula inside it: name is its kind */
    MT_PROFILE_USER,      /* a user range: name */
    MT_PROFILE_MEMORY,    /* memory allocated or freed with no event open */
} mt_profile_kind;

typedef struct {
    mt_profile_kind kind;
    const struct mt_op *op; /* MT_PROFILE_OP */
    bool inplace;           /* op called with inplace=True: torch names it relu_ */
    int64_t name;           /* offset of its name in the log's text, or -1 */
    int64_t start_ns, end_ns;
    int64_t parent; /* index of the enclosing event on its thread, or -1 */
    int64_t thread; /* 1 for the first thread that recorded, 2 for the next, ... */
    int64_t alloc_bytes, freed_bytes;
    /* offset in the log's shapes of: the count of inputs, then per input
     * its ndim (-1: not a tensor) and sizes; -1 when shapes were not asked */
    int64_t shapes;
} mt_profile_event;

typedef struct {
    mt_profile_event *events;
    int64_t n;
    char *text;
    int64_t *shapes;
    int64_t start_ns; /* when the session started */
} mt_profile_log;

/* Starts a session; true when it took the place of a running one, whose
 * events are dropped. -1 with an error when out of memory. */
int mt_profile_start(bool record_shapes, bool profile_memory);
/* Ends the session and hands its events over (events still open end now);
 * the caller frees them with mt_profile_log_free. 0 when no session ran. */
int mt_profile_stop(mt_profile_log *log);
void mt_profile_log_free(mt_profile_log *log);

/* Opens an event of kind named name (copied) on this thread; the token for
 * mt_profile_end, or -1 when no session is active. */
int64_t mt_profile_begin(mt_profile_kind kind, const char *name);
/* Closes the event of token; a token of an ended session is ignored. */
void mt_profile_end(int64_t token);

/* The runner's path while a session is active: the row's call as one event. */
int mt_op_exec_profiled(const struct mt_op *op, mt_args *a, mt_result *r, mt_tensor *target);

#endif
