"""minitorch.testing: assert_close with torch.testing's tolerances and messages, and
make_tensor (minitorch/_testing_creation.py)."""
import collections.abc
import math

import numpy as np

from . import _C
from ._testing_creation import make_tensor

__all__ = ["assert_close", "make_tensor"]

# (rtol, atol) by dtype, as torch.testing; integral dtypes compare exactly
_TOLERANCES = {
    _C.float16: (1e-3, 1e-5),
    _C.bfloat16: (1.6e-2, 1e-5),
    _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7),
}


class _Mismatch(Exception):
    def __init__(self, exc_type, msg):
        super().__init__(msg)
        self.exc_type = exc_type
        self.msg = msg


def _tolerances(dtypes, rtol, atol):
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    pairs = [_TOLERANCES.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _diff_msg(kind, diff, idx, tol, equality):
    msg = f"{kind.title()} difference: {diff}" if idx is None else \
        f"Greatest {kind} difference: {diff} at index {idx}"
    if not equality:
        msg += f" (up to {tol} allowed)"
    return msg + "\n"


def _mismatch_msg(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += _diff_msg("absolute", abs_diff, abs_idx, atol, equality)
    msg += _diff_msg("relative", rel_diff, rel_idx, rtol, equality)
    return msg.strip()


def _scalar_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol,
                         rel_diff, None, rtol)


def _isclose(a, e, rtol, atol, equal_nan):
    with np.errstate(all="ignore"):
        if a.dtype.kind in "biu":
            close = a == e
            if rtol or atol:
                ad, ed = a.astype(np.float64), e.astype(np.float64)
                close |= np.abs(ad - ed) <= atol + rtol * np.abs(ed)
            return close
        close = (a == e) | (np.isfinite(a) & np.isfinite(e) &
                            (np.abs(a - e) <= atol + rtol * np.abs(e)))
        if equal_nan:
            close |= np.isnan(a) & np.isnan(e)
        return close


def _as_numpy(t):
    # torch compares values: a tensor requiring grad or a conjugate view is welcome
    t = t.detach().resolve_conj()
    if t.dtype == _C.bfloat16:
        t = t.float()
    return np.array(t.numpy(), copy=True)


def _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype):
    if check_dtype and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != "
                                        f"{type(expected)}.")
    floating = isinstance(actual, float) or isinstance(expected, float)
    rtol, atol = _tolerances([_C.float64] if floating else [_C.int64], rtol, atol)
    if actual == expected or (equal_nan and actual != actual and expected != expected):
        return
    if (floating and math.isfinite(actual) and math.isfinite(expected)
            and abs(actual - expected) <= atol + rtol * abs(expected)):
        return
    raise _Mismatch(AssertionError, _scalar_msg(actual, expected, rtol, atol))


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype,
                     check_layout, check_stride):
    def attr(name, a, e):
        if a != e:
            raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: "
                                            f"{a} != {e}.")
    attr("shape", actual.shape, expected.shape)
    if check_device:
        attr("device", actual.device, expected.device)
    if check_dtype:
        attr("dtype", actual.dtype, expected.dtype)
    if check_layout:
        attr("layout", getattr(actual, "layout", None), getattr(expected, "layout", None))
    if check_stride:
        attr("stride()", actual.stride(), expected.stride())
    rtol, atol = _tolerances([actual.dtype, expected.dtype], rtol, atol)
    if actual.dtype != expected.dtype:
        common = _C.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    a, e = _as_numpy(actual), _as_numpy(expected)
    matches = _isclose(a, e, rtol, atol, equal_nan)
    if matches.all():
        return
    if a.ndim == 0:
        raise _Mismatch(AssertionError, _scalar_msg(a.item(), e.item(), rtol, atol))
    n = matches.size
    bad = n - int(matches.sum())
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    af, ef, mf = a.reshape(-1), e.reshape(-1), matches.reshape(-1)
    if a.dtype.kind in "biu":
        af, ef = af.astype(np.int64), ef.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(af - ef)
        abs_diff[mf] = 0
        rel_diff = (abs_diff / np.abs(ef)).astype(np.float32 if a.dtype.kind in "biu"
                                                  else abs_diff.dtype)
    rel_diff[mf] = 0

    def argmax(x):
        # torch.max reports a NaN when there is one
        nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
        return int(np.argmax(nan)) if nan.any() else int(np.argmax(x))

    ia, ir = argmax(abs_diff), argmax(rel_diff)
    shape = a.shape
    def at(i):
        return tuple(int(k) for k in np.unravel_index(i, shape))

    raise _Mismatch(AssertionError, _mismatch_msg(
        "Tensor-likes", extra, abs_diff[ia].item(), at(ia), atol, rel_diff[ir].item(), at(ir),
        rtol))


def _is_tensor_like(x):
    return isinstance(x, (_C.TensorBase, np.ndarray))


def _is_number(x):
    return isinstance(x, (bool, int, float))


def _is_sequence(x):
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def _compare(actual, expected, path, opts):
    try:
        if _is_tensor_like(actual) and _is_tensor_like(expected):
            if isinstance(actual, np.ndarray) != isinstance(expected, np.ndarray):
                raise _Mismatch(AssertionError, f"The values for attribute 'type' do not match: "
                                                f"{type(actual)} != {type(expected)}.")
            from . import from_numpy
            if isinstance(actual, np.ndarray):
                actual, expected = from_numpy(actual), from_numpy(expected)
            _compare_tensors(actual, expected, opts["rtol"], opts["atol"], opts["equal_nan"],
                             opts["check_device"], opts["check_dtype"], opts["check_layout"],
                             opts["check_stride"])
            return
        if _is_number(actual) and _is_number(expected):
            _compare_numbers(actual, expected, opts["rtol"], opts["atol"], opts["equal_nan"],
                             opts["check_dtype"])
            return
    except _Mismatch as m:
        raise _Mismatch(m.exc_type, m.msg if not path else
                        f"{m.msg}\n\nThe failure occurred for item "
                        f"{''.join(str([p]) for p in path)}") from None
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: "
                                            f"{len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, path + [i], opts)
        return
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        ka, ke = set(actual.keys()), set(expected.keys())
        if ka != ke:
            missing, extra = ke - ka, ka - ke
            raise _Mismatch(AssertionError,
                            f"The keys of the mappings do not match:\n"
                            f"Missing keys in the actual mapping: {sorted(missing, key=repr)}\n"
                            f"Extra keys in the actual mapping: {sorted(extra, key=repr)}")
        for k in expected.keys():
            _compare(actual[k], expected[k], path + [k], opts)
        return
    raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type "
                               f"{type(actual)} and {type(expected)}.")


def assert_close(actual, expected, *, rtol=None, atol=None, equal_nan=False, check_device=True,
                 check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Asserts that actual and expected are close: ``abs(actual - expected) <= atol + rtol *
    abs(expected)`` elementwise, with default tolerances chosen by dtype (integers exactly).
    Tensors, numbers, and sequences or mappings of them are compared recursively."""
    __tracebackhide__ = True
    if rtol is not None or atol is not None:
        _tolerances([], rtol, atol)  # one without the other is a ValueError up front
    opts = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
                check_dtype=check_dtype, check_layout=check_layout, check_stride=check_stride)
    try:
        _compare(actual, expected, [], opts)
    except _Mismatch as m:
        text = m.msg
        if m.exc_type is AssertionError and msg is not None:
            text = msg(text) if callable(msg) else msg
        raise m.exc_type(text) from None
