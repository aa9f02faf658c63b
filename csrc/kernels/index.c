#include "index.h"
#include "iter.h"
#include "typed.h"

#include "../core/error.h"
#include "../core/shape.h"

#include <string.h>

static inline void move_item(char *dst, const char *src, int isz)
{
    switch (isz) {
    case 1: *dst = *src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    default: memcpy(dst, src, 8); break;
    }
}

/* Next position of a C-order walk over sizes. */
static inline void advance(int ndim, const int64_t *sizes, int64_t *pos)
{
    for (int d = ndim - 1; d >= 0; d--) {
        if (++pos[d] < sizes[d])
            return;
        pos[d] = 0;
    }
}

#define COMBINE(E, SFX, CT)                                                              \
    static void combine_##SFX(char *d, const char *s, mt_put_op op, double af, int64_t ai) \
    {                                                                                    \
        CT *dp = (CT *)d;                                                                \
        CT sv = *(const CT *)s;                                                          \
        if (mt_is_floating(E)) {                                                         \
            double x = MT_LOAD_##SFX(*dp), y = MT_LOAD_##SFX(sv);                        \
            *dp = MT_STORE_##SFX(op == MT_PUT_ADD ? x + y * af : x * y);                 \
        } else {                                                                         \
            int64_t x = (int64_t)MT_LOAD_##SFX(*dp), y = (int64_t)MT_LOAD_##SFX(sv);     \
            *dp = MT_STORE_##SFX(op == MT_PUT_ADD ? x + y * ai : x * y);                 \
        }                                                                                \
    }
MT_FOR_ALL_DTYPES(COMBINE)

typedef void (*combine_fn)(char *, const char *, mt_put_op, double, int64_t);
#define COMBINE_ROW(E, SFX, CT) [E] = combine_##SFX,
static const combine_fn combine_table[MT_NUM_DTYPES] = {MT_FOR_ALL_DTYPES(COMBINE_ROW)};

static inline void put_item(char *d, const char *s, int isz, combine_fn comb, mt_put_op op,
                            double af, int64_t ai)
{
    if (op == MT_PUT_SET)
        move_item(d, s, isz);
    else
        comb(d, s, op, af, ai);
}

int mt_index_wrap(const mt_tensor *t, mt_index_plan *p)
{
    /* As in torch, indices are only checked when the result has elements:
     * those are read from (or written to) t, so an indexed dim of size 0
     * has no valid index at all. */
    int64_t reads = p->index_numel;
    for (int d = 0; d < t->ndim; d++)
        if (d < p->pre || d >= p->pre + p->k)
            reads *= t->sizes[d];
    if (reads == 0)
        return 0;
    for (int k = 0; k < p->k; k++) {
        int64_t size = t->sizes[p->pre + k];
        int64_t *ix = p->index[k];
        if (size == 0)
            return mt_error(MT_ERR_INDEX, "index is out of bounds for dimension with size 0");
        for (int64_t j = 0; j < p->index_numel; j++) {
            if (ix[j] < -size || ix[j] >= size)
                return mt_error(MT_ERR_INDEX, "index %lld is out of bounds for dimension %d with size %lld",
                                (long long)ix[j], k, (long long)size);
            if (ix[j] < 0)
                ix[j] += size;
        }
    }
    return 0;
}

int mt_index_result_shape(const mt_tensor *t, const mt_index_plan *p, int *ndim, int64_t *sizes)
{
    int post = t->ndim - p->pre - p->k;
    int n = p->pre + p->index_ndim + post;
    if (n > MT_MAX_DIMS)
        return mt_error(MT_ERR_RUNTIME, "minitorch supports at most %d dimensions", MT_MAX_DIMS);
    memcpy(sizes, t->sizes, sizeof(int64_t) * p->pre);
    memcpy(sizes + p->pre, p->index_sizes, sizeof(int64_t) * p->index_ndim);
    memcpy(sizes + p->pre + p->index_ndim, t->sizes + p->pre + p->k, sizeof(int64_t) * post);
    *ndim = n;
    return 0;
}

/* Element offset in t of the result position pos (result dims as in
 * mt_index_result_shape). */
static int64_t source_offset(const mt_tensor *t, const mt_index_plan *p, const int64_t *pos)
{
    int64_t off = t->offset, j = 0;
    for (int d = 0; d < p->pre; d++)
        off += pos[d] * t->strides[d];
    for (int d = 0; d < p->index_ndim; d++)
        j = j * p->index_sizes[d] + pos[p->pre + d];
    for (int k = 0; k < p->k; k++)
        off += p->index[k][j] * t->strides[p->pre + k];
    int post = t->ndim - p->pre - p->k;
    for (int d = 0; d < post; d++)
        off += pos[p->pre + p->index_ndim + d] * t->strides[p->pre + p->k + d];
    return off;
}

static int64_t offset_of(const mt_tensor *t, const int64_t *pos)
{
    int64_t off = t->offset;
    for (int d = 0; d < t->ndim; d++)
        off += pos[d] * t->strides[d];
    return off;
}

void mt_index_gather(const mt_tensor *t, const mt_index_plan *p, mt_tensor *out)
{
    int64_t pos[MT_MAX_DIMS] = {0};
    int isz = mt_itemsize(t->dtype);
    char *src = (char *)t->storage->data, *dst = (char *)out->storage->data;
    for (int64_t i = 0; i < out->numel; i++) {
        move_item(dst + offset_of(out, pos) * isz, src + source_offset(t, p, pos) * isz, isz);
        advance(out->ndim, out->sizes, pos);
    }
}

void mt_index_put(mt_tensor *t, const mt_index_plan *p, const mt_tensor *vals, mt_put_op op,
                  double alpha_f, int64_t alpha_i)
{
    int64_t pos[MT_MAX_DIMS] = {0};
    int isz = mt_itemsize(t->dtype);
    combine_fn comb = combine_table[t->dtype];
    char *dst = (char *)t->storage->data, *src = (char *)vals->storage->data;
    for (int64_t i = 0; i < vals->numel; i++) {
        put_item(dst + source_offset(t, p, pos) * isz, src + offset_of(vals, pos) * isz, isz,
                 comb, op, alpha_f, alpha_i);
        advance(vals->ndim, vals->sizes, pos);
    }
}

/* Offset in t of pos with coordinate dim replaced by the index at pos. */
static int along_dim(const mt_tensor *t, int dim, const mt_tensor *index, const int64_t *pos,
                     int64_t *off)
{
    int64_t ix = *(const int64_t *)(mt_data(index) + (offset_of(index, pos) - index->offset) * 8);
    int64_t size = t->ndim ? t->sizes[dim] : 1;
    /* gather and scatter count no index from the end, as torch */
    if (ix < 0 || ix >= size)
        return mt_error(MT_ERR_RUNTIME, "index %lld is out of bounds for dimension %d with size %lld",
                        (long long)ix, dim, (long long)size);
    int64_t o = t->offset;
    for (int d = 0; d < t->ndim; d++)
        o += (d == dim ? ix : pos[d]) * t->strides[d];
    *off = o;
    return 0;
}

int mt_gather_dim(const mt_tensor *t, int dim, const mt_tensor *index, mt_tensor *out)
{
    int64_t pos[MT_MAX_DIMS] = {0}, off;
    int isz = mt_itemsize(t->dtype);
    for (int64_t i = 0; i < index->numel; i++) {
        if (along_dim(t, dim, index, pos, &off) < 0)
            return -1;
        move_item(mt_data(out) + (offset_of(out, pos) - out->offset) * isz,
                  (char *)t->storage->data + off * isz, isz);
        advance(index->ndim, index->sizes, pos);
    }
    return 0;
}

int mt_scatter_dim(mt_tensor *t, int dim, const mt_tensor *index, const mt_tensor *src,
                   mt_put_op op)
{
    int64_t pos[MT_MAX_DIMS] = {0}, off;
    int isz = mt_itemsize(t->dtype);
    combine_fn comb = combine_table[t->dtype];
    for (int64_t i = 0; i < index->numel; i++) {
        if (along_dim(t, dim, index, pos, &off) < 0)
            return -1;
        put_item((char *)t->storage->data + off * isz,
                 (char *)src->storage->data + offset_of(src, pos) * isz, isz, comb, op, 1.0, 1);
        advance(index->ndim, index->sizes, pos);
    }
    return 0;
}

static void masked_fill_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    int isz = (int)(intptr_t)ctx;
    char *d = data[0];
    const char *m = data[1];
    for (int64_t i = 0; i < n; i++, d += strides[0], m += strides[1])
        if (*m)
            move_item(d, data[2], isz);
}

void mt_masked_fill(mt_tensor *t, const mt_tensor *mask, const mt_tensor *value)
{
    const mt_tensor *ops[3] = {t, mask, value};
    mt_iter it;
    if (t->numel == 0)
        return;
    mt_iter_init(&it, 3, ops, t->ndim, t->sizes);
    mt_iter_run(&it, masked_fill_loop, (void *)(intptr_t)mt_itemsize(t->dtype), 32768);
}

void mt_triangle_zero(mt_tensor *t, int64_t diag, bool lower)
{
    int64_t pos[MT_MAX_DIMS] = {0};
    int isz = mt_itemsize(t->dtype), nd = t->ndim;
    for (int64_t i = 0; i < t->numel; i++) {
        int64_t band = pos[nd - 1] - pos[nd - 2];
        if (lower ? band > diag : band < diag)
            memset((char *)t->storage->data + offset_of(t, pos) * isz, 0, isz);
        advance(nd, t->sizes, pos);
    }
}

int64_t mt_count_set(const mt_tensor *b)
{
    const uint8_t *p = (const uint8_t *)mt_data(b);
    int64_t n = 0;
    for (int64_t i = 0; i < b->numel; i++)
        n += p[i] != 0;
    return n;
}

void mt_nonzero_positions(const mt_tensor *b, int64_t *out)
{
    const uint8_t *p = (const uint8_t *)mt_data(b);
    int64_t pos[MT_MAX_DIMS] = {0};
    for (int64_t i = 0; i < b->numel; i++) {
        if (p[i]) {
            memcpy(out, pos, sizeof(int64_t) * b->ndim);
            out += b->ndim;
        }
        advance(b->ndim, b->sizes, pos);
    }
}
