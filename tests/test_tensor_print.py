"""Tensor printing: minitorch._tensor_str must reproduce PyTorch's repr exactly."""

import contextlib
import importlib.util
import math
import pathlib
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

try:
    from minitorch import _tensor_str
except ImportError:
    # The package may pull in the C extension; this module must stay testable without it.
    _path = pathlib.Path(__file__).resolve().parents[1] / "minitorch" / "_tensor_str.py"
    _spec = importlib.util.spec_from_file_location("_tensor_str", _path)
    _tensor_str = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_tensor_str)

format_tensor = _tensor_str.format_tensor

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64",
          "float16", "bfloat16", "float32", "float64"]
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
NAN, INF = math.nan, math.inf


def torch_or_skip():
    """torch is the reference for most tests; the hand-written ones below run without it."""
    return pytest.importorskip("torch")


def _installed_torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


@contextlib.contextmanager
def printoptions(**options):
    """Apply the same print options to minitorch and (if installed) torch, then restore defaults."""
    torch = _installed_torch()
    _tensor_str.set_printoptions(**options)
    if torch is not None:
        torch.set_printoptions(**options)
    try:
        yield
    finally:
        _tensor_str.set_printoptions(profile="default")
        if torch is not None:
            torch.set_printoptions(profile="default")


# ---------------------------------------------------------------- without torch

def test_print_option_defaults_and_profiles():
    defaults = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
                "sci_mode": None}
    assert _tensor_str.get_printoptions() == defaults
    with printoptions(profile="short", linewidth=100, sci_mode=True):
        assert _tensor_str.get_printoptions() == {
            "precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 100, "sci_mode": True}
        # Like torch, a call without sci_mode resets it, while other options persist.
        _tensor_str.set_printoptions(precision=6)
        assert _tensor_str.get_printoptions()["sci_mode"] is None
        assert _tensor_str.get_printoptions()["linewidth"] == 100
        _tensor_str.set_printoptions(profile="full")
        assert _tensor_str.get_printoptions()["threshold"] == math.inf
        _tensor_str.set_printoptions(profile="no such profile")
        assert _tensor_str.get_printoptions()["threshold"] == math.inf
    assert _tensor_str.get_printoptions() == defaults


def test_get_printoptions_returns_a_copy():
    _tensor_str.get_printoptions()["precision"] = 99
    assert _tensor_str.get_printoptions()["precision"] == 4


@pytest.mark.parametrize("values, dtype_name, kwargs, expected", [
    (np.array([[2., 0.], [0., 2.]], np.float32), "float32", {},
     "tensor([[2., 0.],\n        [0., 2.]])"),
    (np.array(3., np.float32), "float32", {}, "tensor(3.)"),
    (np.array(-0., np.float32), "float32", {}, "tensor(-0.)"),
    (np.array([1, 2], np.int32), "int32", {}, "tensor([1, 2], dtype=minitorch.int32)"),
    (np.array([-1, 20]), "int64", {}, "tensor([-1, 20])"),
    (np.array([True, False]), "bool", {}, "tensor([ True, False])"),
    (np.zeros((0, 3), np.float32), "float32", {}, "tensor([], size=(0, 3))"),
    (np.zeros(0, np.int64), "int64", {}, "tensor([], dtype=minitorch.int64)"),
    (np.array([1e-5, 1.], np.float64), "float64", {},
     "tensor([1.0000e-05, 1.0000e+00], dtype=minitorch.float64)"),
    (np.array([INF, -INF, 1.5], np.float32), "float32", {}, "tensor([   inf,   -inf, 1.5000])"),
    (np.array([0., NAN], np.float32), "float32", {}, "tensor([0., nan])"),
    (np.array([1., 2.], np.float16), "float16", {}, "tensor([1., 2.], dtype=minitorch.float16)"),
    (np.array([1.5, 2.], np.float32), "bfloat16", {},
     "tensor([1.5000, 2.0000], dtype=minitorch.bfloat16)"),
    (np.array([1., 2.], np.float64), "float64", {"default_dtype_name": "float64"},
     "tensor([1., 2.])"),
    (np.array([1., 2.], np.float32), "float32", {"default_dtype_name": "float64"},
     "tensor([1., 2.], dtype=minitorch.float32)"),
    (np.array([1., 2.], np.float32), "float32", {"suffixes": [("requires_grad", "True")]},
     "tensor([1., 2.], requires_grad=True)"),
    (np.array([1., 2.], np.float64), "float64", {"suffixes": [("grad_fn", "<MulBackward0>")]},
     "tensor([1., 2.], dtype=minitorch.float64, grad_fn=<MulBackward0>)"),
    (np.ones((2, 2), np.float32), "float32",
     {"prefix": "Parameter containing:\ntensor(", "suffixes": [("requires_grad", "True")]},
     "Parameter containing:\ntensor([[1., 1.],\n        [1., 1.]], requires_grad=True)"),
    (np.arange(2000, dtype=np.float32), "float32", {},
     "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
     "        1.9990e+03])"),
    # The longer module name can push later suffixes onto a new line where torch's would fit.
    (np.array([100., 101.25, 102.5]), "float64", {"suffixes": [("requires_grad", "True")]},
     "tensor([100.0000, 101.2500, 102.5000], dtype=minitorch.float64,\n       requires_grad=True)"),
    (np.ones((2, 1, 2), np.int16), "int16", {},
     "tensor([[[1, 1]],\n\n        [[1, 1]]], dtype=minitorch.int16)"),
])
def test_known_output(values, dtype_name, kwargs, expected):
    assert format_tensor(values, dtype_name, **kwargs) == expected


def test_options_change_output():
    with printoptions(precision=2, sci_mode=True):
        assert format_tensor(np.array([1.5, 2.25]), "float32") == "tensor([1.50e+00, 2.25e+00])"
    with printoptions(threshold=5, edgeitems=2):
        assert format_tensor(np.arange(10), "int64") == "tensor([0, 1,  ..., 8, 9])"
    with printoptions(edgeitems=0):
        assert format_tensor(np.ones((40, 40)), "float32") == "tensor([...], size=(40, 40))"
        # Without summarisation everything is shown, yet torch still adds the size.
        assert format_tensor(np.ones(2), "float32") == "tensor([1., 1.], size=(2,))"


# ---------------------------------------------------------------- against torch

def to_torch(values, dtype_name):
    torch = torch_or_skip()
    return torch.from_numpy(np.ascontiguousarray(values)).to(getattr(torch, dtype_name))


def minitorch_values(tensor):
    """The array a minitorch Tensor hands to format_tensor: bfloat16 travels as float32."""
    if tensor.dtype == torch_or_skip().bfloat16:
        tensor = tensor.float()
    return tensor.detach().numpy()


def expected_repr(tensor):
    return repr(tensor).replace("torch.", "minitorch.")


def unwrap_after_dtype(text):
    """Join the suffix lines from the dtype suffix on.

    "minitorch." is four characters longer than "torch.", so from the dtype
    suffix on our line breaks may legitimately differ from torch's.
    """
    head, dtype, tail = text.partition("dtype=minitorch.")
    return re.sub(r",\n *$", ", ", head) + dtype + re.sub(r",\n *", ", ", tail)


def assert_matches(actual, expected):
    assert unwrap_after_dtype(actual) == unwrap_after_dtype(expected)
    if "dtype=" not in expected:
        assert actual == expected


def check(values, dtype_name):
    tensor = to_torch(values, dtype_name)
    assert_matches(format_tensor(minitorch_values(tensor), dtype_name), expected_repr(tensor))


rng = np.random.default_rng(0)

SAMPLES = {
    "scalar": np.array(3.5),
    "scalar_int": np.array(7.0),
    "scalar_zero": np.array(0.0),
    "scalar_neg": np.array(-2.0),
    "vector": np.array([1.0, 2.0, 3.0]),
    "one": np.array([42.0]),
    "mixed_signs": np.array([-1.5, 2.25, -3.125, 0.0]),
    "fractions": np.array([0.1, 0.25, 1 / 3, 2 / 3]),
    "negative_ints": np.array([-100.0, 5.0, -7.0]),
    "neg_zero": np.array([-0.0, 0.0, 1.0]),
    "all_zero": np.zeros(5),
    "matrix": np.arange(12.0).reshape(3, 4) - 5,
    "cube": rng.standard_normal((2, 3, 4)),
    "hyper": rng.standard_normal((2, 2, 2, 3)),
    "five_d": np.arange(32.0).reshape(2, 2, 2, 2, 2),
    "unit_axes": np.ones((1, 1, 3, 1)),
    "wide_row": rng.standard_normal(30) * 10,
    "long_ints": np.arange(60.0) * 7 - 200,
    "matrix_wide": rng.standard_normal((3, 25)),
    "uniform_small": rng.random((4, 5)),
}
FLOAT_SAMPLES = {
    "large": np.array([1e10, 1.0, -3.0]),
    "huge_int": np.array([123456789.0, 2.0]),
    "just_over_1e8": np.array([1.5e8, 3.0]),
    "ratio_1000": np.array([1000.0, 1.0]),
    "ratio_1001": np.array([1001.0, 1.0]),
    "ratio_frac": np.array([1000.5, 1.0]),
    "tiny": np.array([1e-5, 1.0]),
    "tinier": np.array([1e-30, 2e-31]),
    "limit_1e-4": np.array([1e-4, 2e-4]),
    "all_tiny": np.array([[1.5e-6, -2.5e-7], [3e-8, 0.0]]),
    "sci_mixed": rng.standard_normal((3, 4)) * 10.0 ** rng.integers(-6, 6, (3, 4)),
    "nan_inf": np.array([NAN, INF, -INF, 1.0, -2.5]),
    "nan_only": np.array([NAN, NAN]),
    "inf_ints": np.array([INF, 3.0, -4.0]),
    "inf_sci": np.array([INF, 1e-7, 5.0]),
    "nan_zero": np.array([[0.0, NAN], [-0.0, INF]]),
    "scalar_nan": np.array(NAN),
    "scalar_inf": np.array(-INF),
    "scalar_tiny": np.array(1.2345e-8),
    "scalar_huge": np.array(6.02e23),
    "rounding": np.array([0.00005, 0.99995, 9.99995]),
    "half_max": np.array([65504.0, -65504.0, 1.0]),
    "subnormal": np.array([6e-8, 1.0]),
    "pi": np.array([math.pi, -math.e, 1.0]),
    "overflow_ratio": np.array([1e300, 1e-300]),
}
INT_SAMPLES = {
    "ints": np.array([0, 1, -1, 100, 127, -128]),
    "int_matrix": np.arange(-12, 12).reshape(4, 6),
    "int_cube": np.arange(24).reshape(2, 3, 4),
    "int_scalar": np.array(-5),
    "int_wide": np.arange(0, 100, 3),
}
ZERO_SIZE_SHAPES = [(0,), (0, 3), (3, 0), (2, 0, 4), (1, 0), (0, 0, 0, 1)]


@pytest.mark.parametrize("dtype_name", DTYPES)
@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_samples_every_dtype(sample, dtype_name):
    values = SAMPLES[sample]
    if dtype_name in INT_DTYPES or dtype_name == "bool":
        values = np.trunc(values)
        if dtype_name == "uint8":
            values = np.abs(values)
    check(values, dtype_name)


@pytest.mark.parametrize("dtype_name", FLOAT_DTYPES)
@pytest.mark.parametrize("sample", sorted(FLOAT_SAMPLES))
def test_float_values(sample, dtype_name):
    check(FLOAT_SAMPLES[sample], dtype_name)


@pytest.mark.parametrize("dtype_name", ["int8", "int16", "int32", "int64", "bool"])
@pytest.mark.parametrize("sample", sorted(INT_SAMPLES))
def test_integer_values(sample, dtype_name):
    check(INT_SAMPLES[sample], dtype_name)


@pytest.mark.parametrize("dtype_name", INT_DTYPES)
def test_integer_extremes(dtype_name):
    info = np.iinfo(dtype_name)
    check(np.array([info.min, 0, info.max], dtype=dtype_name), dtype_name)


@pytest.mark.parametrize("dtype_name", DTYPES)
@pytest.mark.parametrize("shape", ZERO_SIZE_SHAPES)
def test_zero_size(shape, dtype_name):
    check(np.zeros(shape), dtype_name)


@pytest.mark.parametrize("dtype_name", DTYPES)
@pytest.mark.parametrize("shape", [(2000,), (1001,), (40, 40), (3, 500), (500, 3), (7, 7, 7, 7),
                                   (2, 3, 400), (10, 11, 12)])
def test_summarized(shape, dtype_name):
    values = np.random.default_rng(1).standard_normal(shape) * 100
    if dtype_name == "bool":
        values = values > 0
    elif dtype_name == "uint8":
        values = np.abs(values)
    check(values, dtype_name)


@pytest.mark.parametrize("values", [np.arange(2000.0), np.arange(2000.0) / 7, np.full(1500, NAN)])
def test_summarized_floats(values):
    check(values, "float32")


OPTION_SETS = [
    {"precision": 0}, {"precision": 1}, {"precision": 8}, {"precision": 12},
    {"threshold": 0}, {"threshold": 5}, {"threshold": 24}, {"threshold": math.inf},
    {"edgeitems": 0}, {"edgeitems": 1}, {"edgeitems": 5}, {"edgeitems": 0, "threshold": 0},
    {"linewidth": 1}, {"linewidth": 20}, {"linewidth": 40}, {"linewidth": 200},
    {"profile": "short"}, {"profile": "full"}, {"profile": "default"},
    {"profile": "short", "precision": 6}, {"sci_mode": True}, {"sci_mode": False},
    {"sci_mode": True, "precision": 2, "threshold": 10, "edgeitems": 2, "linewidth": 50},
]


@pytest.mark.parametrize("dtype_name", ["float32", "float64", "int32", "bool", "bfloat16"])
@pytest.mark.parametrize("sample", sorted(SAMPLES) + ["large", "tiny", "nan_inf", "nan_only"])
@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_print_options(options, sample, dtype_name):
    values = SAMPLES.get(sample, FLOAT_SAMPLES.get(sample))
    if dtype_name not in FLOAT_DTYPES:
        values = np.nan_to_num(np.trunc(values), nan=0.0, posinf=99.0, neginf=-99.0)
    with printoptions(**options):
        check(values, dtype_name)


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
@pytest.mark.parametrize("shape", [(2000,), (40, 40), (3, 500), (4, 5, 6, 7)])
def test_print_options_summarized(options, shape):
    with printoptions(**options):
        check(np.random.default_rng(2).standard_normal(shape), "float32")


@pytest.mark.parametrize("default_dtype", ["float32", "float64"])
@pytest.mark.parametrize("dtype_name", DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (0,), (2, 0)])
def test_default_dtype(default_dtype, dtype_name, shape):
    torch = torch_or_skip()
    tensor = to_torch(np.arange(1, math.prod(shape) + 1).reshape(shape), dtype_name)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, default_dtype))
    try:
        expected = expected_repr(tensor)
    finally:
        torch.set_default_dtype(previous)
    actual = format_tensor(minitorch_values(tensor), dtype_name, default_dtype_name=default_dtype)
    assert_matches(actual, expected)


def autograd_suffixes(tensor):
    if tensor.grad_fn is not None:
        return [("grad_fn", f"<{type(tensor.grad_fn).__name__}>")]
    return [("requires_grad", "True")] if tensor.requires_grad else []


@pytest.mark.parametrize("dtype_name", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("length", list(range(0, 16)) + [30, 2000])
@pytest.mark.parametrize("make", ["leaf", "mul", "sum"])
def test_autograd_suffixes(make, length, dtype_name):
    # Values whose widths push the closing line to every length around the 80-column limit.
    leaf = to_torch(np.arange(length) * 1.25 + 100, dtype_name).requires_grad_()
    tensor = {"leaf": lambda: leaf, "mul": lambda: leaf * 2, "sum": lambda: leaf.sum()}[make]()
    actual = format_tensor(minitorch_values(tensor), dtype_name, suffixes=autograd_suffixes(tensor))
    assert_matches(actual, expected_repr(tensor))


@pytest.mark.parametrize("options", [{}, {"edgeitems": 0}, {"linewidth": 30}, {"linewidth": 50}])
@pytest.mark.parametrize("shape", [(), (2,), (3, 4), (9,), (11,), (2, 2, 3), (0, 2)])
@pytest.mark.parametrize("dtype_name", ["float32", "float16"])
def test_parameter_prefix(options, shape, dtype_name):
    torch = torch_or_skip()
    tensor = to_torch(np.random.default_rng(3).standard_normal(shape), dtype_name)
    parameter = torch.nn.Parameter(tensor)
    with printoptions(**options):
        actual = format_tensor(minitorch_values(parameter), dtype_name,
                               prefix="Parameter containing:\ntensor(",
                               suffixes=[("requires_grad", "True")])
        assert_matches(actual, expected_repr(parameter))


# ---------------------------------------------------------------- random arrays

@st.composite
def arrays(draw, max_side):
    dtype_name = draw(st.sampled_from(DTYPES))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=max_side))
    if dtype_name == "bool":
        return dtype_name, draw(hnp.arrays(bool, shape))
    if dtype_name in INT_DTYPES:
        info = np.iinfo(dtype_name)
        bound = draw(st.sampled_from([9, 127, int(info.max)]))
        elements = st.integers(max(int(info.min), -bound), min(int(info.max), bound))
        return dtype_name, draw(hnp.arrays(dtype_name, shape, elements=elements))
    # One scale per array, as real tensors tend to have, with arbitrary doubles mixed in.
    scale = 10.0 ** draw(st.integers(-12, 12))
    elements = st.one_of(
        st.integers(-999, 999).map(lambda i: i * scale),
        st.floats(-10, 10).map(lambda x: x * scale),
        st.sampled_from([0.0, -0.0, NAN, INF, -INF]),
        st.floats(allow_nan=True, allow_infinity=True),
    )
    return dtype_name, draw(hnp.arrays(np.float64, shape, elements=elements))


@settings(max_examples=400, deadline=None)
@given(arrays(max_side=5))
def test_random_arrays(case):
    dtype_name, values = case
    check(values, dtype_name)


@settings(max_examples=300, deadline=None)
@given(arrays(max_side=9),
       st.fixed_dictionaries({}, optional={
           "precision": st.integers(0, 10),
           "threshold": st.integers(0, 300),
           "edgeitems": st.integers(0, 4),
           "linewidth": st.integers(1, 160),
           "sci_mode": st.sampled_from([True, False]),
           "profile": st.sampled_from(["default", "short", "full"]),
       }))
def test_random_arrays_with_options(case, options):
    dtype_name, values = case
    with printoptions(**options):
        check(values, dtype_name)
