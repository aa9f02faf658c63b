/* Tensor metadata: a strided view of a storage. The Python object embeds this
 * struct, so creating a tensor costs one object allocation plus its storage. */
#ifndef MT_CORE_TENSOR_H
#define MT_CORE_TENSOR_H

#include "dtype.h"
#include "storage.h"

#define MT_MAX_DIMS 16

enum {
    MT_FLAG_REQUIRES_GRAD = 1u << 0,
    /* torch's conjugate bit: a complex tensor whose elements read as the
     * conjugates of those in its memory (x.conj()); its views inherit it,
     * the runner resolves it before a kernel reads it (ops/runtime/conj_view.h) */
    MT_FLAG_CONJ = 1u << 1,
};

typedef struct mt_tensor {
    mt_storage *storage;
    int64_t offset; /* in elements */
    int64_t numel;
    int32_t ndim;
    mt_dtype dtype;
    uint32_t flags;
    int64_t sizes[MT_MAX_DIMS];
    int64_t strides[MT_MAX_DIMS]; /* in elements */
    /* NULL: t counts its writes in its storage's counter; else its own
     * (core/version_counter.h), shared with its views */
    mt_version_counter *counter;
} mt_tensor;

static inline bool mt_is_conj(const mt_tensor *t) { return t->flags & MT_FLAG_CONJ; }

static inline char *mt_data(const mt_tensor *t)
{
    return (char *)t->storage->data + t->offset * mt_itemsize(t->dtype);
}

static inline int64_t *mt_version_slot(const mt_tensor *t)
{
    if (t->counter)
        return &t->counter->value;
    return t->storage->counter ? &t->storage->counter->value : &t->storage->version;
}

/* Marks an in-place write through t. */
static inline void mt_bump_version(mt_tensor *t) { ++*mt_version_slot(t); }

/* The version autograd checks for t (its _version). */
static inline int64_t mt_version(const mt_tensor *t) { return *mt_version_slot(t); }

/* A 0-dim t seen as a 1-dim view of its one element; others as they are. */
static inline mt_tensor mt_at_least_1d(const mt_tensor *t)
{
    mt_tensor v = *t;
    if (v.ndim == 0) {
        v.ndim = 1;
        v.sizes[0] = 1;
        v.strides[0] = 0;
    }
    return v;
}

/* Fills sizes/strides/numel and allocates a fresh contiguous storage. */
int mt_tensor_init_contiguous(mt_tensor *t, mt_dtype dtype, int ndim, const int64_t *sizes,
                              bool zeroed);
/* Makes t a view of src's storage with the given geometry (takes a storage reference). */
int mt_tensor_init_view(mt_tensor *t, const mt_tensor *src, int ndim, const int64_t *sizes,
                        const int64_t *strides, int64_t offset);
/* Drops the storage and counter references; t can be re-initialised afterwards. */
void mt_tensor_release(mt_tensor *t);
/* Gives t a counter of its own reading value (.data, unsafe_split's pieces);
 * its views made afterwards share it. */
int mt_tensor_own_counter(mt_tensor *t, int64_t value);
/* Makes t hold its counter itself before it moves to other memory
 * (x.data = y, an out= resized), so that it and the views it leaves behind
 * go on counting together. */
int mt_tensor_keep_counter(mt_tensor *t);

bool mt_tensor_is_contiguous(const mt_tensor *t);
/* True when the elements cover a dense block without overlap in some order. */
bool mt_tensor_is_non_overlapping_and_dense(const mt_tensor *t);

#endif
