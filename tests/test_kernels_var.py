"""var/std over contiguous runs (the block-merged variance of kernels/reduce.c)
against torch and a float64 reference: runs of one and of several blocks, a
large offset, odd lengths, NaN and inf, float32 and float64."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 7), (2, 2048), (2, 2049), (5, 3000), (1, 4096),
                                   (1, 100003), (4, 1)])
@pytest.mark.parametrize("unbiased", [True, False])
def test_var_std_of_rows_match_a_float64_reference(dtype, shape, unbiased):
    a = (RNG.standard_normal(shape) * 0.01 + 300).astype(dtype)
    ref = a.astype(np.float64).var(axis=1, ddof=1 if unbiased else 0)
    theirs = torch.tensor(a).var(1, unbiased=unbiased).numpy()
    ours = mt.tensor(a).var(1, unbiased=unbiased).numpy()
    if shape[1] == 1 and unbiased:
        assert np.isnan(ours).all() and np.isnan(theirs).all()
        return
    tol = 1e-6 if dtype == np.float32 else 1e-12
    assert np.abs(ours - ref).max() <= max(2 * np.abs(theirs - ref).max(), tol * ref.max())
    np.testing.assert_allclose(mt.tensor(a).std(1, unbiased=unbiased).numpy(),
                               np.sqrt(ref), rtol=1e-5 if dtype == np.float32 else 1e-11)


def test_var_of_the_whole_tensor_and_special_values():
    a = RNG.standard_normal((300, 70)).astype(np.float32)
    np.testing.assert_allclose(mt.tensor(a).var().item(), torch.tensor(a).var().item(),
                               rtol=1e-6)
    for vals in ([1.0, float("nan"), 2.0], [1.0, float("inf")], [float("-inf"), 3.0] * 5000):
        v = np.array(vals, dtype=np.float32)
        assert np.isnan(mt.tensor(v).var().item()) == np.isnan(torch.tensor(v).var().item())
