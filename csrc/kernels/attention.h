/* Fused scaled dot-product attention (softmax(scale * Q K^T [causal]) V) and
 * its backward, one head at a time. */
#ifndef MT_KERNELS_ATTENTION_H
#define MT_KERNELS_ATTENTION_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/tensor.h"

/* One operand: its first matrix's data, row and column strides and a stride
 * per batch dim (elements). The weights, out and the gradients are written
 * with columns contiguous (cs is not read). */
typedef struct {
    char *data;
    int64_t rs, cs;
    int64_t bs[MT_MAX_DIMS];
} mt_attn_operand;

/* nbatch dims of heads, each a product of a (l, e) query, an (s, e) key and an
 * (s, ev) value; the weights are (l, s) per head. */
typedef struct {
    mt_dtype d; /* MT_FLOAT32 or MT_FLOAT64 */
    int nbatch;
    int64_t batch[MT_MAX_DIMS];
    int64_t l, s, e, ev;
    double scale;
    bool causal; /* query i sees keys j <= i */
} mt_attn_shape;

/* out = w @ v with w = softmax(scale * q @ k^T) along each row (the causal
 * mask's entries 0), a row with no finite score giving zeros. Returns -1 with
 * the error set (out of memory). */
int mt_attention_forward(const mt_attn_shape *s, const mt_attn_operand *q, const mt_attn_operand *k,
                         const mt_attn_operand *v, const mt_attn_operand *w,
                         const mt_attn_operand *out);

/* The gradients of q, k and v from the output's gradient g and the
 * forward's weights w. */
int mt_attention_backward(const mt_attn_shape *s, const mt_attn_operand *g,
                          const mt_attn_operand *q, const mt_attn_operand *k,
                          const mt_attn_operand *v, const mt_attn_operand *w,
                          const mt_attn_operand *dq, const mt_attn_operand *dk,
                          const mt_attn_operand *dv);

#endif
