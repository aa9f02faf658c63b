/* Stamps a kernel family's loops and dispatch table out of its .def rows
 * (pointwise_unary.def, pointwise.def), so a kernel is one row: its enum
 * value, its loop per dtype and its table entry cannot drift apart.
 *
 * A row says, for each dtype class (bool, the integers, the floats, the
 * complex numbers), either
 * MT_ON(expression) - the class computes the expression, which reads the
 * loaded operands x, y, z of the compute type `acc` (and the row's ctx) - or
 * MT_NO - the class is unsupported, its table entry NULL (the op's "not
 * implemented for" error). The integers' column may say MT_ON_U(expression)
 * instead: uint16/32/64 compute it too, where torch's kernel has them. */
#ifndef MT_KERNELS_KERNEL_ROWS_H
#define MT_KERNELS_KERNEL_ROWS_H

#include "typed.h"

#include <stdbool.h>

/* A row's out column: SAME (the compute dtype), PRED (bool), TER (the
 * compute dtype, from three operands) or PART (a complex compute dtype's
 * part type). */
#define MT_KROW_OUT_IS_PRED_SAME false
#define MT_KROW_OUT_IS_PRED_PRED true
#define MT_KROW_OUT_IS_PRED_TER false
#define MT_KROW_OUT_IS_PRED_PART false
#define MT_KROW_IS_PART_SAME false
#define MT_KROW_IS_PART_PRED false
#define MT_KROW_IS_PART_TER false
#define MT_KROW_IS_PART_PART true

/* MT_ON and MT_NO are not macros, so a column travels through the row
 * macros as one argument; at a leaf it is pasted into MT_KROW_SPLIT_<it>,
 * which gives two arguments: whether the class is supported, then the
 * expression. */
#define MT_KROW_SPLIT_MT_ON(...) 1, __VA_ARGS__
#define MT_KROW_SPLIT_MT_NO 0, ~
#define MT_KROW_SPLIT_MT_ON_U(...) 1, __VA_ARGS__
/* the unsigned dtypes' split of the integers' column */
#define MT_KROW_USPLIT_MT_ON(...) 0, ~
#define MT_KROW_USPLIT_MT_NO 0, ~
#define MT_KROW_USPLIT_MT_ON_U(...) 1, __VA_ARGS__

/* LOOP(SFX, T, NAME, EXPR) for one dtype, or nothing. */
#define MT_KROW_LOOP(E, SFX, T, NAME, LOOP, COL) \
    MT_KROW_LOOP_(SFX, T, NAME, LOOP, MT_KROW_SPLIT_##COL)
#define MT_KROW_LOOP_(SFX, T, NAME, LOOP, SPLIT) MT_KROW_LOOP__(SFX, T, NAME, LOOP, SPLIT)
#define MT_KROW_LOOP__(SFX, T, NAME, LOOP, HAS, ...) \
    MT_KROW_LOOP_##HAS(SFX, T, NAME, LOOP, __VA_ARGS__)
#define MT_KROW_LOOP_0(...)
#define MT_KROW_LOOP_1(SFX, T, NAME, LOOP, ...) LOOP(SFX, T, NAME, __VA_ARGS__)
#define MT_KROW_ULOOP(E, SFX, T, NAME, LOOP, COL) \
    MT_KROW_LOOP_(SFX, T, NAME, LOOP, MT_KROW_USPLIT_##COL)

/* Every loop of a row: NAME_<sfx> for each dtype its classes support. */
#define MT_KROW_LOOPS(NAME, LOOP, ON_BOOL, ON_INT, ON_FLOAT, ON_COMPLEX) \
    MT_KROW_LOOP(MT_BOOL, b1, uint8_t, NAME, LOOP, ON_BOOL)              \
    MT_FOR_INT_DTYPES_ARGS(MT_KROW_LOOP, NAME, LOOP, ON_INT)             \
    MT_FOR_UNSIGNED_DTYPES_ARGS(MT_KROW_ULOOP, NAME, LOOP, ON_INT)       \
    MT_FOR_FLOAT_DTYPES_ARGS(MT_KROW_LOOP, NAME, LOOP, ON_FLOAT)         \
    MT_FOR_COMPLEX_DTYPES_ARGS(MT_KROW_LOOP, NAME, LOOP, ON_COMPLEX)

/* [dtype] = NAME_<sfx>, or NULL where the class is unsupported. */
#define MT_KROW_CELL(E, SFX, T, NAME, COL) [E] = MT_KROW_CELL_(NAME##_##SFX, MT_KROW_SPLIT_##COL),
#define MT_KROW_CELL_(FN, SPLIT) MT_KROW_CELL__(FN, SPLIT)
#define MT_KROW_CELL__(FN, HAS, ...) MT_KROW_CELL_##HAS(FN)
#define MT_KROW_CELL_0(FN) NULL
#define MT_KROW_CELL_1(FN) FN
#define MT_KROW_UCELL(E, SFX, T, NAME, COL) [E] = MT_KROW_CELL_(NAME##_##SFX, MT_KROW_USPLIT_##COL),

/* clang-format off */
/* A row's table entry; float32 and float64 may be served by other loops
 * (F4_f4, F8_f8: the vector ones) than the row's own. */
#define MT_KROW_CELLS(NAME, F4, F8, ON_BOOL, ON_INT, ON_FLOAT, ON_COMPLEX) \
    {MT_KROW_CELL(MT_BOOL, b1, uint8_t, NAME, ON_BOOL)              \
     MT_FOR_INT_DTYPES_ARGS(MT_KROW_CELL, NAME, ON_INT)             \
     MT_KROW_CELL(MT_FLOAT16, f2, mt_f16, NAME, ON_FLOAT)           \
     MT_KROW_CELL(MT_BFLOAT16, bf, mt_bf16, NAME, ON_FLOAT)         \
     MT_KROW_CELL(MT_FLOAT32, f4, float, F4, ON_FLOAT)              \
     MT_KROW_CELL(MT_FLOAT64, f8, double, F8, ON_FLOAT)             \
     MT_FOR_COMPLEX_DTYPES_ARGS(MT_KROW_CELL, NAME, ON_COMPLEX)     \
     MT_FOR_UNSIGNED_DTYPES_ARGS(MT_KROW_UCELL, NAME, ON_INT)}
/* clang-format on */

#endif
