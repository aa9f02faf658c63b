"""torch.autocast on a CPU-only build: per-device autocast state and the
context manager/decorator that sets it.

CPU autocast is real: while it is enabled, a TorchFunctionMode casts the
floating (not float64) tensor arguments of the ops torch's CPU autocast runs
in lower precision (matmul, linear, convolutions, ...) to the autocast dtype,
those of the ops it runs in float32 (losses, 3-d pooling, ...) to float32,
and those of cat/stack to their widest dtype. The casts are recorded by
autograd, so gradients reach float32 parameters as float32. The mode sees
the functions a program calls, not the ops a Python-level function runs
inside itself (torch casts at its dispatcher, below them): an unlisted
composite such as multi_head_attention_forward computes in its inputs'
dtype. CUDA autocast is refused with torch's warning: there is no CUDA
device.
"""
import collections.abc
import functools
import warnings
from typing import Any, Callable, Optional

from .. import _C
from ..overrides import TorchFunctionMode

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]

# the device types torch names in its device strings (torch's own list)
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                 "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")

# torch's CPU autocast policy, by the name of the function or method called
_LOWER_PRECISION = frozenset([
    "conv1d", "conv2d", "conv3d", "bmm", "mm", "vecdot", "baddbmm", "addmm", "addbmm",
    "linear", "matmul", "__matmul__", "__rmatmul__", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "prelu", "scaled_dot_product_attention"])
# minitorch's convolutions compute in float32 and float64 only: these take
# their inputs rounded to the autocast dtype, compute in float32 and round
# the result, which is what torch's lower-precision kernels give up to the
# order of the float32 accumulation
_ROUNDED = frozenset(["conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
                      "conv_transpose2d", "conv_transpose3d"])
_FLOAT32 = frozenset([
    "avg_pool3d", "binary_cross_entropy", "grid_sample", "polar", "prod", "quantile",
    "nanquantile", "stft", "cdist", "trace", "view_as_complex", "cholesky", "cholesky_inverse",
    "cholesky_solve", "inverse", "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d",
    "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d", "mse_loss", "cosine_embedding_loss",
    "nll_loss", "hinge_embedding_loss", "poisson_nll_loss", "smooth_l1_loss", "cross_entropy",
    "l1_loss", "huber_loss", "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss",
    "multi_margin_loss", "ctc_loss", "kl_div", "multilabel_margin_loss",
    "binary_cross_entropy_with_logits", "fractional_max_pool2d", "fractional_max_pool3d",
    "adaptive_max_pool3d", "geqrf", "qr", "svd", "triangular_solve", "householder_product"])
_PROMOTE = frozenset(["stack", "cat", "concat", "concatenate", "index_copy"])

_DEFAULT_DTYPE = {"cpu": _C.bfloat16}
_state: dict = {}  # device type -> [enabled, dtype]
_cache = {"enabled": True, "nesting": 0}


def _check_device(device_type: str) -> None:
    if not isinstance(device_type, str) or device_type.split(":")[0] not in _DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start "
                           f"of device string: {device_type}")


def _entry(device_type: str) -> list:
    _check_device(device_type)
    if device_type not in _state:
        _state[device_type] = [False, _DEFAULT_DTYPE.get(device_type, _C.float16)]
    return _state[device_type]


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can be asked for on this device type (as torch: every
    device type but meta; CUDA autocast then disables itself without CUDA)."""
    _check_device(device_type)
    return device_type != "meta"


def is_autocast_enabled(device_type: Optional[str] = None) -> bool:
    """Whether autocast is on for device_type (CUDA when not given, as torch)."""
    return _entry("cuda" if device_type is None else device_type)[0]


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    """Turns autocast on or off for device_type (what ``autocast`` does on entry)."""
    _entry(device_type)[0] = bool(enabled)


def get_autocast_dtype(device_type: str) -> Any:
    """The dtype autocast casts to on device_type: bfloat16 on CPU, float16 elsewhere."""
    if device_type == "meta":
        raise RuntimeError("unsupported scalarType")  # torch has no autocast dtype for meta
    return _entry(device_type)[1]


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    """Sets the dtype autocast casts to on device_type."""
    _entry(device_type)[1] = dtype


def is_autocast_cache_enabled() -> bool:
    """Whether autocast may cache the casts of leaf tensors (a flag only here)."""
    return _cache["enabled"]


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Records whether autocast may cache casts; minitorch casts afresh each time."""
    _cache["enabled"] = bool(enabled)


def clear_autocast_cache() -> None:
    """Drops autocast's cast cache; minitorch keeps none, so nothing to drop."""


def _cast(value: Any, want: Callable[[Any], Any]) -> Any:
    if isinstance(value, _C.TensorBase):
        if value.is_floating_point() and value.dtype is not _C.float64:
            dtype = want(value)
            if dtype is not None and value.dtype is not dtype:
                return value.to(dtype)
        return value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, want) for v in value)
    if isinstance(value, collections.abc.Mapping):
        return {k: _cast(v, want) for k, v in value.items()}
    return value


def _floating(values: Any, out: list) -> list:
    for v in values:
        if isinstance(v, _C.TensorBase) and v.is_floating_point():
            out.append(v.dtype)
        elif isinstance(v, (list, tuple)):
            _floating(v, out)
    return out


def _prioritize(kinds: list, lower: Any) -> Any:
    """torch's choice for cat/stack under autocast: float32 if any argument
    is float32, else the autocast dtype; float64 arguments are left alone
    and any other 16-bit dtype is refused."""
    widest = lower
    for k in kinds:
        if k is _C.float64:
            continue
        if widest is _C.float32 or k is _C.float32:
            widest = _C.float32
        elif not (widest is lower and k is lower):
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return widest


class _AutocastMode(TorchFunctionMode):
    """Casts the arguments of the ops CPU autocast covers; one is pushed per
    enabled autocast region and reads the current state on each call."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        enabled, dtype = _entry("cpu")
        name = getattr(func, "__name__", "")
        if not enabled:
            return func(*args, **kwargs)
        if name in _ROUNDED:
            rounded = _cast(_cast(args, lambda t: dtype), lambda t: _C.float32)
            out = func(*rounded, **_cast(_cast(kwargs, lambda t: dtype), lambda t: _C.float32))
            return _cast(out, lambda t: dtype)
        if name in _LOWER_PRECISION:
            want = lambda t: dtype  # noqa: E731
        elif name in _FLOAT32:
            want = lambda t: _C.float32  # noqa: E731
        elif name in _PROMOTE:
            widest = _prioritize(_floating(list(args) + list(kwargs.values()), []), dtype)
            want = lambda t: widest  # noqa: E731
        else:
            return func(*args, **kwargs)
        return func(*_cast(args, want), **_cast(kwargs, want))


class autocast:
    """torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None):
    a context manager and decorator running its region with autocast on (or
    off) for device_type. On CPU the lower-precision ops compute in dtype
    (bfloat16 by default, or float16); other dtypes are refused with torch's
    warning and autocast stays off. CUDA autocast warns that CUDA is not
    available and disables itself, as a CPU-only torch does."""

    def __init__(self, device_type: str, dtype: Optional[Any] = None, enabled: bool = True,
                 cache_enabled: Optional[bool] = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None \
            else cache_enabled
        supported = [_C.bfloat16, _C.float16]
        name = device_type.upper()
        if enabled:
            if device_type == "cuda":
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                              "autocast.", stacklevel=2)
                enabled = False
            elif self.fast_dtype not in supported:
                warnings.warn(
                    f"In {name} autocast, but the target dtype is not supported. Disabling "
                    f"autocast.\n{name} Autocast only supports dtypes of "
                    + ", ".join(map(str, supported)) + " currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled
        self._modes: list = []

    def __enter__(self) -> "autocast":
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        set_autocast_cache_enabled(self._cache_enabled)
        _cache["nesting"] += 1
        mode = None
        if self.device == "cpu" and self._enabled:
            mode = _AutocastMode()
            mode.__enter__()
        self._modes.append(mode)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> bool:
        mode = self._modes.pop()
        if mode is not None:
            mode.__exit__(exc_type, exc_val, exc_tb)
        _cache["nesting"] -= 1
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func: Callable) -> Callable:
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")

        @functools.wraps(func)
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)
        return decorated


def custom_fwd(fwd: Optional[Callable] = None, *, device_type: str,
               cast_inputs: Optional[Any] = None) -> Callable:
    """Decorator for a custom autograd.Function's forward: with cast_inputs,
    runs it with autocast off and its floating inputs cast to cast_inputs
    when autocast is on for device_type; without, it runs under the
    surrounding autocast state (which backward then reuses)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                want = lambda t: cast_inputs  # noqa: E731
                return fwd(*_cast(args, want), **_cast(kwargs, want))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd: Optional[Callable] = None, *, device_type: str) -> Callable:
    """Decorator for a custom autograd.Function's backward: runs it under the
    autocast state its forward ran under."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
