/* The derivatives of custom C ops: the registrant's backward and jvp behind
 * a kind of the op's own, named as torch names a custom op's nodes
 * (GeneratedBackwardFor_mylib_myadd_defaultBackward). */
#ifndef MT_AUTOGRAD_CUSTOM_KIND_H
#define MT_AUTOGRAD_CUSTOM_KIND_H

#include "node.h"
#include "../ops/runtime/custom.h"

/* The backward gets the gradient of the output and fills grad_inputs[p]
 * (new references, or NULL for zero) for the Tensor parameters p it has
 * gradients for; the jvp gets the tangent of each Tensor parameter (NULL for
 * zero) and makes the output's. Both return 0, or -1 with an error set. */
typedef int (*mt_custom_backward)(mt_node *n, mt_tensor *grad_output, mt_tensor **grad_inputs);
typedef int (*mt_custom_jvp)(mt_node *n, mt_tensor *const *tangents, mt_tensor **tangent_out);

/* Registers a custom C op (mt_custom_register) that records with a kind of
 * its own around backward (which may be NULL: backward then raises torch's
 * "no autograd formula") and jvp (NULL: derived from backward); its kernel
 * runs below autograd. The row's id, or -1 with an error set. */
int mt_custom_register_c(const char *schema, mt_custom_kernel kernel, mt_custom_backward backward,
                         mt_custom_jvp jvp);

#endif
