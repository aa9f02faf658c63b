/* The rows of rnn.def: _rnn_layer runs one layer in one
 * direction over a padded sequence, input projection included
 * (kernels/rnn.c), and returns (output, h_n, c_n, workspace);
 * _rnn_layer_backward is its gradient, called by the formula of
 * autograd/formulas_rnn.c. nn.RNN, LSTM and GRU call them from Python. Plain
 * C: impls read typed mt_args, make tensors through the owner hooks, run the
 * kernels unlocked (the backward's weight products after mt_blas_prepare, the
 * host's hook) and report failures with mt_error; nothing here may touch
 * Python. */
#include "runtime/args.h"
#include "reduce.h"
#include "runtime/unlock.h"

#include "../kernels/gemm/blas.h"
#include "../kernels/rnn.h"

/* A new reference to t when contiguous, else to a contiguous copy. */
static mt_tensor *dense(mt_tensor *t)
{
    if (mt_tensor_is_contiguous(t)) {
        mt_retain(t);
        return t;
    }
    return mt_contiguous_as(t, t->dtype);
}

static int bad(const char *op, const char *what)
{
    return mt_error(MT_ERR_RUNTIME, "%s: %s", op, what);
}

/* The cell kind, gates per step, and the checks every operand shares: hx
 * (N, H), cx like hx, weight_hh (gates * H, H), all of one floating dtype. */
static int check_cell(const char *op, int64_t cell, const mt_tensor *hx, const mt_tensor *cx,
                      const mt_tensor *w, int64_t *gates)
{
    if (cell < MT_RNN_TANH || cell > MT_RNN_GRU)
        return bad(op, "cell must be 0 (tanh), 1 (relu), 2 (LSTM) or 3 (GRU)");
    *gates = mt_rnn_gates((mt_rnn_mode)cell);
    if (hx->ndim != 2 || cx->ndim != 2 || hx->sizes[0] != cx->sizes[0] ||
        hx->sizes[1] != cx->sizes[1])
        return bad(op, "hx and cx must be (batch, hidden_size) matrices of one shape");
    if (w->ndim != 2 || w->sizes[1] != hx->sizes[1] || w->sizes[0] != *gates * hx->sizes[1])
        return bad(op, "weight_hh must be (gates * hidden_size, hidden_size)");
    if (hx->dtype != w->dtype || cx->dtype != w->dtype)
        return bad(op, "expected hx, cx and weight_hh of one dtype");
    if (w->dtype != MT_FLOAT32 && w->dtype != MT_FLOAT64)
        return mt_error(MT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", op,
                        mt_dtype_infos[w->dtype].scalar_name);
    return 0;
}

/* Tensors made for a result, released together on failure. */
typedef struct {
    int n;
    mt_tensor *t[8];
} made;

static mt_tensor *make(made *m, mt_dtype d, int ndim, int64_t a, int64_t b, int64_t c)
{
    int64_t sizes[3] = {a, b, c};
    mt_tensor *t = mt_new(d, ndim, sizes, false);
    m->t[m->n++] = t;
    return t;
}

static void drop(made *m)
{
    for (int i = 0; i < m->n; i++)
        mt_xrelease(m->t[i]);
    m->n = 0;
}

/* The first count made tensors as the tuple result; releases the rest. */
static int tuple_result(mt_result *r, made *m, int count)
{
    if (mt_result_alloc(r, MT_RESULT_TUPLE, count) < 0) {
        drop(m);
        return -1;
    }
    for (int i = 0; i < count; i++)
        r->t[i] = m->t[i];
    for (int i = count; i < m->n; i++)
        mt_xrelease(m->t[i]);
    return 0;
}

/* The input's and weight_ih's checks: input (steps, batch, input_size),
 * weight_ih (gates * hidden_size, input_size), both of weight_hh's dtype. */
static int check_input(const char *op, const mt_tensor *in, const mt_tensor *w_ih,
                       const mt_tensor *hx, const mt_tensor *w_hh)
{
    if (in->ndim != 3 || in->sizes[1] != hx->sizes[0])
        return bad(op, "input must be (steps, batch, input_size)");
    if (w_ih->ndim != 2 || w_ih->sizes[0] != w_hh->sizes[0] || w_ih->sizes[1] != in->sizes[2])
        return bad(op, "weight_ih must be (gates * hidden_size, input_size)");
    if (in->dtype != w_hh->dtype || w_ih->dtype != w_hh->dtype)
        return bad(op, "expected input, weight_ih and weight_hh of one dtype");
    return 0;
}

/* _rnn_layer(input, hx, cx, weight_ih, bias_ih, weight_hh, bias_hh, cell, reverse) */
int impl_rnn_layer(mt_args *a, mt_result *r)
{
    const char *op = "_rnn_layer";
    mt_tensor *in = a->v[0].t, *hx = a->v[1].t, *cx = a->v[2].t, *wi = a->v[3].t;
    mt_tensor *bi = mt_is_none(a, 4) ? NULL : a->v[4].t, *w = a->v[5].t;
    mt_tensor *b = mt_is_none(a, 6) ? NULL : a->v[6].t;
    int64_t cell = a->v[7].i, gates = 0;
    bool reverse = a->v[8].b;
    if (check_cell(op, cell, hx, cx, w, &gates) < 0 || check_input(op, in, wi, hx, w) < 0)
        return -1;
    int64_t H = hx->sizes[1];
    if ((b && b->dtype != w->dtype) || (bi && bi->dtype != w->dtype))
        return bad(op, "expected bias_ih, bias_hh and weight_hh of one dtype");
    if ((b && (b->ndim != 1 || b->sizes[0] != gates * H)) ||
        (bi && (bi->ndim != 1 || bi->sizes[0] != gates * H)))
        return bad(op, "bias_ih and bias_hh must have gates * hidden_size elements");
    mt_rnn_mode mode = (mt_rnn_mode)cell;
    bool lstm = mode == MT_RNN_LSTM;
    int64_t T = in->sizes[0], N = in->sizes[1];
    mt_dtype d = w->dtype;
    made m = {0};
    make(&m, d, 3, T, N, H);
    make(&m, d, 2, N, H, 0);
    make(&m, d, lstm ? 2 : 1, lstm ? N : 0, H, 0);
    make(&m, d, 3, T, N, mt_rnn_workspace_width(mode) * H);
    mt_tensor *ops[7] = {
        dense(in), dense(hx),          lstm ? dense(cx) : NULL, dense(wi), bi ? dense(bi) : NULL,
        dense(w),  b ? dense(b) : NULL};
    bool ok = ops[0] && ops[1] && ops[3] && ops[5] && (!lstm || ops[2]) && (!bi || ops[4]) &&
              (!b || ops[6]);
    for (int i = 0; i < m.n; i++)
        ok = ok && m.t[i];
    int rc = -1;
    if (ok) {
        /* the kernel sees struct copies: another thread may re-point the tensors */
        mt_tensor c[11];
        for (int i = 0; i < 7; i++)
            c[i] = ops[i] ? *ops[i] : (mt_tensor){0};
        for (int i = 0; i < 4; i++)
            c[7 + i] = *m.t[i];
        /* each step multiplies the batch by both weights */
        double muladds = (double)(T * N) * (double)(wi->numel + w->numel);
        void *tok = mt_unlock(muladds / MT_MULADDS_PER_STEP);
        rc = mt_rnn_forward(mode, reverse, &c[0], &c[1], lstm ? &c[2] : NULL, &c[3],
                            bi ? &c[4] : NULL, &c[5], b ? &c[6] : NULL, &c[7], &c[8],
                            lstm ? &c[9] : NULL, &c[10]);
        mt_relock(tok);
    }
    for (int i = 0; i < 7; i++)
        mt_xrelease(ops[i]);
    if (rc < 0) {
        drop(&m);
        return -1;
    }
    return tuple_result(r, &m, 4);
}

/* _rnn_layer_backward(grad_output, grad_hy, grad_cy, workspace, input, hx, cx,
 * weight_ih, weight_hh, has_bias, cell, reverse) */
int impl_rnn_layer_backward(mt_args *a, mt_result *r)
{
    const char *op = "_rnn_layer_backward";
    mt_tensor *go = a->v[0].t, *ghy = a->v[1].t, *gcy = a->v[2].t, *ws = a->v[3].t;
    mt_tensor *in = a->v[4].t, *hx = a->v[5].t, *cx = a->v[6].t, *wi = a->v[7].t;
    mt_tensor *w = a->v[8].t;
    bool has_bias = a->v[9].b, reverse = a->v[11].b;
    int64_t cell = a->v[10].i, gates = 0;
    if (check_cell(op, cell, hx, cx, w, &gates) < 0 || check_input(op, in, wi, hx, w) < 0)
        return -1;
    mt_rnn_mode mode = (mt_rnn_mode)cell;
    bool lstm = mode == MT_RNN_LSTM;
    int64_t N = hx->sizes[0], H = hx->sizes[1], G = gates * H, T = in->sizes[0];
    int64_t I = in->sizes[2];
    if (go->ndim != 3 || go->sizes[0] != T || go->sizes[1] != N || go->sizes[2] != H)
        return bad(op, "grad_output must be (steps, batch, hidden_size)");
    if (ws->ndim != 3 || ws->sizes[0] != T || ws->sizes[1] != N ||
        ws->sizes[2] != mt_rnn_workspace_width(mode) * H)
        return bad(op, "workspace does not match the layer");
    if (ghy->ndim != 2 || ghy->sizes[0] != N || ghy->sizes[1] != H ||
        (lstm && (gcy->ndim != 2 || gcy->sizes[0] != N || gcy->sizes[1] != H)))
        return bad(op, "grad_hy and grad_cy must be shaped like hx");
    mt_dtype d = w->dtype;
    if (go->dtype != d || ghy->dtype != d || (lstm && gcy->dtype != d) || ws->dtype != d)
        return bad(op, "expected the gradients, workspace and weight_hh of one dtype");
    made m = {0};
    make(&m, d, 3, T, N, I);
    make(&m, d, 2, N, H, 0);
    make(&m, d, lstm ? 2 : 1, lstm ? N : 0, H, 0);
    make(&m, d, 2, G, I, 0);
    make(&m, d, 1, has_bias ? G : 0, 0, 0);
    make(&m, d, 2, G, H, 0);
    make(&m, d, 1, has_bias ? G : 0, 0, 0);
    mt_tensor *ops[8] = {dense(go), dense(ghy), lstm ? dense(gcy) : NULL,
                         dense(ws), dense(in),  dense(hx),
                         dense(wi), dense(w)};
    mt_tensor *cxd = lstm ? dense(cx) : NULL;
    bool ok = (!lstm || cxd);
    for (int i = 0; i < 8; i++)
        ok = ok && (ops[i] || (i == 2 && !lstm));
    for (int i = 0; i < m.n; i++)
        ok = ok && m.t[i];
    int rc = -1;
    if (ok) {
        /* the kernel sees struct copies: another thread may re-point the tensors */
        mt_tensor c[16];
        for (int i = 0; i < 8; i++)
            c[i] = ops[i] ? *ops[i] : (mt_tensor){0};
        c[8] = cxd ? *cxd : (mt_tensor){0};
        for (int i = 0; i < 7; i++)
            c[9 + i] = *m.t[i];
        /* twice the forward's products: the inputs' and the weights' gradients */
        double muladds = 2.0 * (double)(T * N) * (double)(wi->numel + w->numel);
        mt_blas_prepare();
        void *tok = mt_unlock(muladds / MT_MULADDS_PER_STEP);
        rc = mt_rnn_backward(mode, reverse, &c[0], &c[1], lstm ? &c[2] : NULL, &c[3], &c[4], &c[5],
                             lstm ? &c[8] : NULL, &c[6], &c[7], &c[9], &c[10], lstm ? &c[11] : NULL,
                             &c[12], has_bias ? &c[13] : NULL, &c[14], has_bias ? &c[15] : NULL);
        mt_relock(tok);
    }
    for (int i = 0; i < 8; i++)
        mt_xrelease(ops[i]);
    mt_xrelease(cxd);
    if (rc < 0) {
        drop(&m);
        return -1;
    }
    return tuple_result(r, &m, 7);
}
