"""The Transformer modules against torch with torch's weights loaded: outputs,
input and parameter gradients, masks, state-dict names and errors."""
import warnings

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
from test_nn_attention import same_error
from test_nn_grads import check, rand
from param_ids import readable_id

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")

LAYER_CONFIGS = [
    {}, {"norm_first": True}, {"batch_first": True, "activation": "gelu"},
    {"bias": False, "layer_norm_eps": 1e-3}, {"activation": lambda n: n.GELU()},
]


def _kw(cfg, n):
    return {k: (v(n) if callable(v) else v) for k, v in cfg.items()}


def _seq(cfg, s, b=2, e=8):
    return rand(b, s, e) if cfg.get("batch_first") else rand(s, b, e)


@pytest.mark.parametrize("cfg", LAYER_CONFIGS, ids=readable_id)
def test_encoder_layer(cfg):
    def make(n):
        return n.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **_kw(cfg, n))
    src = _seq(cfg, 5)
    check(make, src)
    kpm = np.zeros((2, 5), dtype=bool)
    kpm[1, -2:] = True
    causal = np.triu(np.ones((5, 5), dtype=bool), 1)
    check(make, src, kpm, causal, call=lambda f, x, p, m: f(x, m, p))
    check(make, src, nn.Transformer.generate_square_subsequent_mask(5).numpy(),
          requires_grad=False, call=lambda f, x, m: f(x, src_mask=m, is_causal=True))
    check(make, src[0] if cfg.get("batch_first") else src[:, 0])


@pytest.mark.parametrize("cfg", LAYER_CONFIGS, ids=readable_id)
def test_decoder_layer(cfg):
    def make(n):
        return n.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **_kw(cfg, n))
    tgt, mem = _seq(cfg, 4), _seq(cfg, 6)
    check(make, tgt, mem)
    tmask = nn.Transformer.generate_square_subsequent_mask(4).numpy()
    mkpm = np.zeros((2, 6), dtype=bool)
    mkpm[0, -1] = True
    check(make, tgt, mem, tmask, mkpm, requires_grad=False,
          call=lambda f, t, m, tm, mp: f(t, m, tgt_mask=tm, memory_key_padding_mask=mp,
                                         tgt_is_causal=True))


def test_encoder_and_decoder_stacks():
    def enc(n):
        return n.TransformerEncoder(n.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2,
                                    n.LayerNorm(8), enable_nested_tensor=False)

    def dec(n):
        return n.TransformerDecoder(n.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2)
    x, y = rand(5, 2, 8), rand(4, 2, 8)
    causal = nn.Transformer.generate_square_subsequent_mask(5).numpy()
    check(enc, x)
    check(enc, x, causal, requires_grad=False, call=lambda f, x, m: f(x, mask=m))
    check(dec, y, x)
    check(dec, y, x, causal[:4, :4], requires_grad=False,
          call=lambda f, y, x, m: f(y, x, tgt_mask=m))


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer(batch_first):
    def make(n):
        return n.Transformer(8, 2, 2, 1, 16, dropout=0.0, batch_first=batch_first)
    src, tgt = rand(2, 5, 8), rand(2, 3, 8)
    if not batch_first:
        src, tgt = src.transpose(1, 0, 2).copy(), tgt.transpose(1, 0, 2).copy()
    check(make, src, tgt)
    tmask = nn.Transformer.generate_square_subsequent_mask(3).numpy()
    skpm = np.array([[False] * 5, [False] * 3 + [True] * 2])
    check(make, src, tgt, tmask, skpm, requires_grad=False,
          call=lambda f, s, t, m, p: f(s, t, tgt_mask=m, src_key_padding_mask=p,
                                       memory_key_padding_mask=p))


def test_state_dict_names_and_repr():
    pairs = [
        (lambda n: n.Transformer(8, 2, 1, 2, 16)),
        (lambda n: n.TransformerEncoderLayer(8, 2, 16, activation=n.GELU(), bias=False)),
        (lambda n: n.TransformerDecoderLayer(8, 2, 16, norm_first=True)),
        (lambda n: n.TransformerEncoder(n.TransformerEncoderLayer(8, 2, 16), 3)),
    ]
    for make in pairs:
        m, t = make(nn), make(torch.nn)
        assert list(m.state_dict()) == list(t.state_dict())
        assert [tuple(v.shape) for v in m.state_dict().values()] == \
            [tuple(v.shape) for v in t.state_dict().values()]
        assert repr(m) == repr(t)


def test_generate_square_subsequent_mask():
    for dtype in (None, mt.float64):
        a = nn.Transformer.generate_square_subsequent_mask(4, dtype=dtype)
        b = torch.nn.Transformer.generate_square_subsequent_mask(
            4, dtype=None if dtype is None else torch.float64)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_nested_tensor_warnings_match():
    for kw in ({}, {"batch_first": True}, {"batch_first": True, "norm_first": True},
               {"batch_first": True, "activation": lambda x: x}):
        msgs = []
        for lib in (mt, torch):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, **kw), 1)
            msgs.append([str(x.message) for x in w])
        assert msgs[0] == msgs[1]


def test_dropout_only_in_training():
    mt.manual_seed(0)
    m = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = mt.tensor(rand(5, 2, 8)).float()
    a = m(x)
    m.eval()
    assert not np.allclose(a.detach().numpy(), m(x).detach().numpy())
    np.testing.assert_array_equal(m(x).detach().numpy(), m(x).detach().numpy())


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.zeros(5, 2, 8), lib.zeros(3, 3, 8)),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.zeros(5, 2, 8), lib.zeros(3, 2, 6)),
])
def test_errors(call):
    same_error(call)


def test_eval_matches_torch_fast_path():
    # no grad + eval sends torch down its fused inference path; same numbers
    torch.manual_seed(0)
    t = torch.nn.Transformer(8, 2, 2, 2, 16, batch_first=True).eval()
    m = nn.Transformer(8, 2, 2, 2, 16, batch_first=True).eval()
    m.load_state_dict({k: mt.tensor(v.numpy()) for k, v in t.state_dict().items()})
    src, tgt = rand(2, 5, 8).astype(np.float32), rand(2, 3, 8).astype(np.float32)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(3)
    with torch.no_grad():
        b = t(torch.tensor(src), torch.tensor(tgt), tgt_mask=mask).numpy()
    with mt.no_grad():
        a = m(mt.tensor(src), mt.tensor(tgt), tgt_mask=mt.tensor(mask.numpy())).numpy()
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
