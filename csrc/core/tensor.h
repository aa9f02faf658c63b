/* Tensor metadata: a strided view of a storage. The Python object embeds this
 * struct, so creating a tensor costs one object allocation plus its storage. */
#ifndef MT_CORE_TENSOR_H
#define MT_CORE_TENSOR_H

#include "dtype.h"
#include "storage.h"

#define MT_MAX_DIMS 16

enum {
    MT_FLAG_REQUIRES_GRAD = 1u << 0,
    /* t is .data of some tensor (or a view of one): its in-place writes do
     * not count in the version the other tensors of the storage see. */
    MT_FLAG_DATA_ALIAS = 1u << 1,
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
} mt_tensor;

static inline char *mt_data(const mt_tensor *t)
{
    return (char *)t->storage->data + t->offset * mt_itemsize(t->dtype);
}

/* Marks an in-place write through t. */
static inline void mt_bump_version(mt_tensor *t)
{
    t->storage->version++;
    if (t->flags & MT_FLAG_DATA_ALIAS)
        t->storage->untracked++;
}

/* The version autograd checks for t (its _version): a .data alias counts
 * only the writes made through such aliases, the others every other write. */
static inline int64_t mt_version(const mt_tensor *t)
{
    return t->flags & MT_FLAG_DATA_ALIAS ? t->storage->untracked
                                         : t->storage->version - t->storage->untracked;
}

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
/* Drops the storage reference; t can be re-initialised afterwards. */
void mt_tensor_release(mt_tensor *t);

bool mt_tensor_is_contiguous(const mt_tensor *t);
/* True when the elements cover a dense block without overlap in some order. */
bool mt_tensor_is_non_overlapping_and_dense(const mt_tensor *t);

#endif
