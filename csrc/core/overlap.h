/* Whether tensors share memory, as torch decides before it writes: what it
 * can prove about one tensor's elements and about a written-to tensor and an
 * input. Reads tensor metadata only. */
#ifndef MT_CORE_OVERLAP_H
#define MT_CORE_OVERLAP_H

#include "tensor.h"

typedef enum {
    MT_OVERLAP_NO,
    MT_OVERLAP_FULL,     /* the same elements in the same order */
    MT_OVERLAP_PARTIAL,  /* some elements shared, or the same ones in another order */
    MT_OVERLAP_TOO_HARD, /* a layout the test cannot decide */
} mt_overlap;

/* True only when two elements of t are provably one memory location: a
 * dimension of size > 1 with stride 0 in a tensor that is not dense. */
bool mt_has_internal_overlap(const mt_tensor *t);
mt_overlap mt_overlap_between(const mt_tensor *a, const mt_tensor *b);

/* torch's refusals; -1 with an mt_error. */
int mt_check_internal_overlap(const mt_tensor *written);
/* Refuses PARTIAL; with full also FULL (an input that must not be the
 * written-to tensor at all). */
int mt_check_overlap(const mt_tensor *written, const mt_tensor *input, bool full);

#endif
