#include "binary.h"
#include "typed.h"

/* Compute types: narrow floats widen to float, bool computes as uint8. */
#define ACC_b1 uint8_t
#define ACC_u1 uint8_t
#define ACC_i1 int8_t
#define ACC_i2 int16_t
#define ACC_i4 int32_t
#define ACC_i8 int64_t
#define ACC_f2 float
#define ACC_bf float
#define ACC_f4 float
#define ACC_f8 double

#define ALPHA_b1(c) ((c)->alpha_i)
#define ALPHA_u1(c) ((c)->alpha_i)
#define ALPHA_i1(c) ((c)->alpha_i)
#define ALPHA_i2(c) ((c)->alpha_i)
#define ALPHA_i4(c) ((c)->alpha_i)
#define ALPHA_i8(c) ((c)->alpha_i)
#define ALPHA_f2(c) ((float)(c)->alpha_f)
#define ALPHA_bf(c) ((float)(c)->alpha_f)
#define ALPHA_f4(c) ((float)(c)->alpha_f)
#define ALPHA_f8(c) ((c)->alpha_f)

/* One loop per (op, dtype): a contiguous path the compiler vectorises, a
 * scalar-operand path, and the general strided path. */
#define BINARY_LOOP(NAME, SFX, T, EXPR)                                                    \
    __attribute__((target_clones("avx2", "default"))) static void                          \
        NAME##_##SFX(char **data, const int64_t *st, int64_t n, void *vctx)                \
    {                                                                                      \
        const mt_binary_ctx *ctx = vctx;                                                   \
        (void)ctx;                                                                         \
        typedef ACC_##SFX acc;                                                             \
        if (st[0] == sizeof(T) && st[1] == sizeof(T) && st[2] == sizeof(T)) {              \
            T *restrict o = (T *)data[0];                                                  \
            const T *restrict pa = (const T *)data[1], *restrict pb = (const T *)data[2];  \
            for (int64_t i = 0; i < n; i++) {                                              \
                acc x = MT_LOAD_##SFX(pa[i]), y = MT_LOAD_##SFX(pb[i]);                    \
                o[i] = MT_STORE_##SFX(EXPR);                                               \
            }                                                                              \
            return;                                                                        \
        }                                                                                  \
        if (st[0] == sizeof(T) && st[1] == sizeof(T) && st[2] == 0) {                      \
            T *restrict o = (T *)data[0];                                                  \
            const T *restrict pa = (const T *)data[1];                                     \
            const acc y = MT_LOAD_##SFX(*(const T *)data[2]);                              \
            for (int64_t i = 0; i < n; i++) {                                              \
                acc x = MT_LOAD_##SFX(pa[i]);                                              \
                o[i] = MT_STORE_##SFX(EXPR);                                               \
            }                                                                              \
            return;                                                                        \
        }                                                                                  \
        char *o = data[0];                                                                 \
        const char *pa = data[1], *pb = data[2];                                           \
        for (int64_t i = 0; i < n; i++, o += st[0], pa += st[1], pb += st[2]) {            \
            acc x = MT_LOAD_##SFX(*(const T *)pa), y = MT_LOAD_##SFX(*(const T *)pb);      \
            *(T *)o = MT_STORE_##SFX(EXPR);                                                \
        }                                                                                  \
    }

#define ADD_EXPR(SFX) (acc)(x + ALPHA_##SFX(ctx) * y)
#define MUL_EXPR(SFX) (acc)(x * y)

#define DEFINE_ALL(DE, SFX, T)                              \
    BINARY_LOOP(add, SFX, T, ADD_EXPR(SFX))                 \
    BINARY_LOOP(mul, SFX, T, MUL_EXPR(SFX))
MT_FOR_ALL_DTYPES(DEFINE_ALL)

#define ROW(NAME) {NAME##_b1, NAME##_u1, NAME##_i1, NAME##_i2, NAME##_i4, NAME##_i8, \
                   NAME##_f2, NAME##_bf, NAME##_f4, NAME##_f8}
static const mt_loop_fn table[MT_NUM_BINARY][MT_NUM_DTYPES] = {
    [MT_BIN_ADD] = ROW(add),
    [MT_BIN_MUL] = ROW(mul),
};

mt_loop_fn mt_binary_loop(mt_binary_op op, mt_dtype dtype)
{
    return table[op][dtype];
}
