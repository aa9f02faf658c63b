"""uint16, uint32 and uint64 against torch: the acceptance sweep of
test_dtype_acceptance_sweep run with these dtypes (every public function
called with one or two 2x2 tensors: computes where torch computes, refuses
where torch refuses, in torch's words), then the calls the sweep does not
make (other shapes, dims and arguments), with values compared; the kernel
names of the refusals that depend on the call (flip's innermost run,
softmax's last dim, matmul's shapes, polygamma's order); and the checked
conversion of a pad value."""
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

import test_dtype_acceptance_sweep as sweep  # noqa: E402 - after the skip

UNSIGNED = ("uint16", "uint32", "uint64")

# (namespace, name) -> why minitorch still differs from torch there
KEPT = {
    ("torch", "svd_lowrank"): "torch's sketch multiplies the input by a float matrix and "
                              "refuses the mixed dtypes; minitorch's matmul refuses the "
                              "dtype itself first",
    ("torch", "tensordot"): "torch contracts a full 2x2 pair through dot; minitorch's "
                            "tensordot goes through mm",
    ("linalg", "vander"): "torch's vander computes unsigned input in int64 through its "
                          "cumprod; minitorch's multiplies the input by int64 powers, a "
                          "promotion torch refuses",
}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _differences(label, name):
    found = []
    for arity in (1, 2):
        if sweep._outcome(torch, label, name, "float32", arity)[0] != "ok":
            continue
        for dtype in UNSIGNED:
            t = sweep._outcome(torch, label, name, dtype, arity)
            m = sweep._outcome(mt, label, name, dtype, arity)
            if t != m:
                found.append((dtype, arity, t, m))
    return found


@pytest.mark.parametrize("label,name", sweep.CASES, ids=[f"{a}.{b}" for a, b in sweep.CASES])
def test_unsigned_acceptance_matches_torch(label, name):
    if (label, name) in KEPT:
        assert _differences(label, name), "kept difference now agrees: drop it from KEPT"
    else:
        assert _differences(label, name) == []


def _outcome(call, lib, dtype):
    x = lib.tensor([[1, 2, 5], [3, 4, 0]]).to(getattr(lib, dtype))
    try:
        r = call(lib, x)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e).split("\n")[0]
    if isinstance(r, (tuple, list)):
        r = r[0]
    return "ok", str(r.dtype).split(".")[-1], np.asarray(r.tolist()).tolist()


def _mask(L):
    return L.tensor([[True, False, True], [False, True, True]])


# calls beyond the sweep's; each compared with torch (values too)
CALLS = {
    "flip_first_dim": lambda L, x: L.flip(x, [0]),
    "flip_last_dim": lambda L, x: L.flip(x, [1]),
    "flip_both": lambda L, x: L.flip(x, [0, 1]),
    "flip_middle_of_3d": lambda L, x: L.flip(x.reshape(1, 2, 3), [1]),
    "flip_column": lambda L, x: L.flip(x.reshape(6, 1), [0]),
    "flip_transposed_rows": lambda L, x: L.flip(x.T, [0]),
    "flip_transposed_cols": lambda L, x: L.flip(x.T, [1]),
    "flip_strided_rows": lambda L, x: L.flip(x[:, ::2], [0]),
    "flip_no_dims": lambda L, x: L.flip(x, []),
    "flipud": lambda L, x: L.flipud(x),
    "fliplr": lambda L, x: L.fliplr(x),
    "rot90_back": lambda L, x: L.rot90(x, -1),
    "rot90": lambda L, x: L.rot90(x),
    "roll_rows": lambda L, x: L.roll(x, 1, 0),
    "roll_cols": lambda L, x: L.roll(x, 1, 1),
    "roll_flat": lambda L, x: L.roll(x, 2),
    "fftshift": lambda L, x: L.fft.fftshift(x),
    "softmax_first_dim": lambda L, x: L.softmax(x, 0),
    "softmax_last_dim": lambda L, x: L.softmax(x, -1),
    "log_softmax_first_dim": lambda L, x: L.log_softmax(x, 0),
    "nn_softmax_implicit_dim": lambda L, x: L.nn.functional.softmax(x, 0),
    "matmul_vv": lambda L, x: L.matmul(x[0], x[0]),
    "matmul_mv": lambda L, x: L.matmul(x, x[0]),
    "matmul_vm": lambda L, x: L.matmul(x[0, :2], x),
    "matmul_mm": lambda L, x: L.matmul(x, x.T),
    "matmul_batched": lambda L, x: L.matmul(x[None], x.T[None]),
    "rmatmul": lambda L, x: x[0].__rmatmul__(x),
    "mm": lambda L, x: L.mm(x, x.T),
    "addmm": lambda L, x: L.addmm(x[:, :2], x[:, :2], x[:, :2]),
    "mv": lambda L, x: L.mv(x, x[0]),
    "linear_bias": lambda L, x: L.nn.functional.linear(x, x, x[:, 0]),
    "topk": lambda L, x: L.topk(x, 1),
    "argmax_dim": lambda L, x: L.argmax(x, 0),
    "argmin_dim": lambda L, x: L.argmin(x, 1),
    "max_dim": lambda L, x: L.max(x, 0),
    "min_dim": lambda L, x: L.min(x, 1),
    "max_other": lambda L, x: L.max(x, x),
    "nonzero": lambda L, x: L.nonzero(x),
    "nonzero_as_tuple": lambda L, x: L.nonzero(x, as_tuple=True),
    "where_condition": lambda L, x: L.where(x),
    "count_nonzero": lambda L, x: L.count_nonzero(x),
    "count_nonzero_dim": lambda L, x: L.count_nonzero(x, 0),
    "count_nonzero_dims": lambda L, x: L.count_nonzero(x, (0, 1)),
    "cumsum": lambda L, x: L.cumsum(x, 0),
    "cumprod": lambda L, x: L.cumprod(x, 1),
    "cumsum_unsigned_dtype": lambda L, x: L.cumsum(x, 0, dtype=x.dtype),
    "cumprod_int32": lambda L, x: L.cumprod(x, 0, dtype=L.int32),
    "cumsum_float_to_unsigned": lambda L, x: L.cumsum(x.float(), 0, dtype=x.dtype),
    "logcumsumexp": lambda L, x: L.logcumsumexp(x, 0),
    "mean_float64": lambda L, x: L.mean(x, dtype=L.float64),
    "mean_dim": lambda L, x: L.mean(x, 0),
    "mean_into_unsigned": lambda L, x: L.mean(x.float(), dtype=x.dtype),
    "std_dim": lambda L, x: L.std(x, 0),
    "var_correction": lambda L, x: L.var(x, correction=0),
    "var_mean_dim": lambda L, x: L.var_mean(x, 1),
    "norm_p1": lambda L, x: L.norm(x, 1),
    "histc": lambda L, x: L.histc(x),
    "histc_range": lambda L, x: L.histc(x, min=0, max=3),
    "bincount": lambda L, x: L.bincount(x.flatten()),
    "take": lambda L, x: L.take(x, L.tensor([1, 2])),
    "gather": lambda L, x: L.gather(x, 1, L.tensor([[0], [1]])),
    "scatter": lambda L, x: x.scatter(1, L.tensor([[0], [1]]), x[:, :1].clone()),
    "scatter_add_": lambda L, x: x.scatter_add_(1, L.tensor([[0], [1]]), x[:, :1].clone()),
    "index_add": lambda L, x: x.index_add(0, L.tensor([1]), x[:1].clone()),
    "index_fill": lambda L, x: x.index_fill(0, L.tensor([1]), 2),
    "bucketize": lambda L, x: L.bucketize(x, x[0]),
    "masked_fill": lambda L, x: x.masked_fill(_mask(L), 1),
    "pixel_shuffle": lambda L, x: L.nn.functional.pixel_shuffle(x.reshape(1, 6, 1, 1)[:, :4], 2),
    "pixel_unshuffle": lambda L, x: L.nn.functional.pixel_unshuffle(x.reshape(1, 1, 2, 3)[..., :2],
                                                                    2),
    "pixel_shuffle_empty": lambda L, x: L.nn.functional.pixel_shuffle(x[:0].reshape(0, 4, 1, 1), 2),
    "hardtanh": lambda L, x: L.nn.functional.hardtanh(x),
    "relu6": lambda L, x: L.nn.functional.relu6(x),
    "soft_margin_loss": lambda L, x: L.nn.functional.soft_margin_loss(x, x),
    "pad_constant": lambda L, x: L.nn.functional.pad(x, (1, 2), value=7),
    "pad_circular": lambda L, x: L.nn.functional.pad(x[None], (1, 1), mode="circular"),
    "index_select": lambda L, x: L.index_select(x, 0, L.tensor([1, 0, 1])),
    "index_select_by_unsigned": lambda L, x: L.index_select(x.long(), 0, x[0, :2]),
    "embedding_weight": lambda L, x: L.nn.functional.embedding(L.tensor([1, 0]), x),
    "repeat": lambda L, x: x.repeat(2, 1),
    "tile": lambda L, x: L.tile(x, (2,)),
    "repeat_interleave": lambda L, x: L.repeat_interleave(x, 2),
    "repeat_interleave_dim": lambda L, x: L.repeat_interleave(x, L.tensor([1, 2]), 0),
    "one_hot": lambda L, x: L.nn.functional.one_hot(x.flatten()),
    "setitem_index": lambda L, x: x.__setitem__(L.tensor([1]), x[:1].clone()) or x,
    "setitem_slice": lambda L, x: x.__setitem__(slice(0, 1), x[1:].clone()) or x,
    "index_put": lambda L, x: x.index_put((L.tensor([1]),), x[:1].clone()),
    "index_put_accumulate": lambda L, x: x.index_put((L.tensor([1]),), x[:1].clone(), True),
}


@pytest.mark.parametrize("dtype", UNSIGNED)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_unsigned_call_matches_torch(name, dtype):
    assert _outcome(CALLS[name], mt, dtype) == _outcome(CALLS[name], torch, dtype)


@pytest.mark.parametrize("dtype", ("complex64", "complex128", "complex32"))
@pytest.mark.parametrize("n", (0, 1, 2, 5))
def test_polygamma_refusal_names_the_kernel_of_its_order(n, dtype):
    """torch runs polygamma of order 0 and 1 through digamma and trigamma,
    whose names its refusal of complex input carries."""
    calls = (lambda L, x: L.polygamma(n, x), lambda L, x: L.special.polygamma(n, x),
             lambda L, x: x.polygamma(n), lambda L, x: x.polygamma_(n))

    def outcome(call, L):
        x = L.tensor([1.0, 2.5]).to(getattr(L, dtype))
        try:
            call(L, x)
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return type(e).__name__, str(e)
        return "ok"

    for call in calls:
        want = outcome(call, torch)
        assert want[0] == "NotImplementedError"
        assert outcome(call, mt) == want


PAD_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
              "float32", "float64", "uint16", "uint32", "uint64")
PAD_VALUES = (1 + 2j, 1000 + 0j, 3 + 0j, 1000, -1, 2 ** 62 + 1, -(2 ** 63), 3.5, 1e10, -1e40, 1e19)


def _pad_outcome(L, call):
    try:
        r = call(L)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e)
    return "ok", str(r.dtype).split(".")[-1], r.tolist()


@pytest.mark.parametrize("dtype", PAD_DTYPES)
def test_pad_value_is_converted_checked(dtype):
    """torch converts the pad value to the input's dtype checked: out of
    range it refuses in the C type's name, never wraps."""
    for value in PAD_VALUES:
        calls = [lambda L: L.constant_pad_nd(L.ones(2, dtype=getattr(L, dtype)), (1, 1), value)]
        if not isinstance(value, complex):
            calls.append(lambda L: L.nn.functional.pad(L.ones(2, dtype=getattr(L, dtype)), (1, 1),
                                                       value=value))
        for call in calls:
            assert _pad_outcome(mt, call) == _pad_outcome(torch, call), value
