/* The small index kernels: wrapping advanced indices, result shapes, masked
 * fill, triangles and nonzero positions. Row gathers and puts by index live in
 * index_rows.c, gathers and scatters along a dim in index_dim.c. */
#include "index.h"
#include "iter.h"
#include "typed.h"

#include "../core/error.h"
#include "../core/portable.h"
#include "../core/shape.h"

#include <string.h>

static inline void move_item(char *dst, const char *src, int isz)
{
    switch (isz) {
    case 1:
        *dst = *src;
        break;
    case 2:
        memcpy(dst, src, 2);
        break;
    case 4:
        memcpy(dst, src, 4);
        break;
    case 8:
        memcpy(dst, src, 8);
        break;
    default:
        memcpy(dst, src, 16);
        break;
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

MT_CLONES_AVX2 static bool all_below(const int64_t *ix, int64_t n, int64_t size)
{
    uint64_t bad = 0, lim = (uint64_t)size;
    for (int64_t i = 0; i < n; i++)
        bad |= (uint64_t)ix[i] >= lim;
    return bad == 0;
}

/* Out of line from its clones: clang names a cloned function's dispatcher
 * apart from its plain symbol, so other files could not link to a clone. */
bool mt_index_all_below(const int64_t *ix, int64_t n, int64_t size)
{
    return all_below(ix, n, size);
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
                return mt_error(MT_ERR_INDEX,
                                "index %lld is out of bounds for dimension %d with size %lld",
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
    int64_t rows = t->sizes[t->ndim - 2], cols = t->sizes[t->ndim - 1];
    int64_t mats = rows > 0 && cols > 0 ? t->numel / (rows * cols) : 0;
    size_t isz = (size_t)mt_itemsize(t->dtype);
    char *base = mt_data(t);
    /* diagonals past the matrix act as its edges (and cannot overflow below) */
    diag = diag < -rows - 1 ? -rows - 1 : diag > cols ? cols : diag;
    /* row i keeps columns j - i <= diag (lower) or j - i >= diag (upper): one
     * run of columns to zero per row */
    for (int64_t m = 0; m < mats; m++)
        for (int64_t i = 0; i < rows; i++) {
            int64_t edge = i + diag + (lower ? 1 : 0);
            edge = edge < 0 ? 0 : edge > cols ? cols : edge;
            int64_t from = lower ? edge : 0, to = lower ? cols : edge;
            char *row = base + (size_t)((m * rows + i) * cols) * isz;
            memset(row + (size_t)from * isz, 0, (size_t)(to - from) * isz);
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

void mt_nonzero_positions(const mt_tensor *b, int64_t count, int64_t *out)
{
    const uint8_t *p = (const uint8_t *)mt_data(b);
    int nd = b->ndim;
    if (nd == 1) {
        /* branch-free: every position is written, the cursor moves on set
         * bytes only (a mask's bytes are as good as random to a predictor) */
        int64_t k = 0;
        for (int64_t i = 0; i < b->numel && k < count; i++) {
            out[k] = i;
            k += p[i] != 0;
        }
        return;
    }
    int64_t pos[MT_MAX_DIMS] = {0};
    for (int64_t i = 0; i < b->numel; i++) {
        if (p[i]) {
            memcpy(out, pos, sizeof(int64_t) * nd);
            out += nd;
        }
        advance(nd, b->sizes, pos);
    }
}
