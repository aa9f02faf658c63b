"""Optimizers torch defines only for real parameters refuse complex ones with
torch's exception and message, at the point torch does (SparseAdam when built,
Adafactor and Muon at the step, and only for parameters with a gradient)."""
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def params(lib, complex_at):
    out = []
    for i in range(3):
        dtype = lib.complex64 if i in complex_at else lib.float32
        p = lib.ones(2, 3, dtype=dtype).requires_grad_()
        p.grad = lib.ones(2, 3, dtype=dtype)
        out.append(p)
    return out


def raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception itself is compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("complex_at", [(0,), (2,), (0, 2)])
@pytest.mark.parametrize("name", ["Adafactor", "Muon"])
def test_step_refuses_complex_params(name, complex_at):
    def run(lib):
        opt = getattr(lib.optim, name)(params(lib, complex_at), lr=0.1)
        return raised(opt.step)
    want = run(torch)
    assert want == ("RuntimeError", f"{name} does not support complex parameters")
    assert run(mt) == want


@pytest.mark.parametrize("name", ["Adafactor", "Muon"])
def test_complex_param_without_grad_is_skipped(name):
    def run(lib):
        ps = params(lib, ())
        q = lib.ones(2, 3, dtype=lib.complex64, requires_grad=True)
        opt = getattr(lib.optim, name)(ps + [q], lr=0.1)
        opt.step()
        return ps[0].detach().reshape(-1).tolist()
    assert run(mt) == pytest.approx(run(torch), rel=1e-5)


@pytest.mark.parametrize("complex_at", [(1,), (0, 2)])
def test_sparse_adam_refuses_complex_when_built(complex_at):
    def run(lib):
        return raised(lambda: lib.optim.SparseAdam(params(lib, complex_at), lr=0.1))
    want = run(torch)
    assert want[0] == "ValueError" and "SparseAdam does not support complex" in want[1]
    assert run(mt) == want
