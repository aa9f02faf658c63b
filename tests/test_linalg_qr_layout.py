"""linalg.qr's outputs have torch's memory layout (Q and R column-major, as
LAPACK leaves them) and torch's values, for every mode and batched inputs."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(5, 5), (6, 4), (4, 6), (2, 5, 3), (3, 2, 4, 4), (1, 1)], ids=str)
def test_qr_strides_and_values_match_torch(shape, mode):
    a = np.random.default_rng(len(shape)).normal(size=shape)
    Q, R = mt.linalg.qr(mt.from_numpy(a), mode=mode)
    tQ, tR = torch.linalg.qr(torch.from_numpy(a), mode=mode)
    assert (Q.stride(), R.stride()) == (tQ.stride(), tR.stride())
    # the signs of LAPACK's reflectors are the same in both, so the factors agree
    np.testing.assert_allclose(R.numpy(), tR.numpy(), atol=1e-12)
    np.testing.assert_allclose(Q.numpy(), tQ.numpy(), atol=1e-12)
