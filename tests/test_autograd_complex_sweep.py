"""The complex half of the generated gradient sweep (issue 33): every
differentiable op-table row tagged complex that has a sample domain
(MT_SAMPLE, as tests/test_autograd_gradcheck_all.py reads it) is driven
backward at complex128 and its gradient compared with torch's.

minitorch's gradcheck does not take complex inputs yet, so torch is the
oracle: for z = x + iy drawn from the row's domain (a small imaginary part,
keeping z off the branch cuts that run along the real axis) and a fixed
random cotangent c, both libraries give the gradient of the real loss
Re(sum(conj(c) * f(z))), which torch's convention defines as
dL/dx + i dL/dy. A new tagged row is swept without a change here.
"""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

# real parts by domain letter (test_autograd_gradcheck_all.Gen's meanings)
REAL = {"n": (-1.5, 1.5), "u": (-0.8, 0.8), "p": (0.5, 2.0), "a": (0.3, 1.5), "g": (1.2, 3.0),
        "z": (0.5, 1.5)}


def _rows():
    out = {}
    for _id, name, kinds, _sig, _runs, tags, domain in mt._C._op_rows():
        if "complex" in tags and domain is not None and "f" in kinds:
            out.setdefault(name, domain)
    return out


def _differentiable(name):
    f = getattr(mt, name, None)
    return f is not None and any(k and k != "NonDifferentiable"
                                 for k in getattr(f, "_derivatives", ()))


ROWS = sorted((n, d) for n, d in _rows().items()
              if _differentiable(n) and hasattr(torch, n) and not n.startswith("_")
              and not n.endswith("_"))


def _input(domain, seed, shape=(2, 3)):
    rng = np.random.default_rng(seed)
    lo, hi = REAL.get(domain, REAL["n"])
    re = rng.uniform(lo, hi, shape)
    if domain == "a":
        re *= rng.choice([-1.0, 1.0], shape)
    return re + 1j * rng.uniform(-0.3, 0.3, shape)


def test_rows_found():
    names = {n for n, _ in ROWS}
    # the sweep reads the table: the tagged transcendental rows are in it
    assert {"exp", "log", "sin", "tanh", "sigmoid", "acos", "log1p"} <= names


@pytest.mark.parametrize("name,domain", ROWS, ids=[n for n, _ in ROWS])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_complex_gradient_as_torch(name, domain, layout):
    seed = sum(map(ord, name))
    z = _input(domain, seed, (2, 3) if layout == "contiguous" else (3, 2))
    tz = torch.tensor(z, requires_grad=True)
    mz = mt.tensor(z).requires_grad_()
    t_in = tz if layout == "contiguous" else tz.t()
    m_in = mz if layout == "contiguous" else mz.t()
    t_out = getattr(torch, name)(t_in)
    m_out = getattr(mt, name)(m_in)
    assert str(m_out.dtype).split(".")[-1] == str(t_out.dtype).split(".")[-1]
    rng = np.random.default_rng(seed + 1)
    cot = rng.standard_normal(tuple(t_out.shape))
    if t_out.is_complex():
        cot = cot + 1j * rng.standard_normal(tuple(t_out.shape))
    (want,) = torch.autograd.grad(t_out, tz, torch.tensor(cot))
    (got,) = mt.autograd.grad(m_out, mz, mt.tensor(cot))
    assert got.dtype == mt.complex128
    np.testing.assert_allclose(got.resolve_conj().numpy(), want.resolve_conj().numpy(),
                               rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(m_out.detach().resolve_conj().numpy(),
                               t_out.detach().resolve_conj().numpy(), rtol=1e-7, atol=1e-9)


def test_complex_output_needs_grad_output():
    z = mt.tensor(_input("n", 0)).requires_grad_()
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for real"):
        mt.tanh(z).sum().backward()
