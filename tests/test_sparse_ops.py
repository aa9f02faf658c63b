"""Ops on sparse COO tensors beyond construction and conversion, against
torch: products with dense and sparse operands (mm, mv, matmul, spmm,
addmm, bmm), transposes, sums, the zero-keeping pointwise functions, pow,
products of one size, and the torch.sparse namespace (mm, addmm, sum,
softmax, log_softmax, the legacy constructors) with their gradients."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

# (indices, size): coalesced, with a duplicate coordinate, with no values,
# and a tall one with empty rows and columns
PATTERNS = {
    "coalesced": ([[0, 1, 1], [1, 0, 2]], (2, 3)),
    "duplicate": ([[0, 1, 1, 0], [1, 0, 2, 1]], (2, 3)),
    "empty": ([[], []], (2, 3)),
    "tall": ([[4, 0, 2, 4, 6], [0, 2, 2, 1, 0]], (7, 3)),
}


def _pair(pattern, dtype="float64", seed=0, requires_grad=False):
    """The same sparse matrix in both libraries, and the leaf values."""
    indices, size = PATTERNS[pattern]
    nnz = len(indices[0])
    values = np.random.default_rng(seed).standard_normal(nnz).astype(dtype)
    out = []
    for lib in (mt, torch):
        v = lib.tensor(values, requires_grad=requires_grad)
        i = lib.tensor(indices, dtype=lib.int64).reshape(2, nnz)
        out.append((lib.sparse_coo_tensor(i, v, size), v))
    return out


def _dense(shape, seed, dtype="float64"):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return mt.tensor(a), torch.tensor(a)


def _same(m, t, exact=False):
    if isinstance(t, torch.Tensor) and t.layout == torch.sparse_coo:
        assert m.layout == mt.sparse_coo
        assert tuple(m.shape) == tuple(t.shape)
        assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        m, t = m.to_dense(), t.to_dense()
    assert m.layout == mt.strided
    assert tuple(m.shape) == tuple(t.shape)
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    if exact:
        np.testing.assert_array_equal(m.detach().numpy(), t.detach().numpy())
    else:
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("pattern", list(PATTERNS))
@pytest.mark.parametrize("form", ["mm", "matmul", "spmm", "mv", "method_mv", "dense_left",
                                  "dense_left_vector", "sparse_sparse"])
def test_products_match_torch(pattern, form):
    (ms, _), (ts, _) = _pair(pattern)
    rows, cols = ts.shape
    md, td = _dense((cols, 4), 1)
    mvec, tvec = _dense((cols,), 2)
    mleft, tleft = _dense((5, rows), 3)
    mlv, tlv = _dense((rows,), 4)
    calls = {
        "mm": lambda lib, s, d, v, l, lv: lib.mm(s, d),
        "matmul": lambda lib, s, d, v, l, lv: s @ d,
        "spmm": lambda lib, s, d, v, l, lv: lib.spmm(s, d),
        "mv": lambda lib, s, d, v, l, lv: s @ v,
        "method_mv": lambda lib, s, d, v, l, lv: s.mv(v),
        "dense_left": lambda lib, s, d, v, l, lv: l @ s,
        "dense_left_vector": lambda lib, s, d, v, l, lv: lv @ s,
        "sparse_sparse": lambda lib, s, d, v, l, lv: s @ s.t(),
    }
    m = calls[form](mt, ms, md, mvec, mleft, mlv)
    t = calls[form](torch, ts, td, tvec, tleft, tlv)
    # torch's kernel adds each term with a fused multiply-add: equal to rounding
    _same(m, t)


@pytest.mark.parametrize("pattern", ["coalesced", "duplicate", "empty"])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 1), (0, -3.0)])
def test_addmm_matches_torch(pattern, beta, alpha):
    (ms, _), (ts, _) = _pair(pattern)
    md, td = _dense((3, 4), 1)
    mi, ti = _dense((2, 4), 2)
    _same(mt.addmm(mi, ms, md, beta=beta, alpha=alpha),
          torch.addmm(ti, ts, td, beta=beta, alpha=alpha))
    _same(mt.sparse.addmm(mi, ms, md, beta=beta, alpha=alpha),
          torch.sparse.addmm(ti, ts, td, beta=beta, alpha=alpha))


def test_bmm_of_a_sparse_batch_matches_torch():
    indices = [[0, 0, 1, 2, 2], [0, 1, 1, 0, 1], [2, 0, 1, 1, 2]]
    values = np.random.default_rng(0).standard_normal(5)
    d = np.random.default_rng(1).standard_normal((3, 3, 4))
    m = mt.bmm(mt.sparse_coo_tensor(mt.tensor(indices), mt.tensor(values), (3, 2, 3)),
               mt.tensor(d))
    t = torch.bmm(torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values),
                                          (3, 2, 3)), torch.tensor(d))
    _same(m, t)


@pytest.mark.parametrize("call,message", [
    (lambda lib, s: lib.mm(s, lib.ones(3, 2, dtype=lib.float32)),
     "expected scalar type Double but found Float"),
    (lambda lib, s: lib.mm(s, lib.ones(4, 2, dtype=lib.float64)),
     "addmm: Argument #3 (dense): Expected dim 0 size 3, got 4"),
    (lambda lib, s: lib.mm(s, lib.ones(3, 2, 2, dtype=lib.float64)),
     "addmm: matrices expected, got 3D tensor"),
    (lambda lib, s: s.pow(0),
     "pow: cannot raise to zeroth power on sparse tensor; it would make the result tensor dense"),
])
def test_product_errors_match_torch(call, message):
    (ms, _), (ts, _) = _pair("coalesced")
    with pytest.raises(RuntimeError) as te:
        call(torch, ts)
    with pytest.raises(RuntimeError) as me:
        call(mt, ms)
    assert message in str(te.value)
    assert str(me.value) == message


def test_product_gradients_for_the_dense_operand_match_torch():
    grads = []
    for lib, (s, _) in zip((mt, torch), _pair("duplicate")):
        w = lib.tensor(np.arange(12.0).reshape(3, 4) / 7, requires_grad=True)
        out = lib.mm(s, w)
        assert type(out.grad_fn).__name__ == "MmBackward0"
        (out * lib.arange(8.0, dtype=lib.float64).reshape(2, 4)).sum().backward()
        grads.append(w.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


@pytest.mark.parametrize("pattern", list(PATTERNS))
@pytest.mark.parametrize("form", ["t", "transpose", "transpose_neg", "coalesced_t"])
def test_transposes_match_torch(pattern, form):
    (ms, _), (ts, _) = _pair(pattern)
    calls = {"t": lambda s: s.t(), "transpose": lambda s: s.transpose(0, 1),
             "transpose_neg": lambda s: s.transpose(-1, 0), "coalesced_t": lambda s: s.coalesce().t()}
    m, t = calls[form](ms), calls[form](ts)
    assert m.is_coalesced() == t.is_coalesced()
    np.testing.assert_array_equal(m._indices().numpy(), t._indices().numpy())
    _same(m, t, exact=True)


def test_t_of_a_tensor_with_dense_dims_raises_torchs_error():
    i, v = [[0, 1]], np.ones((2, 3))
    with pytest.raises(RuntimeError) as te:
        torch.sparse_coo_tensor(torch.tensor(i), torch.tensor(v), (2, 3)).t()
    with pytest.raises(RuntimeError) as me:
        mt.sparse_coo_tensor(mt.tensor(i), mt.tensor(v), (2, 3)).t()
    assert str(me.value) == str(te.value)


@pytest.mark.parametrize("pattern", list(PATTERNS))
@pytest.mark.parametrize("dims", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_sums_match_torch(pattern, dims, dtype):
    (ms, _), (ts, _) = _pair(pattern)
    if dtype == "int32":
        ms, ts = (ms * 10).int(), (ts * 10).int()
    args = () if dims is None else (dims,)
    _same(ms.sum(*args), ts.sum(*args))
    _same(mt.sparse.sum(ms, *args), torch.sparse.sum(ts, *args))


def test_sum_over_a_dense_dim_matches_torch():
    i = [[0, 1, 1], [1, 0, 1]]
    v = np.random.default_rng(0).standard_normal((3, 4))
    ms = mt.sparse_coo_tensor(mt.tensor(i), mt.tensor(v), (2, 2, 4))
    ts = torch.sparse_coo_tensor(torch.tensor(i), torch.tensor(v), (2, 2, 4))
    for dims in (2, (0, 2), (1, 2), (0, 1)):
        _same(mt.sparse.sum(ms, dims), torch.sparse.sum(ts, dims))


ZERO_KEEPING = ["abs", "sqrt", "relu", "sin", "tanh", "asinh", "expm1", "log1p", "sign", "floor",
                "trunc", "square", "erf"]


@pytest.mark.parametrize("pattern", ["coalesced", "duplicate", "tall"])
@pytest.mark.parametrize("name", ZERO_KEEPING)
def test_zero_keeping_functions_match_torch(pattern, name):
    (ms, _), (ts, _) = _pair(pattern)
    if name in ("sqrt", "log1p"):
        ms, ts = ms.abs(), ts.abs()
    m, t = getattr(ms, name)(), getattr(ts, name)()
    assert m.layout == mt.sparse_coo and m.is_coalesced() == t.is_coalesced()
    _same(m, t)


@pytest.mark.parametrize("pattern", ["coalesced", "duplicate"])
@pytest.mark.parametrize("exponent", [2, 3, 0.5, -1])
def test_pow_matches_torch(pattern, exponent):
    (ms, _), (ts, _) = _pair(pattern)
    ms, ts = ms.abs(), ts.abs()
    _same(ms.pow(exponent), ts.pow(exponent))


@pytest.mark.parametrize("pattern", ["coalesced", "duplicate", "empty"])
@pytest.mark.parametrize("form", ["sparse_sparse", "sparse_dense", "dense_sparse"])
def test_same_size_products_match_torch(pattern, form):
    (ms, _), (ts, _) = _pair(pattern)
    (ms2, _), (ts2, _) = _pair("tall" if pattern == "tall" else "coalesced", seed=5)
    md, td = _dense(tuple(ts.shape), 6)
    pick = {"sparse_sparse": lambda s, s2, d: s * s2, "sparse_dense": lambda s, s2, d: s * d,
            "dense_sparse": lambda s, s2, d: d * s}[form]
    m, t = pick(ms, ms2, md), pick(ts, ts2, td)
    assert m.layout == mt.sparse_coo
    _same(m, t)


@pytest.mark.parametrize("pattern", ["coalesced", "duplicate", "tall"])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1])
def test_sparse_softmaxes_and_their_gradients_match_torch(pattern, fn, dim):
    (ms, mv), (ts, tv) = _pair(pattern, requires_grad=True)
    m, t = getattr(mt.sparse, fn)(ms, dim), getattr(torch.sparse, fn)(ts, dim)
    assert type(m.grad_fn).__name__ == type(t.grad_fn).__name__
    _same(m, t)
    g = np.random.default_rng(9).standard_normal(tuple(ts.shape))
    (m.to_dense() * mt.tensor(g)).sum().backward()
    (t.to_dense() * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(mv.grad.numpy(), tv.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_a_negative_dim_is_its_positive_dim(fn):
    """torch's values agree; its gradient for dim=-1 differs from dim=1's
    (the same function), so ours is checked against dim=1's."""
    grads = []
    for dim in (1, -1):
        (ms, mv), _ = _pair("duplicate", requires_grad=True)
        out = getattr(mt.sparse, fn)(ms, dim)
        (out.to_dense() * mt.arange(6.0, dtype=mt.float64).reshape(2, 3)).sum().backward()
        grads.append((out.to_dense().detach().numpy(), mv.grad.numpy()))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])


def test_softmax_over_a_dense_dim_matches_torch():
    i = [[0, 1, 1], [1, 0, 1]]
    v = np.random.default_rng(0).standard_normal((3, 4))
    ms = mt.sparse_coo_tensor(mt.tensor(i), mt.tensor(v), (2, 2, 4))
    ts = torch.sparse_coo_tensor(torch.tensor(i), torch.tensor(v), (2, 2, 4))
    for dim in (0, 2):
        _same(mt.sparse.softmax(ms, dim), torch.sparse.softmax(ts, dim))


@pytest.mark.parametrize("pattern", ["coalesced", "duplicate", "tall"])
@pytest.mark.parametrize("form", ["mm", "addmm", "sum0", "sum1"])
def test_namespace_gradients_match_torch(pattern, form):
    results = []
    for lib, (s, v) in zip((mt, torch), _pair(pattern, requires_grad=True)):
        w = lib.tensor(np.linspace(-1, 1, s.shape[1] * 4).reshape(s.shape[1], 4),
                       requires_grad=True)
        bias = lib.ones(s.shape[0], 4, dtype=lib.float64, requires_grad=True)
        out = {"mm": lambda: lib.sparse.mm(s, w),
               "addmm": lambda: lib.sparse.addmm(bias, s, w, beta=0.5, alpha=-2.0),
               "sum0": lambda: lib.sparse.sum(s, 0), "sum1": lambda: lib.sparse.sum(s, 1)}[form]()
        name = type(out.grad_fn).__name__
        dense = out.to_dense() if out.layout == lib.sparse_coo else out
        g = lib.tensor(np.random.default_rng(3).standard_normal(tuple(dense.shape)))
        (dense * g).sum().backward()
        results.append((name, dense.detach().numpy(), v.grad.numpy(),
                        w.grad.numpy() if form in ("mm", "addmm") else None,
                        bias.grad.numpy() if form == "addmm" else None))
    assert results[0][0] == results[1][0]
    for a, b in zip(results[0][1:], results[1][1:]):
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_legacy_sparse_constructors_match_torch():
    i, v = [[0, 1], [2, 0]], [1.5, -2.0]
    for name in ("FloatTensor", "DoubleTensor", "LongTensor"):
        m = getattr(mt.sparse, name)(mt.tensor(i), mt.tensor(v), (2, 3))
        t = getattr(torch.sparse, name)(torch.tensor(i), torch.tensor(v), torch.Size([2, 3]))
        _same(m, t, exact=True)
        m, t = getattr(mt.sparse, name)(2, 3), getattr(torch.sparse, name)(2, 3)
        assert m._nnz() == t._nnz() == 0
        _same(m, t, exact=True)


def test_a_graph_convolution_step_matches_torch():
    """A two-layer GCN's forward and backward over a normalized sparse
    adjacency (pygcn's use): the loss and every weight gradient."""
    n, f, h, c = 9, 5, 4, 3
    rng = np.random.default_rng(0)
    edges = rng.integers(0, n, (2, 20))
    edges = np.concatenate([edges, edges[::-1], np.tile(np.arange(n), (2, 1))], 1)
    degree = np.bincount(edges[0], minlength=n)
    values = 1.0 / np.sqrt(degree[edges[0]] * degree[edges[1]])
    x, labels = rng.standard_normal((n, f)), rng.integers(0, c, n)
    w1, w2 = rng.standard_normal((f, h)), rng.standard_normal((h, c))
    out = []
    for lib in (mt, torch):
        adj = lib.sparse_coo_tensor(lib.tensor(edges), lib.tensor(values), (n, n))
        p1, p2 = lib.tensor(w1, requires_grad=True), lib.tensor(w2, requires_grad=True)
        hidden = lib.relu(lib.spmm(adj, lib.tensor(x) @ p1))
        logits = lib.sparse.mm(adj, hidden @ p2)
        loss = lib.nn.functional.cross_entropy(logits, lib.tensor(labels))
        loss.backward()
        out.append((loss.item(), p1.grad.numpy(), p2.grad.numpy()))
    assert out[0][0] == pytest.approx(out[1][0], rel=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out[0][2], out[1][2], rtol=1e-10, atol=1e-12)
