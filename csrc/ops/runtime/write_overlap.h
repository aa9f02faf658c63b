/* Which memory overlaps a row refuses when it writes into its input (in
 * place) or into out=, as torch's kernels for the same op do. */
#ifndef MT_OPS_WRITE_OVERLAP_H
#define MT_OPS_WRITE_OVERLAP_H

#include "table.h"

enum {
    MT_WRITE_INTERNAL = 1u << 0, /* elements of the target that are one location */
    MT_WRITE_PARTIAL = 1u << 1,  /* an input sharing part of the target's memory */
    MT_WRITE_FIRST = 1u << 2,    /* with PARTIAL: the first tensor input only */
    MT_WRITE_DISJOINT = 1u << 3, /* with PARTIAL: the inputs may not be the target either */
    /* with DISJOINT: but out= may be input 0, which torch copies into it first */
    MT_WRITE_OUT_SELF = 1u << 4,
};

/* The checks for the row of this name. */
unsigned mt_write_overlap_rule(const char *name);
/* Refuses, with torch's message, what op->write_overlap says about a call
 * writing into target; -1 with an mt_error. */
int mt_check_write_overlap(const mt_op *op, const mt_args *a, const mt_tensor *target);

#endif
