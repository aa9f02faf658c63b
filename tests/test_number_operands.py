"""Python numbers stand for tensors only where torch has a Scalar overload
(`Tensor|Scalar` parameters of the op table), and never for self. A number
anywhere else is a TypeError, as in torch, and never reaches an impl that
reads it as a tensor (scatter and masked_fill used to crash on one)."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def x(lib):
    return lib.tensor([1.5, -2.0, 3.0])


def cond(lib):
    return lib.tensor([True, False, True])


def idx(lib):
    return lib.tensor([0, 2])


CASES = {
    "add(2, x)": lambda L: L.add(2, x(L)),
    "add(x, 2)": lambda L: L.add(x(L), 2),
    "sub(2, x)": lambda L: L.sub(2, x(L)),
    "pow(2, x)": lambda L: L.pow(2, x(L)),
    "remainder(2, x)": lambda L: L.remainder(2, x(L)),
    "xlogy(2, x)": lambda L: L.xlogy(2, x(L)),
    "bitwise_and(6, t)": lambda L: L.bitwise_and(6, L.tensor([3, 5])),
    "fmod(2, x)": lambda L: L.fmod(2, x(L)),
    "fmod(x, 2)": lambda L: L.fmod(x(L), 2),
    "copysign(2, x)": lambda L: L.copysign(2, x(L)),
    "eq(2, x)": lambda L: L.eq(2, x(L)),
    "lt(x, 2)": lambda L: L.lt(x(L), 2),
    "clamp_min(2, x)": lambda L: L.clamp_min(2, x(L)),
    "clamp_min(x, 2)": lambda L: L.clamp_min(x(L), 2),
    "clamp(x, 0, 1)": lambda L: L.clamp(x(L), 0, 1),
    "where(c, 2, x)": lambda L: L.where(cond(L), 2, x(L)),
    "where(2, x, x)": lambda L: L.where(2, x(L), x(L)),
    "x.where(c, 2)": lambda L: x(L).where(cond(L), 2),
    "lerp(x, x, 0.5)": lambda L: L.lerp(x(L), x(L), 0.5),
    "lerp(x, 1.0, 0.5)": lambda L: L.lerp(x(L), 1.0, 0.5),
    "scatter(x, 0, idx, 2.0)": lambda L: L.scatter(x(L), 0, idx(L), 2.0),
    "scatter(5, 0, idx, 1.0)": lambda L: L.scatter(5, 0, idx(L), 1.0),
    "x.scatter_(0, 0, 2.0)": lambda L: x(L).scatter_(0, 0, 2.0),
    "masked_fill(x, c, 2)": lambda L: L.masked_fill(x(L), cond(L), 2),
    "x.masked_fill(1, 0.0)": lambda L: x(L).masked_fill(1, 0.0),
    "masked_fill(2, c, 0.0)": lambda L: L.masked_fill(2, cond(L), 0.0),
    "searchsorted(x, 2)": lambda L: L.searchsorted(L.tensor([0.0, 1.0, 2.0]), 2),
    "searchsorted(2, x)": lambda L: L.searchsorted(2, x(L)),
    "bucketize(2, x)": lambda L: L.bucketize(2, L.tensor([0.0, 1.0, 2.0])),
    "Tensor.mul_(2, 3)": lambda L: L.Tensor.mul_(2, 3),
    "Tensor.add(2, x)": lambda L: L.Tensor.add(2, x(L)),
    "Tensor.__add__(2, x)": lambda L: L.Tensor.__add__(2, x(L)),
    "2 - x": lambda L: 2 - x(L),
    "2 ** x": lambda L: 2 ** x(L),
    "result_type(2, x)": lambda L: L.result_type(2, x(L)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_number_operands_as_torch(case):
    try:
        want = CASES[case](torch)
    except TypeError:
        with pytest.raises(TypeError):
            CASES[case](mt)
        return
    got = CASES[case](mt)
    if isinstance(want, torch.Tensor):
        np.testing.assert_array_equal(np.array(got.tolist()), want.numpy())
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    else:
        assert str(got).split(".")[-1] == str(want).split(".")[-1]


def test_a_number_for_self_names_the_descriptor_as_python_does():
    with pytest.raises(TypeError, match="^descriptor 'mul_' for 'minitorch.Tensor' objects "
                                        "doesn't apply to a 'int' object$"):
        mt.Tensor.mul_(2, 3)


def test_out_must_be_a_tensor():
    with pytest.raises(TypeError, match=r"^mul\(\): argument 'out' must be Tensor, not float$"):
        mt.mul(mt.ones(2), 2, out=1.5)
