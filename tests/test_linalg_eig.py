"""minitorch.linalg.eig and eigvals against torch: complex results for real
and complex input (dtypes, shapes, batches, non-contiguous input), the
decomposition by its invariant A V = V diag(L), torch's errors, out=, and
gradients and tangents of phase-invariant losses against torch's."""
import numpy as np
import pytest
from linalg_pairs import raises_like, same, to_np

import minitorch as mt

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "complex64", "complex128"]
COMPLEX_OF = {"float32": "complex64", "float64": "complex128", "complex64": "complex64",
              "complex128": "complex128"}


def pair(*shape, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return mt.tensor(a, dtype=getattr(mt, dtype)), torch.tensor(a, dtype=getattr(torch, dtype))


def tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype in ("float32", "complex64") \
        else dict(rtol=1e-8, atol=1e-10)


def sorted_values(L):
    """The eigenvalues of each matrix in a fixed order (LAPACK's order is
    not part of the contract)."""
    v = to_np(L).reshape(-1, L.shape[-1]) if L.numel() else to_np(L)
    return np.stack([np.sort_complex(np.round(r, 6)) for r in v]) if L.numel() else v


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (6, 6), (2, 4, 4), (2, 1, 5, 5)])
def test_eig_invariant_and_values(dtype, shape):
    a, t = pair(*shape, dtype=dtype, seed=sum(shape))
    L, V = mt.linalg.eig(a)
    tL, tV = torch.linalg.eig(t)
    for got, want in ((L, tL), (V, tV)):
        assert str(got.dtype).split(".")[1] == COMPLEX_OF[dtype]
        assert str(want.dtype).split(".")[1] == COMPLEX_OF[dtype]
        assert tuple(got.shape) == tuple(want.shape)
    # A V = V diag(L), with columns of norm one
    ac = to_np(a).astype(to_np(V).dtype)
    np.testing.assert_allclose(ac @ to_np(V), to_np(V) * to_np(L)[..., None, :], **tol(dtype))
    np.testing.assert_allclose(np.linalg.norm(to_np(V), axis=-2), 1.0, **tol(dtype))
    np.testing.assert_allclose(sorted_values(L), sorted_values(tL), **tol(dtype))
    same(mt.linalg.eigvals(a), L)


def test_real_matrix_with_real_and_complex_pairs():
    # rotation block (eigenvalues +-i) beside a real eigenvalue 2
    a = mt.tensor([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    L, V = mt.linalg.eig(a)
    np.testing.assert_allclose(np.sort_complex(to_np(L)), np.sort_complex(np.array([-1j, 1j, 2])),
                               atol=1e-6)
    np.testing.assert_allclose(to_np(a).astype(np.complex64) @ to_np(V),
                               to_np(V) * to_np(L)[None, :], atol=1e-6)
    same(L, torch.linalg.eig(torch.tensor(to_np(a))).eigenvalues)


def test_non_contiguous_input():
    a, t = pair(5, 5, 5, seed=7)
    a, t = a.transpose(0, 2), t.transpose(0, 2)
    assert not a.is_contiguous()
    np.testing.assert_allclose(sorted_values(mt.linalg.eigvals(a)),
                               sorted_values(torch.linalg.eigvals(t)), **tol("float64"))


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
def test_empty(shape):
    a, t = pair(*shape)
    same(tuple(mt.linalg.eig(a)), tuple(torch.linalg.eig(t)))
    same(mt.linalg.eigvals(a), torch.linalg.eigvals(t))


@pytest.mark.parametrize("fn", ["eig", "eigvals"])
@pytest.mark.parametrize("make", [
    lambda L: L.ones(3, 3, dtype=L.int64),
    lambda L: L.ones(3, 3, dtype=L.float16),
    lambda L: L.ones(2, 3),
    lambda L: L.ones(3),
])
def test_errors_match_torch(fn, make):
    raises_like(lambda: getattr(mt.linalg, fn)(make(mt)),
                lambda: getattr(torch.linalg, fn)(make(torch)))


def test_non_finite_input_is_refused():
    bad = [[float("nan"), 0.0], [0.0, 1.0]]
    raises_like(lambda: mt.linalg.eig(mt.tensor(bad)), lambda: torch.linalg.eig(torch.tensor(bad)))
    # torch's eigvals does not check (and crashes in LAPACK): ours refuses as eig does
    with pytest.raises(RuntimeError, match="should not contain infs or NaNs"):
        mt.linalg.eigvals(mt.tensor([[float("inf"), 0.0], [0.0, 1.0]]))


def test_out():
    a, t = pair(3, 3, dtype="float32", seed=3)
    outs = (mt.empty(0, dtype=mt.complex64), mt.empty(0, dtype=mt.complex64))
    r = mt.linalg.eig(a, out=outs)
    assert r.eigenvalues is outs[0] and r.eigenvectors is outs[1]
    same(r.eigenvalues, mt.linalg.eig(a).eigenvalues)
    o = mt.empty(0, dtype=mt.complex128)
    assert mt.linalg.eigvals(a, out=o) is o
    np.testing.assert_allclose(to_np(o), to_np(mt.linalg.eigvals(a)), rtol=1e-6)
    raises_like(lambda: mt.linalg.eig(a, out=(mt.empty(0), mt.empty(0))),
                lambda: torch.linalg.eig(t, out=(torch.empty(0), torch.empty(0))))
    raises_like(lambda: mt.linalg.eig(a, out=(mt.empty(0, dtype=mt.complex64), mt.empty(0))),
                lambda: torch.linalg.eig(t, out=(torch.empty(0, dtype=torch.complex64),
                                                 torch.empty(0))))
    raises_like(lambda: mt.linalg.eigvals(a, out=mt.empty(0)),
                lambda: torch.linalg.eigvals(t, out=torch.empty(0)))


def _weights(L, shape, seed):
    return L.tensor(np.random.default_rng(seed).uniform(0.5, 1.5, shape))


LOSSES = {
    # permutation-invariant (LAPACK's order may differ from torch's) and
    # phase-invariant losses
    "values": lambda L, r: (r[0].real ** 3 + r[0].imag ** 2 * r[0].real).sum(),
    "eigvals": lambda L, r: (r[0].abs() ** 3).sum(),
    "vectors": lambda L, r: (r[1].abs() ** 4).sum() + (r[0].abs() ** 2).sum(),
    "vectors_by_value": lambda L, r: ((r[1].abs() ** 2).sum(-2) * r[0].real).sum(),
}


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_gradients_match_torch(dtype, shape, loss):
    a, t = pair(*shape, dtype=dtype, seed=11)
    a.requires_grad_(True)
    t.requires_grad_(True)
    f = LOSSES[loss]
    if loss == "eigvals":
        f(mt, (mt.linalg.eigvals(a),)).backward()
        f(torch, (torch.linalg.eigvals(t),)).backward()
    else:
        f(mt, mt.linalg.eig(a)).backward()
        f(torch, torch.linalg.eig(t)).backward()
    assert a.grad.dtype == a.dtype
    same(a.grad, t.grad, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_phase_dependent_loss_raises_as_torch(dtype):
    a, t = pair(3, 3, dtype=dtype, seed=12)
    a.requires_grad_(True)
    t.requires_grad_(True)
    raises_like(lambda: mt.linalg.eig(a).eigenvectors.sum().abs().backward(),
                lambda: torch.linalg.eig(t).eigenvectors.sum().abs().backward())


def test_eig_message_wording():
    a, _ = pair(3, 3, dtype="complex128", seed=13)
    a.requires_grad_(True)
    with pytest.raises(RuntimeError) as e:
        mt.linalg.eig(a).eigenvectors.sum().abs().backward()
    assert str(e.value) == (
        "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
        "multiplication by e^{i phi}. The specified loss function depends on this quantity, so "
        "it is ill-defined.")


def test_tangents_match_torch():
    # minitorch's forward AD takes real primals and stops at complex ops: the
    # tangents of the eigenvalues themselves, in torch's order of them
    import torch.autograd.forward_ad as tfwad

    import minitorch.autograd.forward_ad as fwad
    a, t = pair(2, 4, 4, seed=14)
    da, dt = pair(2, 4, 4, seed=15)
    with fwad.dual_level():
        L, V = mt.linalg.eig(fwad.make_dual(a, da))
        dL = to_np(fwad.unpack_dual(L).tangent)
    with tfwad.dual_level():
        tL, tV = torch.linalg.eig(tfwad.make_dual(t, dt))
        tdL = tfwad.unpack_dual(tL).tangent.numpy()
    for b in range(2):
        order = [int(np.argmin(np.abs(to_np(L)[b] - w))) for w in tL[b].detach().numpy()]
        np.testing.assert_allclose(dL[b][order], tdL[b], rtol=1e-7, atol=1e-9)


def test_removed_legacy_eig_raises_as_torch():
    a, t = pair(3, 3)
    raises_like(lambda: mt.eig(a), lambda: torch.eig(t))
    raises_like(lambda: a.eig(eigenvectors=True), lambda: t.eig(eigenvectors=True))
