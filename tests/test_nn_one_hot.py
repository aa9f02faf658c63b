"""F.one_hot edge cases against torch: inferred and given class counts, empty
inputs, and the errors for negative, too large and non-int64 values."""
import numpy as np
import pytest

import minitorch
from torch_error_helpers import assert_same_error

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.one_hot(L.tensor([0, 2, 1])),
    lambda L: L.nn.functional.one_hot(L.tensor([[0, 2], [3, 1]]), 5),
    lambda L: L.nn.functional.one_hot(L.tensor(3), 5),
    lambda L: L.nn.functional.one_hot(L.zeros(0, 3, dtype=L.int64), 4),
    lambda L: L.nn.functional.one_hot(L.tensor([0, 1]).expand(2, 2)),
])
def test_values(call):
    got, want = call(minitorch), call(torch)
    assert got.dtype == minitorch.int64 and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.one_hot(L.tensor([0, 2, -1])),
    lambda L: L.nn.functional.one_hot(L.tensor([-1]), 3),
    lambda L: L.nn.functional.one_hot(L.tensor([0, 2, 1]), 2),
    lambda L: L.nn.functional.one_hot(L.tensor([0, 2, 1]), -2),
    lambda L: L.nn.functional.one_hot(L.zeros(0, dtype=L.int64)),
    lambda L: L.nn.functional.one_hot(L.zeros(0, dtype=L.int64), 0),
    lambda L: L.nn.functional.one_hot(L.zeros(0, dtype=L.int64), -3),
    lambda L: L.nn.functional.one_hot(L.tensor([0, 1], dtype=L.int32)),
    lambda L: L.nn.functional.one_hot(L.tensor([0.0, 1.0])),
    lambda L: L.nn.functional.one_hot(L.tensor([True])),
    lambda L: L.nn.functional.one_hot(L.tensor([0, 1]), 2.0),
])
def test_errors(call):
    assert_same_error(call, (minitorch,), (torch,))
