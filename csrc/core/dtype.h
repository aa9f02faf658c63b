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
static inline bool mt_is_complex(mt_dtype d) { return d >= MT_COMPLEX64; }
/* Floating or complex: the dtypes that carry gradients. */
static inline bool mt_is_inexact(mt_dtype d) { return mt_dtype_infos[d].category >= MT_CAT_FLOAT; }
/* The part type of a complex dtype (complex64 -> float32); others unchanged. */
static inline mt_dtype mt_complex_part(mt_dtype d)
{
    return d == MT_COMPLEX64 ? MT_FLOAT32 : d == MT_COMPLEX128 ? MT_FLOAT64 : d;
}
/* The complex dtype holding a floating dtype's values (float64 ->
 * complex128; the narrow floats, which have no complex of their own here,
 * -> complex64); complex dtypes unchanged. */
static inline mt_dtype mt_complex_of(mt_dtype d)
{
    return d == MT_FLOAT64 || d == MT_COMPLEX128 ? MT_COMPLEX128 : MT_COMPLEX64;
}

mt_dtype mt_promote_types(mt_dtype a, mt_dtype b);
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

/* The dtype of new floating tensors (minitorch.get_default_dtype()). */
extern mt_dtype mt_default_dtype;

#endif
