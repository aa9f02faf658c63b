"""minitorch.testing.assert_close: same outcome and message as torch.testing."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def cases(lib):
    T = lib.tensor
    return [
        lambda ac: ac(T([1., 2., 3.]), T([1., 2.5, 3.])),
        lambda ac: ac(T([[1., 2.], [3., 4.]]), T([[1., 2.], [3., 5.]])),
        lambda ac: ac(T([1, 2, 3]), T([1, 2, 4])),
        lambda ac: ac(T([1, 3], dtype=lib.int32), T([1, 2], dtype=lib.int32)),
        lambda ac: ac(T([True]), T([False])),
        lambda ac: ac(T([1., 2.]), T([1., 2.], dtype=lib.float64)),
        lambda ac: ac(T([1., 2.]), T([1., 2.], dtype=lib.float64), check_dtype=False),
        lambda ac: ac(T([1., 2.]), T([1., 2., 3.])),
        lambda ac: ac(1.0, 1.1),
        lambda ac: ac(1, 1.0),
        lambda ac: ac(1.0, 1.0 + 1e-9),
        lambda ac: ac(T([float("nan")]), T([float("nan")])),
        lambda ac: ac(T([float("nan")]), T([float("nan")]), equal_nan=True),
        lambda ac: ac(T([float("inf"), 1.]), T([float("inf"), 1.])),
        lambda ac: ac([T(1.)], [T(2.)]),
        lambda ac: ac({"a": T(1.)}, {"a": T(2.)}),
        lambda ac: ac((T([1.]), [T([2.]), T([3.])]), (T([1.]), [T([2.]), T([4.])])),
        lambda ac: ac(T([1., 2.]), T([1., 3.]), msg="custom"),
        lambda ac: ac(T([0., 2.]), T([1., 2.])),
        lambda ac: ac([1, 2], [1, 2, 3]),
        lambda ac: ac(T([1., 2.]), T([1., 2.]), rtol=1e-3),
        lambda ac: ac(T([1., 2.]), T([1., 2.1]), rtol=0.1, atol=0.0),
        lambda ac: ac(lib.zeros(2, 2), lib.zeros(2, 2).t(), check_stride=True),
        lambda ac: ac(lib.zeros(2, 2), lib.zeros(2, 2).t()),
        lambda ac: ac(T([1., 2.], dtype=lib.float16), T([1., 2.001], dtype=lib.float16)),
        lambda ac: ac(T([1., 2.], dtype=lib.float16), T([1., 2.01], dtype=lib.float16)),
        lambda ac: ac(T([1., 2.], dtype=lib.bfloat16), T([1., 2.01], dtype=lib.bfloat16)),
        lambda ac: ac(T([1., 2.]), 1.0),
        lambda ac: ac(lib.zeros(0, 3), lib.zeros(0, 3)),
        lambda ac: ac(T([[1., 2.], [3., 4.]]).t(), T([[1., 3.], [2., 4.5]])),
    ]


def outcome(fn, ac):
    try:
        fn(ac)
        return "ok"
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return "%s: %s" % (type(e).__name__, str(e).replace("minitorch.", "torch."))


@pytest.mark.parametrize("k", range(len(cases(torch))))
def test_same_as_torch(k):
    got = outcome(cases(mt)[k], mt.testing.assert_close)
    ref = outcome(cases(torch)[k], torch.testing.assert_close)
    assert got == ref


def test_numpy_arrays_and_callable_msg():
    mt.testing.assert_close(np.ones(3), np.ones(3))
    with pytest.raises(AssertionError, match="^wrapped: Tensor-likes are not close!"):
        mt.testing.assert_close(mt.ones(3), mt.zeros(3), msg=lambda m: "wrapped: " + m)
