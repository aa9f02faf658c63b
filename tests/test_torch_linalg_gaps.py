"""The linear-algebra gaps PyTorch's test_linalg.py found (issue #36's shim):
addbmm's deprecated overloads, addr's complex scalars, chain_matmul,
nuclear_norm, the NumPy aliases axis/keepdims, einsum's sublist form and
error order, kron's out= dtype, lu_solve/lu_unpack pivot checks, qr's
mode='r' backward, multi_dot's checks, the removed-API stubs, has_lapack and
householder_product's tau dtype, each against torch."""
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def t(x):
    """The minitorch tensor of torch tensor x."""
    return mt.from_numpy(x.detach().numpy().copy())


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def error_of(mod, f):
    """(type name, message) of the error f(mod) raises."""
    with pytest.raises(Exception) as e:
        f(mod)
    return type(e.value).__name__, str(e.value)


def same_error(f):
    assert error_of(mt, f) == error_of(torch, f)


def warnings_of(mod, f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = f(mod)
    return r, [str(x.message).split(" (Triggered internally")[0] for x in w]


# ---------------------------------------------------------------- addbmm


@pytest.fixture
def warn_always():
    torch.set_warn_always(True)
    mt.set_warn_always(True)
    yield
    torch.set_warn_always(False)
    mt.set_warn_always(False)


@pytest.mark.parametrize("call", [
    lambda m, x, b1, b2: m.addbmm(2, x, 3, b1, b2),
    lambda m, x, b1, b2: m.addbmm(2, x, b1, b2),
    lambda m, x, b1, b2: m.addbmm(0.5, x, 2, b1, b2, out=m.empty(0)),
    lambda m, x, b1, b2: x.addbmm(2, 3, b1, b2),
    lambda m, x, b1, b2: x.addbmm(2, b1, b2),
    lambda m, x, b1, b2: x.clone().addbmm_(2, 3, b1, b2),
    lambda m, x, b1, b2: x.clone().addbmm_(2, b1, b2),
])
def test_addbmm_deprecated_overloads(call, warn_always):
    g = torch.Generator().manual_seed(0)
    x, b1, b2 = (torch.randn(s, generator=g) for s in ((2, 5), (3, 2, 4), (3, 4, 5)))
    want, want_w = warnings_of(torch, lambda m: call(m, x, b1, b2))
    got, got_w = warnings_of(mt, lambda m: call(m, t(x), t(b1), t(b2)))
    close(got, want)
    assert got_w == want_w and len(want_w) == 1


def test_addbmm_current_overload_does_not_warn(warn_always):
    x, b1, b2 = mt.ones(2, 2), mt.ones(3, 2, 4), mt.ones(3, 4, 2)
    r, w = warnings_of(mt, lambda m: m.addbmm(x, b1, b2, beta=2, alpha=0.5))
    assert w == [] and r.tolist() == [[8.0, 8.0], [8.0, 8.0]]


# ------------------------------------------------------------------ addr


@pytest.mark.parametrize("dtype", ["complex64", "float32", "int64", "bool"])
@pytest.mark.parametrize("beta,alpha", [(0.1j, 0.5j), (0.5, 2), (True, 1), (2, 0.5j)])
def test_addr_scalars(dtype, beta, alpha):
    g = torch.Generator().manual_seed(1)
    x, v1, v2 = (torch.randn(s, generator=g).mul(3).to(getattr(torch, dtype))
                 for s in ((3, 2), (3,), (2,)))

    def f(m, tx):
        return m.addr(tx(x), tx(v1), tx(v2), beta=beta, alpha=alpha)
    try:
        want = f(torch, lambda a: a)
    except RuntimeError:
        assert error_of(mt, lambda m: f(m, t)) == error_of(torch, lambda m: f(m, lambda a: a))
        return
    got = f(mt, t)
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)


# ---------------------------------------------------- chain_matmul, nuclear_norm


def test_chain_matmul_values_and_errors():
    g = torch.Generator().manual_seed(2)
    a, b, c = (torch.randn(s, generator=g, dtype=torch.float64) for s in ((2, 3), (3, 4), (4, 2)))
    close(mt.chain_matmul(t(a), t(b), t(c)), torch.chain_matmul(a, b, c), 1e-12)
    one = mt.chain_matmul(t(a))
    close(one, a, 0)
    assert one.data_ptr() != t(a).data_ptr()
    out = mt.empty(0, dtype=mt.float64)
    mt.chain_matmul(t(a), t(b), out=out)
    close(out, a @ b, 1e-12)
    same_error(lambda m: m.chain_matmul())
    same_error(lambda m: m.chain_matmul(m.ones(2), m.ones(2)))
    same_error(lambda m: m.chain_matmul(m.ones(2, 3), m.ones(3, 4, 2)))
    same_error(lambda m: m.chain_matmul(m.ones(2, 3), m.ones(4, 4)))


def test_chain_matmul_warning():
    import minitorch.functional as F
    F._CHAIN_WARNED.clear()
    _, w = warnings_of(mt, lambda m: m.chain_matmul(m.ones(2, 2), m.ones(2, 2)))
    _, again = warnings_of(mt, lambda m: m.chain_matmul(m.ones(2, 2), m.ones(2, 2)))
    assert w == ["torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                 "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                 "more tensors rather than multiple parameters."] and again == []


@pytest.mark.parametrize("shape,dim", [((5, 5), None), ((5, 4), (1, 0)), ((3, 4, 5), (2, 0)),
                                       ((3, 4, 5), None), ((3, 4, 5), (0, 1))])
@pytest.mark.parametrize("keepdim", [False, True])
def test_nuclear_norm(shape, dim, keepdim):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    kw = {} if dim is None else {"dim": dim}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.nuclear_norm(x, keepdim=keepdim, **kw)
        got = mt.nuclear_norm(t(x), keepdim=keepdim, **kw)
        out = mt.empty(0, dtype=mt.float64)
        mt.nuclear_norm(t(x), keepdim=keepdim, out=out, **kw)
    close(got, want, 1e-10)
    close(out, want, 1e-10)
    assert tuple(got.shape) == tuple(want.shape)


def test_nuclear_norm_errors_and_positional_keepdim():
    x = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(mt.nuclear_norm(t(x), True), torch.nuclear_norm(x, True))
        same_error(lambda m: m.nuclear_norm(m.ones(3)))
        same_error(lambda m: m.nuclear_norm(m.ones(2, 3, 4), dim=(0,)))
        same_error(lambda m: m.nuclear_norm(m.ones(3, 3, dtype=m.int32)))
        same_error(lambda m: m.nuclear_norm(m.ones(3, 3), out=m.empty(0, dtype=m.float64)))


# ------------------------------------------------------- NumPy aliases


def test_numpy_aliases_of_python_level_functions():
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(5))
    for f in (lambda m, a: m.linalg.norm(a, axis=0),
              lambda m, a: m.linalg.norm(a, axis=(0, 1), keepdims=True),
              lambda m, a: m.linalg.vector_norm(a, 3, axis=1, keepdims=True),
              lambda m, a: m.linalg.matrix_norm(a, keepdims=True)):
        got, want = f(mt, t(x)), f(torch, x)
        close(got, want)
        assert tuple(got.shape) == tuple(want.shape)
    with pytest.raises(TypeError):
        mt.linalg.norm(t(x), dim=0, axis=0)


# --------------------------------------------------------------- einsum


def test_einsum_sublist_format():
    g = torch.Generator().manual_seed(6)
    a, b, c = (torch.randn(s, generator=g, dtype=torch.float64) for s in ((2, 3), (3, 4), (4,)))
    for args in (lambda x, y, z: (x, [0, 1], y, [1, 2], [0, 2]),
                 lambda x, y, z: (x, [0, 1], y, [1, 2]),
                 lambda x, y, z: (x, [Ellipsis, 1], [Ellipsis]),
                 lambda x, y, z: (x, [0, 27], y, [27, 51], z, [51], [0]),
                 lambda x, y, z: (x, [0, 1])):
        close(mt.einsum(*args(t(a), t(b), t(c))), torch.einsum(*args(a, b, c)), 1e-12)
    same_error(lambda m: m.einsum(m.ones(2), [52]))
    same_error(lambda m: m.einsum(m.ones(2), [-1]))
    same_error(lambda m: m.einsum(m.ones(2)))


@pytest.mark.parametrize("equation,shapes", [
    ("", []), (". ..", [(2,)]), ("... ...", [(2,)]), ("1", [(2,)]), (",", [(2,)]),
    ("", [(2,), (2,)]), ("", [(2,)]), ("ai", [(2,)]), ("ai...", [(2,)]), ("a->... .", [(2,)]),
    ("a->..", [(2,)]), ("a->1", [(2,)]), ("a->aa", [(2,)]), ("a->i", [(2,)]), ("a->A", [(2,)]),
    ("aa", [(2, 3)]), ("...,...", [(2,), (2, 3)]), ("a...,a...", [(2, 3), (2, 4)]),
    ("a,a", [(2,), (3,)]), ("a, ba", [(2,), (2, 3)]), ("a,b,->a", [(2,), (2,)]),
    ("a.b", [(2,)]), ("ab->a a", [(2, 3)]),
])
def test_einsum_errors_as_torch(equation, shapes):
    same_error(lambda m: m.einsum(equation, [m.ones(s) for s in shapes]))


def test_einsum_spaces_and_ellipsis_values():
    g = torch.Generator().manual_seed(7)
    a, b = torch.randn(2, 3, generator=g), torch.randn(2, 3, 4, generator=g)
    for eq in (" a b , ...b c -> ...a c", "a...->...", "...b,...bc->...c", "ab"):
        ops = (a, b) if "," in eq else (b if eq == "a...->..." else a,)
        close(mt.einsum(eq, *[t(o) for o in ops]), torch.einsum(eq, *ops))


# ---------------------------------------------------------------- kron


@pytest.mark.parametrize("out_dtype", ["int32", "float64", "complex64", "float16"])
def test_kron_out_dtype(out_dtype):
    a, b = torch.eye(3), torch.ones(2, 2)

    def f(m, tx):
        out = m.empty(6, 6, dtype=getattr(m, out_dtype))
        m.kron(tx(a), tx(b), out=out)
        return out
    try:
        want = f(torch, lambda x: x)
    except RuntimeError:
        assert error_of(mt, lambda m: f(m, t)) == error_of(torch, lambda m: f(m, lambda x: x))
        return
    got = f(mt, t)
    assert str(got.dtype).split(".")[1] == out_dtype
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# ----------------------------------------------------- lu pivots (C side)


@pytest.mark.parametrize("bad", [0, -1, 4, 7])
def test_lu_pivot_range_messages(bad):
    A = torch.randn(2, 3, 3, generator=torch.Generator().manual_seed(8))
    LU, piv = torch.linalg.lu_factor(A)
    piv = piv.clone()
    piv[1, 0] = bad
    B = torch.randn(2, 3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for f in (lambda m, L, p, b: m.linalg.lu_solve(L, p, b),
                  lambda m, L, p, b: m.linalg.lu_solve(L, p, b, adjoint=True),
                  lambda m, L, p, b: m.lu_solve(b, L, p),
                  lambda m, L, p, b: m.lu_unpack(L, p)):
            assert (error_of(mt, lambda m: f(m, t(LU), t(piv), t(B)))
                    == error_of(torch, lambda m: f(m, LU, piv, B)))


def test_lu_pivots_low_fault_named_before_high_across_batch():
    LU, piv = torch.linalg.lu_factor(torch.randn(2, 3, 3, generator=torch.Generator().manual_seed(9)))
    piv = piv.clone()
    piv[0, 0], piv[1, 1] = 5, 0
    B = torch.randn(2, 3, 1)
    assert (error_of(mt, lambda m: m.linalg.lu_solve(t(LU), t(piv), t(B)))
            == error_of(torch, lambda m: m.linalg.lu_solve(LU, piv, B)))


# ------------------------------------------------------------------- qr


def test_qr_backward_errors():
    for mode, shape in (("r", (5, 7)), ("r", (7, 5)), ("complete", (7, 5))):
        msgs = []
        for m, tx in ((torch, lambda x: x), (mt, t)):
            a = tx(torch.randn(shape, generator=torch.Generator().manual_seed(10)))
            a.requires_grad_(True)
            q, r = m.linalg.qr(a, mode=mode)
            msgs.append(error_of(m, lambda m_: r.sum().backward()))
        assert msgs[0] == msgs[1]
    a = torch.randn(5, 7, dtype=torch.float64, requires_grad=True)
    b = t(a.detach()).requires_grad_(True)
    for m, x in ((torch, a), (mt, b)):
        q, r = m.linalg.qr(x, mode="complete")
        (q.sum() + r.sum()).backward()
    close(b.grad, a.grad, 1e-10)


# ------------------------------------------------------------- multi_dot


@pytest.mark.parametrize("shapes,dtypes,out", [
    ([(), (2,)], None, None), ([(2,), ()], None, None), ([(2, 2, 2), (2,)], None, None),
    ([(2,), (2,), (2,)], None, None), ([(2,), (2, 2, 2), (2,)], None, None),
    ([(2,), (2,)], ["float32", "float64"], None), ([(2,), (2, 2), (2,)], ["float32", "float64",
                                                                         "float32"], None),
    ([(2,), (2,)], None, "float64"), ([(2,), (3,)], None, None), ([(2,), (3, 2), (2,)], None, None),
    ([(4, 2), (3, 2), (2, 5)], None, None), ([(2,)], None, None), ([], None, None),
    ([(2,), (2, 2), (2,)], ["complex64", "float32", "float32"], None),
])
def test_multi_dot_errors(shapes, dtypes, out):
    def f(m):
        ts = [m.ones(s, dtype=getattr(m, dtypes[k]) if dtypes else m.float32)
              for k, s in enumerate(shapes)]
        o = None if out is None else m.empty(0, dtype=getattr(m, out))
        return m.linalg.multi_dot(ts, out=o)
    same_error(f)


@pytest.mark.parametrize("shapes", [[(3,), (3,)], [(2, 3), (3,)], [(3,), (3, 4)],
                                    [(2, 3), (3, 4), (4, 5), (5,)], [(0, 3), (3, 4)]])
def test_multi_dot_values(shapes):
    g = torch.Generator().manual_seed(11)
    xs = [torch.randn(s, generator=g, dtype=torch.float64) for s in shapes]
    got, want = mt.linalg.multi_dot([t(x) for x in xs]), torch.linalg.multi_dot(xs)
    close(got, want, 1e-12)
    assert tuple(got.shape) == tuple(want.shape)


# ------------------------------------------------- removed APIs, has_lapack


@pytest.mark.parametrize("call", [
    lambda m, a: m.solve(a, a), lambda m, a: a.solve(a), lambda m, a: m.lstsq(a, a),
    lambda m, a: a.lstsq(a), lambda m, a: m.eig(a), lambda m, a: a.eig(True),
    lambda m, a: m.symeig(a), lambda m, a: a.symeig(eigenvectors=True),
    lambda m, a: m.matrix_rank(a), lambda m, a: m.matrix_rank(a, 0.1, True),
    lambda m, a: m.solve(a), lambda m, a: a.solve(),
])
def test_removed_functions(call):
    assert error_of(mt, lambda m: call(m, m.eye(2))) == error_of(torch, lambda m: call(m, m.eye(2)))


def test_removed_functions_listing():
    assert not hasattr(torch.Tensor, "matrix_rank") and not hasattr(mt.Tensor, "matrix_rank")
    ignored = mt.overrides.get_ignored_functions()
    for name in ("solve", "lstsq", "eig", "symeig"):
        assert getattr(mt.Tensor, name) in ignored
        assert getattr(mt, name) not in ignored


def test_has_lapack():
    assert mt._C.has_lapack is torch._C.has_lapack is True


# ---------------------------------------------------- householder_product


@pytest.mark.parametrize("a_dtype,tau_dtype", [("float32", "int32"), ("int32", "float32"),
                                               ("float32", "float64"), ("float64", "float32"),
                                               ("complex64", "float32")])
def test_householder_product_tau_dtype(a_dtype, tau_dtype):
    def f(m):
        return m.linalg.householder_product(m.ones(3, 3, dtype=getattr(m, a_dtype)),
                                            m.ones(2, dtype=getattr(m, tau_dtype)))
    same_error(f)
    same_error(lambda m: m.orgqr(m.ones(3, 3), m.ones(2, dtype=m.int32)))
