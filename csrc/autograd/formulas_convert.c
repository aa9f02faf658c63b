/* Formulas of the dtype conversions: a copy to another dtype passes the
 * gradient back in the input's dtype. */
#include "formula.h"

int to_copy_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    out[0] = mt_call(MT_OP_to, "TD", g[0], (int)n->edge_meta[0].dtype);
    return out[0] ? 0 : -1;
}
