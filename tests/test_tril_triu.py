"""tril and triu against torch: shapes (batched, empty, wide, tall), every
diagonal across and far past the matrix, dtypes, non-contiguous inputs."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5, 3), (2, 3, 6, 6), (0, 3), (3, 0), (2, 1, 1), (4, 4), (2, 0, 5, 2)]
DIAGONALS = list(range(-7, 8)) + [2 ** 62, -2 ** 62, 2 ** 63 - 1, -2 ** 63]


@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_matches_torch_on_every_diagonal(name, shape):
    x = np.random.default_rng(len(shape)).normal(size=shape)
    for d in DIAGONALS:
        ours = getattr(mt, name)(mt.from_numpy(x), d).numpy()
        theirs = getattr(torch, name)(torch.from_numpy(x), d).numpy()
        np.testing.assert_array_equal(ours, theirs, err_msg=f"diagonal {d}")


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float32", "float64"])
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_dtypes_and_non_contiguous_inputs(dtype, name):
    a = np.random.default_rng(1).normal(size=(3, 5, 4)) * 4
    x = a.astype(dtype)
    ours_in, theirs_in = mt.from_numpy(x), torch.from_numpy(x)
    for make in (lambda t: t, lambda t: t.mT, lambda t: t[:, ::2, 1:]):
        for d in (-2, 0, 1):
            ours = getattr(make(ours_in), name)(d)
            theirs = getattr(make(theirs_in), name)(d)
            assert tuple(ours.shape) == tuple(theirs.shape) and ours.is_contiguous()
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
