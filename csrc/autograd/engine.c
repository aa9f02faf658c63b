#include "engine.h"
#include "backend.h"
#include "call.h"
#include "grad_mode.h"
#include "validate.h"
#include "../ops/runtime/profile_events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per-run state of a node, found through an open-addressing map. */
typedef struct {
    mt_node *node;
    int deps;
    bool needed;
    bool runs; /* needed, and its backward runs (see discover) */
    bool visited;
    mt_tensor **buf; /* nout input gradients */
} node_state;

typedef struct {
    node_state *slots;
    size_t cap, count;
} node_map;

static size_t hash_ptr(const void *p, size_t cap)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0x9E3779B97F4A7C15ull;
    return (size_t)(x >> 7) & (cap - 1);
}

static node_state *map_get(node_map *m, mt_node *n, bool create)
{
    if (create && (m->count + 1) * 2 > m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 64;
        node_state *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return NULL;
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].node) {
                size_t j = hash_ptr(m->slots[i].node, ncap);
                while (ns[j].node)
                    j = (j + 1) & (ncap - 1);
                ns[j] = m->slots[i];
            }
        free(m->slots);
        m->slots = ns;
        m->cap = ncap;
    }
    if (!m->cap)
        return NULL;
    size_t j = hash_ptr(n, m->cap);
    while (m->slots[j].node) {
        if (m->slots[j].node == n)
            return &m->slots[j];
        j = (j + 1) & (m->cap - 1);
    }
    if (!create)
        return NULL;
    m->slots[j].node = n;
    m->count++;
    return &m->slots[j];
}

/* Max-heap of ready nodes by sequence number: the latest-created runs first. */
typedef struct {
    mt_node **items;
    size_t n, cap;
} ready_heap;

static int heap_push(ready_heap *h, mt_node *x)
{
    if (h->n == h->cap) {
        size_t ncap = h->cap ? h->cap * 2 : 32;
        mt_node **p = realloc(h->items, ncap * sizeof *p);
        if (!p)
            return -1;
        h->items = p;
        h->cap = ncap;
    }
    size_t i = h->n++;
    while (i > 0 && h->items[(i - 1) / 2]->seq < x->seq) {
        h->items[i] = h->items[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->items[i] = x;
    return 0;
}

static mt_node *heap_pop(ready_heap *h)
{
    mt_node *top = h->items[0], *last = h->items[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->items[c + 1]->seq > h->items[c]->seq)
            c++;
        if (h->items[c]->seq <= last->seq)
            break;
        h->items[i] = h->items[c];
        i = c;
    }
    if (h->n)
        h->items[i] = last;
    return top;
}

static int fail_oom(void)
{
    mt_error(MT_ERR_RUNTIME, "out of memory in the autograd engine");
    return -1;
}

/* Adds g (consumed) into slot. */
static int accumulate_into(mt_tensor **slot, mt_tensor *g)
{
    if (!*slot) {
        *slot = g;
        return 0;
    }
    mt_tensor *sum = mt_call(MT_OP_add, "TT", *slot, g);
    mt_release(g);
    if (!sum)
        return -1;
    mt_release(*slot);
    *slot = sum;
    return 0;
}

typedef struct {
    mt_node *node;
    uint32_t input_nr;
    int index;
} capture_target;

/* Discovers the graph reachable from the roots (iteratively) and marks which
 * nodes lead to a capture target. */
static int discover(node_map *map, mt_edge *root_edges, int nroots, const capture_target *targets,
                    int ntargets)
{
    size_t cap = 64, top = 0;
    mt_node **stack = malloc(cap * sizeof *stack);
    if (!stack)
        return fail_oom();
    for (int r = 0; r < nroots; r++) {
        mt_node *n = root_edges[r].fn;
        node_state *s = map_get(map, n, true);
        if (!s)
            goto oom;
        if (!s->visited) {
            s->visited = true;
            stack[top++] = n;
        }
        while (top) {
            mt_node *cur = stack[--top];
            for (int e = 0; e < cur->nedges; e++) {
                mt_node *next = cur->edges[e].fn;
                if (!next)
                    continue;
                node_state *ns = map_get(map, next, true);
                if (!ns)
                    goto oom;
                if (!ns->visited) {
                    ns->visited = true;
                    if (top == cap) {
                        mt_node **p = realloc(stack, (cap *= 2) * sizeof *p);
                        if (!p)
                            goto oom;
                        stack = p;
                    }
                    stack[top++] = next;
                }
            }
        }
    }
    free(stack);
    if (ntargets == 0) {
        for (size_t i = 0; i < map->cap; i++)
            if (map->slots[i].node)
                map->slots[i].needed = true;
    } else {
        for (int t = 0; t < ntargets; t++) {
            node_state *s = map_get(map, targets[t].node, false);
            if (s)
                s->needed = true;
        }
        /* Propagate "leads to a target" backwards until nothing changes;
         * processing in sequence order makes one pass enough for most graphs. */
        bool changed = true;
        while (changed) {
            changed = false;
            for (size_t i = 0; i < map->cap; i++) {
                node_state *s = &map->slots[i];
                if (!s->node || s->needed)
                    continue;
                for (int e = 0; e < s->node->nedges; e++) {
                    mt_node *next = s->node->edges[e].fn;
                    node_state *ns = next ? map_get(map, next, false) : NULL;
                    if (ns && ns->needed) {
                        s->needed = true;
                        changed = true;
                        break;
                    }
                }
            }
        }
    }
    /* Dependencies count edges between needed nodes. A needed node runs when
     * one of them leads on from it: a target whose grad_fn leads to no other
     * target only has its incoming gradient captured, and keeps its saved
     * tensors, as in torch. */
    for (size_t i = 0; i < map->cap; i++) {
        node_state *s = &map->slots[i];
        if (!s->node || !s->needed)
            continue;
        s->runs = ntargets == 0;
        for (int e = 0; e < s->node->nedges; e++) {
            mt_node *next = s->node->edges[e].fn;
            node_state *ns = next ? map_get(map, next, false) : NULL;
            if (ns && ns->needed) {
                ns->deps++;
                s->runs = true;
            }
        }
    }
    return 0;
oom:
    free(stack);
    return fail_oom();
}

/* Anomaly mode's NaN check on what node n's backward returned. */
static int check_nan(mt_node *n, mt_tensor **gout)
{
    for (int e = 0; e < n->nedges; e++) {
        mt_tensor *g = gout[e];
        if (!g || !mt_is_inexact(g->dtype))
            continue;
        mt_tensor *isnan = mt_call(MT_OP_isnan, "T", g);
        mt_tensor *any = isnan ? mt_call(MT_OP_any, "T", isnan) : NULL;
        bool found = any && *(const bool *)mt_data(any);
        if (isnan)
            mt_release(isnan);
        if (!any)
            return -1;
        mt_release(any);
        if (found) {
            char msg[256];
            snprintf(msg, sizeof msg, "Function '%s' returned nan values in its %dth output.",
                     n->kind->name, e);
            mt_error(MT_ERR_RUNTIME, "%s", msg);
            return -1;
        }
    }
    return 0;
}

/* torch saves a number given for a Tensor param it keeps as a wrapped
 * tensor, and the index tensors of an indexing key, so a backward through a
 * node whose saved values were freed fails for such a param too (a saved
 * tensor fails when its formula reads it). */
static int check_numbers_kept(mt_node *n)
{
    for (int p = 0; p < n->nparams && p < 32; p++)
        if ((n->kind->save_inputs & (1u << p)) && (n->args[p].is_number || n->args[p].obj))
            return mt_node_saved(n, p) ? 0 : -1; /* raises torch's freed error */
    return 0;
}

static int materialize(mt_node *n, mt_tensor **buf)
{
    for (int k = 0; k < n->nout; k++)
        if (!buf[k]) {
            mt_tensor_meta *m = &n->out_meta[k];
            if (!(buf[k] = mt_new(m->dtype, m->ndim, m->sizes, true)))
                return -1;
        }
    return 0;
}

static bool is_target(const mt_backward_task *task, const capture_target *targets, mt_node *n)
{
    for (int t = 0; t < task->ninputs; t++)
        if (targets[t].node == n)
            return true;
    return false;
}

/* Captures the gradients buf holds for the targets at node n. */
static void capture(mt_backward_task *task, const capture_target *targets, mt_node *n,
                    mt_tensor **buf)
{
    for (int t = 0; t < task->ninputs; t++)
        if (targets[t].node == n) {
            mt_tensor *g = buf[targets[t].input_nr];
            if (g)
                mt_retain(g);
            if (task->captured[t])
                mt_release(task->captured[t]);
            task->captured[t] = g;
        }
}

/* The node's formula, as a profiler event of its own inside the node's
 * turn when a session is active (torch's two events per node). */
static int run_formula(mt_node *n, mt_tensor **buf, mt_tensor **gout)
{
    /* a formula may hand its gradient to a kernel directly (the fused index
     * backward paths), and kernels read memory, not the conjugate bit: a
     * conjugate view (conj's gradient) is resolved first, recorded under
     * create_graph */
    for (int k = 0; k < n->nout; k++)
        if (buf[k] && mt_is_conj(buf[k])) {
            mt_tensor *r = mt_call(MT_OP_resolve_conj, "T", buf[k]);
            if (!r)
                return -1;
            mt_release(buf[k]);
            buf[k] = r;
        }
    if (!mt_profile_active)
        return n->kind->backward(n, buf, gout);
    int64_t event = mt_profile_begin(MT_PROFILE_NODE, n->kind->name);
    int rc = n->kind->backward(n, buf, gout);
    mt_profile_end(event);
    return rc;
}

int mt_run_backward(mt_backward_task *task)
{
    node_map map = {0};
    ready_heap heap = {0};
    mt_edge *root_edges = calloc(task->nroots, sizeof *root_edges);
    capture_target *targets = calloc(task->ninputs ? task->ninputs : 1, sizeof *targets);
    mt_tensor **gout = NULL;
    int gout_n = 0;
    int status = -1;
    bool saved_mode = mt_grad_enabled;
    mt_node *outer = mt_running_node, *failing = NULL;
    /* a node's turn as a profiler event: ended when the next one begins */
    int64_t node_event = -1;
    if (!root_edges || !targets) {
        fail_oom();
        goto done;
    }
    for (int r = 0; r < task->nroots; r++) {
        if (mt_gradient_edge(task->roots[r], &root_edges[r]) < 0)
            goto done;
        if (!root_edges[r].fn) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "element %d of tensors does not require grad and does not have a grad_fn", r);
            mt_error(MT_ERR_RUNTIME, "%s", msg);
            goto done;
        }
    }
    for (int i = 0; i < task->ninputs; i++) {
        mt_edge e;
        if (mt_gradient_edge(task->inputs[i], &e) < 0)
            goto done;
        targets[i].node = e.fn;
        targets[i].input_nr = e.input_nr;
        targets[i].index = i; /* holds the edge's reference until the run ends */
        task->captured[i] = NULL;
    }
    if (discover(&map, root_edges, task->nroots, targets, task->ninputs) < 0)
        goto done;
    for (size_t i = 0; i < map.cap; i++)
        if (map.slots[i].node && map.slots[i].needed &&
            !(map.slots[i].buf = calloc(map.slots[i].node->nout, sizeof(mt_tensor *)))) {
            fail_oom();
            goto done;
        }
    /* Seed the roots' gradients. */
    for (int r = 0; r < task->nroots; r++) {
        node_state *s = map_get(&map, root_edges[r].fn, false);
        if (!s->needed)
            continue;
        /* a grad_output of another dtype flows on as the output's, as torch's */
        mt_tensor *g = task->root_grads[r];
        if (g->dtype != task->roots[r]->dtype) {
            if (!(g = mt_call(MT_OP_to, "TD", g, (int)task->roots[r]->dtype)))
                goto done;
        } else {
            mt_retain(g);
        }
        if (accumulate_into(&s->buf[root_edges[r].input_nr], g) < 0)
            goto done;
    }
    for (size_t i = 0; i < map.cap; i++)
        if (map.slots[i].node && map.slots[i].needed && map.slots[i].deps == 0 &&
            heap_push(&heap, map.slots[i].node) < 0) {
            fail_oom();
            goto done;
        }
    mt_grad_enabled = task->create_graph;
    bool capturing = task->ninputs > 0 && !task->accumulate;
    while (heap.n) {
        mt_node *n = heap_pop(&heap);
        if (mt_profile_active) {
            mt_profile_end(node_event);
            node_event = mt_profile_begin(MT_PROFILE_NODE_EVAL, n->kind->name);
        }
        node_state *s = map_get(&map, n, false);
        failing = mt_running_node = n;
        /* As torch's engine: a captured node that runs on (it leads to
         * further targets) gives its gradient as it arrived, before any
         * hook; one that does not only has its tensor hooks run (not its
         * own pre- or post-hooks), and gives what they returned. A captured
         * leaf is not accumulated into. */
        bool target = capturing && is_target(task, targets, n);
        bool only_captured = target && !s->runs;
        if (target && !only_captured)
            capture(task, targets, n, s->buf);
        if ((n->pre_hooks || n->variable) && mt_ad.run_tensor_pre_hooks(n, s->buf) < 0)
            goto done;
        if (only_captured) {
            capture(task, targets, n, s->buf);
            continue;
        }
        if (n->pre_hooks && mt_ad.run_pre_hooks(n, s->buf) < 0)
            goto done;
        /* As in torch, a node no gradient reached passes none on, even one that
         * materialises missing outputs (formulas may assume a defined
         * gradient); a custom Function's backward still runs, its ctx decides
         * between zeros and None. */
        bool any_grad = n->py_ctx != NULL;
        for (int k = 0; k < n->nout && !any_grad; k++)
            any_grad = s->buf[k] != NULL;
        if (any_grad && n->kind->materialize && materialize(n, s->buf) < 0)
            goto done;
        if (!n->variable && n->kind == &mt_accumulate_grad_kind)
            continue;
        gout_n = n->nedges;
        gout = calloc(gout_n ? gout_n : 1, sizeof *gout);
        if (!gout) {
            fail_oom();
            goto done;
        }
        /* post hooks registered while the formula runs (by an unpack hook)
         * get no grad_outputs: torch hands the node its inputs to consume */
        bool had_post_hooks = n->post_hooks != NULL;
        if (any_grad && n->saved_released && check_numbers_kept(n) < 0)
            goto done;
        if (any_grad && run_formula(n, s->buf, gout) < 0)
            goto done;
        if (mt_validate_outputs(n, gout) < 0)
            goto done;
        if (n->post_hooks && mt_ad.run_post_hooks(n, had_post_hooks ? s->buf : NULL, gout) < 0)
            goto done;
        if (mt_anomaly_enabled && mt_anomaly_check_nan && check_nan(n, gout) < 0)
            goto done;
        failing = NULL;
        if (!task->keep_graph)
            mt_node_release_saved(n);
        for (int e = 0; e < n->nedges; e++) {
            mt_node *next = n->edges[e].fn;
            node_state *ns = next ? map_get(&map, next, false) : NULL;
            if (!ns || !ns->needed) {
                if (gout[e])
                    mt_release(gout[e]);
                gout[e] = NULL;
                continue;
            }
            if (gout[e]) {
                mt_tensor *g = gout[e];
                gout[e] = NULL;
                if (accumulate_into(&ns->buf[n->edges[e].input_nr], g) < 0)
                    goto done;
            }
            if (--ns->deps == 0 && heap_push(&heap, next) < 0) {
                fail_oom();
                goto done;
            }
        }
        free(gout);
        gout = NULL;
        for (int k = 0; k < n->nout; k++)
            if (s->buf[k]) {
                mt_release(s->buf[k]);
                s->buf[k] = NULL;
            }
    }
    status = 0;
done:
    mt_profile_end(node_event);
    if (status < 0 && failing && mt_anomaly_enabled && mt_ad.node_failed)
        mt_ad.node_failed(failing);
    mt_running_node = outer;
    mt_grad_enabled = saved_mode;
    if (gout) {
        for (int e = 0; e < gout_n; e++)
            if (gout[e])
                mt_release(gout[e]);
        free(gout);
    }
    for (size_t i = 0; i < map.cap; i++) {
        node_state *s = &map.slots[i];
        if (!s->buf)
            continue;
        for (int k = 0; k < s->node->nout; k++)
            if (s->buf[k])
                mt_release(s->buf[k]);
        free(s->buf);
    }
    free(map.slots);
    free(heap.items);
    if (root_edges)
        for (int r = 0; r < task->nroots; r++)
            if (root_edges[r].fn)
                mt_node_decref(root_edges[r].fn);
    free(root_edges);
    for (int t = 0; t < task->ninputs; t++)
        if (targets && targets[t].node)
            mt_node_decref(targets[t].node);
    free(targets);
    if (status < 0)
        for (int t = 0; t < task->ninputs; t++)
            if (task->captured[t]) {
                mt_release(task->captured[t]);
                task->captured[t] = NULL;
            }
    return status;
}
