/* torch's memory formats (memory_format= arguments): the layout a new tensor
 * is given, and whether a tensor is contiguous in one. The binding turns a
 * minitorch.memory_format object into the value of the argument's .i. */
#ifndef MT_OPS_MEMORY_FORMAT_H
#define MT_OPS_MEMORY_FORMAT_H

#include "runtime/args.h"

typedef enum {
    MT_FORMAT_CONTIGUOUS = 0,
    MT_FORMAT_PRESERVE = 1,
    MT_FORMAT_CHANNELS_LAST = 2,
    MT_FORMAT_CHANNELS_LAST_3D = 3,
} mt_memory_format;

/* The memory_format argument at index i, or fallback when None. */
static inline mt_memory_format mt_format_arg(const mt_args *a, int i, mt_memory_format fallback)
{
    return mt_is_none(a, i) ? fallback : (mt_memory_format)a->v[i].i;
}

/* Dense strides of format f for sizes; -1 with torch's error when f needs
 * another rank (or is preserve_format, which names no layout by itself). */
int mt_format_strides(mt_memory_format f, int ndim, const int64_t *sizes, int64_t *strides);
/* torch's is_contiguous(memory_format=f) (preserve_format asks the default). */
bool mt_is_contiguous_as(const mt_tensor *t, mt_memory_format f);
/* torch's suggest_memory_format(): channels_last(_3d) when t's strides look
 * like that layout by torch's heuristic (ambiguous size-1 cases count as
 * contiguous), else contiguous_format. */
mt_memory_format mt_suggest_format(const mt_tensor *t);
/* An uninitialised tensor of src's shape laid out in f; preserve_format
 * keeps src's strides when src is dense and non-overlapping, else follows
 * src's dimension order, as torch's empty_like. */
mt_tensor *mt_new_in_format(const mt_tensor *src, mt_dtype dtype, mt_memory_format f);

#endif
