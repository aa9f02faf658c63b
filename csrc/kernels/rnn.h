/* One layer of an Elman RNN, LSTM or GRU in one direction over a whole
 * padded sequence, forward and backward, float32/float64: each step runs the
 * input and hidden projections and one fused pass for the gates, and keeps
 * what the backward needs in a workspace. */
#ifndef MT_KERNELS_RNN_H
#define MT_KERNELS_RNN_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/tensor.h"

typedef enum { MT_RNN_TANH, MT_RNN_RELU, MT_RNN_LSTM, MT_RNN_GRU } mt_rnn_mode;

/* Gate blocks of the mode (1, 1, 4, 3): W_hh has gates * H rows. */
int mt_rnn_gates(mt_rnn_mode mode);
/* Values per (step, sequence) row of the workspace, in units of H:
 * tanh/relu h; LSTM i f g o c h; GRU r z n (W_hn h + b_hn) h. */
int mt_rnn_workspace_width(mt_rnn_mode mode);

/* All tensors contiguous and of one dtype. x (T, N, I), hx and cx (N, H)
 * (cx only for LSTM, else NULL), w_ih (G, I), w_hh (G, H), b_ih and b_hh (G)
 * or NULL, G = gates * H; writes out (T, N, H), hn (N, H), cn (N, H; LSTM
 * only) and ws (T, N, width * H). reverse runs the steps from T - 1 down. */
int mt_rnn_forward(mt_rnn_mode mode, bool reverse, const mt_tensor *x, const mt_tensor *hx,
                   const mt_tensor *cx, const mt_tensor *w_ih, const mt_tensor *b_ih,
                   const mt_tensor *w_hh, const mt_tensor *b_hh, mt_tensor *out, mt_tensor *hn,
                   mt_tensor *cn, mt_tensor *ws);

/* The gradients of mt_rnn_forward from those of out, hn and cn (each may be
 * NULL: zero), with ws, x, hx, cx, w_ih and w_hh of the forward: d_x (T, N,
 * I), d_hx (N, H), d_cx (N, H; LSTM only, else NULL), d_wih (G, I), d_whh
 * (G, H), d_bih and d_bhh (G; both or neither may be NULL). All contiguous,
 * all overwritten. */
int mt_rnn_backward(mt_rnn_mode mode, bool reverse, const mt_tensor *g_out, const mt_tensor *g_hn,
                    const mt_tensor *g_cn, const mt_tensor *ws, const mt_tensor *x,
                    const mt_tensor *hx, const mt_tensor *cx, const mt_tensor *w_ih,
                    const mt_tensor *w_hh, mt_tensor *d_x, mt_tensor *d_hx, mt_tensor *d_cx,
                    mt_tensor *d_wih, mt_tensor *d_bih, mt_tensor *d_whh, mt_tensor *d_bhh);

#endif
