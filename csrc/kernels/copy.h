/* Copy with dtype conversion between any two dtypes, broadcasting src. */
#ifndef MT_KERNELS_COPY_H
#define MT_KERNELS_COPY_H

#include "../core/tensor.h"
#include "iter.h"

/* dst <- src (src broadcast to dst's shape, converted to dst's dtype). The
 * caller guarantees the shapes broadcast. A complex dst and src whose
 * conjugate bits differ get the conjugates, as torch's copy_: dst reads as
 * src reads. */
void mt_copy(mt_tensor *dst, const mt_tensor *src);
/* Negates the imaginary part of every element of complex t in its memory
 * (its conjugate bit is left alone). */
void mt_conj_inplace(mt_tensor *t);
/* The inner cast loop from one dtype to another (data[0]=dst, data[1]=src). */
mt_loop_fn mt_cast_loop(mt_dtype dst, mt_dtype src);
/* Sets every element of dst to a value held as double (is_int=0) or int64. */
void mt_fill(mt_tensor *dst, double d, int64_t i, int is_int);
/* Every element of dst set to re + im*j (its real part in a real dst). */
void mt_fill_complex(mt_tensor *dst, double re, double im);

#endif
