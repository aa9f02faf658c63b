"""torch's lazy conjugation: x.conj() of a complex tensor is a view of x's
memory with the conjugate bit set (ops/runtime/conj_view.h). Checked against
torch: the bit and memory sharing of the results, the values every op reads,
writes through the view landing conjugated in the base, autograd, errors,
printing and the interop paths."""
import copy
import io
import pickle

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")
from torch_errors import same_error  # noqa: E402

DTYPES = ["complex64", "complex128"]
SHAPES = [(5,), (3, 4), (2, 3, 4)]


def data(shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def both(shape, dtype="complex64", seed=0):
    a = data(shape, seed)
    return mt.tensor(a, dtype=getattr(mt, dtype)), torch.tensor(a, dtype=getattr(torch, dtype))


def values(t):
    return t.detach().resolve_conj().numpy()


def check(m, t, bit=True):
    assert tuple(m.shape) == tuple(t.shape)
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    if bit:
        assert m.is_conj() == t.is_conj()
    tol = 1e-5 if t.dtype in (torch.complex64, torch.float32) else 1e-12
    np.testing.assert_allclose(values(m), values(t), rtol=tol, atol=tol)


def shares(a, b):
    """a's memory lies inside b's storage."""
    return mt._C._storage_key(a) == mt._C._storage_key(b)


# ---------------------------------------------------------------- the view


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_conj_is_a_view_with_the_bit(dtype, shape):
    m, t = both(shape, dtype)
    y, ty = m.conj(), t.conj()
    check(y, ty)
    assert y.is_conj() and mt.is_conj(y) and not m.is_conj()
    assert y.data_ptr() == m.data_ptr() and shares(y, m)
    assert y._base is m
    # the memory is untouched: the view reads it conjugated
    np.testing.assert_array_equal(m.numpy(), data(shape).astype(m.numpy().dtype))
    # conj of a conjugate view clears the bit, still over the same memory
    z = y.conj()
    assert not z.is_conj() and z.data_ptr() == m.data_ptr()
    check(z, ty.conj())
    assert mt.conj(m).is_conj() and m.conj_physical().is_conj() is False


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_conj_of_real_is_itself(dtype):
    m = mt.ones(3, dtype=getattr(mt, dtype))
    t = torch.ones(3, dtype=getattr(torch, dtype))
    assert (m.conj() is m) == (t.conj() is t) is True
    assert not m.conj().is_conj() and m.resolve_conj() is m
    assert (m.conj_physical() is m) == (t.conj_physical() is t)


@pytest.mark.parametrize("dtype", DTYPES)
def test_resolve_and_conj_physical(dtype):
    m, t = both((3, 4), dtype)
    assert m.resolve_conj() is m and mt.resolve_conj(m) is m
    y = m.conj()
    r = y.resolve_conj()
    assert not r.is_conj() and r.data_ptr() != m.data_ptr()
    check(r, t.conj().resolve_conj())
    check(mt.resolve_conj(y), torch.resolve_conj(t.conj()))
    for src_m, src_t in ((m, t), (y, t.conj())):
        p = src_m.conj_physical()
        assert not p.is_conj() and p.data_ptr() != m.data_ptr()
        check(p, src_t.conj_physical())
        check(mt.conj_physical(src_m), torch.conj_physical(src_t))
    # resolve_neg and is_neg leave the conjugate bit alone, as torch's
    assert y.resolve_neg() is y and not y.is_neg()


# lambdas run on a conjugate view in both libraries: the bit of the result
# and its values must match torch's
VIEW_OPS = {
    "view": lambda y: y.view(-1),
    "view_shape": lambda y: y.view(y.shape[0], -1),
    "reshape_view": lambda y: y.reshape(-1),
    "reshape_copy": lambda y: y.t().reshape(-1),
    "t": lambda y: y.t(),
    "T": lambda y: y.T,
    "mT": lambda y: y.mT,
    "transpose": lambda y: y.transpose(0, 1),
    "permute": lambda y: y.permute(1, 0),
    "unsqueeze": lambda y: y.unsqueeze(1),
    "squeeze": lambda y: y.unsqueeze(0).squeeze(0),
    "flatten": lambda y: y.flatten(),
    "unflatten": lambda y: y.flatten().unflatten(0, tuple(y.shape)),
    "select": lambda y: y.select(0, 1),
    "int_index": lambda y: y[1],
    "slice": lambda y: y[1:, ::2],
    "ellipsis": lambda y: y[..., 0],
    "none_index": lambda y: y[None],
    "advanced_index": lambda y: y[[0, 2]],
    "bool_index": lambda y: y[y.real > 0],
    "expand": lambda y: y[:1].expand(4, y.shape[1]),
    "narrow": lambda y: y.narrow(1, 1, 2),
    "diagonal": lambda y: y.diagonal(),
    "unbind": lambda y: y.unbind(1)[2],
    "split": lambda y: y.split(2, 1)[1],
    "chunk": lambda y: y.chunk(2, 0)[0],
    "movedim": lambda y: y.movedim(0, 1),
    "detach": lambda y: y.detach(),
    "as_strided": lambda y: y.as_strided((2, 2), (1, 2), 1),
    "contiguous_self": lambda y: y.contiguous(),
    "contiguous_copy": lambda y: y.t().contiguous(),
    "clone": lambda y: y.clone(),
    "to_same": lambda y: y.to(y.dtype),
    "to_other": lambda y: y.to(torch.complex128 if isinstance(y, torch.Tensor) else mt.complex128),
    "mul": lambda y: y * 2,
    "neg": lambda y: -y,
    "real": lambda y: y.real,
    "imag": lambda y: y.imag,
    "adjoint": lambda y: y.adjoint(),
    "mH": lambda y: y.mH,
    "H": lambda y: y.H,
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(VIEW_OPS))
def test_views_and_copies_of_a_conjugate_view(name, dtype):
    m, t = both((3, 4), dtype)
    got, want = VIEW_OPS[name](m.conj()), VIEW_OPS[name](t.conj())
    # imag of a conjugate view is a negative view in torch; minitorch has no
    # negative bit and gives its values in new memory (docs/differences.md)
    check(got, want.resolve_neg() if name == "imag" else want)
    same_memory = want.data_ptr() == t.data_ptr() or (
        want.untyped_storage().data_ptr() == t.untyped_storage().data_ptr())
    if name != "imag":
        assert shares(got, m) == same_memory


def test_adjoint_of_a_plain_matrix_is_a_conjugate_view():
    m, t = both((2, 3, 3))
    for f in (lambda x: x.adjoint(), lambda x: x.mH, lambda x: x[0].H):
        got, want = f(m), f(t)
        check(got, want)
        assert got.is_conj() and got.data_ptr() == m.data_ptr()


def test_views_of_views_keep_and_toggle_the_bit():
    m, t = both((2, 3, 4), "complex128")
    for f in (
        lambda x: x.conj()[1].t().conj()[0],
        lambda x: x.conj().transpose(0, 2)[1:].reshape(-1)[2:],
        lambda x: x.mH.conj().mH,
        lambda x: x[:, 1].conj().unsqueeze(0).expand(2, 2, 4),
    ):
        check(f(m), f(t))


# ------------------------------------------------------- values through ops

OPS = {
    "add": lambda lib, y, z: y + z,
    "mul_plain": lambda lib, y, z: y * z,
    "sub_scalar": lambda lib, y, z: y - (1 + 2j),
    "div": lambda lib, y, z: y / (z + 3),
    "exp": lambda lib, y, z: y.exp(),
    "abs": lambda lib, y, z: y.abs(),
    "angle": lambda lib, y, z: y.angle(),
    "sum": lambda lib, y, z: y.sum(1),
    "mean": lambda lib, y, z: y.mean(),
    "cumsum": lambda lib, y, z: y.cumsum(0),
    "prod": lambda lib, y, z: y.prod(0),
    "mm": lambda lib, y, z: y @ z.t(),
    "mm_both": lambda lib, y, z: lib.mm(y, z.conj().t()),
    "matmul_vec": lambda lib, y, z: lib.matmul(y, z[0]),
    "vdot": lambda lib, y, z: lib.vdot(y[0], z[0]),
    "cat": lambda lib, y, z: lib.cat([y, z, y.conj()]),
    "stack": lambda lib, y, z: lib.stack([y, z]),
    "where": lambda lib, y, z: lib.where(y.real > 0, y, z),
    "index_select": lambda lib, y, z: y.index_select(1, lib.tensor([3, 0])),
    "eq": lambda lib, y, z: y == y.resolve_conj(),
    "isclose": lambda lib, y, z: lib.isclose(y, z.conj()),
    "pow": lambda lib, y, z: y ** 2,
    "sqrt": lambda lib, y, z: y.sqrt(),
    "norm": lambda lib, y, z: lib.linalg.vector_norm(y),
    "var": lambda lib, y, z: y.var(),
    "view_as_real_resolved": lambda lib, y, z: lib.view_as_real(y.resolve_conj()),
    "complex_from_parts": lambda lib, y, z: lib.complex(y.real, y.imag),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(OPS))
def test_ops_read_conjugated_values(name, dtype):
    m, t = both((3, 4), dtype)
    mz, tz = both((3, 4), dtype, seed=1)
    got = OPS[name](mt, m.conj(), mz)
    want = OPS[name](torch, t.conj(), tz)
    if want.dtype == torch.bool:
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    else:
        check(got, want, bit=False)
        assert not got.is_conj() or want.is_conj()


def test_item_tolist_and_printing():
    m, t = both((2, 3))
    y, ty = m.conj(), t.conj()
    assert y[0, 1].item() == pytest.approx(ty[0, 1].item())
    assert np.allclose(np.array(y.tolist()), np.array(ty.tolist()))
    assert complex(y[1, 2]) == pytest.approx(complex(ty[1, 2]))
    assert repr(y) == repr(ty).replace("torch.", "minitorch.")
    assert repr(y[0]) == repr(ty[0])
    assert str(y.t()) == str(ty.t())


# ------------------------------------------------------- writes through it

WRITES = {
    "add_": lambda lib, y: y.add_(1),
    "add_complex_": lambda lib, y: y.add_(1 - 3j),
    "mul_": lambda lib, y: y.mul_(2j),
    "iadd": lambda lib, y: y.__iadd__(lib.ones_like(y) * 1j),
    "exp_": lambda lib, y: y.exp_(),
    "fill_": lambda lib, y: y.fill_(2 + 5j),
    "zero_": lambda lib, y: y.zero_(),
    "copy_": lambda lib, y: y.copy_(lib.arange(y.numel()).reshape(y.shape) * (1 + 2j)),
    "copy_from_conj": lambda lib, y: y.copy_((lib.ones_like(y) * 1j).conj()),
    "setitem_int": lambda lib, y: y.__setitem__(0, 1 + 2j),
    "setitem_slice": lambda lib, y: y.__setitem__((slice(None), 1), 3j),
    "setitem_tensor": lambda lib, y: y.__setitem__(1, lib.ones(y.shape[1:]) * (2 - 1j)),
    "setitem_advanced": lambda lib, y: y.__setitem__([0, 2], 4 - 4j),
    "setitem_mask": lambda lib, y: y.__setitem__(y.real > 0, 7j),
    "setitem_conj_value": lambda lib, y: y.__setitem__(0, (lib.ones(y.shape[1:]) * 1j).conj()),
    "view_add_": lambda lib, y: y[1:].add_(1j),
    "view_of_view": lambda lib, y: y.t()[0].mul_(-1j),
    "out": lambda lib, y: lib.add(y.resolve_conj(), 1j, out=y),
    "out_mul": lambda lib, y: lib.mul(y.resolve_conj(), 2, out=y),
    "out_sum": lambda lib, y: lib.sum(lib.ones(2, *y.shape, dtype=y.dtype) * 1j, 0, out=y),
    "conj_physical_": lambda lib, y: y.conj_physical_(),
    "self_add_": lambda lib, y: y.add_(y),
    "base_into_view": lambda lib, y: y.add_(y.conj()),
    "view_into_base": lambda lib, y: y.conj().add_(y),
    "index_put_": lambda lib, y: y.index_put_((lib.tensor([1, 2]),),
                                              lib.ones(2, 4, dtype=y.dtype) * 1j),
    "index_fill_": lambda lib, y: y.index_fill_(1, lib.tensor([0, 3]), 2j),
    "masked_fill_": lambda lib, y: y.masked_fill_(y.imag > 0, 5),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(WRITES))
def test_writes_through_a_conjugate_view(name, dtype):
    m, t = both((3, 4), dtype)
    y, ty = m.conj(), t.conj()
    before = y._version
    WRITES[name](mt, y)
    WRITES[name](torch, ty)
    check(m, t)
    check(y, ty)
    assert y.is_conj() and y.data_ptr() == m.data_ptr()
    assert y._version > before and m._version == y._version


@pytest.mark.parametrize("dtype", DTYPES)
def test_inplace_returns_the_view_itself(dtype):
    m, _ = both((4,), dtype)
    y = m.conj()
    assert y.add_(1) is y and y.mul_(2) is y and y.copy_(m) is y
    out = mt.add(m, 1, out=y)
    assert out is y and y.is_conj()


def test_plain_tensor_writes_read_conjugate_inputs():
    m, t = both((3, 4), "complex128")
    m.add_(m.conj())
    t.add_(t.conj())
    check(m, t)
    m2, t2 = both((3, 4), "complex128")
    mt.mul(m2.conj(), 1j, out=m2)
    torch.mul(t2.conj(), 1j, out=t2)
    check(m2, t2)


# ---------------------------------------------------------------- errors


def test_refusals():
    m, t = both((3, 2))
    y, ty = m.conj(), t.conj()
    same_error(lambda: y.numpy(), lambda: ty.numpy())
    same_error(lambda: np.asarray(y), lambda: np.asarray(ty))
    same_error(lambda: mt.view_as_real(y), lambda: torch.view_as_real(ty))
    same_error(lambda: y[1:].view(mt.float32), lambda: ty[1:].view(torch.float32))
    # minitorch exports no complex tensor through DLPack yet; a conjugate view never
    with pytest.raises((BufferError, RuntimeError)):
        y.__dlpack__()
    same_error(lambda: y.view(mt.complex64), lambda: ty.view(torch.complex64))
    # force=True resolves, as torch's
    np.testing.assert_array_equal(y.numpy(force=True), ty.numpy(force=True))
    np.testing.assert_array_equal(y.resolve_conj().numpy(), ty.resolve_conj().numpy())


# ---------------------------------------------------------------- autograd


@pytest.mark.parametrize("dtype", DTYPES)
def test_gradients_through_conjugate_views(dtype):
    a = data((3, 4))
    w = data((4, 3), seed=2)
    grads = []
    for lib in (mt, torch):
        x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
        ww = lib.tensor(w, dtype=getattr(lib, dtype))
        y = x.conj()
        assert y.requires_grad and not y.is_leaf and y.is_conj()
        assert type(y.grad_fn).__name__ == "ConjBackward0"
        loss = ((y @ ww).abs() ** 2).sum() + (y[1:].t() * 1j).real.sum() + y.mH.imag.sum()
        loss.backward()
        grads.append(x.grad)
    check(grads[0], grads[1])


def test_gradient_of_a_complex_output():
    grads = []
    for lib in (mt, torch):
        x = lib.tensor(data((3,)), dtype=lib.complex128, requires_grad=True)
        x.conj().backward(lib.tensor([1 + 1j, 2j, -3]))
        grads.append(x.grad)
    # torch's x.grad is then a conjugate view of the grad_output; minitorch's
    # holds the same values without the bit
    check(grads[0], grads[1], bit=False)


@pytest.mark.parametrize("view", ["conj", "conj_slice", "mH"])
def test_inplace_on_a_conjugate_view_of_a_nonleaf(view):
    make = {
        "conj": lambda x: x.conj(),
        "conj_slice": lambda x: x.conj()[1:],
        "mH": lambda x: x.mH,
    }[view]
    results = []
    for lib in (mt, torch):
        a = lib.tensor(data((3, 3)), dtype=lib.complex128, requires_grad=True)
        w = lib.tensor(data((3, 3), seed=3), dtype=lib.complex128, requires_grad=True)
        x = a * 1
        y = make(x)
        y.mul_(w[: y.shape[0]] if view == "conj_slice" else w)
        y.add_(2j)
        loss = (x * lib.tensor(data((3, 3), seed=4), dtype=lib.complex128)).abs().sum()
        loss = loss + (y.real ** 2).sum()
        loss.backward()
        results.append((x, a.grad, w.grad))
    for got, want in zip(results[0], results[1]):
        check(got, want, bit=False)


def test_inplace_on_conjugate_view_of_a_leaf_is_refused():
    x = mt.tensor(data((3,)), dtype=mt.complex64, requires_grad=True)
    tx = torch.tensor(data((3,)), dtype=torch.complex64, requires_grad=True)
    same_error(lambda: x.conj().add_(1), lambda: tx.conj().add_(1))


def test_gradcheck_through_conjugate_views():
    x = mt.tensor(data((2, 3)), dtype=mt.complex128, requires_grad=True)
    assert mt.autograd.gradcheck(lambda z: (z.conj() * z.conj()[0]).sum(1), (x,))
    assert mt.autograd.gradcheck(lambda z: z.mH @ z, (x,))
    assert mt.autograd.gradcheck(lambda z: z.conj().resolve_conj() * z[0].resolve_conj(), (x,))

    def inplace(z):
        y = (z * 1).conj()
        y.mul_(z.conj())
        return y

    assert mt.autograd.gradcheck(inplace, (x,))
    assert mt.autograd.gradgradcheck(lambda z: (z.conj() * z.mT.conj().mT).sum(0), (x,))


# ---------------------------------------------------------------- interop


def test_pickle_keeps_the_bit_and_the_sharing():
    m, t = both((3, 2))
    y = m.conj()
    got = pickle.loads(pickle.dumps(y))
    check(got, pickle.loads(pickle.dumps(t.conj())))
    pair = pickle.loads(pickle.dumps((m, y[1:])))
    assert pair[1].is_conj() and shares(pair[0], pair[1])
    check(pair[1], t.conj()[1:])


def test_deepcopy_resolves():
    m, t = both((3, 2))
    got, want = copy.deepcopy(m.conj()), copy.deepcopy(t.conj())
    check(got, want)
    assert not got.is_conj()


def test_save_and_load_with_torch_both_ways():
    m, t = both((3, 2))
    buf = io.BytesIO()
    mt.save({"x": m, "y": m.conj()}, buf)
    buf.seek(0)
    d = torch.load(buf)
    check(d["y"], t.conj())
    assert d["y"].data_ptr() == d["x"].data_ptr()
    buf = io.BytesIO()
    torch.save({"x": t, "y": t.conj()}, buf)
    buf.seek(0)
    d = mt.load(buf)
    check(d["y"], t.conj())
    assert d["y"].data_ptr() == d["x"].data_ptr()


def test_tensor_from_a_conjugate_view_copies_values():
    m, t = both((4,))
    check(mt.tensor(m.conj()), torch.tensor(t.conj()))
    check(mt.as_tensor(m.conj()), torch.as_tensor(t.conj()))
    check(mt.zeros_like(m.conj()), torch.zeros_like(t.conj()))
    check(mt.empty_like(m.conj()).zero_(), torch.empty_like(t.conj()).zero_())


def test_forward_ad_through_an_inplace_write_on_a_conjugate_view():
    a, t = data((3,)), data((3,), seed=5)
    results = []
    for lib in (mt, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(lib.tensor(a), lib.tensor(t))
            base = x * 1
            y = base.conj()
            y.mul_(lib.tensor([2j, 1 + 1j, 3]))
            y.add_(x)
            results.append([*fw.unpack_dual(base)[:2], *fw.unpack_dual(y)[:2]])
    for got, want in zip(*results):
        check(got, want, bit=False)


# a gradient arriving as a conjugate view (conj's, adjoint's) at a formula
# that hands it to a kernel directly
FUSED = {
    "gather": lambda lib, b: b.mH.gather(-2, lib.tensor([[2, 0, 1]] * 3).T.contiguous()).mH,
    "index_select": lambda lib, b: b.index_select(0, lib.tensor([2, 0])).conj(),
    "lu_solve_right": lambda lib, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(b + 3), b,
                                                          left=False),
}


# (with create_graph, gather's backward runs scatter_add_, which takes no
# complex tensors yet)
@pytest.mark.parametrize("name,create_graph", [(name, False) for name in FUSED]
                         + [("index_select", True)])
def test_conjugate_gradients_reach_fused_backward_kernels(name, create_graph):
    results = []
    for lib in (mt, torch):
        b = lib.tensor(data((3, 3)), dtype=lib.complex128, requires_grad=True)
        out = FUSED[name](lib, b)
        g = lib.tensor(data(tuple(out.shape), seed=6), dtype=lib.complex128)
        (gb,) = lib.autograd.grad(out, (b,), g, create_graph=create_graph)
        results.append((out, gb))
    for got, want in zip(*results):
        check(got, want, bit=False)
