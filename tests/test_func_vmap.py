"""minitorch.func.vmap against torch.func.vmap on random inputs: values, shapes,
dtypes and errors; which calls take a batching rule and which the per-sample
fallback; nesting, randomness, chunk_size, and grad inside vmap (per-sample
gradients) and vmap inside grad."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.func import grad, vmap
from minitorch.func import _dispatch

torch = pytest.importorskip("torch")
rng = np.random.default_rng(0)


def _pair(*shapes, dtype=np.float64):
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    return [mt.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays]


def _close(a, b, atol=1e-6):
    if isinstance(b, (tuple, list)):
        assert type(a) in (tuple, list) or isinstance(a, tuple)
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, atol)
        return
    if isinstance(b, dict):
        assert a.keys() == b.keys()
        for k in b:
            _close(a[k], b[k], atol)
        return
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=atol, rtol=1e-6)


@pytest.fixture
def no_fallback(monkeypatch):
    """Fails the test if any call falls back to the per-sample loop."""
    def refuse(func, args, kwargs, level):
        raise AssertionError(f"{func.__name__} took the per-sample fallback")
    monkeypatch.setattr(_dispatch, "fallback", refuse)


# (name, function of (lib, *tensors), shapes, in_dims)
RULED = [
    ("sin", lambda L, x: L.sin(x), [(4, 3)], 0),
    ("add_bcast", lambda L, x, y: x + y, [(4, 3), (2, 1, 3)], (0, None)),
    ("mul_both", lambda L, x, y: x * y, [(4, 3), (3, 4)], (0, 1)),
    ("where", lambda L, x, y: L.where(x > 0, x, y), [(4, 2, 3), (3,)], (0, None)),
    ("pow_scalar", lambda L, x: x ** 2 - 3 * x, [(2, 5)], 1),
    ("clamp", lambda L, x: x.clamp(-0.5, 0.5), [(4, 3)], 0),
    ("sum_all", lambda L, x: x.sum(), [(4, 2, 3)], 0),
    ("sum_dims", lambda L, x: x.sum((0, -1), keepdim=True), [(4, 2, 3)], 1),
    ("mean_dim", lambda L, x: x.mean(-1), [(4, 2, 3)], 2),
    ("std", lambda L, x: x.std(0), [(4, 2, 3)], 0),
    ("amax", lambda L, x: x.amax(1), [(4, 2, 3)], 0),
    ("max_dim", lambda L, x: tuple(x.max(1)), [(4, 2, 3)], 0),
    ("max_all", lambda L, x: x.max(), [(4, 2, 3)], 0),
    ("argmax_all", lambda L, x: x.argmax(), [(4, 2, 3)], 0),
    ("prod_all", lambda L, x: x.prod(), [(4, 3)], 0),
    ("softmax", lambda L, x: L.softmax(x, -1), [(4, 2, 3)], 0),
    ("log_softmax", lambda L, x: L.log_softmax(x, 0), [(4, 2, 3)], 1),
    ("cumsum", lambda L, x: x.cumsum(0), [(4, 3)], 1),
    ("logsumexp", lambda L, x: x.logsumexp(-1), [(4, 2, 3)], 0),
    ("sort", lambda L, x: tuple(x.sort(-1)), [(4, 2, 3)], 0),
    ("topk", lambda L, x: tuple(x.topk(2)), [(4, 2, 3)], 0),
    ("matmul_vec_mat", lambda L, x, w: x @ w, [(5, 3), (3, 2)], (0, None)),
    ("matmul_mat_vec", lambda L, w, x: w @ x, [(2, 3), (5, 3)], (None, 0)),
    ("matmul_both", lambda L, x, w: x @ w, [(5, 2, 3), (3, 4, 5)], (0, 2)),
    ("matmul_bcast", lambda L, x, w: L.matmul(x, w), [(5, 4, 2, 3), (3, 6)], (0, None)),
    ("matmul_batched_right_3d", lambda L, x, w: L.matmul(x, w), [(2, 3), (5, 4, 3, 2)],
     (None, 0)),
    ("dot", lambda L, x, y: L.dot(x, y), [(5, 3), (5, 3)], 0),
    ("mv", lambda L, a, x: L.mv(a, x), [(5, 2, 3), (3,)], (0, None)),
    ("mm", lambda L, a, b: L.mm(a, b), [(2, 3), (5, 3, 4)], (None, 0)),
    ("bmm", lambda L, a, b: L.bmm(a, b), [(5, 2, 3, 4), (2, 4, 3)], (0, None)),
    ("outer", lambda L, a, b: L.outer(a, b), [(5, 3), (4,)], (0, None)),
    ("linear", lambda L, x, w, b: L.nn.functional.linear(x, w, b), [(5, 3), (4, 3), (4,)],
     (0, None, None)),
    ("linear_batched_w", lambda L, x, w: L.nn.functional.linear(x, w), [(3,), (5, 4, 3)],
     (None, 0)),
    ("reshape", lambda L, x: x.reshape(3, -1), [(4, 6)], 0),
    ("view", lambda L, x: x.view(-1), [(4, 2, 3)], 0),
    ("flatten", lambda L, x: x.flatten(1), [(4, 2, 3, 2)], 1),
    ("permute", lambda L, x: x.permute(2, 0, 1), [(4, 2, 3, 5)], 0),
    ("transpose", lambda L, x: x.transpose(0, -1), [(2, 4, 3)], 1),
    ("t", lambda L, x: x.t(), [(4, 2, 3)], 0),
    ("unsqueeze_squeeze", lambda L, x: x.unsqueeze(-1).squeeze(0), [(4, 1, 3)], 0),
    ("squeeze_all", lambda L, x: x.squeeze(), [(4, 1, 3, 1)], 0),
    ("expand", lambda L, x: x.expand(2, 3, 3), [(4, 3, 1)], 0),
    ("movedim", lambda L, x: x.movedim(0, 2), [(4, 2, 3, 5)], 0),
    ("select_narrow", lambda L, x: x.select(1, 2).narrow(0, 1, 1), [(4, 2, 3)], 0),
    ("unbind", lambda L, x: x.unbind(1), [(4, 2, 3)], 0),
    ("split", lambda L, x: x.split(2, -1), [(4, 2, 5)], 0),
    ("chunk", lambda L, x: x.chunk(2, 0), [(4, 5)], 1),
    ("cat", lambda L, x, y: L.cat([x, y], 1), [(4, 2, 3), (2, 2)], (0, None)),
    ("stack", lambda L, x, y: L.stack([x, y], -1), [(4, 2, 3), (2, 3)], (0, None)),
    ("flip", lambda L, x: x.flip(0, 1), [(4, 2, 3)], 0),
    ("repeat", lambda L, x: x.repeat(2, 1, 2), [(4, 2, 3)], 0),
    ("diagonal", lambda L, x: x.diagonal(0, 0, 1), [(4, 3, 3)], 0),
    ("tril", lambda L, x: x.tril(), [(4, 3, 3)], 0),
    ("getitem_basic", lambda L, x: x[1:, None, ..., 0], [(4, 3, 5)], 0),
    ("getitem_int", lambda L, x: x[-1], [(4, 3, 5)], 1),
    ("getitem_index", lambda L, x, i: x[i], [(4, 3, 5), None], (0, None)),
    ("gather", lambda L, x, i: x.gather(1, i), [(4, 2, 3), "idx"], (0, 0)),
    ("getitem_batched_index", lambda L, x, i: x[i], [(4, 3, 5), "idx"], (None, 0)),
    ("getitem_both_batched", lambda L, x, i: x[i, 1:], [(4, 3, 5), "idx"], (0, 0)),
    ("getitem_index_and_int", lambda L, x, i: x[i, 2], [(3, 5), "idx"], (None, 0)),
    ("getitem_two_indices", lambda L, x, i: x[i, i.flip(-1)], [(3, 5), "idx"], (None, 0)),
    ("pick_target", lambda L, x, t: L.log_softmax(x, -1)[t], [(5, 4), "target"], (0, 0)),
    ("index_select", lambda L, x, i: x.index_select(1, i), [(4, 2, 5), None], (0, None)),
    ("clone_contig", lambda L, x: x.clone().contiguous().to(L.float32), [(4, 3)], 1),
    ("zeros_like", lambda L, x: L.zeros_like(x) + x, [(4, 3)], 0),
    ("relu_linear_ce", lambda L, x, w, t: L.nn.functional.cross_entropy(
        L.relu(x @ w).unsqueeze(0), t.unsqueeze(0)), [(5, 3), (3, 4), "target"], (0, None, 0)),
    ("nll_2d", lambda L, x, t: L.nn.functional.nll_loss(L.log_softmax(x, -1), t),
     [(5, 3, 4), "target2"], (0, 0)),
    ("mse", lambda L, x, y: L.nn.functional.mse_loss(x, y), [(5, 3), (3,)], (0, None)),
    ("norm", lambda L, x: (x.norm(), x.norm(dim=-1), x.norm(1)), [(4, 3, 5)], 0),
    ("roll", lambda L, x: x.roll((1, -1), (0, 1)), [(4, 3, 5)], 0),
    ("pad", lambda L, x: L.nn.functional.pad(x, (1, 2, 0, 1), value=3.0), [(4, 3, 5)], 0),
    ("expand_as", lambda L, x, y: y.expand_as(x) + x, [(4, 3, 5), (5,)], (0, None)),
    ("conv1d", lambda L, x, w: L.nn.functional.conv1d(x, w, padding=1), [(3, 2, 7), (4, 2, 3)],
     (0, None)),
    ("conv2d_with_n", lambda L, x, w, b: L.nn.functional.conv2d(x, w, b, stride=2),
     [(3, 2, 2, 6, 6), (4, 2, 3, 3), (4,)], (0, None, None)),
    ("conv1d_batched_weight", lambda L, x, w, b: L.nn.functional.conv1d(x, w, b, padding=1),
     [(2, 4, 7), (3, 6, 4, 3), (3, 6)], (None, 0, 0)),
    ("conv1d_same_padding", lambda L, x, w: L.nn.functional.conv1d(x, w.flip(0), None, 1,
                                                                    "same"),
     [(1, 2, 7), (3, 4, 2, 3)], (None, 0)),
    ("conv2d_batched_weight_groups", lambda L, x, w: L.nn.functional.conv2d(
        x, w, stride=2, groups=2), [(3, 2, 4, 6, 6), (3, 6, 2, 3, 3)], (0, 0)),
    ("conv2d_batched_weight_unbatched_n", lambda L, x, w: L.nn.functional.conv2d(x, w),
     [(3, 2, 5, 5), (3, 4, 2, 3, 3)], (0, 0)),
    ("max_pool2d_indices", lambda L, x: tuple(L.nn.functional.max_pool2d(
        x, 2, return_indices=True)), [(3, 2, 4, 4)], 0),
    ("avg_pool2d", lambda L, x: L.nn.functional.avg_pool2d(x, 2), [(3, 2, 2, 4, 4)], 0),
    ("adaptive_avg_pool2d", lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 1),
     [(3, 2, 4, 4)], 0),
    ("max_pool1d", lambda L, x: L.nn.functional.max_pool1d(x, 2), [(3, 2, 6)], 0),
    ("embedding", lambda L, i, w: L.nn.functional.embedding(i, w), ["idx", (3, 4)], (0, None)),
    # Python composites run their own body, batched op by op
    ("einsum", lambda L, x, y: L.einsum("ij,jk->ik", x, y), [(4, 3, 5), (5, 2)], (0, None)),
    ("tensordot", lambda L, x, y: L.tensordot(x, y, 1), [(4, 3, 5), (5, 2)], (0, None)),
    ("layer_norm", lambda L, x: L.nn.functional.layer_norm(x, (5,)), [(4, 3, 5)], 0),
    ("normalize", lambda L, x: L.nn.functional.normalize(x, dim=-1), [(4, 3, 5)], 0),
    ("pad_reflect", lambda L, x: L.nn.functional.pad(x, (1, 2), mode="reflect"),
     [(4, 2, 3, 5)], 0),
]


def _inputs(shapes):
    ms, ts = [], []
    for s in shapes:
        if s is None:
            i = rng.integers(0, 2, 3)
            ms.append(mt.tensor(i))
            ts.append(torch.tensor(i))
        elif s == "idx":
            i = rng.integers(0, 3, (4, 2, 2))
            ms.append(mt.tensor(i))
            ts.append(torch.tensor(i))
        elif s == "target":
            i = rng.integers(0, 4, 5)
            ms.append(mt.tensor(i))
            ts.append(torch.tensor(i))
        elif s == "target2":
            i = rng.integers(0, 4, (5, 3))
            ms.append(mt.tensor(i))
            ts.append(torch.tensor(i))
        else:
            (m,), (t,) = _pair(s)
            ms.append(m)
            ts.append(t)
    return ms, ts


@pytest.mark.parametrize("name,fn,shapes,in_dims", RULED, ids=[c[0] for c in RULED])
def test_batching_rules_match_torch(name, fn, shapes, in_dims, no_fallback):
    ms, ts = _inputs(shapes)
    got = vmap(lambda *a: fn(mt, *a), in_dims=in_dims)(*ms)
    want = torch.func.vmap(lambda *a: fn(torch, *a), in_dims=in_dims)(*ts)
    _close(got, want)


FALLBACK = [
    ("median", lambda L, x: x.median(), [(4, 5)], 0),
    ("kthvalue_batched_k", lambda L, x: x.kthvalue(2, 0)[0], [(4, 5)], 1),
    ("mode", lambda L, x: tuple(x.mode(-1)), [(4, 5)], 0),
    ("roll_flattened", lambda L, x: x.roll(2), [(4, 3)], 0),
    ("norm_fro_dims", lambda L, x: L.norm(x, "fro", dim=(0, 1)), [(4, 3, 5)], 0),
]


@pytest.mark.parametrize("name,fn,shapes,in_dims", FALLBACK, ids=[c[0] for c in FALLBACK])
def test_fallback_matches_torch(name, fn, shapes, in_dims):
    ms, ts = _inputs(shapes)
    got = vmap(lambda *a: fn(mt, *a), in_dims=in_dims)(*ms)
    want = torch.func.vmap(lambda *a: fn(torch, *a), in_dims=in_dims)(*ts)
    _close(got, want)


def test_fallback_runs_per_sample(monkeypatch):
    calls = []
    real = _dispatch.fallback

    def spy(func, args, kwargs, level):
        calls.append(func.__name__)
        return real(func, args, kwargs, level)
    monkeypatch.setattr(_dispatch, "fallback", spy)
    (x,), (tx,) = _pair((3, 4, 2, 3))
    (w,), (tw,) = _pair((1, 2, 7))
    got = vmap(lambda a: a.median(0).values)(x)
    want = torch.func.vmap(lambda a: a.median(0).values)(tx)
    _close(got, want)
    assert calls == ["median"]


def test_pointwise_zero_dim_promotion_matches_torch():
    x = mt.tensor(rng.standard_normal(4).astype(np.float32))
    y = mt.tensor(rng.standard_normal(3))
    got = vmap(lambda a, b: a * b, in_dims=(0, None))(x, y)
    want = torch.func.vmap(lambda a, b: a * b, in_dims=(0, None))(
        torch.tensor(x.numpy()), torch.tensor(y.numpy()))
    _close(got, want)


def test_in_dims_out_dims_pytrees():
    (x, y), (tx, ty) = _pair((3, 4), (4, 3))

    def f(L):
        return lambda d, s: {"a": d["p"] * s, "b": (d["q"].sum(), s)}
    got = vmap(f(mt), in_dims=({"p": 0, "q": 1}, None), out_dims={"a": 1, "b": (0, None)})(
        {"p": x, "q": y}, 2.0)
    want = torch.func.vmap(f(torch), in_dims=({"p": 0, "q": 1}, None),
                           out_dims={"a": 1, "b": (0, None)})({"p": tx, "q": ty}, 2.0)
    _close(got["a"], want["a"])
    _close(got["b"][0], want["b"][0])
    assert got["b"][1] == want["b"][1] == 2.0


def test_unbatched_output_is_expanded_to_out_dim():
    (x, c), (tx, tc) = _pair((3, 4), (2, 5))
    got = vmap(lambda a: c)(x)
    want = torch.func.vmap(lambda a: tc)(tx)
    _close(got, want)
    assert got.stride()[0] == 0
    # torch 2.13 fails to expand an unbatched output at out_dims=1; the
    # logical answer is the output repeated along that dim
    got = vmap(lambda a: c, out_dims=1)(x)
    np.testing.assert_array_equal(got.numpy(), np.repeat(c.numpy()[:, None], 3, 1))
    assert got.stride()[1] == 0


def test_negative_in_and_out_dims():
    (x,), (tx,) = _pair((2, 3, 4))
    _close(vmap(lambda a: a.sum(0), in_dims=-1, out_dims=-1)(x),
           torch.func.vmap(lambda a: a.sum(0), in_dims=-1, out_dims=-1)(tx))


def test_nested_vmap_matches_torch():
    (x, y), (tx, ty) = _pair((3, 4, 5), (5, 4))

    def f(L):
        return lambda a, b: (a @ b).softmax(-1)
    got = vmap(vmap(f(mt), in_dims=(0, None)), in_dims=(0, None))(x, y)
    want = torch.func.vmap(torch.func.vmap(f(torch), in_dims=(0, None)), in_dims=(0, None))(tx, ty)
    _close(got, want)
    # outer batched over dim 1 of y, inner over dim 0 of x
    got = vmap(vmap(lambda a, b: a * b, in_dims=(0, None)), in_dims=(None, 1))(x[0], y)
    want = torch.func.vmap(torch.func.vmap(lambda a, b: a * b, in_dims=(0, None)),
                           in_dims=(None, 1))(tx[0], ty)
    _close(got, want)


def test_nested_vmap_fallback_inside_rule():
    (x,), (tx,) = _pair((2, 3, 4))
    got = vmap(vmap(lambda a: a.median()))(x)
    want = torch.func.vmap(torch.func.vmap(lambda a: a.median()))(tx)
    _close(got, want)


def test_chunk_size_matches_unchunked():
    (x, w), (tx, tw) = _pair((7, 3), (3, 2))
    for chunk in (1, 3, 7, 100):
        got = vmap(lambda a: (a @ w, a.sum()), chunk_size=chunk)(x)
        want = torch.func.vmap(lambda a: (a @ tw, a.sum()))(tx)
        _close(got, want)


def test_inplace_on_batched_and_unbatched():
    (x, y), (tx, ty) = _pair((3, 4), (4,))

    def f(a, b):
        c = a.clone()
        c.add_(b)
        c[0] = 7.0
        c[1:3] = a[:2] * 2
        return c
    _close(vmap(f, in_dims=(0, None))(x, y), torch.func.vmap(f, in_dims=(0, None))(tx, ty))
    with pytest.raises(RuntimeError) as got:
        vmap(lambda b: y.clone().add_(b))(x)
    with pytest.raises(RuntimeError) as want:
        torch.func.vmap(lambda b: ty.clone().add_(b))(tx)
    assert str(got.value) == str(want.value)


def _same_error(mt_call, torch_call):
    with pytest.raises(Exception) as want:
        torch_call()
    with pytest.raises(type(want.value)) as got:
        mt_call()
    assert str(got.value) == str(want.value)


def test_errors_match_torch():
    (x, z), (tx, tz) = _pair((3, 4), (2, 4))
    _same_error(lambda: vmap(mt.add)(x, z), lambda: torch.func.vmap(torch.add)(tx, tz))
    _same_error(lambda: vmap(mt.sin, in_dims=2)(x), lambda: torch.func.vmap(torch.sin, in_dims=2)(tx))
    _same_error(lambda: vmap(mt.sin, in_dims=(0, 0))(x),
                lambda: torch.func.vmap(torch.sin, in_dims=(0, 0))(tx))
    _same_error(lambda: vmap(mt.sin, in_dims="a")(x),
                lambda: torch.func.vmap(torch.sin, in_dims="a")(tx))
    _same_error(lambda: vmap(mt.sin, in_dims=(None,))(x),
                lambda: torch.func.vmap(torch.sin, in_dims=(None,))(tx))
    _same_error(lambda: vmap(lambda a: 1)(x), lambda: torch.func.vmap(lambda a: 1)(tx))
    _same_error(lambda: vmap(mt.sin)(), lambda: torch.func.vmap(torch.sin)())
    _same_error(lambda: vmap(mt.sin)(1.0), lambda: torch.func.vmap(torch.sin)(1.0))
    _same_error(lambda: vmap(lambda a, b: a, in_dims=(0, 0))(x, 2),
                lambda: torch.func.vmap(lambda a, b: a, in_dims=(0, 0))(tx, 2))
    _same_error(lambda: vmap(lambda d: d["a"], in_dims=({"b": 0},))({"a": x}),
                lambda: torch.func.vmap(lambda d: d["a"], in_dims=({"b": 0},))({"a": tx}))
    _same_error(lambda: vmap(mt.sin, out_dims=(0, 0))(x),
                lambda: torch.func.vmap(torch.sin, out_dims=(0, 0))(tx))
    _same_error(lambda: vmap(mt.sin, chunk_size=0)(x),
                lambda: torch.func.vmap(torch.sin, chunk_size=0)(tx))
    _same_error(lambda: vmap(mt.sin, randomness="foo")(x),
                lambda: torch.func.vmap(torch.sin, randomness="foo")(tx))
    _same_error(lambda: vmap(lambda a: a.sum().item())(x),
                lambda: torch.func.vmap(lambda a: a.sum().item())(tx))
    _same_error(lambda: vmap(lambda a: 1 if a.sum() > 0 else 0)(x),
                lambda: torch.func.vmap(lambda a: 1 if a.sum() > 0 else 0)(tx))
    _same_error(lambda: vmap(lambda a: mt.randn(3))(x),
                lambda: torch.func.vmap(lambda a: torch.randn(3))(tx))
    _same_error(lambda: vmap(lambda a: mt.randn_like(a))(x),
                lambda: torch.func.vmap(lambda a: torch.randn_like(a))(tx))
    _same_error(lambda: vmap(lambda a: a.mm(a))(x), lambda: torch.func.vmap(lambda a: a.mm(a))(tx))
    _same_error(lambda: vmap(lambda a: a.sum(5))(x), lambda: torch.func.vmap(lambda a: a.sum(5))(tx))


def test_randomness_same_and_different():
    x = mt.zeros(4, 3)
    mt.manual_seed(0)
    diff = vmap(lambda a: a + mt.randn(3), randomness="different")(x)
    assert tuple(diff.shape) == (4, 3)
    assert len({tuple(r) for r in diff.numpy().round(6).tolist()}) == 4
    same = vmap(lambda a: a + mt.randn(3), randomness="same")(x)
    assert np.all(same.numpy() == same.numpy()[0])
    like = vmap(lambda a: mt.rand_like(a), randomness="different")(x)
    assert len({tuple(r) for r in like.numpy().round(6).tolist()}) == 4
    like = vmap(lambda a: mt.rand_like(a), randomness="same")(x)
    assert np.all(like.numpy() == like.numpy()[0])
    drop = vmap(lambda a: mt.nn.functional.dropout(a + 1, 0.5), randomness="same")(x)
    assert np.all(drop.numpy() == drop.numpy()[0]) and set(np.unique(drop.numpy())) <= {0, 2}
    drop = vmap(lambda a: mt.nn.functional.dropout(a + 1, 0.5), randomness="different")(
        mt.zeros(64, 8))
    assert set(np.unique(drop.numpy())) == {0, 2}
    assert len({tuple(r) for r in drop.numpy().tolist()}) > 1


def test_dropout_that_draws_nothing_is_not_random():
    (x, y), (tx, ty) = _pair((3, 4), (4,))
    F, TF = mt.nn.functional, torch.nn.functional
    for f in (lambda L, F, a: F.dropout(a, 0.0), lambda L, F, a: F.dropout(a, 0.5, False),
              lambda L, F, a: F.dropout(a, 1.0), lambda L, F, a: a + F.dropout(a.sum(), 0.0)):
        _close(vmap(lambda a: f(mt, F, a))(x), torch.func.vmap(lambda a: f(torch, TF, a))(tx))
    _close(vmap(lambda a: a + F.dropout(y, 0.0))(x),
           torch.func.vmap(lambda a: a + TF.dropout(ty, 0.0))(tx))
    _same_error(lambda: vmap(lambda a: a + F.dropout(y, 0.5))(x),
                lambda: torch.func.vmap(lambda a: a + TF.dropout(ty, 0.5))(tx))
    _same_error(lambda: vmap(lambda a: F.dropout(a, 0.5))(x),
                lambda: torch.func.vmap(lambda a: TF.dropout(a, 0.5))(tx))


def test_batched_tensor_repr_and_metadata():
    (x,), _ = _pair((3, 4, 5))
    seen = []

    def f(a):
        seen.append((tuple(a.shape), a.dim(), a.size(-1), a.numel(), len(a), repr(a)))
        return a
    vmap(f, in_dims=1)(x)
    shape, dim, last, numel, n, text = seen[0]
    assert (shape, dim, last, numel, n) == ((3, 5), 2, 5, 15, 3)
    assert text.startswith("BatchedTensor(lvl=1, bdim=1, value=\n    tensor(")


def test_escaped_batched_tensor_refuses():
    (x,), _ = _pair((3, 4))
    box = []
    vmap(lambda a: box.append(a) or a)(x)
    with pytest.raises(RuntimeError, match="outside of the vmap"):
        box[0] + 1


def test_vmap_of_grad_gives_per_sample_gradients():
    (w, x), (tw, tx) = _pair((3,), (6, 3))

    def loss(L):
        return lambda w, x: L.tanh(x * w).pow(2).sum()
    got = vmap(grad(loss(mt)), in_dims=(None, 0))(w, x)
    want = torch.func.vmap(torch.func.grad(loss(torch)), in_dims=(None, 0))(tw, tx)
    _close(got, want)
    loop = mt.stack([grad(loss(mt))(w, x[i]) for i in range(6)])
    _close(got, loop)


def test_vmap_of_grad_mlp_per_example_matches_torch():
    (w1, b1, w2, b2, x), (tw1, tb1, tw2, tb2, tx) = _pair((8, 3), (8,), (4, 8), (4,), (5, 3))
    y = rng.integers(0, 4, 5)

    def loss(L):
        F = L.nn.functional

        def f(params, x, y):
            h = F.relu(F.linear(x, params[0], params[1]))
            return F.cross_entropy(F.linear(h, params[2], params[3]).unsqueeze(0), y.unsqueeze(0))
        return f
    got = vmap(grad(loss(mt)), in_dims=(None, 0, 0))((w1, b1, w2, b2), x, mt.tensor(y))
    want = torch.func.vmap(torch.func.grad(loss(torch)), in_dims=(None, 0, 0))(
        (tw1, tb1, tw2, tb2), tx, torch.tensor(y))
    _close(got, want)


def test_grad_of_vmap_and_vmap_of_grad_of_grad():
    (x,), (tx,) = _pair((4, 3))
    got = grad(lambda a: vmap(lambda r: (r.sin() * r).sum())(a).sum())(x)
    want = torch.func.grad(lambda a: torch.func.vmap(lambda r: (r.sin() * r).sum())(a).sum())(tx)
    _close(got, want)
    got = vmap(grad(lambda r: grad(lambda s: s.sin().sum())(r).sum()))(x)
    want = torch.func.vmap(torch.func.grad(
        lambda r: torch.func.grad(lambda s: s.sin().sum())(r).sum()))(tx)
    _close(got, want)


def test_vmap_over_autograd_grad_with_batched_cotangents():
    (x,), (tx,) = _pair((3, 4))
    x.requires_grad_()
    tx.requires_grad_()
    out, tout = x.sin(), tx.sin()
    (v,), (tv,) = _pair((5, 3, 4))
    got = vmap(lambda c: mt.autograd.grad(out, x, c, retain_graph=True)[0])(v)
    want = torch.func.vmap(lambda c: torch.autograd.grad(tout, tx, c, retain_graph=True)[0])(tv)
    _close(got, want)


def test_vjp_and_jvp_inside_vmap():
    (x, t), (tx, tt) = _pair((4, 3), (4, 3))
    got = vmap(lambda a, b: mt.func.jvp(mt.sin, (a,), (b,)))(x, t)
    want = torch.func.vmap(lambda a, b: torch.func.jvp(torch.sin, (a,), (b,)))(tx, tt)
    _close(got, want)

    def f(L):
        def g(a, b):
            out, fn = L.func.vjp(lambda s: s.exp() * s, a)
            return out, fn(b)[0]
        return g
    _close(vmap(f(mt))(x, t), torch.func.vmap(f(torch))(tx, tt))


def test_forward_ad_duals_inside_vmap():
    # torch 2.13 has no batching rule for make_dual; the values are known
    fwAD = mt.autograd.forward_ad
    (x, t), _ = _pair((4, 3), (4, 3))

    def g(a, b):
        with fwAD.dual_level():
            return tuple(fwAD.unpack_dual((fwAD.make_dual(a, b) ** 2).sin()))
    p, d = vmap(g)(x, t)
    xs, ts = x.numpy(), t.numpy()
    np.testing.assert_allclose(p.numpy(), np.sin(xs ** 2), rtol=1e-12)
    np.testing.assert_allclose(d.numpy(), np.cos(xs ** 2) * 2 * xs * ts, rtol=1e-12)
    (w,), _ = _pair((3,))
    p, d = vmap(g, in_dims=(None, 0))(w, t)
    np.testing.assert_allclose(d.numpy(), np.cos(w.numpy() ** 2) * 2 * w.numpy() * ts,
                               rtol=1e-12)


def test_data_and_storage_refuse_inside_vmap():
    (x,), (tx,) = _pair((3, 4))
    for fn in (lambda a: a.numpy(), lambda a: a.tolist(), lambda a: a.data * 2):
        _same_error(lambda: vmap(fn)(x), lambda: torch.func.vmap(fn)(tx))
    assert vmap(lambda a: a.stride(), out_dims=None)(x) == (1,)
