"""binary_cross_entropy's forward-mode derivative against torch's: tangents
of input, of target and of both, with weights and every reduction."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def run(lib, p, y, dp, dy, weight, reduction):
    fwad = lib.autograd.forward_ad
    with fwad.dual_level():
        x = lib.tensor(p, dtype=lib.float64)
        t = lib.tensor(y, dtype=lib.float64)
        if dp is not None:
            x = fwad.make_dual(x, lib.tensor(dp, dtype=lib.float64))
        if dy is not None:
            t = fwad.make_dual(t, lib.tensor(dy, dtype=lib.float64))
        w = None if weight is None else lib.tensor(weight, dtype=lib.float64)
        out = lib.nn.functional.binary_cross_entropy(x, t, weight=w, reduction=reduction)
        primal, tangent = fwad.unpack_dual(out)
        return primal.numpy().copy(), tangent.numpy().copy()


@pytest.mark.parametrize("which", ["input", "target", "both"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_tangent_is_torchs(which, reduction, weighted):
    rng = np.random.default_rng(4)
    p = rng.uniform(0.05, 0.95, size=(3, 4)).tolist()
    y = rng.uniform(0, 1, size=(3, 4)).tolist()
    dp = rng.normal(size=(3, 4)).tolist() if which in ("input", "both") else None
    dy = rng.normal(size=(3, 4)).tolist() if which in ("target", "both") else None
    weight = rng.uniform(0.5, 2, size=(4,)).tolist() if weighted else None
    got = run(mt, p, y, dp, dy, weight, reduction)
    want = run(torch, p, y, dp, dy, weight, reduction)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-12)


def test_tangent_at_the_ends_is_torchs():
    # at input 0 and 1 torch's tangent is NaN (its target term multiplies a zero tangent by
    # log(0)); so is ours
    got = run(mt, [0.0, 1.0, 0.5], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0], None, None, "none")
    want = run(torch, [0.0, 1.0, 0.5], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0], None, None, "none")
    assert np.isnan(want[1][:2]).all()
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10)
