/* The owner for programs without Python: each tensor lives in a malloc'd box
 * with a reference count and its autograd meta, and the autograd backend has
 * no user hooks to run. The Python binding installs its own owner instead;
 * this one serves C programs and the C unit test (tests/c/). A host of its
 * own, above the autograd floor. */
#include "standalone.h"

#include "../autograd/backend.h"
#include "../autograd/derivatives.h"
#include "../autograd/meta.h"

#include <stddef.h>
#include <stdlib.h>

typedef struct {
    int64_t refcount;
    mt_autograd_meta *meta;
    mt_tensor t;
} box;

static box *box_of(mt_tensor *t) { return (box *)((char *)t - offsetof(box, t)); }

static mt_tensor *box_make(void)
{
    box *b = calloc(1, sizeof(box));
    if (!b) {
        mt_error(MT_ERR_MEMORY, "out of memory");
        return NULL;
    }
    b->refcount = 1;
    return &b->t;
}

static void box_retain(mt_tensor *t) { box_of(t)->refcount++; }

static void box_release(mt_tensor *t)
{
    box *b = box_of(t);
    if (--b->refcount > 0)
        return;
    if (b->meta) {
        mt_meta_clear(b->meta);
        free(b->meta);
    }
    mt_tensor_release(&b->t);
    free(b);
}

static bool box_unshared(mt_tensor *t)
{
    return box_of(t)->refcount == 1 && t->storage->refcount == 1;
}

/* Objects are the host's; a plain-C program has none to keep. */
static void no_object(void *o) { (void)o; }

static mt_autograd_meta *meta_get(mt_tensor *t) { return box_of(t)->meta; }

static mt_autograd_meta *meta_get_or_create(mt_tensor *t)
{
    box *b = box_of(t);
    if (!b->meta) {
        if (!(b->meta = calloc(1, sizeof(mt_autograd_meta)))) {
            mt_error(MT_ERR_MEMORY, "out of memory");
            return NULL;
        }
        b->meta->refcount = 1;
    }
    return b->meta;
}

static int no_pre_hooks(mt_node *n, mt_tensor **grads)
{
    (void)n, (void)grads;
    return 0;
}

static int no_post_hooks(mt_node *n, mt_tensor **gin, mt_tensor **gout)
{
    (void)n, (void)gin, (void)gout;
    return 0;
}

static int no_acc_hooks(mt_tensor *leaf)
{
    (void)leaf;
    return 0;
}

int mt_standalone_init(void)
{
    mt_owner = (mt_owner_hooks){
        .make = box_make,
        .retain = box_retain,
        .release = box_release,
        .unshared = box_unshared,
        .retain_object = no_object,
        .release_object = no_object,
    };
    mt_meta = (mt_meta_access){.get = meta_get, .get_or_create = meta_get_or_create};
    mt_ad = (mt_ad_backend){
        .run_tensor_pre_hooks = no_pre_hooks,
        .run_pre_hooks = no_pre_hooks,
        .run_post_hooks = no_post_hooks,
        .run_tensor_post_acc_hooks = no_acc_hooks,
    };
    if (mt_ops_init() < 0)
        return -1;
    return mt_autograd_init();
}
