/* Scatter-add helpers shared by the view and indexing formulas. */
#ifndef MT_AUTOGRAD_FORMULAS_SHAPE_H
#define MT_AUTOGRAD_FORMULAS_SHAPE_H

#include "node.h"

/* arange(numel) shaped as edge e's input (int64). */
mt_tensor *mt_positions(mt_node *n, int e);
/* *acc (flat, edge e's dtype, made on first use) += g at positions pos. */
int mt_embed_into(mt_node *n, int e, mt_tensor **acc, mt_tensor *g, mt_tensor *pos);
/* The accumulator shaped as edge e's input; consumes acc. */
mt_tensor *mt_embed_finish(mt_node *n, int e, mt_tensor *acc);
/* Zeros shaped as edge e's input with g added at positions pos. */
mt_tensor *mt_embed(mt_node *n, int e, mt_tensor *g, mt_tensor *pos);
/* Edge 0's gradient (*out) from g at the positions view(arange) picks;
 * consumes pos. */
int mt_embed_view(mt_node *n, mt_tensor *g, mt_tensor **out, mt_tensor *pos);

#endif
