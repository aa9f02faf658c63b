/* Formulas of the sort family (csrc/ops/sort.def): each sends the gradient
 * back to the positions its op picked, as the selections of the reduce
 * family do (mt_indices_backward, formulas_reduce.h). */
#include "formula.h"
#include "formulas_reduce.h"

/* sort(input, dim, descending) */
int sort_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mt_indices_backward(n, g, out, n->args[1].i, true);
}

/* sort(input, *, stable, dim, descending) */
int sort_stable_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mt_indices_backward(n, g, out, n->args[2].i, true);
}

/* msort(input): sort along dim 0, positions recomputed from the saved input */
int msort_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mt_indices_backward(n, g, out, 0, true);
}

/* topk(input, k, dim, ...) */
int topk_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mt_indices_backward(n, g, out, n->args[2].i, true);
}

/* kthvalue(input, k, dim, keepdim) */
int kthvalue_backward(mt_node *n, mt_tensor **g, mt_tensor **out)
{
    return mt_indices_backward(n, g, out, n->args[2].i, n->args[3].i);
}
