"""scaled_dot_product_attention's cheaper paths against torch: the scale applied to
the query or to the scores (whichever is smaller), the cached additive causal mask
reused across calls, shapes and dtypes, and the safe softmax that only masks when
a row has no key left."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.nn.functional import attention as fa
from test_nn_grads import check, rand

torch = pytest.importorskip("torch")


def sdpa(n):
    return n.functional.scaled_dot_product_attention


@pytest.mark.parametrize("shapes", [
    [(2, 3, 5, 8), (2, 3, 3, 8), (2, 3, 3, 4)],     # fewer keys than channels: scores scaled
    [(2, 3, 9, 2), (2, 3, 7, 2), (2, 3, 7, 3)],     # more keys: the query scaled
    [(1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1)],
    [(4, 17, 33), (4, 19, 33), (4, 19, 5)],
])
@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"scale": 1.0},
                                {"scale": 1.0, "is_causal": True}, {"scale": -0.6}])
def test_scaling_and_causal_paths(shapes, kw):
    check(sdpa, *(rand(*s) for s in shapes), call=lambda f, q, k, v: f(q, k, v, **kw))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cached_causal_mask_is_reused_and_left_intact(dtype):
    fa._CAUSAL_BIAS.clear()
    tol = {"atol": 2e-5, "rtol": 2e-5} if dtype == np.float32 else {}
    for _ in range(2):
        check(sdpa, rand(2, 6, 4), rand(2, 5, 4), rand(2, 5, 3), dtype=dtype,
              call=lambda f, q, k, v: f(q, k, v, is_causal=True), **tol)
    name = np.dtype(dtype).name
    assert list(fa._CAUSAL_BIAS) == [(6, 5, getattr(mt, name))]
    bias = fa._CAUSAL_BIAS[(6, 5, getattr(mt, name))]
    expected = np.where(np.triu(np.ones((6, 5), bool), 1), -np.inf, 0.0)
    np.testing.assert_array_equal(bias.numpy(), expected)
    assert not bias.requires_grad


def test_causal_mask_cache_is_bounded():
    fa._CAUSAL_BIAS.clear()
    q = mt.randn(1, 2, 3)
    for s in range(1, fa._CAUSAL_BIAS_LIMIT + 5):
        k = mt.randn(1, s, 3)
        fa.scaled_dot_product_attention(q, k, k, is_causal=True)
    assert 0 < len(fa._CAUSAL_BIAS) <= fa._CAUSAL_BIAS_LIMIT


def test_causal_float16_matches_torch():
    g = np.random.default_rng(3)
    q, k, v = (g.standard_normal((2, 2, 5, 4)).astype(np.float16) for _ in range(3))
    got = mt.nn.functional.scaled_dot_product_attention(*(mt.tensor(a) for a in (q, k, v)),
                                                         is_causal=True)
    ref = torch.nn.functional.scaled_dot_product_attention(
        *(torch.tensor(a) for a in (q, k, v)), is_causal=True)
    assert got.dtype == mt.float16
    np.testing.assert_allclose(got.float().numpy(), ref.float().numpy(), atol=2e-3, rtol=2e-3)


def test_rows_with_every_key_masked_are_zero_with_zero_gradient():
    # a -inf key makes query row 0 (positive query) see -inf everywhere
    q = np.zeros((1, 3, 1))
    q[0, 0, 0] = 1.0
    q[0, 1:, 0] = -1.0
    k = np.full((1, 2, 1), -np.inf)
    v = rand(1, 2, 2)
    outs = []
    for lib in (mt, torch):
        tq = lib.tensor(q, requires_grad=True)
        tv = lib.tensor(v, requires_grad=True)
        out = lib.nn.functional.scaled_dot_product_attention(tq, lib.tensor(k), tv)
        out.sum().backward()
        outs.append((out.detach().numpy(), tv.grad.numpy()))
    np.testing.assert_array_equal(outs[0][0][0, 0], [0.0, 0.0])
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b)


def test_no_key_at_all_gives_zeros_like_torch():
    for lib in (mt, torch):
        out = lib.nn.functional.scaled_dot_product_attention(
            lib.ones(2, 3, 4), lib.ones(2, 0, 4), lib.ones(2, 0, 5), is_causal=True)
        assert tuple(out.shape) == (2, 3, 5)
        assert float(out.abs().sum()) == 0.0
