"""The fused recurrent layers (_rnn_layer, kernels/rnn.c) against torch: RNN,
LSTM and GRU modules and cells with copied weights (outputs, final states,
every parameter's gradient and those of the input and initial states),
gradcheck of the op in float64, and its argument checks."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

DTYPES = [(mt.float32, torch.float32, 2e-5), (mt.float64, torch.float64, 1e-10)]


def copy_params(tm, mm):
    for name, p in tm.named_parameters():
        getattr(mm, name).data.copy_(mt.tensor(p.detach().numpy()))


def close(a, b, tol):
    a = a.detach().numpy() if hasattr(a, "detach") else a
    b = b.detach().numpy()
    scale = max(1.0, float(np.abs(a).max(initial=0)))
    np.testing.assert_allclose(b, a, rtol=tol, atol=tol * scale)


def pair(shape, dtype, rng, grad=True):
    a = rng.standard_normal(shape)
    t = torch.tensor(a, dtype=dtype[1], requires_grad=grad)
    m = mt.tensor(a, dtype=dtype[0], requires_grad=grad)
    return t, m


def run_module(cls, kw, dtype, seq=5, batch=3, hidden=7, inp=4, with_state=True,
               unbatched=False, seed=0):
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    tm = getattr(torch.nn, cls)(inp, hidden, **kw).to(dtype[1])
    mm = getattr(mt.nn, cls)(inp, hidden, **kw).to(dtype[0])
    copy_params(tm, mm)
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    if unbatched:
        xshape, hshape = (seq, inp), (layers, hidden)
    elif kw.get("batch_first"):
        xshape, hshape = (batch, seq, inp), (layers, batch, hidden)
    else:
        xshape, hshape = (seq, batch, inp), (layers, batch, hidden)
    tx, mx = pair(xshape, dtype, rng)
    tensors = [(tx, mx)]
    targs, margs = (tx,), (mx,)
    if with_state:
        th, mh = pair(hshape, dtype, rng)
        tensors.append((th, mh))
        if cls == "LSTM":
            tc, mc = pair(hshape, dtype, rng)
            tensors.append((tc, mc))
            targs, margs = (tx, (th, tc)), (mx, (mh, mc))
        else:
            targs, margs = (tx, th), (mx, mh)
    to, tstate = tm(*targs)
    mo, mstate = mm(*margs)
    tstates = tstate if isinstance(tstate, tuple) else (tstate,)
    mstates = mstate if isinstance(mstate, tuple) else (mstate,)
    close(to, mo, dtype[2])
    for a, b in zip(tstates, mstates):
        close(a, b, dtype[2])
    # a loss through the outputs and every final state, nonlinear so each
    # gradient differs
    tl = to.sin().sum() + sum((s * s).sum() for s in tstates)
    ml = mo.sin().sum() + sum((s * s).sum() for s in mstates)
    tl.backward()
    ml.backward()
    for t, m in tensors:
        close(t.grad, m.grad, dtype[2] * 10)
    for name, p in tm.named_parameters():
        close(p.grad, getattr(mm, name).grad, dtype[2] * 10)
    return mo


CONFIGS = [
    {},
    {"num_layers": 2},
    {"bidirectional": True},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
    {"bias": False},
    {"num_layers": 3, "dropout": 0.5},  # eval() below: dropout off, as in torch
]


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kw", CONFIGS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_module_matches_torch(cls, kw, dtype):
    if "dropout" in kw:
        # with dropout the layers differ only in training mode; compare in eval
        rng = np.random.default_rng(1)
        tm = getattr(torch.nn, cls)(4, 6, **kw).to(dtype[1]).eval()
        mm = getattr(mt.nn, cls)(4, 6, **kw).to(dtype[0]).eval()
        copy_params(tm, mm)
        tx, mx = pair((5, 2, 4), dtype, rng)
        close(tm(tx)[0], mm(mx)[0], dtype[2])
        return
    run_module(cls, kw, dtype)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_module_without_state_and_unbatched(cls):
    run_module(cls, {}, DTYPES[1], with_state=False)
    run_module(cls, {"num_layers": 2}, DTYPES[1], unbatched=True)


def test_relu_rnn_and_odd_sizes():
    run_module("RNN", {"nonlinearity": "relu", "num_layers": 2}, DTYPES[1])
    # hidden sizes off the vector width, a single step, a single sequence
    run_module("LSTM", {}, DTYPES[0], seq=1, batch=1, hidden=13, inp=3)
    run_module("GRU", {"bidirectional": True}, DTYPES[0], seq=9, batch=5, hidden=17, inp=11)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_gradient_through_final_state_only(cls):
    rng = np.random.default_rng(3)
    tm = getattr(torch.nn, cls)(4, 5).double()
    mm = getattr(mt.nn, cls)(4, 5).double()
    copy_params(tm, mm)
    tx, mx = pair((6, 2, 4), DTYPES[1], rng)
    th = tm(tx)[1]
    mh = mm(mx)[1]
    (th[0] if cls == "LSTM" else th).sum().backward()
    (mh[0] if cls == "LSTM" else mh).sum().backward()
    close(tx.grad, mx.grad, 1e-9)
    for name, p in tm.named_parameters():
        close(p.grad, getattr(mm, name).grad, 1e-9)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_torch(cls, dtype, batched):
    rng = np.random.default_rng(4)
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls)(5, 9).to(dtype[1])
    mm = getattr(mt.nn, cls)(5, 9).to(dtype[0])
    copy_params(tm, mm)
    shape = (3, 5) if batched else (5,)
    hshape = (3, 9) if batched else (9,)
    tx, mx = pair(shape, dtype, rng)
    th, mh = pair(hshape, dtype, rng)
    if cls == "LSTMCell":
        tc, mc = pair(hshape, dtype, rng)
        tout, mout = tm(tx, (th, tc)), mm(mx, (mh, mc))
        extra = [(tc, mc)]
    else:
        tout, mout = (tm(tx, th),), (mm(mx, mh),)
        extra = []
    for a, b in zip(tout, mout):
        close(a, b, dtype[2])
    sum((o.cos()).sum() for o in tout).backward()
    sum((o.cos()).sum() for o in mout).backward()
    for t, m in [(tx, mx), (th, mh)] + extra:
        close(t.grad, m.grad, dtype[2] * 10)
    for name, p in tm.named_parameters():
        close(p.grad, getattr(mm, name).grad, dtype[2] * 10)


@pytest.mark.parametrize("cell,gates", [(0, 1), (1, 1), (2, 4), (3, 3)])
@pytest.mark.parametrize("reverse", [False, True])
def test_op_gradcheck(cell, gates, reverse):
    rng = np.random.default_rng(cell)
    T, N, I, H = 3, 2, 2, 3

    def t(*shape, scale=0.7):
        return mt.tensor(rng.standard_normal(shape) * scale, dtype=mt.float64,
                         requires_grad=True)

    x, hx, cx = t(T, N, I), t(N, H), t(N, H)
    wi, bi, w, b = t(gates * H, I), t(gates * H), t(gates * H, H), t(gates * H)
    if cell == 1:  # relu: keep the pre-activations away from its kink
        def pos(*shape, scale=1.0, shift=0.0):
            return mt.tensor(np.abs(rng.standard_normal(shape)) * scale + shift,
                             dtype=mt.float64, requires_grad=True)
        x, wi, bi = pos(T, N, I, shift=0.5), pos(H, I, scale=0.5), pos(H, shift=0.5)
        w, hx = pos(H, H, scale=0.3), pos(N, H)

    def f(x, hx, cx, wi, bi, w, b):
        out, h, c, _ = mt._rnn_layer(x, hx, cx, wi, bi, w, b, cell, reverse)
        return (out, h, c) if cell == 2 else (out, h)

    args = (x, hx, cx if cell == 2 else hx.detach(), wi, bi, w, b)
    assert mt.autograd.gradcheck(f, args)


def test_op_noncontiguous_and_no_bias():
    rng = np.random.default_rng(7)
    T, N, I, H = 4, 3, 2, 5
    x = mt.tensor(rng.standard_normal((N, T, I))).transpose(0, 1)
    hx = mt.tensor(rng.standard_normal((H, N))).t()
    cx = mt.tensor(rng.standard_normal((N, H)))
    wi = mt.tensor(rng.standard_normal((I, 4 * H))).t()
    w = mt.tensor(rng.standard_normal((H, 4 * H))).t()
    assert not x.is_contiguous() and not hx.is_contiguous() and not w.is_contiguous()
    out, h, c, _ = mt._rnn_layer(x, hx, cx, wi, None, w, None, 2, False)
    ref = mt._rnn_layer(x.contiguous(), hx.contiguous(), cx, wi.contiguous(), None,
                        w.contiguous(), None, 2, False)
    assert mt.equal(out, ref[0]) and mt.equal(h, ref[1]) and mt.equal(c, ref[2])
    # against torch's cell step by step
    tcell = torch.nn.LSTMCell(I, H, bias=False).double()
    with torch.no_grad():
        tcell.weight_ih.copy_(torch.tensor(wi.numpy()))
        tcell.weight_hh.copy_(torch.tensor(w.numpy()))
    th, tc = torch.tensor(hx.numpy()), torch.tensor(cx.numpy())
    tx = torch.tensor(x.numpy())
    for step in range(T):
        th, tc = tcell(tx[step], (th, tc))
        close(th.detach(), out[step], 1e-12)
    close(tc.detach(), c, 1e-12)


def test_op_double_backward_raises():
    x = mt.randn(2, 1, 3, dtype=mt.float64, requires_grad=True)
    hx = mt.randn(1, 4, dtype=mt.float64)
    wi = mt.randn(4, 3, dtype=mt.float64, requires_grad=True)
    w = mt.randn(4, 4, dtype=mt.float64, requires_grad=True)
    out = mt._rnn_layer(x, hx, hx, wi, None, w, None, 0, False)[0]
    (g,) = mt.autograd.grad(out.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="not implemented"):
        g.sum().backward()


def test_op_argument_checks():
    x, h, wi, w = mt.zeros(2, 1, 3), mt.zeros(1, 4), mt.zeros(4, 3), mt.zeros(4, 4)
    with pytest.raises(RuntimeError, match="cell must be"):
        mt._rnn_layer(x, h, h, wi, None, w, None, 7, False)
    with pytest.raises(RuntimeError, match="weight_hh must be"):
        mt._rnn_layer(x, h, h, wi, None, mt.zeros(16, 4), None, 0, False)
    with pytest.raises(RuntimeError, match="input must be"):
        mt._rnn_layer(mt.zeros(2, 2, 3), h, h, wi, None, w, None, 0, False)
    with pytest.raises(RuntimeError, match="weight_ih must be"):
        mt._rnn_layer(mt.zeros(2, 1, 5), h, h, wi, None, w, None, 0, False)
    with pytest.raises(RuntimeError, match="bias_ih and bias_hh must have"):
        mt._rnn_layer(x, h, h, wi, None, w, mt.zeros(3), 0, False)
    with pytest.raises(RuntimeError, match="bias_ih and bias_hh must have"):
        mt._rnn_layer(x, h, h, wi, mt.zeros(5), w, None, 0, False)
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        z = mt.zeros(1, 4, dtype=mt.int64)
        mt._rnn_layer(x.long(), z, z, wi.long(), None, w.long(), None, 0, False)
    with pytest.raises(RuntimeError, match="one dtype"):
        mt._rnn_layer(x.double(), h, h, wi, None, w, None, 0, False)
    with pytest.raises(RuntimeError, match="one dtype"):
        mt._rnn_layer(x, h, h, wi.double(), None, w, None, 0, False)


def test_half_precision_layers_use_the_step_path():
    # no fused kernel for bfloat16: the differentiable-op path still runs
    m = mt.nn.GRU(3, 4).to(mt.bfloat16)
    out, h = m(mt.randn(2, 1, 3, dtype=mt.bfloat16))
    assert out.dtype == mt.bfloat16 and out.shape == (2, 1, 4) and h.shape == (1, 1, 4)


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("batch", [23, 24, 25, 50])
def test_batches_across_row_blocks(cls, threads, batch):
    # the kernel takes up to 24 sequences a block, dealt out evenly over
    # threads, and the weight gradients are products over every step's rows
    # (hidden 40: work enough per block to split over two threads)
    old = mt.get_num_threads()
    mt.set_num_threads(threads)
    try:
        out = run_module(cls, {"bidirectional": True}, DTYPES[0], seq=6, batch=batch,
                         hidden=40, inp=9, seed=batch)
    finally:
        mt.set_num_threads(old)
    assert tuple(out.shape) == (6, batch, 80)
