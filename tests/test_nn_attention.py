"""scaled_dot_product_attention and the complete MultiheadAttention against torch:
values, input and parameter gradients, masks, GQA and error messages."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
import minitorch.nn.functional as F
from test_nn_grads import check, rand
from param_ids import readable_id

torch = pytest.importorskip("torch")


def sdpa(n):
    return n.functional.scaled_dot_product_attention


def keep_mask(*shape, seed=1):
    """A boolean keep-mask with some rows fully masked (torch gives those zeros)."""
    m = np.random.default_rng(seed).random(shape) > 0.4
    m[..., 0, :] = False
    return m


@pytest.mark.parametrize("shapes", [
    [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5)],
    [(3, 4), (6, 4), (6, 7)],
    [(2, 3, 4), (1, 6, 4), (6, 4)],
    [(1, 2, 5, 4), (1, 2, 3, 4), (1, 2, 3, 4)],
])
@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"scale": 0.37}])
def test_values_and_gradients(shapes, kw):
    check(sdpa, *(rand(*s) for s in shapes), call=lambda f, q, k, v: f(q, k, v, **kw))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_masks(dtype):
    q, k, v = rand(2, 3, 4, 5), rand(2, 3, 6, 5), rand(2, 3, 6, 5)
    tol = {"atol": 1e-5, "rtol": 1e-5} if dtype == np.float32 else {}
    for mask in (keep_mask(4, 6), keep_mask(2, 1, 4, 6), rand(4, 6), rand(2, 3, 4, 6)):
        mask = mask.astype(dtype) if mask.dtype != bool else mask
        check(sdpa, q, k, v, mask, dtype=dtype,
              call=lambda f, q, k, v, m: f(q, k, v, attn_mask=m), **tol)
    neg = rand(4, 6)
    neg[1] = -np.inf
    check(sdpa, q, k, v, neg, call=lambda f, q, k, v, m: f(q, k, v, attn_mask=m))


def test_causal_with_mask_on_4d_inputs_combines_both():
    # torch's CPU flash kernel (4-D, no dropout) applies the mask and the causal mask
    q, k, v = rand(1, 2, 5, 4), rand(1, 2, 3, 4), rand(1, 2, 3, 4)
    check(sdpa, q, k, v, keep_mask(5, 3),
          call=lambda f, q, k, v, m: f(q, k, v, attn_mask=m, is_causal=True))
    check(sdpa, q, k, v, rand(5, 3), requires_grad=False,
          call=lambda f, q, k, v, m: f(q, k, v, attn_mask=m, is_causal=True))
    # a mask that needs a gradient sends torch to its math path, which refuses both
    same_error(lambda lib: sdpa(lib.nn)(lib.zeros(1, 2, 2, 3), lib.zeros(1, 2, 2, 3),
                                  lib.zeros(1, 2, 2, 3), is_causal=True,
                                  attn_mask=lib.zeros(2, 2, requires_grad=True)))


def test_gqa():
    q, k, v = rand(2, 6, 4, 5), rand(2, 2, 3, 5), rand(2, 2, 3, 5)
    check(sdpa, q, k, v, call=lambda f, q, k, v: f(q, k, v, enable_gqa=True))
    check(sdpa, q, k, v, call=lambda f, q, k, v: f(q, k, v, enable_gqa=True, is_causal=True))
    check(sdpa, q, k, v, keep_mask(4, 3),
          call=lambda f, q, k, v, m: f(q, k, v, attn_mask=m, enable_gqa=True, is_causal=True))


def test_dropout_statistics():
    q, k, v = (mt.tensor(rand(1, 1, 8, 4)) for _ in range(3))
    mt.manual_seed(0)
    full = F.scaled_dot_product_attention(q, k, v, dropout_p=1.0)
    assert full.abs().sum().item() == 0
    ones = mt.ones(1, 1, 200, 4)
    out = F.scaled_dot_product_attention(ones, ones, ones, dropout_p=0.5)
    assert 0.7 < out.mean().item() < 1.3  # surviving weights are scaled by 1/(1-p)


def same_error(call):
    """call(lib) raises the same exception type and message in minitorch as in torch."""
    res = []
    for lib in (mt, torch):
        with pytest.raises(Exception) as e:
            call(lib)
        res.append((type(e.value).__name__, str(e.value)))
    assert res[0] == res[1]


@pytest.mark.parametrize("call", [
    lambda lib: sdpa(lib.nn)(lib.zeros(4), lib.zeros(4), lib.zeros(4)),
    lambda lib: sdpa(lib.nn)(lib.zeros(2, 3), lib.zeros(2, 3), lib.zeros(2, 3).double()),
    lambda lib: sdpa(lib.nn)(lib.zeros(2, 3), lib.zeros(2, 3), lib.zeros(2, 3),
                             attn_mask=lib.zeros(2, 2, dtype=lib.int64)),
    lambda lib: sdpa(lib.nn)(lib.zeros(2, 3), lib.zeros(2, 3), lib.zeros(2, 3),
                             attn_mask=lib.zeros(2, 2, dtype=lib.float64)),
    lambda lib: sdpa(lib.nn)(lib.zeros(2, 3), lib.zeros(2, 3), lib.zeros(2, 3),
                             attn_mask=lib.ones(2, 2, dtype=lib.bool), is_causal=True),
    lambda lib: sdpa(lib.nn)(lib.zeros(1, 2, 2, 3), lib.zeros(1, 2, 2, 3),
                             lib.zeros(1, 2, 2, 3), attn_mask=lib.ones(2, 2, dtype=lib.bool),
                             is_causal=True, dropout_p=0.5),
    lambda lib: sdpa(lib.nn)(lib.zeros(1, 3, 2, 3), lib.zeros(1, 2, 2, 3),
                             lib.zeros(1, 2, 2, 3), enable_gqa=True),
    lambda lib: sdpa(lib.nn)(lib.zeros(2, 3, dtype=lib.int64), lib.zeros(2, 3, dtype=lib.int64),
                             lib.zeros(2, 3, dtype=lib.int64)),
])
def test_errors(call):
    same_error(call)


# ---- MultiheadAttention -------------------------------------------------------------------

MHA_CONFIGS = [
    {}, {"add_bias_kv": True}, {"add_zero_attn": True},
    {"add_bias_kv": True, "add_zero_attn": True, "kdim": 3, "vdim": 5},
    {"bias": False, "batch_first": True}, {"kdim": 3, "vdim": 5, "batch_first": True},
]


def _mha_inputs(cfg, b=2, length=3, s=4, e=8):
    def shape(n, d):
        return (b, n, d) if cfg.get("batch_first") else (n, b, d)
    return rand(*shape(length, e)), rand(*shape(s, cfg.get("kdim", e))), \
        rand(*shape(s, cfg.get("vdim", e)))


@pytest.mark.parametrize("cfg", MHA_CONFIGS, ids=readable_id)
@pytest.mark.parametrize("call", ["plain", "no_weights", "per_head", "masks", "float_masks",
                                  "causal"])
def test_mha(cfg, call):
    q, k, v = _mha_inputs(cfg)
    kpm = np.zeros((2, 4), dtype=bool)
    kpm[0, -1] = kpm[1, 0] = True
    am = np.triu(np.ones((3, 4), dtype=bool), 2)
    calls = {
        "plain": (lambda f, q, k, v: f(q, k, v), ()),
        "no_weights": (lambda f, q, k, v: f(q, k, v, need_weights=False), ()),
        "per_head": (lambda f, q, k, v: f(q, k, v, average_attn_weights=False), ()),
        "masks": (lambda f, q, k, v, p, m: f(q, k, v, key_padding_mask=p, attn_mask=m),
                  (kpm, am)),
        "float_masks": (lambda f, q, k, v, p, m: f(q, k, v, key_padding_mask=p, attn_mask=m,
                                                   need_weights=False), (rand(2, 4), rand(3, 4))),
        "causal": (lambda f, q, k, v, m: f(q, k, v, attn_mask=m, is_causal=True,
                                           need_weights=False), (am,)),
    }
    fn, extra = calls[call]
    check(lambda n: n.MultiheadAttention(8, 2, **cfg), q, k, v, *extra, call=fn, train=False)


@pytest.mark.filterwarnings("ignore:Support for mismatched")
def test_mha_unbatched_and_3d_mask():
    check(lambda n: n.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True),
          rand(3, 4), rand(5, 4), rand(5, 4), np.array([False] * 4 + [True]), rand(2, 3, 5),
          call=lambda f, q, k, v, p, m: f(q, k, v, key_padding_mask=p, attn_mask=m),
          train=False)
    check(lambda n: n.MultiheadAttention(4, 2), rand(3, 2, 4), rand(5, 2, 4), rand(5, 2, 4),
          rand(4, 3, 5), call=lambda f, q, k, v, m: f(q, k, v, attn_mask=m), train=False)


def test_mha_state_dict_names_and_repr():
    for cfg in MHA_CONFIGS:
        m, t = nn.MultiheadAttention(8, 2, **cfg), torch.nn.MultiheadAttention(8, 2, **cfg)
        assert list(m.state_dict()) == list(t.state_dict())
        assert [tuple(p.shape) for p in m.parameters()] == \
            [tuple(p.shape) for p in t.parameters()]
        assert repr(m) == repr(t)


def test_mha_dropout_trains():
    mt.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = mt.tensor(rand(3, 2, 8)).float()
    a, _ = m(x, x, x)
    m.eval()
    b, _ = m(x, x, x)
    c, _ = m(x, x, x)
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())
    np.testing.assert_array_equal(b.detach().numpy(), c.detach().numpy())


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                                lib.zeros(3, 2, 4), is_causal=True),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                                lib.zeros(3, 2, 4), attn_mask=lib.zeros(3, 5)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                                lib.zeros(3, 2, 4),
                                                attn_mask=lib.zeros(1, 3, 3)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(
        lib.zeros(3, 2, 4), lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
        attn_mask=lib.zeros(3, 3, dtype=lib.int64)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 4), lib.zeros(4, 2, 4),
                                                lib.zeros(3, 2, 4)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 4), lib.zeros(3, 2, 4),
                                                lib.zeros(3, 2, 4)),
    lambda lib: lib.nn.MultiheadAttention(5, 2),
])
def test_mha_errors(call):
    same_error(call)


def _mha_fn_args(lib, rng_seed=3, **over):
    """Positional arguments of F.multi_head_attention_forward for E=4, 2 heads."""
    r = np.random.default_rng(rng_seed)

    def t(*s):
        return lib.tensor(r.standard_normal(s))

    args = dict(query=t(3, 2, 4), key=t(5, 2, 4), value=t(5, 2, 4), embed_dim_to_check=4,
                num_heads=2, in_proj_weight=t(12, 4), in_proj_bias=t(12), bias_k=None,
                bias_v=None, add_zero_attn=False, dropout_p=0.0, out_proj_weight=t(4, 4),
                out_proj_bias=t(4))
    args.update({k: v(lib, t) if callable(v) else v for k, v in over.items()})
    return args


@pytest.mark.parametrize("over", [
    {}, {"need_weights": False}, {"add_zero_attn": True, "average_attn_weights": False},
    {"static_k": lambda lib, t: t(4, 7, 2), "static_v": lambda lib, t: t(4, 7, 2)},
    {"use_separate_proj_weight": True, "in_proj_weight": None,
     "q_proj_weight": lambda lib, t: t(4, 4), "k_proj_weight": lambda lib, t: t(4, 4),
     "v_proj_weight": lambda lib, t: t(4, 4)},
    {"dropout_p": 0.5, "training": False},
], ids=readable_id)
def test_multi_head_attention_forward(over):
    a = F.multi_head_attention_forward(**_mha_fn_args(mt, **over))
    b = torch.nn.functional.multi_head_attention_forward(**_mha_fn_args(torch, **over))
    np.testing.assert_allclose(a[0].numpy(), b[0].numpy(), rtol=1e-10, atol=1e-12)
    assert (a[1] is None) == (b[1] is None)
    if b[1] is not None:
        np.testing.assert_allclose(a[1].numpy(), b[1].numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("over", [
    {"embed_dim_to_check": 5}, {"num_heads": 3}, {"in_proj_weight": None},
    {"bias_k": lambda lib, t: t(1, 1, 4)}, {"bias_v": lambda lib, t: t(1, 1, 4)},
    {"bias_k": lambda lib, t: t(1, 1, 4), "bias_v": lambda lib, t: t(1, 1, 4),
     "static_k": lambda lib, t: t(4, 5, 2)},
    {"static_k": lambda lib, t: t(3, 5, 2)}, {"static_v": lambda lib, t: t(4, 5, 3)},
    {"value": lambda lib, t: t(6, 2, 4)},
    {"use_separate_proj_weight": True, "value": lambda lib, t: t(6, 2, 4)},
    {"use_separate_proj_weight": True, "q_proj_weight": None},
], ids=readable_id)
def test_multi_head_attention_forward_errors(over):
    same_error(lambda lib: lib.nn.functional.multi_head_attention_forward(
        **_mha_fn_args(lib, **over)))
