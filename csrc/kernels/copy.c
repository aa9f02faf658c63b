#include "copy.h"
#include "typed.h"

#include <string.h>

#define MT_COPY_GRAIN 32768

#define CAST_LOOP(DSFX, DT, SSFX, ST)                                                           \
    static void cast_##DSFX##_##SSFX(char **data, const int64_t *strides, int64_t n, void *ctx) \
    {                                                                                           \
        (void)ctx;                                                                              \
        char *d = data[0];                                                                      \
        const char *s = data[1];                                                                \
        int64_t ds = strides[0], ss = strides[1];                                               \
        if (ds == sizeof(DT) && ss == sizeof(ST)) {                                             \
            DT *restrict dp = (DT *)d;                                                          \
            const ST *restrict sp = (const ST *)s;                                              \
            for (int64_t i = 0; i < n; i++)                                                     \
                dp[i] = MT_STORE_##DSFX(MT_LOAD_##SSFX(sp[i]));                                 \
            return;                                                                             \
        }                                                                                       \
        for (int64_t i = 0; i < n; i++, d += ds, s += ss)                                       \
            *(DT *)d = MT_STORE_##DSFX(MT_LOAD_##SSFX(*(const ST *)s));                         \
    }

#define CAST_FROM(SE, SSFX, ST, DSFX, DT) CAST_LOOP(DSFX, DT, SSFX, ST)
#define CAST_FROM_ALL(DE, DSFX, DT) MT_FOR_EVERY_DTYPE_ARGS(CAST_FROM, DSFX, DT)
MT_FOR_EVERY_DTYPE(CAST_FROM_ALL)

#define CAST_ENTRY(SE, SSFX, ST, DSFX) [SE] = cast_##DSFX##_##SSFX,
#define ROW(DE, DSFX, DT) [DE] = {MT_FOR_EVERY_DTYPE_ARGS(CAST_ENTRY, DSFX)},
static const mt_loop_fn cast_table[MT_NUM_DTYPES][MT_NUM_DTYPES] = {MT_FOR_EVERY_DTYPE(ROW)};

mt_loop_fn mt_cast_loop(mt_dtype dst, mt_dtype src) { return cast_table[dst][src]; }

static void memcpy_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    (void)strides;
    memcpy(data[0], data[1], (size_t)n * (size_t)(intptr_t)ctx);
}

static void neg_f4_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    (void)ctx;
    char *d = data[0];
    for (int64_t i = 0; i < n; i++, d += strides[0])
        *(float *)d = -*(float *)d;
}

static void neg_f2_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    (void)ctx;
    char *d = data[0];
    for (int64_t i = 0; i < n; i++, d += strides[0])
        *(uint16_t *)d ^= 0x8000u;
}

static void neg_f8_loop(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    (void)ctx;
    char *d = data[0];
    for (int64_t i = 0; i < n; i++, d += strides[0])
        *(double *)d = -*(double *)d;
}

void mt_conj_inplace(mt_tensor *t)
{
    if (t->numel == 0 || !mt_is_complex(t->dtype))
        return;
    mt_tensor im = *t;
    im.dtype = mt_complex_part(t->dtype);
    for (int d = 0; d < t->ndim; d++)
        im.strides[d] = 2 * t->strides[d];
    im.offset = 2 * t->offset + 1;
    const mt_tensor *ops[1] = {&im};
    mt_iter it;
    mt_iter_init(&it, 1, ops, im.ndim, im.sizes);
    mt_iter_run(&it,
                im.dtype == MT_FLOAT32   ? neg_f4_loop
                : im.dtype == MT_FLOAT16 ? neg_f2_loop
                                         : neg_f8_loop,
                NULL, MT_COPY_GRAIN);
}

static void copy_plain(mt_tensor *dst, const mt_tensor *src);

void mt_copy(mt_tensor *dst, const mt_tensor *src)
{
    if (dst->numel == 0)
        return;
    copy_plain(dst, src);
    if (mt_is_conj(dst) != mt_is_conj(src) && mt_is_complex(dst->dtype) &&
        mt_is_complex(src->dtype))
        mt_conj_inplace(dst);
}

static void copy_plain(mt_tensor *dst, const mt_tensor *src)
{
    const mt_tensor *ops[2] = {dst, src};
    mt_iter it;
    mt_iter_init(&it, 2, ops, dst->ndim, dst->sizes);
    int isz = mt_itemsize(dst->dtype);
    if (dst->dtype == src->dtype && it.strides[0][0] == isz && it.strides[0][1] == isz &&
        (it.ndim == 1 || it.shape[0] * isz >= 256)) {
        mt_iter_run(&it, memcpy_loop, (void *)(intptr_t)isz, MT_COPY_GRAIN);
        return;
    }
    mt_iter_run(&it, cast_table[dst->dtype][src->dtype], NULL, MT_COPY_GRAIN);
}

void mt_fill_complex(mt_tensor *dst, double re, double im)
{
    mt_c128 v = mt_cmplx(re, im);
    mt_storage st = {.refcount = 1, .data = &v};
    mt_tensor src = {.storage = &st, .numel = 1, .ndim = 0, .dtype = MT_COMPLEX128};
    mt_copy(dst, &src);
}

void mt_fill(mt_tensor *dst, double d, int64_t i, int is_int)
{
    /* A 0-dim source on the stack, broadcast by the iterator with stride 0. */
    mt_storage st = {.refcount = 1, .data = is_int ? (void *)&i : (void *)&d};
    mt_tensor src = {
        .storage = &st, .numel = 1, .ndim = 0, .dtype = is_int ? MT_INT64 : MT_FLOAT64};
    mt_copy(dst, &src);
}
