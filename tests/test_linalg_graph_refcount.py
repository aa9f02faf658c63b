"""The graphs of linalg's autograd Functions are freed by reference counting
alone: no Function keeps its outputs where its node can reach them (an
output on the ctx would make output -> grad_fn -> ctx -> output a cycle
that lives until the cyclic collector runs). Forward-mode tangents still
read what forward saved."""
import gc
import weakref

import pytest

import minitorch as mt

pytestmark = pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")


def _spd(n=4):
    g = mt.Generator().manual_seed(3)
    a = mt.randn(n, n, dtype=mt.float64, generator=g)
    return a @ a.mT + n * mt.eye(n, dtype=mt.float64)


def _general(n=4):
    g = mt.Generator().manual_seed(5)
    return mt.randn(n, n, dtype=mt.float64, generator=g) + n * mt.eye(n, dtype=mt.float64)


CASES = {
    "cholesky": lambda A: mt.linalg.cholesky(_spd() + A * 0),
    "solve_triangular": lambda A: mt.linalg.solve_triangular(A.triu(), A, upper=True),
    "triangular_solve": lambda A: mt.triangular_solve(A, A.triu())[0],
    "cholesky_solve": lambda A: mt.cholesky_solve(A, mt.linalg.cholesky(_spd()) + A * 0),
    "eigh": lambda A: mt.linalg.eigh(A + A.mT)[1],
    "eig": lambda A: mt.linalg.eig(A)[0],
    "svd": lambda A: mt.linalg.svd(A)[0],
    "qr": lambda A: mt.linalg.qr(A)[0],
    "pinv": lambda A: mt.linalg.pinv(A),
    "lu_factor": lambda A: mt.linalg.lu_factor(A)[0],
    "det": lambda A: mt.linalg.det(A),
    "matrix_exp": lambda A: mt.linalg.matrix_exp(A * 0.1),
}


@pytest.fixture
def no_cyclic_gc():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_freed_without_the_cycle_collector(name, no_cyclic_gc):
    A = _general().requires_grad_()
    out = CASES[name](A)
    assert out.grad_fn is not None
    ref = weakref.ref(out)
    node = weakref.ref(out.grad_fn)
    del out
    assert ref() is None
    assert node() is None


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_tangent_still_reads_the_saved_tensors(name):
    import minitorch.autograd.forward_ad as fwAD
    A = _general()
    dA = _general(4).mT * 0.01
    eps = 1e-6
    f = CASES[name]
    with fwAD.dual_level():
        out = f(fwAD.make_dual(A, dA))
        tangent = fwAD.unpack_dual(out).tangent
    # a central difference of the same function stands in for the oracle
    # (svd's vectors are fixed only up to sign, which small steps do not flip)
    fd = (f(A + eps * dA) - f(A - eps * dA)) / (2 * eps)
    assert tangent is not None
    assert mt.allclose(tangent, fd, rtol=1e-5, atol=1e-6), (tangent - fd).abs().max()
