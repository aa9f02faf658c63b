"""nn layers and losses against torch with autograd: same weights in (through
state_dict and NumPy), same float64 inputs, then outputs, input gradients and
parameter gradients compared with minitorch.testing.assert_close."""
import re

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.testing import assert_close

torch = pytest.importorskip("torch")


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [] if out is None else [out]


def _pair(arrays, requires_grad, dtype):
    """The arrays as (minitorch, torch) tensor pairs; float ones (cast to dtype)
    require grad."""
    pairs = []
    for a in arrays:
        if isinstance(a, tuple):
            pairs.append(tuple(zip(*_pair(a, requires_grad, dtype))))
            continue
        a = np.asarray(a)
        rg = requires_grad and a.dtype.kind == "f"
        if rg:
            a = a.astype(dtype)
        pairs.append((mt.tensor(a, requires_grad=rg), torch.tensor(a, requires_grad=rg)))
    return pairs


def _same(m_tensor, t_tensor, what, **tol):
    assert (m_tensor is None) == (t_tensor is None), what
    if m_tensor is not None:
        assert_close(m_tensor.detach(), mt.tensor(t_tensor.detach().numpy()),
                     msg=lambda s: f"{what}: {s}", **tol)


def check(make, *arrays, call=None, train=True, requires_grad=True, seed=0,
          dtype=np.float64, **tol):
    """Runs make(nn) (a module) or a function in both libraries on the same data and
    compares outputs, input gradients and parameter gradients."""
    call = call or (lambda f, *xs: f(*xs))
    torch.manual_seed(seed)
    t_mod = make(torch.nn)
    m_mod = make(nn)
    if isinstance(t_mod, torch.nn.Module):
        t_mod = t_mod.to(getattr(torch, np.dtype(dtype).name)).train(train)
        m_mod = m_mod.to(getattr(mt, np.dtype(dtype).name)).train(train)
        m_mod.load_state_dict({k: mt.tensor(v.numpy()) for k, v in
                               t_mod.state_dict().items()})
    pairs = _pair(arrays, requires_grad, dtype)
    m_in = [p[0] for p in pairs]
    t_in = [p[1] for p in pairs]
    m_out, t_out = _flat(call(m_mod, *m_in)), _flat(call(t_mod, *t_in))
    assert len(m_out) == len(t_out)
    rng = np.random.default_rng(seed)
    m_loss, t_loss = 0, 0
    for i, (mo, to) in enumerate(zip(m_out, t_out)):
        _same(mo, to, f"output {i}", **tol)
        if to.requires_grad:
            g = rng.standard_normal(tuple(to.shape)).astype(dtype)
            m_loss = m_loss + (mo * mt.tensor(g)).sum()
            t_loss = t_loss + (to * torch.tensor(g)).sum()
    if isinstance(t_loss, int):
        return m_mod, t_mod
    m_loss.backward()
    t_loss.backward()
    for i, (m, t) in enumerate(zip(_flat(m_in), _flat(t_in))):
        if t.requires_grad:
            _same(m.grad, t.grad, f"grad of input {i}", **tol)
    if isinstance(t_mod, torch.nn.Module):
        m_params = dict(m_mod.named_parameters())
        t_params = dict(t_mod.named_parameters())
        assert list(m_params) == list(t_params)
        for name, tp in t_params.items():
            _same(m_params[name].grad, tp.grad, f"grad of {name}", **tol)
    return m_mod, t_mod


RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape)


# ---- layers -----------------------------------------------------------------------------

@pytest.mark.parametrize("make, shape", [
    (lambda n: n.Linear(5, 3), (4, 5)),
    (lambda n: n.Linear(5, 3, bias=False), (2, 4, 5)),
    (lambda n: n.Linear(5, 3), (5,)),
    (lambda n: n.Linear(5, 3), (0, 5)),
    (lambda n: n.Identity(), (3, 2)),
    (lambda n: n.Flatten(), (2, 3, 4)),
    (lambda n: n.Flatten(0, 1), (2, 3, 4)),
    (lambda n: n.Unflatten(1, (2, 2)), (3, 4)),
    (lambda n: n.ReLU(), (3, 4)),
    (lambda n: n.LeakyReLU(0.2), (3, 4)),
    (lambda n: n.GELU(), (3, 4)),
    (lambda n: n.GELU("tanh"), (3, 4)),
    (lambda n: n.SiLU(), (3, 4)),
    (lambda n: n.Sigmoid(), (3, 4)),
    (lambda n: n.Tanh(), (3, 4)),
    (lambda n: n.Softmax(1), (3, 4)),
    (lambda n: n.Softmax(0), (3, 4, 2)),
    (lambda n: n.LogSoftmax(-1), (3, 4)),
    (lambda n: n.LayerNorm(4), (3, 4)),
    (lambda n: n.LayerNorm((3, 4), bias=False), (2, 3, 4)),
    (lambda n: n.LayerNorm(4, elementwise_affine=False), (2, 5, 4)),
    (lambda n: n.GroupNorm(2, 4), (3, 4, 5)),
    (lambda n: n.GroupNorm(1, 6), (2, 6, 2, 3)),
    (lambda n: n.GroupNorm(3, 3, affine=False), (2, 3)),
    (lambda n: n.Dropout(0.0), (3, 4)),
])
def test_layer_grads(make, shape):
    check(make, rand(*shape))


def test_linear_noncontiguous_input():
    check(lambda n: n.Linear(4, 3), rand(4, 5, 2).transpose(1, 0, 2)[..., 0][:, ::1])
    x = rand(6, 4)[::2]
    check(lambda n: n.Linear(4, 2), x)


def test_activation_affine_params_nonfinite_free():
    # Flat and kinked points: relu at 0, leaky_relu at 0.
    x = np.array([[-1.0, 0.0, 2.0], [0.5, -0.0, -3.0]])
    check(lambda n: n.ReLU(), x)
    check(lambda n: n.LeakyReLU(), x)


def test_bilinear_grads():
    check(lambda n: n.Bilinear(3, 4, 2), rand(5, 3), rand(5, 4))
    check(lambda n: n.Bilinear(3, 4, 2, bias=False), rand(2, 5, 3), rand(2, 5, 4))


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("make, shape", [
    (lambda n: n.BatchNorm1d(4), (5, 4)),
    (lambda n: n.BatchNorm1d(3, affine=False), (4, 3, 6)),
    (lambda n: n.BatchNorm1d(3, momentum=None), (4, 3, 6)),
    (lambda n: n.BatchNorm2d(3), (2, 3, 4, 5)),
    (lambda n: n.BatchNorm2d(3, track_running_stats=False), (2, 3, 4, 5)),
])
def test_batchnorm_grads(make, shape, train):
    x = rand(*shape)
    m, t = check(make, x, train=train)
    for name, buf in t.named_buffers():
        _same(dict(m.named_buffers())[name], buf, name)


def test_batchnorm_eval_with_updated_stats():
    def make(n):
        bn = n.BatchNorm2d(3)
        bn.running_mean.copy_(bn.running_mean.new_tensor([0.5, -1.0, 2.0]))
        bn.running_var.copy_(bn.running_var.new_tensor([2.0, 0.5, 3.0]))
        bn.weight.data.copy_(bn.weight.new_tensor([1.5, -0.5, 2.0]))
        return bn
    check(make, rand(2, 3, 2, 2), train=False)


def test_dropout_eval_and_zero_p():
    check(lambda n: n.Dropout(0.7), rand(3, 4), train=False)
    check(lambda n: n.Dropout(0.0), rand(3, 4), train=True)


def test_dropout_mask_scaling():
    p = 0.3
    mt.manual_seed(5)
    x = mt.tensor(rand(40, 50), requires_grad=True)
    y = nn.Dropout(p)(x)
    kept = y != 0
    assert 0.6 < kept.double().mean().item() < 0.8
    assert_close(y[kept], x.detach()[kept] / (1 - p))
    y.backward(mt.ones_like(y))
    assert_close(x.grad, kept.double() / (1 - p))
    mt.manual_seed(5)
    assert mt.equal(nn.Dropout(p)(x.detach()), y.detach())


def test_embedding_grads():
    idx = np.array([[1, 2, 0, 4], [4, 3, 2, 9]])
    check(lambda n: n.Embedding(10, 3), idx)
    m, _ = check(lambda n: n.Embedding(10, 3, padding_idx=2), idx)
    assert m.weight.grad[2].abs().sum().item() == 0
    assert m.weight.grad[4].abs().sum().item() > 0
    check(lambda n: n.Embedding(10, 3, padding_idx=-1), np.array([9, 9, 1]))


@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention_grads(batch_first):
    e, h, length, s, b = 8, 2, 3, 4, 2
    shape_q = (b, length, e) if batch_first else (length, b, e)
    shape_k = (b, s, e) if batch_first else (s, b, e)
    q, k, v = rand(*shape_q), rand(*shape_k), rand(*shape_k)

    def make(n):
        return n.MultiheadAttention(e, h, batch_first=batch_first)
    check(make, q, k, v)
    check(make, q, k, v, call=lambda f, *xs: f(*xs, need_weights=False))
    check(make, q, k, v, call=lambda f, *xs: f(*xs, average_attn_weights=False))
    kpm = np.zeros((b, s), dtype=bool)
    kpm[0, -1] = kpm[1, -2] = True  # no row fully masked: both give NaN there
    causal = np.triu(np.ones((length, s), dtype=bool), 1)
    check(make, q, k, v, kpm, causal,
          call=lambda f, q, k, v, kpm, am: f(q, k, v, key_padding_mask=kpm, attn_mask=am))
    float_mask = rand(b * h, length, s)
    check(make, q, k, v, float_mask,
          call=lambda f, q, k, v, am: f(q, k, v, attn_mask=am))


def test_multihead_attention_kdim_vdim_and_unbatched():
    check(lambda n: n.MultiheadAttention(4, 2, kdim=3, vdim=5), rand(2, 1, 4), rand(3, 1, 3),
          rand(3, 1, 5))
    check(lambda n: n.MultiheadAttention(4, 1, bias=False), rand(2, 4), rand(3, 4),
          rand(3, 4))


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_recurrent_grads(kind, batch_first):
    def make(n):
        return getattr(n, kind)(3, 4, num_layers=2, batch_first=batch_first)
    x = rand(2, 5, 3)
    check(make, x)
    batch = 2 if batch_first else 5
    h0 = rand(2, batch, 4)
    if kind == "LSTM":
        check(make, x, (h0, rand(2, batch, 4)))
    else:
        check(make, x, h0)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_recurrent_single_layer_unbatched_no_bias(kind):
    extra = {"nonlinearity": "relu"} if kind == "RNN" else {}
    check(lambda n: getattr(n, kind)(3, 2, bias=False, **extra), rand(4, 3))


# ---- losses -----------------------------------------------------------------------------

REDUCTIONS = ["none", "mean", "sum"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses(reduction):
    x, y = rand(3, 4), rand(3, 4)
    check(lambda n: n.MSELoss(reduction=reduction), x, y)
    check(lambda n: n.L1Loss(reduction=reduction), x, y)
    for beta in (1.0, 0.5, 0.0):
        check(lambda n: n.SmoothL1Loss(reduction=reduction, beta=beta), x, y)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_class_indices(reduction, smoothing):
    x = rand(5, 4)
    target = np.array([0, 3, 1, 1, 2])
    w = np.abs(rand(4)) + 0.1

    def make(weight=None, **kw):
        return lambda n: n.CrossEntropyLoss(
            weight=None if weight is None else
            (mt.tensor(weight) if n is nn else torch.tensor(weight)),
            reduction=reduction, label_smoothing=smoothing, **kw)
    check(make(), x, target)
    check(make(w), x, target)
    check(make(ignore_index=1), x, target)
    check(make(w, ignore_index=3), x, target)
    check(make(w), rand(2, 4, 3, 2), RNG.integers(0, 4, (2, 3, 2)))
    check(make(), rand(4), np.array(2))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_probabilities(reduction, smoothing):
    x = rand(5, 4)
    p = np.exp(rand(5, 4))
    p /= p.sum(1, keepdims=True)
    w = np.abs(rand(4)) + 0.1
    for weight in (None, w):
        check(lambda n: n.CrossEntropyLoss(
            weight=None if weight is None else
            (mt.tensor(weight) if n is nn else torch.tensor(weight)),
            reduction=reduction, label_smoothing=smoothing), x, p)
    check(lambda n: n.CrossEntropyLoss(reduction=reduction), rand(2, 3, 4),
          np.abs(rand(2, 3, 4)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(reduction):
    x = rand(5, 4)
    target = np.array([0, 3, 1, 1, 2])
    w = np.abs(rand(4)) + 0.1
    check(lambda n: n.NLLLoss(reduction=reduction), x, target)
    check(lambda n: n.NLLLoss(weight=mt.tensor(w) if n is nn else torch.tensor(w),
                              ignore_index=1, reduction=reduction), x, target)
    check(lambda n: n.NLLLoss(reduction=reduction), rand(2, 4, 3), RNG.integers(0, 4, (2, 3)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_losses(reduction):
    p = 1 / (1 + np.exp(-rand(3, 4)))
    y = RNG.uniform(0, 1, (3, 4))
    w = np.abs(rand(3, 4))
    check(lambda n: n.BCELoss(reduction=reduction), p, y)
    check(lambda n: n.BCELoss(weight=mt.tensor(w) if n is nn else torch.tensor(w),
                              reduction=reduction), p, y)
    x = rand(3, 4) * 5
    pw = np.abs(rand(4)) + 0.2
    check(lambda n: n.BCEWithLogitsLoss(reduction=reduction), x, y)
    check(lambda n: n.BCEWithLogitsLoss(
        weight=mt.tensor(w) if n is nn else torch.tensor(w),
        pos_weight=mt.tensor(pw) if n is nn else torch.tensor(pw), reduction=reduction), x, y)


def test_bce_saturated_probabilities():
    p = np.array([0.0, 1.0, 0.5, 1e-60])
    y = np.array([0.0, 1.0, 0.3, 1.0])
    check(lambda n: n.BCELoss(), p, y)


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    x = np.log(np.abs(rand(3, 4)) + 0.1)
    y = np.abs(rand(3, 4))
    y[0, 0] = 0.0
    if log_target:
        y = np.log(y + 0.1)
    with pytest.warns(UserWarning) if reduction == "mean" else _nothing():
        # torch's target gradient is NaN where target is 0 (d/dt xlogy(t, t)); so is ours.
        check(lambda n: n.KLDivLoss(reduction=reduction, log_target=log_target), x, y,
              equal_nan=True)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_functional_forms_match_modules():
    x, y = rand(3, 4), rand(3, 4)
    check(lambda n: (F if n is nn else torch.nn.functional).huber_loss, x, y)
    check(lambda n: (F if n is nn else torch.nn.functional).huber_loss, x, y,
          call=lambda f, a, b: f(a, b, delta=0.5, reduction="sum"))
    check(lambda n: (F if n is nn else torch.nn.functional).linear, rand(2, 3), rand(4, 3),
          rand(4))


# ---- edge cases ---------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda n: n.ReLU(inplace=True), lambda n: n.LeakyReLU(0.1, inplace=True),
    lambda n: n.SiLU(inplace=True), lambda n: n.Dropout(0.0, inplace=True)])
def test_inplace_activations_on_intermediate(make):
    check(make, rand(3, 4), call=lambda f, a: f(a * 1))


def test_extreme_inputs():
    check(lambda n: n.Sigmoid(), np.array([-800.0, 800.0, 0.0]))
    check(lambda n: n.GELU("tanh"), np.array([-30.0, 30.0, 0.0]))
    check(lambda n: n.LogSoftmax(1), np.array([[-np.inf, 0.0, 1.0]]))
    check(lambda n: n.LayerNorm(3), np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]]))
    check(lambda n: n.SmoothL1Loss(beta=0.0), np.array([1.0, 2.0]), np.array([1.0, 3.0]))
    check(lambda n: n.L1Loss(), np.array([1.0, 2.0]), np.array([1.0, 3.0]))
    pw = np.array([2.0, 1.0, 1.0, 1.0])
    check(lambda n: n.BCEWithLogitsLoss(pos_weight=mt.tensor(pw) if n is nn else
                                        torch.tensor(pw)),
          np.array([[-800.0, 800.0, 40.0, -40.0]]), np.array([[1.0, 0.0, 1.0, 0.3]]))


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_every_target_ignored(smoothing):
    # the mean is 0/0 = nan; the gradient is 0
    check(lambda n: n.CrossEntropyLoss(ignore_index=1, label_smoothing=smoothing), rand(2, 3),
          np.array([1, 1]), equal_nan=True)


@pytest.mark.parametrize("shape", [(3,), (4, 3), (4, 3, 5), (2, 3, 4, 2), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_ranks_names_and_double_backward(shape, reduction):
    """grad_fn as torch names it (NllLoss2DBackward0 from 3-D, a view for
    unreduced 3-D and 5-D), with weights, an ignored class, and the
    gradient of the gradient."""
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape)
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    t = rng.integers(0, 3, tshape)
    w = np.array([0.5, 2.0, 1.5])
    up_value = rng.standard_normal(tshape) if reduction == "none" else 1.3
    outs = []
    for lib in (mt, torch):
        xi = lib.tensor(x, requires_grad=True)
        loss = lib.nn.functional.nll_loss(xi, lib.tensor(t), weight=lib.tensor(w),
                                          ignore_index=1, reduction=reduction)
        up = lib.tensor(up_value, requires_grad=True)  # float32: cast as torch casts
        (g,) = lib.autograd.grad(loss, xi, up, create_graph=True)
        (gg,) = lib.autograd.grad((g * lib.tensor(x)).sum(), up)
        outs.append((type(loss.grad_fn).__name__, loss.detach().numpy(), g.detach().numpy(),
                     gg.numpy()))
    (mn, *ma), (tn, *ta) = outs
    assert mn == tn
    for a, b in zip(ma, ta):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_nll_loss_weight_is_not_differentiable():
    w = mt.tensor([1.0, 2.0, 3.0], dtype=mt.float64, requires_grad=True)
    x = mt.tensor(rand(2, 3), requires_grad=True)
    msg = ("The function 'nll_loss_forward' is not differentiable with respect to argument "
           "'weight'. This input cannot have requires_grad True.")
    for f in (F.nll_loss, F.cross_entropy):
        with pytest.raises(RuntimeError, match=re.escape(msg)):
            f(x, mt.tensor([0, 2]), weight=w)
    with mt.no_grad():
        assert F.nll_loss(x, mt.tensor([0, 2]), weight=w).item() == pytest.approx(
            -(x[0, 0] + 3 * x[1, 2]).item() / 4)
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        F.nll_loss(x, mt.tensor([0, 2]), weight=w.detach().float())


def test_embedding_options():
    idx = np.array([1, 1, 2, 1, 4])
    check(lambda n: n.Embedding(5, 2, scale_grad_by_freq=True), idx)
    check(lambda n: n.Embedding(5, 2, scale_grad_by_freq=True, padding_idx=2), idx)
    m, t = check(lambda n: n.Embedding(5, 2, max_norm=0.5), idx)
    _same(m.weight, t.weight, "renormalised weight")


def test_zero_size_batches():
    check(lambda n: n.GroupNorm(2, 4), rand(0, 4, 3))
    check(lambda n: n.LayerNorm(3), rand(0, 3))
    check(lambda n: n.Linear(3, 2), rand(2, 0, 3))


def test_recurrent_empty_sequence_raises_like_torch():
    for mod in (nn.RNN(3, 4), nn.GRU(3, 4, batch_first=True)):
        x = mt.zeros(2, 0, 3) if mod.batch_first else mt.zeros(0, 2, 3)
        with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0"):
            mod(x)


def test_recurrent_dropout_between_layers():
    lstm = nn.LSTM(3, 4, num_layers=2, dropout=0.5).double()
    x = mt.tensor(rand(5, 2, 3))
    mt.manual_seed(1)
    a = lstm(x)[0]
    mt.manual_seed(1)
    assert mt.equal(lstm(x)[0], a)
    check(lambda n: n.LSTM(3, 4, num_layers=2, dropout=0.5), rand(4, 2, 3), train=False)


@pytest.mark.parametrize("make, inputs", [
    (lambda n: n.Linear(30, 20), [(8, 30)]),
    (lambda n: n.Bilinear(10, 12, 5), [(8, 10), (8, 12)]),
    (lambda n: n.LayerNorm(64), [(8, 64)]),
    (lambda n: n.GroupNorm(4, 8), [(4, 8, 10)]),
    (lambda n: n.BatchNorm2d(8), [(4, 8, 5, 5)]),
    (lambda n: n.MultiheadAttention(16, 4), [(5, 3, 16), (6, 3, 16), (6, 3, 16)]),
    (lambda n: n.LSTM(8, 16, num_layers=2), [(10, 3, 8)]),
    (lambda n: n.GRU(8, 16, batch_first=True), [(3, 10, 8)]),
    (lambda n: n.Softmax(-1), [(6, 20)]),
])
def test_float32_layers(make, inputs):
    check(make, *(rand(*s) for s in inputs), dtype=np.float32)


def test_float32_losses():
    x, p = rand(32, 10), RNG.uniform(0.01, 0.99, (32, 10))
    check(lambda n: n.CrossEntropyLoss(label_smoothing=0.1), x, RNG.integers(0, 10, 32),
          dtype=np.float32)
    check(lambda n: n.BCEWithLogitsLoss(), x, p, dtype=np.float32)
    check(lambda n: n.BCELoss(), p, RNG.uniform(0, 1, (32, 10)), dtype=np.float32)
    check(lambda n: n.KLDivLoss(reduction="batchmean"), x, p, dtype=np.float32)
    check(lambda n: n.MSELoss(), x, p, dtype=np.float32)


@pytest.mark.parametrize("p", [0.1, 0.3, 0.7])
def test_dropout_float32_rounds_as_torch_and_inplace_matches(p):
    # torch scales its mask by dividing it by 1 - p in the input's dtype; the kept
    # outputs must be exactly x * (1 / (1 - p)) rounded that way
    x = rand(64, 33).astype(np.float32)
    mt.manual_seed(11)
    t = mt.tensor(x, requires_grad=True)
    y = mt.nn.functional.dropout(t, p)
    kept = (y != 0).numpy()
    scale = (torch.ones(1) / (1 - p)).item()
    np.testing.assert_array_equal(y.detach().numpy(), np.where(kept, x * np.float32(scale), 0))
    ref = torch.tensor(x) * torch.tensor(kept.astype(np.float32)).div_(1 - p)
    np.testing.assert_array_equal(y.detach().numpy(), ref.numpy())
    y.backward(mt.ones_like(y))
    np.testing.assert_array_equal(t.grad.numpy(), np.where(kept, np.float32(scale), 0))
    mt.manual_seed(11)
    z = mt.tensor(x)
    assert mt.nn.functional.dropout(z, p, inplace=True) is z
    np.testing.assert_array_equal(z.numpy(), y.detach().numpy())
