#include "dtype.h"
#include "error.h"
#include "hot.h"

mt_dtype mt_default_dtype = MT_FLOAT32;

#include <stddef.h>

const mt_dtype_info mt_dtype_infos[MT_NUM_DTYPES] = {
    [MT_BOOL] = {"bool", NULL, "Bool", 1, MT_CAT_BOOL, false, "bool"},
    [MT_UINT8] = {"uint8", NULL, "Byte", 1, MT_CAT_INT, false, "unsigned char"},
    [MT_INT8] = {"int8", NULL, "Char", 1, MT_CAT_INT, true, "signed char"},
    [MT_INT16] = {"int16", "short", "Short", 2, MT_CAT_INT, true, "short int"},
    [MT_INT32] = {"int32", "int", "Int", 4, MT_CAT_INT, true, "int"},
    [MT_INT64] = {"int64", "long", "Long", 8, MT_CAT_INT, true, "long int"},
    [MT_FLOAT16] = {"float16", "half", "Half", 2, MT_CAT_FLOAT, true, "c10::Half"},
    [MT_BFLOAT16] = {"bfloat16", NULL, "BFloat16", 2, MT_CAT_FLOAT, true, "c10::BFloat16"},
    [MT_FLOAT32] = {"float32", "float", "Float", 4, MT_CAT_FLOAT, true, "float"},
    [MT_FLOAT64] = {"float64", "double", "Double", 8, MT_CAT_FLOAT, true, "double"},
    [MT_COMPLEX64] = {"complex64", "cfloat", "ComplexFloat", 8, MT_CAT_COMPLEX, true,
                      "c10::complex<float>"},
    [MT_COMPLEX128] = {"complex128", "cdouble", "ComplexDouble", 16, MT_CAT_COMPLEX, true,
                       "c10::complex<double>"},
    [MT_UINT16] = {"uint16", NULL, "UInt16", 2, MT_CAT_INT, false, "short unsigned int"},
    [MT_UINT32] = {"uint32", NULL, "UInt32", 4, MT_CAT_INT, false, "unsigned int"},
    [MT_UINT64] = {"uint64", NULL, "UInt64", 8, MT_CAT_INT, false, "long unsigned int"},
    [MT_COMPLEX32] = {"complex32", "chalf", "ComplexHalf", 4, MT_CAT_COMPLEX, true,
                      "c10::complex<c10::Half>"},
};

/* torch's promotion table restricted to our dtypes (c10/core/ScalarType.cpp). */
#define b1 MT_BOOL
#define u1 MT_UINT8
#define i1 MT_INT8
#define i2 MT_INT16
#define i4 MT_INT32
#define i8 MT_INT64
#define f2 MT_FLOAT16
#define bf MT_BFLOAT16
#define f4 MT_FLOAT32
#define f8 MT_FLOAT64
#define c8 MT_COMPLEX64
#define cd MT_COMPLEX128
#define u2 MT_UINT16
#define u4 MT_UINT32
#define u8 MT_UINT64
#define c4 MT_COMPLEX32
/* where torch refuses (uint16/32/64 with anything but the floats and
 * themselves): mt_check_promotion says so before a caller reads it */
#define no MT_INT64
static const mt_dtype promote_table[MT_NUM_DTYPES][MT_NUM_DTYPES] = {
    /*        b1  u1  i1  i2  i4  i8  f2  bf  f4  f8  c8  cd  u2  u4  u8  c4 */
    /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c8, cd, no, no, no, c4},
    /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8, c8, cd, no, no, no, c4},
    /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8, c8, cd, no, no, no, c4},
    /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8, c8, cd, no, no, no, c4},
    /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8, c8, cd, no, no, no, c4},
    /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c8, cd, no, no, no, c4},
    /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8, c8, cd, f2, f2, f2, c4},
    /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8, c8, cd, bf, bf, bf, c8},
    /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, c8, cd, f4, f4, f4, c8},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, cd, cd, f8, f8, f8, cd},
    /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, cd, c8, cd, no, no, no, c8},
    /* cd */ {cd, cd, cd, cd, cd, cd, cd, cd, cd, cd, cd, cd, no, no, no, cd},
    /* u2 */ {no, no, no, no, no, no, f2, bf, f4, f8, no, no, u2, no, no, no},
    /* u4 */ {no, no, no, no, no, no, f2, bf, f4, f8, no, no, no, u4, no, no},
    /* u8 */ {no, no, no, no, no, no, f2, bf, f4, f8, no, no, no, no, u8, no},
    /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c8, c8, cd, c8, cd, no, no, no, c4},
};
#undef no

mt_dtype mt_promote_types(mt_dtype a, mt_dtype b) { return promote_table[a][b]; }

static bool wide_unsigned(mt_dtype d) { return d == MT_UINT16 || d == MT_UINT32 || d == MT_UINT64; }

int mt_check_promotion(mt_dtype a, mt_dtype b)
{
    if (a == b || !(wide_unsigned(a) || wide_unsigned(b)) || mt_is_floating(a) || mt_is_floating(b))
        return 0;
    return mt_error(MT_ERR_RUNTIME,
                    "Promotion for uint16, uint32, uint64 types is not supported, attempted to "
                    "promote %s and %s",
                    mt_dtype_infos[a].scalar_name, mt_dtype_infos[b].scalar_name);
}

/* torch.can_cast: casting may not lower the category (float->int, int->bool). */
bool mt_can_cast(mt_dtype from, mt_dtype to) { return mt_category_of(from) <= mt_category_of(to); }

/* a promotion of the result type's fold: *refused set (when not NULL) on a
 * pair torch refuses */
static mt_dtype promote(mt_dtype a, mt_dtype b, bool *refused)
{
    if (refused && !*refused && mt_check_promotion(a, b) < 0)
        *refused = true;
    return mt_promote_types(a, b);
}

static mt_dtype combine_categories(int have_hi, mt_dtype hi, int have_lo, mt_dtype lo,
                                   bool *refused)
{
    if (!have_hi)
        return lo;
    if (!have_lo)
        return hi;
    if (mt_is_complex(hi))
        return hi;
    /* a complex operand of lower rank keeps a floating operand's precision */
    if (mt_is_complex(lo))
        return mt_is_floating(hi) ? mt_complex_of(hi) : lo;
    if (mt_is_floating(hi))
        return hi;
    if (hi == MT_BOOL || mt_is_floating(lo))
        return promote(hi, lo, refused);
    return hi;
}

static mt_dtype result_type(int n, const mt_dtype *dtypes, const mt_operand_kind *kinds,
                            mt_dtype default_float, bool *refused)
{
    mt_dtype acc[3] = {MT_BOOL, MT_BOOL, MT_BOOL};
    int have[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        mt_dtype d = dtypes[i];
        /* a Python float counts as the default dtype, a Python complex as
         * the default's complex, a Python int as int64 */
        if (kinds[i] == MT_OPERAND_WRAPPED && mt_is_floating(d))
            d = default_float;
        else if (kinds[i] == MT_OPERAND_WRAPPED && mt_is_complex(d))
            d = mt_complex_of(default_float);
        acc[kinds[i]] = have[kinds[i]] ? promote(acc[kinds[i]], d, refused) : d;
        have[kinds[i]] = 1;
    }
    mt_dtype lo = combine_categories(have[1], acc[1], have[2], acc[2], refused);
    return combine_categories(have[0], acc[0], have[1] || have[2], lo, refused);
}

MT_HOT mt_dtype mt_result_type(int n, const mt_dtype *dtypes, const mt_operand_kind *kinds,
                               mt_dtype default_float)
{
    return result_type(n, dtypes, kinds, default_float, NULL);
}

int mt_result_type_checked(int n, const mt_dtype *dtypes, const mt_operand_kind *kinds,
                           mt_dtype default_float, mt_dtype *out)
{
    bool refused = false;
    *out = result_type(n, dtypes, kinds, default_float, &refused);
    return refused ? -1 : 0;
}
