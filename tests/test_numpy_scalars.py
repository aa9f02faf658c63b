"""NumPy scalars are numbers wherever a number is taken (issue 18, item 1), with
torch's rules: in an op a NumPy scalar is a wrapped number of its kind (an
np.float64 times a float32 tensor stays float32), an np.bool_ reads as a float
and an np.complex64 as its real part, while tensor() keeps the scalar's own
dtype. Sizes and dims take NumPy integers (and 0-d integer arrays). Tensors
follow NumPy 2's __array__(dtype, copy) protocol and come back from NumPy
functions as tensors.

The generated sweep at the end puts a NumPy scalar in place of the Python
number in every number parameter of every op row and wants the same result."""
import importlib.util
import math
import os
import re
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch import _C

torch = pytest.importorskip("torch")


def _outcome(lib, case):
    """('tensor', dtype name, values, requires_grad), ('value', repr) or
    ('raise', exception type name, message with the library's name removed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = case(lib)
        except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
            return ("raise", type(e).__name__, str(e).split("\n")[0].replace("torch.", ""))
    if isinstance(r, lib.Tensor):
        return ("tensor", str(r.dtype).split(".")[-1], repr(r.tolist()), r.requires_grad)
    if isinstance(r, lib.dtype):
        return ("dtype", str(r).split(".")[-1])
    if isinstance(r, np.ndarray):
        return ("ndarray", str(r.dtype), r.tolist())
    return ("value", type(r).__name__, r)


def i32(L):
    return L.tensor([1, 2], dtype=L.int32)


def f32(L):
    return L.tensor([1.5, -2.0])


# Each case runs in torch and minitorch and must come out the same.
CASES = {
    # operators, both orders: a wrapped number of the scalar's kind
    "f32 * np.float32": lambda L: f32(L) * np.float32(2),
    "np.float32 * f32": lambda L: np.float32(2) * f32(L),
    "np.float64 * f32": lambda L: np.float64(2) * f32(L),
    "f32 * np.float64": lambda L: f32(L) * np.float64(2),
    "i32 + np.int64": lambda L: i32(L) + np.int64(2),
    "np.int64 + i32": lambda L: np.int64(2) + i32(L),
    "i32 * np.float16": lambda L: i32(L) * np.float16(2),
    "i32 * np.float64": lambda L: i32(L) * np.float64(0.5),
    "np.float32 / i32": lambda L: np.float32(1) / i32(L),
    "np.int64 - i32": lambda L: np.int64(1) - i32(L),
    "np.int64 // i32": lambda L: np.int64(7) // i32(L),
    "np.int64 % i32": lambda L: np.int64(7) % i32(L),
    "np.int64 ** i32": lambda L: np.int64(2) ** i32(L),
    "np.float32 ** f32": lambda L: np.float32(2) ** f32(L),
    "np.int64 & i32": lambda L: np.int64(6) & i32(L),
    "np.int64 << i32": lambda L: np.int64(1) << i32(L),
    "np.float32 > f32": lambda L: np.float32(0) > f32(L),
    "np.int64 != i32": lambda L: np.int64(2) != i32(L),
    "f32 == np.float32": lambda L: f32(L) == np.float32(1.5),
    "np.int64 * 0-dim": lambda L: np.int64(2) * L.tensor(3),
    "0-dim * np.int64": lambda L: L.tensor(3) * np.int64(2),
    "bool + np.int64": lambda L: L.tensor([True, False]) + np.int64(2),
    "bool + np.int8": lambda L: L.tensor([True, False]) + np.int8(3),
    "f16 * np.float64 1e10": lambda L: L.ones(2, dtype=L.float16) * np.float64(1e10),
    "bf16 * np.float32": lambda L: L.ones(2, dtype=L.bfloat16) * np.float32(3),
    "f64 + np.float32": lambda L: L.ones(2, dtype=L.float64) + np.float32(0.1),
    # wrapped integers wrap into the tensor's type, as torch's do
    "u8 + np.int64 300": lambda L: L.ones(2, dtype=L.uint8) + np.int64(300),
    "i8 + np.int64 1000": lambda L: L.ones(2, dtype=L.int8) + np.int64(1000),
    "i8 * np.uint8 200": lambda L: L.ones(2, dtype=L.int8) * np.uint8(200),
    # np.bool_ is read as a float, as torch reads it
    "i32 * np.bool_": lambda L: i32(L) * np.bool_(True),
    "bool * np.bool_": lambda L: L.tensor([True, False]) * np.bool_(True),
    "bool + np.bool_": lambda L: L.tensor([True, False]) + np.bool_(True),
    "full np.bool_": lambda L: L.full((2,), np.bool_(True)),
    # an np.complex64 is its real part (np.complex128 is a Python complex)
    "full np.complex64": lambda L: L.full((2,), np.complex64(1 + 2j)),
    "f32 * np.complex64": lambda L: f32(L) * np.complex64(1 + 1j),
    # in place and the Scalar parameters
    "mul_ np.float32": lambda L: f32(L).mul_(np.float32(2)),
    "add_ np.int64 into i32": lambda L: i32(L).add_(np.int64(2)),
    "add_ np.float64 into i32": lambda L: i32(L).add_(np.float64(2)),
    "iadd np.float32": lambda L: f32(L).__iadd__(np.float32(2)),
    "clamp_ np": lambda L: L.arange(4.0).clamp_(np.int64(1), np.float32(2.5)),
    "add alpha np": lambda L: L.add(f32(L), f32(L), alpha=np.float32(2)),
    "clamp np": lambda L: L.clamp(L.arange(4.0), np.float32(1), np.float64(2)),
    "pow np": lambda L: L.pow(L.arange(4.0), np.float32(2)),
    "pow(np, t)": lambda L: L.pow(np.float32(2), f32(L)),
    "add(np, np)": lambda L: L.add(np.float32(2), np.float32(1)),
    "mul(np, 2)": lambda L: L.mul(np.float32(2), 2),
    "where np np": lambda L: L.where(f32(L) > 0, np.float32(1), np.float64(2)),
    "where f64 np": lambda L: L.where(f32(L) > 0, L.ones(2, dtype=L.float64), np.float32(2)),
    "masked_fill np": lambda L: L.zeros(2).masked_fill(L.tensor([True, False]), np.float32(3)),
    "fill_ np": lambda L: L.zeros(2).fill_(np.float32(3)),
    "lerp weight np": lambda L: L.lerp(L.zeros(2), L.ones(2), np.float32(0.5)),
    "div rounding np": lambda L: L.div(f32(L), np.float32(2), rounding_mode="floor"),
    "leaky_relu np": lambda L: L.nn.functional.leaky_relu(f32(L), np.float32(0.1)),
    "allclose atol np": lambda L: L.allclose(f32(L), f32(L) + 0.05, atol=np.float32(0.1)),
    "isclose rtol np": lambda L: L.isclose(f32(L), f32(L), rtol=np.float64(0.1)),
    "result_type np": lambda L: L.result_type(i32(L), np.float32(1)),
    "result_type np np": lambda L: L.result_type(np.int64(1), np.float32(1)),
    "new_full np": lambda L: f32(L).new_full((np.int64(2),), np.float32(3)),
    # factories
    "full np.float32": lambda L: L.full((2,), np.float32(1.5)),
    "full np.int32": lambda L: L.full((2,), np.int32(1)),
    "full np.int8": lambda L: L.full((2,), np.int8(-5)),
    "full np.uint64 small": lambda L: L.full((2,), np.uint64(5)),
    "full np.float16": lambda L: L.full((2,), np.float16(1.5)),
    "full np.longdouble": lambda L: L.full((2,), np.longdouble(1.5)),
    "full np nan": lambda L: L.full((2,), np.float32("nan")),
    "full np.int64 min": lambda L: L.full((1,), np.int64(-2 ** 63)),
    "full int8 overflow": lambda L: L.full((2,), np.int64(1000), dtype=L.int8),
    "full f16 overflow": lambda L: L.full((2,), np.float64(1e10), dtype=L.float16),
    "full np.uint64 past int64": lambda L: L.full((2,), np.uint64(2 ** 63 + 5)),
    "add np.uint64 past int64": lambda L: L.add(L.ones(2, dtype=L.uint8), np.uint64(2 ** 63 + 5)),
    "arange np.int64": lambda L: L.arange(np.int64(3)),
    "arange np.float32": lambda L: L.arange(np.float32(3)),
    "linspace np": lambda L: L.linspace(np.float32(0), 1, np.int64(3)),
    # sizes, dims and indices
    "zeros np.int64": lambda L: L.zeros(np.int64(3)),
    "zeros (np.int64, 2)": lambda L: L.zeros((np.int64(3), 2)),
    "zeros 0-d array": lambda L: L.zeros(np.array(3)),
    "zeros np.float64": lambda L: L.zeros(np.float64(3)),
    "zeros np.bool_": lambda L: L.zeros(np.bool_(True)),
    "view np": lambda L: L.ones(4).view(np.int64(2), -1),
    "view 0-d array": lambda L: L.ones(4).view(np.array(2), -1),
    "reshape np tuple": lambda L: L.ones(2, 3).reshape((np.int64(3), np.int16(2))),
    "permute np": lambda L: L.ones(2, 3).permute(np.int64(1), np.int64(0)),
    "expand np": lambda L: L.ones(1, 3).expand(np.int64(2), -1),
    "randn np shape": lambda L: L.randn(np.int64(2), np.uint8(3)).shape,
    "index np.int64": lambda L: L.arange(4)[np.int64(1)],
    "index 0-d array": lambda L: L.arange(4)[np.array(1)],
    "index np slice": lambda L: L.arange(4)[np.int64(1):np.int64(3)],
    "index np pair": lambda L: L.ones(2, 3)[np.int64(1), np.int32(2)],
    "setitem np.float64 into i32": lambda L: (lambda t: (t.__setitem__(0, np.float64(7.5)), t)[1])(
        L.zeros(3, dtype=L.int32)),
    "sum dim np.int64": lambda L: L.ones(2, 3).sum(dim=np.int64(0)),
    "sum dim np.int32": lambda L: L.ones(2, 3).sum(dim=np.int32(1)),
    "sum dims np list": lambda L: L.ones(2, 3).sum(dim=[np.int64(0), np.int32(1)]),
    "softmax dim np": lambda L: L.softmax(f32(L), np.int64(0)),
    "topk k np": lambda L: L.topk(L.arange(5.0), np.int64(2)).values,
    "cat dim np": lambda L: L.cat([f32(L), f32(L)], np.int32(0)),
    "round decimals np": lambda L: L.round(L.tensor([1.234]), decimals=np.int64(1)),
    "Linear np sizes": lambda L: L.nn.Linear(np.int64(2), np.int64(3)).weight.shape,
    # bool parameters refuse np.bool_, as torch's do
    "keepdim np.bool_": lambda L: L.ones(2, 3).sum(dim=0, keepdim=np.bool_(True)),
    # tensor() keeps a NumPy scalar's dtype
    "tensor(np.float64)": lambda L: L.tensor(np.float64(2.0)),
    "tensor([np.float64])": lambda L: L.tensor([np.float64(2.0)]),
    "tensor([np.float32, np.float64])": lambda L: L.tensor([np.float32(3), np.float64(1)]),
    "tensor(np.int32)": lambda L: L.tensor(np.int32(3)),
    "tensor(np.float16)": lambda L: L.tensor(np.float16(3)),
    "tensor(np.bool_)": lambda L: L.tensor(np.bool_(True)),
    "tensor([np.int32, 1.5])": lambda L: L.tensor([np.int32(3), 1.5]),
    "tensor([np.int8, np.uint8])": lambda L: L.tensor([np.int8(3), np.uint8(1)]),
    "tensor([np.float16, 1])": lambda L: L.tensor([np.float16(3), 1]),
    "tensor(np.int8, dtype=f32)": lambda L: L.tensor(np.int8(3), dtype=L.float32),
    "tensor(0-d array)": lambda L: L.tensor(np.array(2.0)),
    "as_tensor(np.float64)": lambda L: L.as_tensor(np.float64(2)),
    "as_tensor([np.float64])": lambda L: L.as_tensor([np.float64(2)]),
    # arrays: a tensor first runs the tensor op; NumPy functions give tensors back
    "t @ ndarray": lambda L: L.ones(2, 2) @ np.ones((2, 2), dtype=np.float32),
    "t + ndarray": lambda L: L.ones(2) + np.ones(2, dtype=np.float32),
    "np.sqrt(t)": lambda L: np.sqrt(L.ones(2) * 4),
    "np.add(t, 1)": lambda L: np.add(L.ones(2), 1),
    "np.greater(t, 0)": lambda L: np.greater(f32(L), 0),
    "np.asarray(t, float64)": lambda L: np.asarray(f32(L), dtype=np.float64),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_numpy_scalars_as_torch(case):
    want = _outcome(torch, CASES[case])
    got = _outcome(mt, CASES[case])
    if want[0] == "value" and want[1] == "Size":
        assert got[:2] == ("value", "Size") and tuple(got[2]) == tuple(want[2])
        return
    if case in WORDS_DIFFER:
        assert got[:2] == want[:2], (got, want)
        return
    assert got == want


# torch picks the overload with a bool keepdim for its message; ours lists
# the overloads (as for a Python bool of the wrong type elsewhere)
WORDS_DIFFER = {"keepdim np.bool_"}


def test_where_torch_differs_we_keep_a_tensor():
    """torch refuses array + tensor (NumPy defers to the tensor, whose
    reflected operator declines an array); minitorch runs the tensor op, with
    autograd, in both orders."""
    x = mt.ones(2, requires_grad=True)
    y = np.full(2, 3.0, dtype=np.float32) * x
    assert type(y) is mt.Tensor and y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    z = np.ones((2, 2), dtype=np.float32) @ mt.full((2, 2), 2.0)
    assert type(z) is mt.Tensor and z.tolist() == [[4.0, 4.0], [4.0, 4.0]]


def test_training_step_with_numpy_scalars_keeps_the_graph():
    w = mt.ones(3, requires_grad=True)
    lr = np.float32(0.1)
    loss = (w * np.float32(2) + np.float64(1)).sum() * np.int64(3)
    assert loss.grad_fn is not None
    loss.backward()
    assert w.grad.tolist() == [6.0, 6.0, 6.0]
    with mt.no_grad():
        w -= lr * w.grad
    np.testing.assert_allclose(w.detach().numpy(), [0.4, 0.4, 0.4], rtol=1e-6)


def test_complex_numpy_scalar_warns_as_numpy_does():
    with pytest.warns(np.exceptions.ComplexWarning):
        t = mt.full((2,), np.complex64(1 + 2j))
    assert t.tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="must be Number, not numpy.complex128"):
        mt.full((2,), np.complex128(1 + 2j))


# ---------------------------------------------------------------- __array__

def test_array_copy_true_copies():
    t = mt.ones(3)
    a = np.array(t, copy=True)
    a[0] = 5
    assert t.tolist() == [1.0, 1.0, 1.0]
    b = t.__array__(copy=True)
    assert not np.shares_memory(b, t.numpy())


NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"


def test_array_default_and_copy_false_share():
    t = mt.arange(4.0)
    shared = [np.asarray(t), np.array(t, copy=False), np.asarray(t, dtype=np.float32),
              t.__array__(copy=False), t.__array__(np.float32, copy=None)]
    if NUMPY2:
        shared.append(np.array(t, copy=None))
    for a in shared:
        a[0] = 7
        assert t[0].item() == 7
        t[0] = 0


def test_array_copy_false_refuses_a_needed_copy():
    t = mt.arange(4.0)
    with pytest.raises(ValueError, match="^Unable to avoid copy while creating an array as "
                                         "requested"):
        t.__array__(np.float64, copy=False)
    if NUMPY2:
        with pytest.raises(ValueError, match="^Unable to avoid copy"):
            np.array(t, dtype=np.float64, copy=False)
    else:  # NumPy 1's copy=False copies when it must, and never asks __array__
        assert np.array(t, dtype=np.float64, copy=False).dtype == np.float64
    a = np.array(t, dtype=np.float64)
    assert a.dtype == np.float64 and a.tolist() == [0.0, 1.0, 2.0, 3.0]
    # a tensor that requires grad still gives its data, as before
    r = mt.ones(2, requires_grad=True)
    assert np.asarray(r).tolist() == [1.0, 1.0]


def test_array_wrap_gives_tensors_back():
    t = mt.tensor([1.0, 4.0])
    r = np.sqrt(t)
    assert type(r) is mt.Tensor and r.dtype == mt.float32 and r.tolist() == [1.0, 2.0]
    g = np.greater(t, 2)
    assert g.dtype == mt.uint8 and g.tolist() == [0, 1]
    s = np.sqrt(mt.tensor(9.0))
    assert type(s) is mt.Tensor and s.dim() == 0 and s.item() == 3.0


# ------------------------------------------------------------ generated sweep

def _load_fuzz_sweep():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_sweep.py")
    spec = importlib.util.spec_from_file_location("_fuzz_sweep_for_numpy_scalars", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# (Python number, NumPy scalars that must act as it does)
PAIRS = [
    (3, [np.int64(3), np.int32(3), np.uint8(3), np.int16(3)]),
    (-2, [np.int64(-2), np.int8(-2)]),
    (0.5, [np.float64(0.5), np.float32(0.5), np.float16(0.5)]),
    (1.0, [np.bool_(True)]),
]
NUMBER_TYPES = ("Scalar", "Tensor|Scalar", "Tensor|Number", "float")


def _number_params(text):
    """The parameters of a row's signature text that take a number (the
    published signatures show Tensor|Scalar as torch's Tensor)."""
    inner = text[text.index("(") + 1:text.index(")")]
    names = set()
    for piece in re.split(r",\s*(?![^\[]*\])", inner):
        words = piece.split("=")[0].split()
        if len(words) == 2 and words[0].rstrip("?") in NUMBER_TYPES:
            names.add(words[1])
    return names


def _result(target, make, seed):
    mt.manual_seed(seed)
    try:
        args, kwargs = make()
        out = target.func(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - compared between the two calls
        return ("raise", type(e).__name__)
    parts = out if isinstance(out, (tuple, list)) else (out,)
    res = []
    for p in parts:
        if isinstance(p, mt.Tensor):
            v = p.detach().float() if p.dtype == mt.bfloat16 else p.detach()
            res.append(("tensor", str(p.dtype), tuple(p.shape),
                        np.array(v.tolist(), dtype=object).ravel().tolist()))
        else:
            res.append(("value", repr(p)))
    return tuple(res)


def _same(a, b):
    if a == b:
        return True
    if len(a) != len(b) or a[:1] == ("raise",) or b[:1] == ("raise",):
        return False
    for x, y in zip(a, b):
        if x[:3] != y[:3] or x[0] != "tensor":
            return False
        for u, v in zip(x[3], y[3]):
            if not (u == v or (isinstance(u, float) and math.isnan(u) and math.isnan(v))):
                return False
    return True


def test_every_number_parameter_takes_numpy_scalars(tmp_path):
    fz = _load_fuzz_sweep()
    sweep = fz.Sweep(str(tmp_path / "progress"))
    rows = _C._op_rows()
    targets = [t for t in fz._row_targets(rows) if _number_params(rows[t.row][3])]
    checked, mismatches = 0, []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for target in targets:
            fz._find_baseline(sweep, target, lambda r: _C._op_rows()[r][4])
            sweep.restore()
            if not target.baseline_ok or "*" in target.baseline:
                continue
            for name in sorted(_number_params(rows[target.row][3])):
                for py, nps in PAIRS:
                    values = dict(target.baseline, **{name: lambda v=py: v})
                    want = _result(target, lambda: fz._args_from(target, values), checked)
                    for n in nps:
                        values = dict(target.baseline, **{name: lambda v=n: v})
                        got = _result(target, lambda: fz._args_from(target, values), checked)
                        if not _same(got, want):
                            mismatches.append(f"{target.key} {name}={n!r}: {got} != {want}")
                    checked += 1
                    sweep.restore()
    assert not mismatches, "\n".join(mismatches[:20])
    # the sweep reaches the number parameters of most of the table
    assert checked > 1000, checked
