"""Sparse COO tensors (minitorch.sparse_coo) against torch: construction and
its checks, coalescing, conversions, the arithmetic SparseAdam needs,
printing, the errors of unsupported ops, and SparseAdam's steps."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _mt(t):
    return mt.tensor(t.numpy())


def _sparse_pair(indices, values, size=None, **kw):
    """The same sparse tensor in both libraries."""
    ti = torch.tensor(indices)
    tv = torch.tensor(values)
    sized = () if size is None else (size,)
    t = torch.sparse_coo_tensor(ti, tv, *sized, **kw)
    mkw = {k: getattr(mt, str(v).split(".")[-1]) if isinstance(v, torch.dtype) else v
           for k, v in kw.items()}
    m = mt.sparse_coo_tensor(_mt(ti), _mt(tv), *sized, **mkw)
    return m, t


def assert_same_sparse(m, t):
    assert m.is_sparse and t.is_sparse
    assert tuple(m.shape) == tuple(t.shape)
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert m.is_coalesced() == t.is_coalesced()
    assert m.sparse_dim() == t.sparse_dim() and m.dense_dim() == t.dense_dim()
    assert m._nnz() == t._nnz()
    np.testing.assert_array_equal(m._indices().numpy(), t._indices().numpy())
    np.testing.assert_array_equal(m._values().numpy(), t._values().numpy())


def assert_same_dense(m, t):
    assert not m.is_sparse
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(m.numpy(), t.numpy())


def raises_like(mfn, tfn):
    """Both raise the same exception type with the same message (minitorch's
    may add a sentence after torch's first line)."""
    with pytest.raises(Exception) as want:
        tfn()
    with pytest.raises(type(want.value)) as got:
        mfn()
    first = str(want.value).split("\n")[0]
    assert str(got.value).startswith(first.split(". This could be")[0].rstrip(".")), \
        (str(got.value), first)


DENSE = [[0.0, 1.5, 0.0], [-2.0, 0.0, 3.0]]


def test_layout_objects():
    assert repr(mt.sparse_coo) == "minitorch.sparse_coo"
    m = mt.tensor(DENSE).to_sparse()
    assert m.layout is mt.sparse_coo and m.is_sparse
    assert mt.tensor(DENSE).layout is mt.strided and not mt.tensor(DENSE).is_sparse
    assert isinstance(m, mt.Tensor)
    assert m.shape == mt.Size([2, 3]) and m.size() == (2, 3) and m.dim() == 2
    assert m.numel() == 6 and m.dtype == mt.float32 and m.device == mt.device("cpu")
    t = torch.tensor(DENSE).to_sparse()
    assert m.type() == t.type().replace("torch.", "minitorch.")
    assert m.stride() == t.stride() and m.is_contiguous() == t.is_contiguous()


@pytest.mark.parametrize("sparse_dim", [None, 1, 2, 3])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "complex64"])
def test_to_sparse(sparse_dim, dtype):
    t = torch.tensor([[[0, 1], [0, 0], [2, 0]], [[0, 0], [0, 0], [4, -1]]]).to(
        getattr(torch, dtype))
    m = _mt(t)
    args = () if sparse_dim is None else (sparse_dim,)
    ts, ms = t.to_sparse(*args), m.to_sparse(*args)
    assert_same_sparse(ms, ts)
    assert_same_dense(ms.to_dense(), ts.to_dense())


def test_to_sparse_of_a_scalar_and_of_zeros():
    for t in (torch.tensor(3.0), torch.tensor(0.0), torch.zeros(2, 3)):
        assert_same_sparse(_mt(t).to_sparse(), t.to_sparse())


@pytest.mark.parametrize("arg", [3, -1, 0])
def test_to_sparse_errors(arg):
    t = torch.tensor(DENSE)
    raises_like(lambda: _mt(t).to_sparse(arg), lambda: t.to_sparse(arg))


def test_sparse_to_sparse():
    m, t = _sparse_pair([[0, 1]], [1.0, 2.0], (3,))
    assert m.to_sparse() is m
    raises_like(lambda: m.to_sparse(2), lambda: t.to_sparse(2))


def test_construction_infers_size_and_keeps_duplicates():
    m, t = _sparse_pair([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0])
    assert_same_sparse(m, t)
    m, t = _sparse_pair([[0, 1, 1], [2, 0, 2]], [[1, 2], [3, 4], [5, 6]], (2, 3, 2),
                        dtype=torch.float64)
    assert_same_sparse(m, t)
    m, t = _sparse_pair([[0, 0, 1]], [1.0, 2.0, 3.0], (3,), requires_grad=True)
    assert m.requires_grad and t.requires_grad
    m, t = _sparse_pair([[0]], [1.0], (3,))
    assert m.is_coalesced() and t.is_coalesced()
    m, t = _sparse_pair([[1, 0]], [1.0, 2.0], (3,), is_coalesced=True)
    assert m.is_coalesced() and t.is_coalesced()


@pytest.mark.parametrize("indices,values,size,kw", [
    ([0, 1, 1], [3.0, 4.0, 5.0], None, {}),
    ([0, 1, 1], [3.0, 4.0, 5.0], (3,), {}),
    ([[[0, 1, 1]]], [3.0, 4.0, 5.0], (3,), {}),
    ([[0, 1, 1], [2, 0, 2]], [3.0, 4.0], (2, 3), {}),
    ([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3, 4), {}),
    ([[0, 1, 1], [2, 0, 2]], [[1.0, 1.0]] * 3, (2, 3, 3), {}),
    ([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (1, 3), {"check_invariants": True}),
    ([[0, -1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3), {"check_invariants": True}),
])
def test_construction_errors(indices, values, size, kw):
    ti, tv = torch.tensor(indices), torch.tensor(values)
    sized = () if size is None else (size,)
    raises_like(lambda: mt.sparse_coo_tensor(_mt(ti), _mt(tv), *sized, **kw),
                lambda: torch.sparse_coo_tensor(ti, tv, *sized, **kw))


def test_coalesce_sums_duplicates_in_order():
    m, t = _sparse_pair([[2, 0, 2, 1, 0], [1, 0, 1, 1, 0]], [1.0, 2.0, 3.0, 4.0, 5.0], (3, 2))
    assert not m.is_coalesced()
    assert_same_sparse(m.coalesce(), t.coalesce())
    c = m.coalesce()
    assert c.coalesce() is c
    assert_same_dense(m.to_dense(), t.to_dense())
    m, t = _sparse_pair([[1, 0, 1]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], (2, 2))
    assert_same_sparse(m.coalesce(), t.coalesce())
    assert_same_dense(m.to_dense(), t.to_dense())


def test_indices_values_need_coalesced():
    m, t = _sparse_pair([[1, 0, 1]], [1.0, 2.0, 3.0], (3,))
    raises_like(m.indices, t.indices)
    raises_like(m.values, t.values)
    np.testing.assert_array_equal(m.coalesce().indices().numpy(), t.coalesce().indices().numpy())
    np.testing.assert_array_equal(m.coalesce().values().numpy(), t.coalesce().values().numpy())


@pytest.mark.parametrize("method", ["coalesce", "is_coalesced", "indices", "values", "_indices",
                                    "_values", "_nnz"])
def test_dense_tensors_refuse_sparse_methods(method):
    t = torch.tensor(DENSE)
    raises_like(lambda: getattr(_mt(t), method)(), lambda: getattr(t, method)())


def test_dense_answers():
    t = torch.tensor(DENSE)
    m = _mt(t)
    assert m.to_dense() is m
    assert m.sparse_dim() == t.sparse_dim() and m.dense_dim() == t.dense_dim()


def test_sparse_mask():
    t = torch.arange(6.0).reshape(2, 3)
    m = _mt(t)
    ms, ts = _sparse_pair([[1, 0], [2, 1]], [9.0, 9.0], (2, 3))
    assert_same_sparse(m.sparse_mask(ms), t.sparse_mask(ts))
    raises_like(lambda: mt.zeros(3).sparse_mask(ms), lambda: torch.zeros(3).sparse_mask(ts))


@pytest.mark.parametrize("coalesced", [True, False])
def test_dense_plus_sparse(coalesced):
    ms, ts = _sparse_pair([[1, 0, 1], [2, 1, 2]], [1.0, 2.0, 3.0], (2, 3))
    if coalesced:
        ms, ts = ms.coalesce(), ts.coalesce()
    t = torch.arange(6.0).reshape(2, 3)
    m = _mt(t)
    assert_same_dense(m + ms, t + ts)
    assert_same_dense(m - ms, t - ts)
    assert_same_dense(mt.add(m, ms, alpha=2.5), torch.add(t, ts, alpha=2.5))
    got, want = m.clone(), t.clone()
    assert got.add_(ms, alpha=-0.5) is got
    want.add_(ts, alpha=-0.5)
    assert_same_dense(got, want)
    ti = torch.arange(6).reshape(2, 3)
    assert_same_dense(_mt(ti) + ms, ti + ts)


def test_addition_errors():
    ms, ts = _sparse_pair([[0]], [1.5], (3,))
    raises_like(lambda: ms + mt.ones(3), lambda: ts + torch.ones(3))
    raises_like(lambda: mt.ones(4) + ms, lambda: torch.ones(4) + ts)
    raises_like(lambda: mt.ones(3, dtype=mt.int64).add_(ms),
                lambda: torch.ones(3, dtype=torch.int64).add_(ts))
    m4, t4 = _sparse_pair([[0]], [1.0], (4,))
    raises_like(lambda: ms + m4, lambda: ts + t4)


def test_sparse_plus_sparse():
    a, ta = _sparse_pair([[1, 0, 1]], [1.0, 2.0, 3.0], (3,))
    b, tb = _sparse_pair([[2]], [1.0], (3,))
    assert_same_sparse(a + b, ta + tb)
    assert_same_sparse(a.coalesce() + b.coalesce(), ta.coalesce() + tb.coalesce())


def test_scalar_multiplication_negation_clone():
    m, t = _sparse_pair([[1, 0, 1]], [1.0, 2.0, 3.0], (3,))
    assert_same_sparse(m * 2, t * 2)
    assert_same_sparse(2 * m, 2 * t)
    assert_same_sparse(m * mt.tensor(2.5), t * torch.tensor(2.5))
    assert_same_sparse(m / 4, t / 4)
    assert_same_sparse(-m, -t)
    assert_same_sparse(m.clone(), t.clone())
    assert_same_sparse(m.double(), t.double())
    mi, ti = _sparse_pair([[0]], [1], (3,))
    assert_same_sparse(mi * 2.5, ti * 2.5)
    c = m.clone()
    c.mul_(3)
    assert_same_sparse(m, t)  # the clone's values are its own


REPR_CASES = [
    lambda lib: lib.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(),
    lambda lib: lib.tensor([[0.0, 1.0], [2.0, 0.0]], dtype=lib.float64).to_sparse()
    .requires_grad_(),
    lambda lib: lib.zeros(2, 3).to_sparse(),
    lambda lib: lib.tensor([[1, 0], [0, 3]]).to_sparse(1),
    lambda lib: lib.tensor(3.0).to_sparse(),
    lambda lib: lib.sparse_coo_tensor(lib.tensor([[0, 0, 1]]), lib.tensor([1.5, 2.0, -3.25]),
                                      (3,)),
    lambda lib: lib.arange(40.0).reshape(4, 10).to_sparse(),
]


@pytest.mark.parametrize("case", range(len(REPR_CASES)))
def test_printing(case):
    got = repr(REPR_CASES[case](mt))
    want = repr(REPR_CASES[case](torch)).replace("torch.", "minitorch.")
    assert got == want


@pytest.mark.parametrize("expr", [
    "s.numpy()", "s.tolist()", "s.data_ptr()", "s.item()", "d.copy_(s)", "s.copy_(d)",
    "s.view(4)", "s == s", "s.exp()",
])
def test_unsupported_ops_raise_torch_kind(expr):
    """What torch refuses, minitorch refuses alike; what minitorch lacks
    raises NotImplementedError (torch's kind for a missing sparse kernel),
    never a value computed on the placeholder."""
    tenv = {"s": torch.tensor(DENSE).to_sparse(), "d": torch.tensor(DENSE)}
    menv = {"s": mt.tensor(DENSE).to_sparse(), "d": mt.tensor(DENSE)}
    try:
        eval(expr, {}, tenv)
    except Exception:  # noqa: BLE001 - torch's refusal is the oracle
        raises_like(lambda: eval(expr, {}, menv), lambda: eval(expr, {}, tenv))
        return
    with pytest.raises(NotImplementedError, match="SparseCPU"):
        eval(expr, {}, menv)


def test_to_sparse_and_to_dense_gradients():
    t = torch.tensor(DENSE, dtype=torch.float64, requires_grad=True)
    m = mt.tensor(DENSE, dtype=mt.float64, requires_grad=True)
    cot = torch.arange(6.0, dtype=torch.float64).reshape(2, 3)
    (t.to_sparse().to_dense() * cot).sum().backward()
    (m.to_sparse().to_dense() * _mt(cot)).sum().backward()
    assert_same_dense(m.grad, t.grad)


def test_pickle_and_deepcopy():
    import copy
    import pickle
    m, t = _sparse_pair([[1, 0, 1]], [1.0, 2.0, 3.0], (3,))
    assert_same_sparse(pickle.loads(pickle.dumps(m)), t)
    assert_same_sparse(copy.deepcopy(m), t)


def _adam_pair(shapes, kwargs, steps, dtype, density=0.5, duplicates=False):
    g = torch.Generator().manual_seed(0)
    tps = [torch.randn(s, generator=g, dtype=dtype, requires_grad=True) for s in shapes]
    mps = [mt.tensor(p.detach().numpy(), requires_grad=True) for p in tps]
    topt = torch.optim.SparseAdam(tps, **kwargs)
    mopt = mt.optim.SparseAdam(mps, **kwargs)
    for _ in range(steps):
        for tp, mp in zip(tps, mps):
            dense = torch.randn(tp.shape, generator=g, dtype=dtype)
            dense *= torch.rand(tp.shape, generator=g, dtype=dtype) < density
            tg = dense.to_sparse()
            if duplicates:  # the same coordinates twice: the step coalesces
                tg = torch.sparse_coo_tensor(torch.cat([tg._indices()] * 2, 1),
                                             torch.cat([tg._values(), tg._values() / 3]),
                                             tp.shape)
            tp.grad = tg
            mp.grad = mt.sparse_coo_tensor(_mt(tg._indices()), _mt(tg._values()), tp.shape)
        topt.step()
        mopt.step()
        for tp, mp in zip(tps, mps):
            np.testing.assert_array_equal(mp.detach().numpy(), tp.detach().numpy())
    for tp, mp in zip(tps, mps):
        ts, ms = topt.state[tp], mopt.state[mp]
        assert ms["step"] == ts["step"]
        np.testing.assert_array_equal(ms["exp_avg"].numpy(), ts["exp_avg"].numpy())
        np.testing.assert_array_equal(ms["exp_avg_sq"].numpy(), ts["exp_avg_sq"].numpy())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.05, "betas": (0.8, 0.9)},
                                    {"maximize": True, "eps": 1e-3}])
def test_sparse_adam_steps_as_torch(dtype, kwargs):
    _adam_pair([(5, 3), (7,)], kwargs, 6, dtype)


def test_sparse_adam_with_duplicate_coordinates():
    _adam_pair([(4, 4)], {"lr": 0.1}, 4, torch.float64, duplicates=True)


def test_sparse_adam_refusals():
    p = mt.zeros(3, requires_grad=True)
    p.grad = mt.ones(3)
    tp = torch.zeros(3, requires_grad=True)
    tp.grad = torch.ones(3)
    raises_like(lambda: mt.optim.SparseAdam([p]).step(),
                lambda: torch.optim.SparseAdam([tp]).step())
    s = mt.ones(3).to_sparse()
    ts = torch.ones(3).to_sparse()
    raises_like(lambda: mt.optim.SparseAdam([s]), lambda: torch.optim.SparseAdam([ts]))


SPARSE_SUMS = [([[0, 2, 2]], [1.0, 2.0, 3.0], [[0, 2, 1]], [4.0, 5.0, 6.0]),
               ([[2, 0, 2]], [1.0, 2.0, 3.0], [[2, 0, 2]], [1.0, 2.0, 3.0]),
               ([[0, 1], [1, 0]], [1.0, 2.0], [[1, 0, 0], [0, 1, 0]], [3.0, 4.0, 5.0]),
               ([[1, 0, 1]], [1.0, 2.0, 3.0], [[2]], [1.0])]


@pytest.mark.parametrize("case", range(len(SPARSE_SUMS)))
@pytest.mark.parametrize("coalesce", [False, True])
@pytest.mark.parametrize("alpha", [1, 2.5])
def test_sparse_plus_sparse_stores_what_torch_stores(case, coalesce, alpha):
    """torch walks both coordinate lists at once (as if sorted): the stored
    coordinates, their order and the coalesced flag are its."""
    ti, tv, si, sv = SPARSE_SUMS[case]
    ma, ta = _sparse_pair(ti, tv)
    mb, tb = _sparse_pair(si, sv, tuple(ta.shape))
    if coalesce:
        ma, ta, mb, tb = ma.coalesce(), ta.coalesce(), mb.coalesce(), tb.coalesce()
    assert_same_sparse(mt.add(ma, mb, alpha=alpha), torch.add(ta, tb, alpha=alpha))
    got, want = ma.clone(), ta.clone()
    got.add_(mb)
    want.add_(tb)
    assert_same_sparse(got, want)


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -1}])
@pytest.mark.parametrize("reduce", ["sum", "weighted"])
def test_sparse_embedding_gradient_accumulates_as_torch(kwargs, reduce):
    g = torch.Generator().manual_seed(1)
    tw = torch.randn(5, 3, generator=g, dtype=torch.float64, requires_grad=True)
    mw = mt.tensor(tw.detach().numpy(), requires_grad=True)
    idx = [[0, 2], [2, 4]]
    for _ in range(2):
        cot = torch.randn(2, 2, 3, generator=g, dtype=torch.float64)
        tout = torch.nn.functional.embedding(torch.tensor(idx), tw, sparse=True, **kwargs)
        mout = mt.nn.functional.embedding(mt.tensor(idx), mw, sparse=True, **kwargs)
        if reduce == "sum":
            tout.sum().backward()
            mout.sum().backward()
        else:
            (tout * cot).sum().backward()
            (mout * _mt(cot)).sum().backward()
    assert_same_sparse(mw.grad, tw.grad)


def test_sparse_embedding_refuses_scale_grad_by_freq():
    w = mt.randn(5, 3, requires_grad=True)
    tw = torch.randn(5, 3, requires_grad=True)
    raises_like(
        lambda: mt.nn.functional.embedding(mt.tensor([1, 1]), w, sparse=True,
                                           scale_grad_by_freq=True).sum().backward(),
        lambda: torch.nn.functional.embedding(torch.tensor([1, 1]), tw, sparse=True,
                                              scale_grad_by_freq=True).sum().backward())


def test_embedding_trained_with_sparse_adam_as_torch():
    torch.manual_seed(0)
    temb = torch.nn.Embedding(10, 4, sparse=True)
    memb = mt.nn.Embedding(10, 4, sparse=True)
    with mt.no_grad():
        memb.weight.copy_(_mt(temb.weight.detach()))
    topt = torch.optim.SparseAdam(temb.parameters(), lr=0.1)
    mopt = mt.optim.SparseAdam(memb.parameters(), lr=0.1)
    for batch in ([1, 3, 3], [0, 9, 3, 1], [5]):
        topt.zero_grad()
        mopt.zero_grad()
        temb(torch.tensor(batch)).pow(2).sum().backward()
        memb(mt.tensor(batch)).pow(2).sum().backward()
        topt.step()
        mopt.step()
        np.testing.assert_array_equal(memb.weight.detach().numpy(), temb.weight.detach().numpy())


def test_printing_names_the_node():
    t = torch.tensor([1.0, 0.0, 2.0], requires_grad=True).to_sparse()
    m = mt.tensor([1.0, 0.0, 2.0], requires_grad=True).to_sparse()
    # "minitorch." is longer than "torch.": the suffixes wrap elsewhere
    assert repr(m).split() == repr(t).replace("torch.", "minitorch.").split()
    t = torch.tensor([1.0, 0.0, 2.0], requires_grad=True).to_sparse(1)
    m = mt.tensor([1.0, 0.0, 2.0], requires_grad=True).to_sparse(1)
    assert repr(m).split() == repr(t).replace("torch.", "minitorch.").split()
    w = torch.ones(3, 2, requires_grad=True)
    assert type(torch.nn.functional.embedding(torch.tensor([1]), w, sparse=True).grad_fn) \
        .__name__ == type(mt.nn.functional.embedding(mt.tensor([1]), mt.ones(3, 2, requires_grad=True),
                                                     sparse=True).grad_fn).__name__


def test_coalesce_of_coordinates_outside_the_size_sorts_them_as_torch():
    """torch checks coordinates only on request: coalesce sorts what it is
    given (minitorch's to_dense then refuses the stray one instead of
    writing out of bounds)."""
    m, t = _sparse_pair([[0, 5, 4, 5, 2]], [1.0, 2.0, 3.0, 4.0, 5.0], (3,))
    assert_same_sparse(m.coalesce(), t.coalesce())
    with pytest.raises(IndexError):
        m.to_dense()


def test_zero_grad_keeping_a_sparse_gradient():
    """zero_grad(set_to_none=False) zeroes a sparse gradient as torch's: no
    values stored."""
    temb = torch.nn.Embedding(6, 2, sparse=True)
    memb = mt.nn.Embedding(6, 2, sparse=True)
    temb(torch.tensor([1, 4])).sum().backward()
    memb(mt.tensor([1, 4])).sum().backward()
    temb.zero_grad(set_to_none=False)
    memb.zero_grad(set_to_none=False)
    assert_same_sparse(memb.weight.grad, temb.weight.grad)
    temb.weight.grad = None
    memb.weight.grad = None
    topt = torch.optim.SparseAdam(temb.parameters())
    mopt = mt.optim.SparseAdam(memb.parameters())
    temb(torch.tensor([3])).sum().backward()
    memb(mt.tensor([3])).sum().backward()
    mopt.zero_grad(set_to_none=False)
    topt.zero_grad(set_to_none=False)
    assert_same_sparse(memb.weight.grad, temb.weight.grad)
    before = memb.weight.detach().clone()
    mopt.step()  # an empty gradient leaves the parameter as it is, as torch's
    np.testing.assert_array_equal(memb.weight.detach().numpy(), before.numpy())
    assert mopt.state[memb.weight]["step"] == 1


def test_sparse_coo_tensor_is_differentiable_in_its_values():
    tv = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    mv = mt.tensor([1.0, 2.0, 3.0], dtype=mt.float64, requires_grad=True)
    ts = torch.sparse_coo_tensor(torch.tensor([[0, 2, 0]]), tv, (3,))
    ms = mt.sparse_coo_tensor(mt.tensor([[0, 2, 0]]), mv, (3,))
    assert type(ms.grad_fn).__name__ == type(ts.grad_fn).__name__
    cot = torch.tensor([5.0, 7.0, 11.0], dtype=torch.float64)
    (ts.to_dense() * cot).sum().backward()
    (ms.to_dense() * _mt(cot)).sum().backward()
    assert_same_dense(mv.grad, tv.grad)


def test_coalesce_passes_the_gradient():
    tv = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    mv = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    tc = torch.sparse_coo_tensor(torch.tensor([[0, 2, 0]]), tv, (3,)).coalesce()
    mc = mt.sparse_coo_tensor(mt.tensor([[0, 2, 0]]), mv, (3,)).coalesce()
    assert type(mc.grad_fn).__name__ == type(tc.grad_fn).__name__
    (tc.to_dense() * torch.tensor([5.0, 7.0, 11.0])).sum().backward()
    (mc.to_dense() * mt.tensor([5.0, 7.0, 11.0])).sum().backward()
    assert_same_dense(mv.grad, tv.grad)


@pytest.mark.parametrize("name", ["coalesce", "is_coalesced", "_indices", "_values", "_nnz",
                                  "sparse_dim", "dense_dim", "to_dense"])
def test_the_tensor_method_serves_both_layouts(name):
    # torch has one Tensor.<name> for either layout: calling it through the
    # class on a sparse tensor answers for the sparse tensor
    ms, ts = _sparse_pair([[0, 1, 0], [2, 0, 2]], [1.0, 2.0, 3.0], (2, 3))
    got, want = getattr(mt.Tensor, name)(ms), getattr(torch.Tensor, name)(ts)
    if isinstance(want, torch.Tensor):
        if want.is_sparse:
            assert_same_sparse(got, want)
        else:
            assert_same_dense(got, want)
    else:
        assert got == want
