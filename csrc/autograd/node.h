/* Graph nodes: one per recorded op, holding edges to the nodes of its inputs,
 * what its derivative formula saved, and the metadata of inputs and outputs. */
#ifndef MT_AUTOGRAD_NODE_H
#define MT_AUTOGRAD_NODE_H

#include "../core/tensor.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct mt_node mt_node;
struct mt_signature;

typedef struct {
    mt_node *fn; /* NULL: that input needs no gradient */
    uint32_t input_nr;
} mt_edge;

/* Shape and dtype of a tensor an edge or output stands for. */
typedef struct {
    mt_dtype dtype;
    int ndim;
    int64_t sizes[MT_MAX_DIMS];
} mt_tensor_meta;

/* A non-tensor argument of the recorded call (or a number given for a Tensor). */
typedef struct {
    bool none;
    bool is_number; /* a Python number passed where a Tensor was expected */
    bool is_float;
    bool is_complex; /* a complex number: f is its real part, im its imaginary part */
    int64_t i;
    double f;
    double im;
    char str[16]; /* a str argument (rounding_mode, approximate) */
    void *obj;    /* an object argument (indexing key), owned by the binding layer */
    int nints;
    int64_t ints[2 * MT_MAX_DIMS];
} mt_ad_value;

typedef struct {
    mt_tensor *t; /* for an output: an alias with no history (no cycle) */
    void *packed; /* instead of t, what a saved-tensor pack hook made of it */
    int64_t version;
    bool is_output;
    uint32_t output_nr;
    const char *producer; /* kind name of the tensor's grad_fn when saved, or NULL */
    uint32_t producer_nr;
    /* A packed input's gradient edge (strong), which the unpacked tensor
     * gets as its history so double backward reaches the original. */
    mt_edge history;
    bool released; /* held a tensor once, now freed (an empty entry saved None) */
} mt_saved;

/* Gradient formula: grads_in[k] is the gradient of output k (NULL when the
 * output got none and the kind does not materialise); fills grads_out[e] for
 * each edge e that needs one (new references, or NULL for zero). */
typedef int (*mt_backward_fn)(mt_node *n, mt_tensor **grads_in, mt_tensor **grads_out);

/* Forward-mode formula: tangents_in[e] is the tangent of edge e's input (NULL
 * for zero); fills tangents_out[k] for each output k (new references, or NULL
 * for zero). */
typedef int (*mt_jvp_fn)(mt_node *n, mt_tensor **tangents_in, mt_tensor **tangents_out);

typedef struct mt_node_kind {
    const char *name; /* "MulBackward0" */
    mt_backward_fn backward;
    uint32_t save_inputs;        /* bit p: save tensor param p */
    uint8_t save_output;         /* 0: none; MT_OUTPUT(k): output k, kept in slot [nparams] */
    bool materialize;            /* missing output grads become zeros */
    void (*release)(mt_node *n); /* optional: frees what a custom kind saved itself */
    mt_jvp_fn jvp;               /* NULL: derived from backward (see forward.h) */
    /* The row's impl runs with recording off (a custom op's kernel, which
     * may call ops back through the C API), as torch runs kernels below
     * autograd: the call is recorded once, with this kind. */
    bool runs_below;
    /* The kind a call takes by the path its impl took (MT_PATH variant rows;
     * NULL entries keep this kind), or NULL when no rule names this kind. */
    const struct mt_node_kind **by_path;
    /* NULL, or per param p (MT_SAVE_IF rows): p is saved only when a param
     * of this mask needs a gradient (or a tangent), as torch's formulas save
     * x of x * y only when y requires grad; 0 keeps p unconditional. */
    const uint32_t *save_if;
} mt_node_kind;

/* Paths an impl may report (mt_args.path) are below this. */
#define MT_PATH_COUNT 16

#define MT_NODE_MAX_PARAMS 14

struct mt_node {
    int64_t refcount;
    const mt_node_kind *kind;
    uint64_t seq;
    int nedges;
    int nout;
    int nparams;
    mt_edge *edges;
    mt_tensor_meta *edge_meta; /* per edge: the input's shape */
    mt_tensor_meta *out_meta;  /* per output */
    bool own_out_meta;         /* out_meta is its own block (mt_node_set_outputs) */
    /* edges of tensor param p are edges[edge_start[p] .. edge_start[p] + edge_count[p]) */
    int16_t edge_start[MT_NODE_MAX_PARAMS];
    int16_t edge_count[MT_NODE_MAX_PARAMS];
    mt_ad_value *args; /* per param: non-tensor values */
    mt_saved *saved;   /* per param, and [nparams] for output 0 */
    bool saved_released;
    bool once_differentiable;
    /* A custom node (AccumulateGrad, Python Function) keeps its state here. */
    mt_tensor *variable; /* AccumulateGrad: the leaf (strong) */
    void *py_ctx;        /* owned by the binding layer */
    void *py_object;     /* the Python grad_fn object, borrowed */
    void *pre_hooks;     /* owned by the binding layer */
    void *post_hooks;
    mt_node *free_next;  /* intrusive queue used while freeing a chain */
    const char *op_name; /* the public op that recorded this node */
    mt_node *wrapped;    /* CopySlices: the in-place op's node (strong) */
    void *anomaly;       /* anomaly mode: where it was made (binding-owned) */
    void *metadata;      /* grad_fn.metadata (binding-owned) */
    /* The recording row's signature (NULL for custom nodes): names what the
     * node keeps (grad_fn._saved_<name>) after its parameters. */
    const struct mt_signature *sig;
};

/* The node whose backward is running (NULL outside the engine): in anomaly
 * mode it is recorded as the cause of the nodes its formula makes. */
extern mt_node *mt_running_node;

mt_node *mt_node_new(const mt_node_kind *kind, int nedges, int nout, int nparams);
static inline void mt_node_incref(mt_node *n) { n->refcount++; }
/* Sets n's output count once its call has run (a recorded op's node is made,
 * and its inputs saved, before the kernel, when the outputs are not known):
 * room for nout output metadata beyond the count n was made with comes from
 * a block of its own. -1 with an mt_error when out of memory. */
int mt_node_set_outputs(mt_node *n, int nout);
void mt_node_decref(mt_node *n);

/* Saves t for the backward of n in slot (a param index, or nparams for output 0). */
void mt_node_save(mt_node *n, int slot, mt_tensor *t, bool is_output, uint32_t output_nr);
/* The saved tensor (new reference) after the version check; NULL with an error
 * when it was freed or modified in place. When it was an output of n, it comes
 * back attached to n so double backward can flow through it. */
mt_tensor *mt_node_saved(mt_node *n, int slot);
void mt_node_release_saved(mt_node *n);
/* The same for a saved entry kept outside n->saved (custom kinds save any number). */
void mt_saved_set(mt_node *n, mt_saved *s, mt_tensor *t, bool is_output, uint32_t output_nr);
/* n may be NULL for an entry saved outside any node (a saved input). */
mt_tensor *mt_saved_get(mt_node *n, mt_saved *s);
/* Hands the count saved entries s of n to the active saved-tensor hooks, if
 * any (autograd.graph.saved_tensors_hooks). */
int mt_saved_pack(mt_saved *s, int count);
/* Keeps packed (what a pack hook made of s's tensor, consumed) in place of
 * the tensor. */
int mt_saved_take_packed(mt_saved *s, void *packed);
void mt_saved_release(mt_saved *s);

/* Sequence numbers: later nodes run first. */
uint64_t mt_next_seq(void);

#endif
