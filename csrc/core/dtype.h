/* Element types: sizes, names and torch's promotion lattice. */
#ifndef MT_CORE_DTYPE_H
#define MT_CORE_DTYPE_H

#include <stdint.h>
#include <stdbool.h>

typedef enum {
    MT_BOOL = 0,
    MT_UINT8,
    MT_INT8,
    MT_INT16,
    MT_INT32,
    MT_INT64,
    MT_FLOAT16,
    MT_BFLOAT16,
    MT_FLOAT32,
    MT_FLOAT64,
    /* complex numbers as (real, imaginary) pairs of float32 and float64 */
    MT_COMPLEX64,
    MT_COMPLEX128,
    /* torch's barebones dtypes, which hold and move values (creation, casts,
     * copies, views, indexing, printing) but reach only the rows written for
     * them (ops/runtime/dtype_gate.h): unsigned 16, 32 and 64-bit
     * integers, and complex32 as (real, imaginary) pairs of float16 */
    MT_UINT16,
    MT_UINT32,
    MT_UINT64,
    MT_COMPLEX32,
    MT_NUM_DTYPES
} mt_dtype;

/* Categories order promotion: a Python scalar only moves a tensor up a category. */
typedef enum { MT_CAT_BOOL = 0, MT_CAT_INT = 1, MT_CAT_FLOAT = 2, MT_CAT_COMPLEX = 3 } mt_category;

typedef struct {
    const char *name;        /* "float32" */
    const char *alias;       /* "float" or NULL */
    const char *scalar_name; /* "Float": used in torch's messages */
    int itemsize;
    mt_category category;
    bool is_signed;
    const char *cpp_name; /* "float": the C++ type torch's out= messages name */
} mt_dtype_info;

extern const mt_dtype_info mt_dtype_infos[MT_NUM_DTYPES];

static inline int mt_itemsize(mt_dtype d) { return mt_dtype_infos[d].itemsize; }
static inline bool mt_is_floating(mt_dtype d) { return mt_dtype_infos[d].category == MT_CAT_FLOAT; }
static inline bool mt_is_integral(mt_dtype d, bool include_bool)
{
    mt_category c = mt_dtype_infos[d].category;
    return c == MT_CAT_INT || (include_bool && c == MT_CAT_BOOL);
}
static inline mt_category mt_category_of(mt_dtype d) { return mt_dtype_infos[d].category; }
/* Tests of the enum value, not the table: the runner asks them of every
 * tensor argument of every call. */
static inline bool mt_is_complex(mt_dtype d)
{
    return ((1u << d) & ((1u << MT_COMPLEX64) | (1u << MT_COMPLEX128) | (1u << MT_COMPLEX32))) != 0;
}
/* The barebones dtypes close the enum. */
static inline bool mt_is_barebones(mt_dtype d) { return d >= MT_UINT16; }
/* Floating or complex: the dtypes that carry gradients. */
static inline bool mt_is_inexact(mt_dtype d) { return mt_dtype_infos[d].category >= MT_CAT_FLOAT; }
/* The part type of a complex dtype (complex64 -> float32); others unchanged. */
static inline mt_dtype mt_complex_part(mt_dtype d)
{
    return d == MT_COMPLEX64    ? MT_FLOAT32
           : d == MT_COMPLEX128 ? MT_FLOAT64
           : d == MT_COMPLEX32  ? MT_FLOAT16
                                : d;
}
/* The complex dtype holding a floating dtype's values (float64 ->
 * complex128; the narrow floats -> complex64: complex32, float16's own,
 * computes nothing here, so a float16 tensor meeting a Python complex
 * computes in complex64); complex dtypes unchanged. */
static inline mt_dtype mt_complex_of(mt_dtype d)
{
    return d == MT_FLOAT64 || d == MT_COMPLEX128 ? MT_COMPLEX128
           : d == MT_COMPLEX32                   ? MT_COMPLEX32
                                                 : MT_COMPLEX64;
}

mt_dtype mt_promote_types(mt_dtype a, mt_dtype b);
/* torch refuses to promote uint16/32/64 with any other dtype but the
 * floats: 0, or -1 with torch's error. */
int mt_check_promotion(mt_dtype a, mt_dtype b);
bool mt_can_cast(mt_dtype from, mt_dtype to);

/* torch's result_type: operands ranked by kind; a lower-ranked operand only
 * matters when it is of a higher category. */
typedef enum {
    MT_OPERAND_DIM = 0,
    MT_OPERAND_ZERO_DIM = 1,
    MT_OPERAND_WRAPPED = 2
} mt_operand_kind;
mt_dtype mt_result_type(int n, const mt_dtype *dtypes, const mt_operand_kind *kinds,
                        mt_dtype default_float);
/* The same into *out, or -1 with torch's error where it promotes a pair
 * torch refuses (mt_check_promotion). */
int mt_result_type_checked(int n, const mt_dtype *dtypes, const mt_operand_kind *kinds,
                           mt_dtype default_float, mt_dtype *out);

/* The dtype of new floating tensors (minitorch.get_default_dtype()). */
extern mt_dtype mt_default_dtype;

#endif
