/* dtype conversion as the convert rows do it, for the binding's type(),
 * which reads its dtype from a Python object. */
#ifndef MT_OPS_CONVERT_H
#define MT_OPS_CONVERT_H

#include "runtime/args.h"

/* torch's to(): t itself (a new reference) when it already has dtype and no
 * copy is asked for, else a converted copy laid out like t when t is dense. */
mt_tensor *mt_to_dtype(mt_tensor *t, mt_dtype dtype, bool copy);
/* torch's warning when a cast from dtype from to dtype to drops imaginary
 * parts; -1 when the warning was turned into an error. */
int mt_warn_complex_to_real(mt_dtype from, mt_dtype to);

#endif
