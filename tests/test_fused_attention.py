"""The fused attention rows (_fused_attention, _fused_attention_backward) behind
scaled_dot_product_attention's 4-d path without mask or dropout, against torch:
values and gradients over odd shapes (more or fewer keys than queries, causal
blocks cut mid-way, channels not a multiple of the vector width), strided
heads as a GPT's split and transpose make them, scales, both float dtypes,
the grad_fn name, double backward, a gradient reaching the weights output,
and the rows' own checks."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.nn.functional import attention as fa

torch = pytest.importorskip("torch")

TOL = {np.float32: dict(rtol=2e-4, atol=2e-5), np.float64: dict(rtol=1e-9, atol=1e-11)}


def _inputs(shapes, dtype, seed=0):
    g = np.random.default_rng(seed)
    return [g.standard_normal(s).astype(dtype) for s in shapes]


def _run(lib, arrays, grad_out, layout, **kw):
    leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
    heads = [layout(lib, t) for t in leaves]
    out = lib.nn.functional.scaled_dot_product_attention(*heads, **kw)
    out.backward(lib.tensor(grad_out))
    return out, [out.detach().numpy()] + [t.grad.numpy() for t in leaves]


def _plain(lib, t):
    return t


def _split_heads(lib, t):
    """(B, L, H*E) stored rows seen as (B, H, L, E) heads, as a GPT block does."""
    b, h, l, e = t.shape
    return t.transpose(1, 2).reshape(b, l, h * e).view(b, l, h, e).transpose(1, 2)


def _every_other_channel(lib, t):
    """Heads whose channels are not contiguous (column stride 2)."""
    return t.repeat_interleave(2, dim=-1)[..., ::2]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("l, s, e", [(1, 1, 1), (5, 7, 4), (7, 5, 3), (70, 70, 9),
                                     (33, 65, 8), (65, 33, 17), (64, 64, 32), (4, 1000, 5)])
def test_matches_torch(dtype, causal, l, s, e):
    b, h = 2, 3
    arrays = _inputs([(b, h, l, e), (b, h, s, e), (b, h, s, e)], dtype)
    grad_out = _inputs([(b, h, l, e)], dtype, seed=1)[0]
    got_out, got = _run(mt, arrays, grad_out, _plain, is_causal=causal)
    ref_out, ref = _run(torch, arrays, grad_out, _plain, is_causal=causal)
    assert type(got_out.grad_fn).__name__ == type(ref_out.grad_fn).__name__ == \
        "ScaledDotProductFlashAttentionForCpuBackward0"
    assert got_out.dtype == getattr(mt, np.dtype(dtype).name)
    for name, x, y in zip(["out", "dq", "dk", "dv"], got, ref):
        np.testing.assert_allclose(x, y, err_msg=name, **TOL[dtype])


@pytest.mark.parametrize("layout", [_split_heads, _every_other_channel])
# (torch's flash kernel gives NaN for a negative scale with the causal mask)
@pytest.mark.parametrize("causal, scale", [(False, None), (True, None), (False, 1.0),
                                           (True, 0.3), (False, -0.4)])
def test_strided_heads_and_scales(layout, causal, scale):
    arrays = _inputs([(2, 4, 37, 6)] * 3, np.float64, seed=2)
    grad_out = _inputs([(2, 4, 37, 6)], np.float64, seed=3)[0]
    _, got = _run(mt, arrays, grad_out, layout, is_causal=causal, scale=scale)
    _, ref = _run(torch, arrays, grad_out, layout, is_causal=causal, scale=scale)
    for name, x, y in zip(["out", "dq", "dk", "dv"], got, ref):
        np.testing.assert_allclose(x, y, err_msg=name, **TOL[np.float64])


def test_rows_without_a_finite_key_are_zero():
    q, k, v = _inputs([(1, 2, 3, 4)] * 3, np.float64, seed=4)
    k[0, 1] = -np.inf
    q[0, 1] = 1.0
    outs = []
    for lib in (mt, torch):
        tv = lib.tensor(v, requires_grad=True)
        out = lib.nn.functional.scaled_dot_product_attention(lib.tensor(q), lib.tensor(k), tv)
        out.sum().backward()
        outs.append((out.detach().numpy(), tv.grad.numpy()))
    np.testing.assert_array_equal(outs[0][0][0, 1], 0.0)
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b)


@pytest.mark.parametrize("causal", [False, True])
def test_gradcheck_and_double_backward(causal):
    q, k, v = (mt.tensor(a, requires_grad=True)
               for a in _inputs([(1, 2, 5, 3), (1, 2, 4, 3), (1, 2, 4, 3)], np.float64, seed=5))

    def f(q, k, v):
        return mt.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)

    assert mt.autograd.gradcheck(f, (q, k, v))
    assert mt.autograd.gradgradcheck(f, (q, k, v))


def _torch_math(q, k, v, causal, scale):
    scores = q @ k.transpose(-2, -1) * scale
    if causal:
        mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).triu(1)
        scores = scores.masked_fill(mask, float("-inf"))
    w = scores.softmax(-1)
    return w @ v, w


def test_create_graph_matches_torch_math():
    # torch's flash kernel has no double backward; its math path is the reference
    arrays = _inputs([(2, 2, 6, 3)] * 3, np.float64, seed=6)
    res = []
    for lib in (mt, torch):
        q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)
        if lib is mt:
            out = mt.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            out = _torch_math(q, k, v, True, 3 ** -0.5)[0]
        dq, = lib.autograd.grad((out * out).sum(), q, create_graph=True)
        (dq * dq).sum().backward()
        res.append([dq.detach().numpy(), q.grad.numpy(), k.grad.numpy(), v.grad.numpy()])
    for x, y in zip(*res):
        np.testing.assert_allclose(x, y, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("causal", [False, True])
def test_gradient_through_the_weights_output(causal):
    arrays = _inputs([(2, 1, 5, 3), (2, 1, 6, 3), (2, 1, 6, 2)], np.float64, seed=7)
    r = _inputs([(2, 1, 5, 6)], np.float64, seed=8)[0]
    q, k, v = (mt.tensor(a, requires_grad=True) for a in arrays)
    out, w = fa._fused_attention(q, k, v, 0.7, causal)
    ((out * out).sum() + (w * mt.tensor(r)).sum()).backward()
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in arrays)
    tout, tw = _torch_math(tq, tk, tv, causal, 0.7)
    ((tout * tout).sum() + (tw * torch.tensor(r)).sum()).backward()
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-12, atol=1e-14)
    for x, y in [(q.grad, tq.grad), (k.grad, tk.grad), (v.grad, tv.grad)]:
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-9, atol=1e-11)


def test_backward_row_matches_the_formula():
    arrays = _inputs([(3, 4, 3), (3, 5, 3), (3, 5, 2), (3, 4, 2)], np.float32, seed=9)
    q, k, v, g = (mt.tensor(a) for a in arrays)
    out, w = fa._fused_attention(q, k, v, 0.5, True)
    dq, dk, dv = mt._fused_attention_backward(g, q, k, v, w, 0.5, True)
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in arrays[:3])
    _torch_math(tq, tk, tv, True, 0.5)[0].backward(torch.tensor(arrays[3]))
    for x, y in [(dq, tq.grad), (dk, tk.grad), (dv, tv.grad)]:
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-5, atol=1e-6)


def test_rows_refuse_bad_operands():
    q = mt.randn(2, 3, 4)
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        fa._fused_attention(q.long(), q.long(), q.long(), 1.0, False)
    with pytest.raises(RuntimeError, match="dtype"):
        fa._fused_attention(q, q.double(), q, 1.0, False)
    with pytest.raises(RuntimeError, match="batch dimensions"):
        fa._fused_attention(q, mt.randn(3, 3, 4), q, 1.0, False)
    with pytest.raises(RuntimeError, match="size"):
        fa._fused_attention(q, mt.randn(2, 3, 5), q, 1.0, False)
    with pytest.raises(RuntimeError, match="size"):
        fa._fused_attention(q, q, mt.randn(2, 5, 4), 1.0, False)
    with pytest.raises(RuntimeError, match="size"):
        mt._fused_attention_backward(mt.randn(2, 2, 4), q, q, q, mt.randn(2, 3, 3), 1.0, False)


def test_other_paths_stay_composite():
    q = mt.randn(2, 3, 4, 5, requires_grad=True)
    f = mt.nn.functional.scaled_dot_product_attention
    assert type(f(q, q, q).grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert type(f(q[0], q[0], q[0]).grad_fn).__name__ != \
        "ScaledDotProductFlashAttentionForCpuBackward0"
    mask = mt.ones(4, 4, dtype=mt.bool)
    assert type(f(q, q, q, attn_mask=mask).grad_fn).__name__ != \
        "ScaledDotProductFlashAttentionForCpuBackward0"
    assert type(f(q.half(), q.half(), q.half()).grad_fn).__name__ != \
        "ScaledDotProductFlashAttentionForCpuBackward0"


def test_eight_lane_rows_match_torch():
    """The softmax rows' 8-lane path (MINITORCH_NO_AVX512 in a fresh
    process) over the same shapes."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root, MINITORCH_NO_AVX512="1")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        os.path.abspath(__file__), "-k", "matches_torch or strided_heads"],
                       cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:]
    assert " passed" in r.stdout and "failed" not in r.stdout
