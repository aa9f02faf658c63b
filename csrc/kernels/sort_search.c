/* Binary search of every value in its row of sorted boundaries (sort_search.h). */
#include "sort_search.h"
#include "typed.h"

/* Written as torch's search: a comparison with NaN is false, so NaN (as a
 * boundary or a value) moves the search right. */
#define MT_BEFORE(a, b, right) ((right) ? !((a) > (b)) : !((a) >= (b)))

#define SEARCH(E, S, T)                                                                   \
    static void search_##S(int64_t *o64, int32_t *o32, const void *bv, const void *vv,    \
                           const int64_t *sorter, int64_t rows, int64_t brows, int64_t n, \
                           int64_t m, bool right)                                         \
    {                                                                                     \
        const T *b = bv, *v = vv;                                                         \
        for (int64_t r = 0; r < rows; r++) {                                              \
            const T *row = b + (brows > 1 ? r * n : 0);                                   \
            const int64_t *perm = sorter ? sorter + (brows > 1 ? r * n : 0) : NULL;       \
            for (int64_t j = 0; j < m; j++) {                                             \
                MT_ACC_##S x = MT_LOAD_##S(v[r * m + j]);                                 \
                int64_t lo = 0, hi = n;                                                   \
                while (lo < hi) {                                                         \
                    int64_t mid = lo + (hi - lo) / 2;                                     \
                    MT_ACC_##S y = MT_LOAD_##S(row[perm ? perm[mid] : mid]);              \
                    if (MT_BEFORE(y, x, right))                                           \
                        lo = mid + 1;                                                     \
                    else                                                                  \
                        hi = mid;                                                         \
                }                                                                         \
                if (o64)                                                                  \
                    o64[r * m + j] = lo;                                                  \
                else                                                                      \
                    o32[r * m + j] = (int32_t)lo;                                         \
            }                                                                             \
        }                                                                                 \
    }
MT_FOR_ALL_DTYPES(SEARCH)
#undef SEARCH

typedef void (*search_fn)(int64_t *, int32_t *, const void *, const void *, const int64_t *,
                          int64_t, int64_t, int64_t, int64_t, bool);

void mt_searchsorted(mt_tensor *out, const mt_tensor *bounds, const mt_tensor *values,
                     const int64_t *sorter, int64_t rows, int64_t m, bool right)
{
    static const search_fn fns[MT_NUM_DTYPES] = MT_ROW(search);
    int64_t n = bounds->sizes[bounds->ndim - 1];
    int64_t brows = bounds->ndim > 1 ? rows : 1;
    bool wide = out->dtype == MT_INT64;
    fns[values->dtype](wide ? (int64_t *)mt_data(out) : NULL, wide ? NULL : (int32_t *)mt_data(out),
                       mt_data(bounds), mt_data(values), sorter, rows, brows, n, m, right);
}
