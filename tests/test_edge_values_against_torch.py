"""Inputs at the edges of a function's domain, against torch: NaN through
hardshrink, softshrink and hardtanh (values and gradients), -0.0 where
softshrink zeroes a negative, integer dtypes kept by hardtanh and relu6,
arange converting its bounds to int64 first for an int64 result, and .T of a
0-d tensor (the identity, with torch's warning)."""
import warnings

import pytest

import minitorch as mt
from side_by_side import errmsg

torch = pytest.importorskip("torch")

NAN = float("nan")
VALUES = [-2.0, -0.5, -0.2, -0.0, 0.0, 0.3, 0.5, 1.7, NAN, float("inf"), float("-inf")]


def _exact(t):
    """Values (NaN as 'nan', so it compares equal) and the dtype. The sign of
    a zero is not compared: torch's own kernels disagree on it between
    float32 and float64."""
    return ([v if v == v else "nan" for v in t.detach().tolist()],
            str(t.dtype).split(".")[-1])


@pytest.mark.parametrize("name,kw", [
    ("hardshrink", {}), ("hardshrink", {"lambd": 1.0}), ("softshrink", {}),
    ("softshrink", {"lambd": 0.0}), ("hardtanh", {}), ("hardtanh", {"min_val": -0.3,
                                                                    "max_val": 0.4}),
    ("relu6", {}),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_activations_values_and_gradients_at_edges(name, kw, dtype):
    def run(L):
        x = L.tensor(VALUES, dtype=getattr(L, dtype), requires_grad=True)
        y = getattr(L.nn.functional, name)(x, **kw)
        g, = L.autograd.grad(y, x, L.linspace(0.5, 1.5, len(VALUES), dtype=getattr(L, dtype)))
        return _exact(y), _exact(g)
    assert run(mt) == run(torch)


@pytest.mark.parametrize("name,args", [
    ("hardtanh", ()), ("hardtanh", (-0.5, 2.5)), ("hardtanh", (-2, 3)), ("relu6", ()),
])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8"])
def test_integer_inputs_keep_their_dtype(name, args, dtype):
    def run(L):
        x = L.tensor([0, 1, 2, 3, 7, 200] if dtype == "uint8" else [-9, -3, -1, 0, 1, 2, 3, 7],
                     dtype=getattr(L, dtype))
        # uint8 with a negative bound: torch's error
        return errmsg(lambda: getattr(L.nn.functional, name)(x, *args)) or \
            _exact(getattr(L.nn.functional, name)(x, *args))
    assert run(mt) == run(torch)


@pytest.mark.parametrize("args,dtype", [
    ((0, 3, 0.5), "int64"), ((0.0, 3.0, 0.5), "int64"), ((0.5, 3.7, 1), "int64"),
    ((-2.5, 2, 1.5), "int64"), ((0, 5, 2.7), "int64"), ((5.9, 0, -1.2), "int64"),
    ((0, 3, 0), "int64"), ((0.0, 3.0), "int64"), ((0, 3, 0.5), None), ((1, 4), "float64"),
])
def test_arange_bounds_in_the_result_dtype(args, dtype):
    def run(L):
        kw = {"dtype": getattr(L, dtype)} if dtype else {}
        err = errmsg(lambda: L.arange(*args, **kw))
        return err if err else _exact(L.arange(*args, **kw))
    assert run(mt) == run(torch)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_T_reverses_dims_and_is_the_identity_on_0d(shape):
    def run(L):
        x = L.arange(float(max(1, len(shape) and 24)))[:int(L.tensor(shape).prod())].reshape(shape)
        x.requires_grad_()
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            y = x.T
        y.sum().backward()
        return (tuple(y.shape), _exact(y.reshape(-1)), type(y.grad_fn).__name__,
                _exact(x.grad.reshape(-1))), [str(w.message) for w in seen]
    got, warned = run(mt)
    assert got == run(torch)[0]
    # torch warns once per process (TORCH_WARN_ONCE): its text is compared,
    # not its count
    if len(shape) == 2:
        assert warned == []
    else:
        assert len(warned) == 1
        assert ("deprecated on 0-D tensors" if not shape else "dimension other than 2") \
            in warned[0]
