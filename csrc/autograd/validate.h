/* Gradients re-entering the engine from code it does not control: what a
 * user hook returns in place of a gradient, and what a node's backward (a
 * custom Function's above all) hands on along its edges. The formulas
 * downstream index by the shapes they recorded, so these are checked here,
 * with torch's messages, before any of them reads the values. */
#ifndef MT_AUTOGRAD_VALIDATE_H
#define MT_AUTOGRAD_VALIDATE_H

#include "node.h"

/* A hook named hook returned got in place of was: 0 when it keeps was's
 * dtype and shape, else -1 with torch's error (there is one device). */
int mt_check_hook_value(const mt_tensor *was, const mt_tensor *got, const char *hook);

/* torch's validate_outputs for the gradients gout[e] node n's backward
 * made: a gradient whose shape broadcasts to its input's is summed down to
 * it and one of another dtype is cast to the input's (replacing gout[e]);
 * any other shape fails with torch's "invalid gradient" error. */
int mt_validate_outputs(mt_node *n, mt_tensor **gout);

#endif
