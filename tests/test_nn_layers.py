"""nn layers and their functional forms against torch (same weights, same inputs)."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def same_weights(m, t):
    """Loads t's state into m (also a state_dict round trip through NumPy)."""
    m.load_state_dict({k: mt.tensor(v.numpy()) for k, v in t.state_dict().items()})


def close(a, b, tol=1e-5):
    a = a.detach().numpy() if isinstance(a, mt.Tensor) else np.asarray(a)
    b = b.detach().numpy()
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def run_both(m, t, *arrays):
    return m(*(mt.tensor(a) for a in arrays)), t(*(torch.tensor(a) for a in arrays))


@pytest.mark.parametrize("make, shape", [
    (lambda n: n.Linear(5, 3), (4, 5)),
    (lambda n: n.Linear(5, 3, bias=False), (2, 4, 5)),
    (lambda n: n.Linear(5, 3), (5,)),
    (lambda n: n.Identity(7), (3, 2)),
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
    (lambda n: n.LogSoftmax(-1), (3, 4)),
    (lambda n: n.Conv1d(3, 4, 3, stride=2, padding=1), (2, 3, 9)),
    (lambda n: n.Conv1d(3, 4, 4, padding="same", dilation=3), (2, 3, 9)),
    (lambda n: n.Conv2d(3, 4, 3), (2, 3, 7, 6)),
    (lambda n: n.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0), dilation=2, groups=2),
     (2, 4, 9, 8)),
    (lambda n: n.Conv2d(3, 2, 4, padding="same", bias=False), (3, 6, 5)),
    (lambda n: n.Conv2d(3, 2, 3, padding="valid"), (1, 3, 3, 3)),
    (lambda n: n.MaxPool2d(2), (2, 3, 8, 7)),
    (lambda n: n.MaxPool2d(3, stride=2, padding=1, dilation=1, ceil_mode=True), (2, 3, 8, 7)),
    (lambda n: n.MaxPool2d((2, 3), dilation=2), (3, 9, 9)),
    (lambda n: n.AvgPool2d(2), (2, 3, 8, 7)),
    (lambda n: n.AvgPool2d(3, 2, 1, count_include_pad=False), (2, 3, 8, 7)),
    (lambda n: n.AvgPool2d(3, 2, 1, ceil_mode=True, divisor_override=4), (3, 8, 7)),
    (lambda n: n.AdaptiveAvgPool2d((3, 5)), (2, 3, 8, 7)),
    (lambda n: n.AdaptiveAvgPool2d(1), (3, 8, 7)),
    (lambda n: n.AdaptiveAvgPool2d((None, 2)), (2, 3, 8, 7)),
    (lambda n: n.LayerNorm(4), (2, 3, 4)),
    (lambda n: n.LayerNorm([3, 4], elementwise_affine=False), (2, 3, 4)),
    (lambda n: n.GroupNorm(2, 4), (2, 4, 3, 3)),
    (lambda n: n.Bilinear(3, 3, 2), None),
])
def test_layer_matches_torch(make, shape):
    m, t = make(nn), make(torch.nn)
    assert repr(m) == repr(t)
    same_weights(m, t)
    if shape is None:
        a, b = run_both(m, t, rand(4, 3), rand(4, 3))
    else:
        a, b = run_both(m, t, rand(*shape))
    close(a, b, 1e-4)


def test_conv2d_noncontiguous_float64_and_zero_batch():
    x = rand(2, 3, 6, 7, dtype=np.float64).transpose(0, 1, 3, 2)
    w = rand(4, 3, 3, 3, dtype=np.float64)[:, :, ::-1]
    close(F.conv2d(mt.tensor(x.copy()).transpose(2, 3).transpose(2, 3), mt.tensor(w.copy())),
          torch.nn.functional.conv2d(torch.tensor(x.copy()), torch.tensor(w.copy())))
    xt = mt.tensor(rand(6, 7, 3, 2)).permute(3, 2, 0, 1)
    close(F.conv2d(xt, mt.tensor(w.astype(np.float32))),
          torch.nn.functional.conv2d(torch.tensor(xt.numpy()), torch.tensor(w.astype(np.float32))))
    out = F.conv2d(mt.zeros(0, 3, 5, 5), mt.zeros(2, 3, 3, 3))
    assert tuple(out.shape) == (0, 2, 3, 3)


def test_max_pool_indices_match_torch():
    x = rand(2, 3, 7, 7)
    a, ai = F.max_pool2d(mt.tensor(x), 3, 2, 1, return_indices=True)
    b, bi = torch.nn.functional.max_pool2d(torch.tensor(x), 3, 2, 1, return_indices=True)
    close(a, b)
    np.testing.assert_array_equal(ai.numpy(), bi.numpy())


@pytest.mark.parametrize("call, msg, exc", [
    (lambda f, T: f.linear(T.randn(4, 3), T.randn(2, 5)),
     "mat1 and mat2 shapes cannot be multiplied (4x3 and 5x2)", RuntimeError),
    (lambda f, T: f.linear(T.randn(2, 4, 3), T.randn(2, 5), T.randn(2)),
     "mat1 and mat2 shapes cannot be multiplied (8x3 and 5x2)", RuntimeError),
    (lambda f, T: f.conv2d(T.randn(3, 8), T.randn(2, 3, 3, 3)),
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [3, 8]",
     RuntimeError),
    (lambda f, T: f.conv2d(T.randn(1, 4, 8, 8), T.randn(2, 3, 3, 3)),
     "Given groups=1, weight of size [2, 3, 3, 3], expected input[1, 4, 8, 8] to have 3 "
     "channels, but got 4 channels instead", RuntimeError),
    (lambda f, T: f.conv2d(T.randn(1, 3, 2, 2), T.randn(2, 3, 3, 3)),
     "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size "
     "can't be greater than actual input size", RuntimeError),
    (lambda f, T: f.conv2d(T.randn(1, 3, 8, 8), T.randn(2, 3, 3, 3), stride=2, padding="same"),
     "padding='same' is not supported for strided convolutions", RuntimeError),
    (lambda f, T: f.conv2d(T.randn(1, 3, 8, 8), T.randn(2, 3, 3, 3), padding="foo"),
     "Invalid padding string: 'foo'", RuntimeError),
    (lambda f, T: f.conv2d(T.randn(1, 3, 8, 8), T.randn(2, 3, 3, 3), bias=T.randn(3)),
     "Given weight of size [2, 3, 3, 3], expected bias to be 1-dimensional with 2 elements, "
     "but got bias of size [3] instead", RuntimeError),
    (lambda f, T: f.conv2d(T.randn(1, 4, 8, 8), T.randn(3, 2, 3, 3), groups=2),
     "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of "
     "size [[3, 2, 3, 3]] instead", RuntimeError),
    (lambda f, T: f.conv2d(T.randn(1, 3, 8, 8), T.randn(2, 3, 3, 3), stride=(1, 2, 3)),
     "expected stride to be a single integer value or a list of 2 values to match the "
     "convolution dimensions, but got stride=[1, 2, 3]", RuntimeError),
    (lambda f, T: f.conv1d(T.randn(3, 8, 8, 8), T.randn(2, 3, 3)),
     "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: "
     "[3, 8, 8, 8]", RuntimeError),
    (lambda f, T: f.max_pool2d(T.randn(3, 8), 2),
     "non-empty 3D or 4D (batch mode) tensor expected for input", RuntimeError),
    (lambda f, T: f.max_pool2d(T.randn(1, 3, 8, 8), 2, padding=2),
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and "
     "dilation=1", RuntimeError),
    (lambda f, T: f.max_pool2d(T.randn(1, 3, 1, 1), 2),
     "Given input size: (3x1x1). Calculated output size: (3x0x0). Output size is too small",
     RuntimeError),
    (lambda f, T: f.avg_pool2d(T.randn(3, 8), 2),
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)", IndexError),
    (lambda f, T: f.adaptive_avg_pool2d(T.randn(3, 8), 2),
     "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [3, 8]", RuntimeError),
    (lambda f, T: f.dropout(T.randn(3), 1.5),
     "dropout probability has to be between 0 and 1, but got 1.5", ValueError),
    (lambda f, T: f.embedding(T.tensor([5]), T.randn(3, 2)), "index out of range in self",
     IndexError),
    (lambda f, T: f.layer_norm(T.randn(4, 3), (4,)),
     "Given normalized_shape=[4], expected input with shape [*, 4], but got input of "
     "size[4, 3]", RuntimeError),
    (lambda f, T: f.group_norm(T.randn(2, 6, 3), 4),
     "Expected number of channels in input to be divisible by num_groups, but got input of "
     "shape [2, 6, 3] and num_groups=4", RuntimeError),
    (lambda f, T: f.batch_norm(T.randn(2, 4), T.zeros(3), T.ones(3)),
     "running_mean should contain 4 elements not 3", RuntimeError),
    (lambda f, T: T.nn.BatchNorm1d(3)(T.randn(2, 3, 4, 5)),
     "expected 2D or 3D input (got 4D input)", ValueError),
    (lambda f, T: T.nn.BatchNorm2d(3)(T.randn(2, 3, 4)), "expected 4D input (got 3D input)",
     ValueError),
])
def test_errors_match_torch(call, msg, exc):
    for f, T in ((F, mt), (torch.nn.functional, torch)):
        with pytest.raises(exc) as info:
            call(f, T)
        assert str(info.value) == msg


@pytest.mark.parametrize("cls, dims", [("BatchNorm1d", (4, 3)), ("BatchNorm1d", (4, 3, 5)),
                                       ("BatchNorm2d", (4, 3, 2, 5))])
@pytest.mark.parametrize("kwargs", [{}, {"momentum": None}, {"affine": False},
                                    {"track_running_stats": False}])
def test_batchnorm_train_and_eval(cls, dims, kwargs):
    m, t = getattr(nn, cls)(3, **kwargs), getattr(torch.nn, cls)(3, **kwargs)
    assert repr(m) == repr(t)
    for step in range(2):
        x = rand(*dims) * 2 + step
        close(*run_both(m, t, x), 1e-4)
    for k, v in t.state_dict().items():
        close(m.state_dict()[k], v, 1e-5)
    m.eval()
    t.eval()
    close(*run_both(m, t, rand(*dims)), 1e-4)


def test_dropout_training_and_eval():
    mt.manual_seed(0)
    d = nn.Dropout(0.25)
    x = mt.ones(2000)
    y = d(x).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)
    assert 0.65 < kept.mean() < 0.85
    mt.manual_seed(0)
    np.testing.assert_array_equal(d(x).numpy(), y)  # the global generator drives it
    d.eval()
    assert d(x) is x
    assert (F.dropout(x, 1.0).numpy() == 0).all()


def test_embedding_padding_idx():
    m, t = nn.Embedding(10, 3, padding_idx=2), torch.nn.Embedding(10, 3, padding_idx=2)
    assert repr(m) == repr(t)
    assert (m.weight[2].detach().numpy() == 0).all()
    same_weights(m, t)
    idx = np.array([[1, 2, 9], [0, 2, 2]])
    close(m(mt.tensor(idx)), t(torch.tensor(idx)))


@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention(batch_first):
    kw = dict(batch_first=batch_first)
    m, t = nn.MultiheadAttention(8, 2, **kw), torch.nn.MultiheadAttention(8, 2, **kw)
    assert repr(m) == repr(t)
    same_weights(m, t)
    q, k = rand(3, 2, 8), rand(5, 2, 8)
    if batch_first:
        q, k = q.transpose(1, 0, 2).copy(), k.transpose(1, 0, 2).copy()
    attn_mask = np.triu(np.ones((3, 5), dtype=bool), 3)
    kpm = np.array([[False] * 4 + [True], [False] * 5])
    for extra in ({}, {"attn_mask": attn_mask}, {"key_padding_mask": kpm},
                  {"need_weights": False}, {"average_attn_weights": False},
                  {"attn_mask": rand(3, 5)}):
        a = m(mt.tensor(q), mt.tensor(k), mt.tensor(k),
              **{n: mt.tensor(v) if isinstance(v, np.ndarray) else v for n, v in extra.items()})
        b = t(torch.tensor(q), torch.tensor(k), torch.tensor(k),
              **{n: torch.tensor(v) if isinstance(v, np.ndarray) else v
                 for n, v in extra.items()})
        close(a[0], b[0], 1e-4)
        if b[1] is None:
            assert a[1] is None
        else:
            close(a[1], b[1], 1e-4)
    a, _ = m(mt.tensor(q[0]), mt.tensor(k[0]), mt.tensor(k[0]))
    b, _ = t(torch.tensor(q[0]), torch.tensor(k[0]), torch.tensor(k[0]))
    close(a, b, 1e-4)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_recurrent_layers(cls, batch_first):
    kw = dict(num_layers=2, batch_first=batch_first)
    m, t = getattr(nn, cls)(3, 4, **kw), getattr(torch.nn, cls)(3, 4, **kw)
    assert repr(m) == repr(t)
    same_weights(m, t)
    x = rand(2, 5, 3)
    a, ha = m(mt.tensor(x))
    b, hb = t(torch.tensor(x))
    close(a, b, 1e-4)
    h0 = rand(2, 2 if batch_first else 5, 4)
    if cls == "LSTM":
        close(ha[0], hb[0], 1e-4)
        close(ha[1], hb[1], 1e-4)
        a, _ = m(mt.tensor(x), (mt.tensor(h0), mt.tensor(h0 * 2)))
        b, _ = t(torch.tensor(x), (torch.tensor(h0), torch.tensor(h0 * 2)))
    else:
        close(ha, hb, 1e-4)
        a, _ = m(mt.tensor(x), mt.tensor(h0))
        b, _ = t(torch.tensor(x), torch.tensor(h0))
    close(a, b, 1e-4)
    a, _ = m(mt.tensor(x[0]))
    b, _ = t(torch.tensor(x[0]))
    close(a, b, 1e-4)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
        m(mt.tensor(rand(2, 5, 4)))


def test_functional_forms_dispatch_torch_function():
    seen = []

    class Spy(mt.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return "spied"

    x = mt.randn(2, 3).as_subclass(Spy)
    assert F.linear(x, mt.randn(4, 3)) == "spied"
    assert F.cross_entropy(x, mt.tensor([0, 1])) == "spied"
    assert F.conv2d(x, mt.randn(1, 1, 1, 1)) == "spied"
    assert seen == ["linear", "cross_entropy", "conv2d"]
    names = {f.__name__ for f in mt.overrides.get_overridable_functions()[F]}
    assert {"linear", "dropout", "mse_loss", "conv2d", "max_pool2d"} <= names


def test_hand_computed_values():
    # conv2d with a ones kernel sums windows; max/avg pool by hand
    x = mt.arange(16.0).reshape(1, 1, 4, 4)
    out = F.conv2d(x, mt.ones(1, 1, 2, 2), mt.tensor([1.0]), stride=2)
    assert out.tolist() == [[[[0 + 1 + 4 + 5 + 1, 2 + 3 + 6 + 7 + 1],
                               [8 + 9 + 12 + 13 + 1, 10 + 11 + 14 + 15 + 1]]]]
    assert F.max_pool2d(x, 2).tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    assert F.avg_pool2d(x, 2).tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]
    lin = nn.Linear(2, 1)
    nn.init.constant_(lin.weight, 2.0)
    nn.init.zeros_(lin.bias)
    assert lin(mt.tensor([[1.0, 3.0]])).tolist() == [[8.0]]
