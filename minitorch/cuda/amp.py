"""torch.cuda.amp: the deprecated CUDA spellings of torch.amp. On a
CPU-only build they warn as torch's do (deprecation, then that CUDA is not
available) and are disabled."""
import functools
import warnings
from typing import Any, Callable, Optional

from .. import _C
from .. import amp as _amp

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_amp.autocast):
    """torch.cuda.amp.autocast(enabled=True, dtype=float16, cache_enabled=True):
    deprecated for torch.amp.autocast("cuda", ...); disabled without CUDA."""

    def __init__(self, enabled: bool = True, dtype: Any = _C.float16,
                 cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """torch.cuda.amp.GradScaler(init_scale=65536.0, growth_factor=2.0,
    backoff_factor=0.5, growth_interval=2000, enabled=True): deprecated for
    torch.amp.GradScaler("cuda", ...); disabled without CUDA."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


def custom_fwd(fwd: Optional[Callable] = None, *, cast_inputs: Optional[Any] = None) -> Callable:
    """Deprecated torch.cuda.amp.custom_fwd: torch.amp.custom_fwd(device_type="cuda")."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return functools.partial(_amp.custom_fwd, device_type="cuda")(fwd=fwd,
                                                                  cast_inputs=cast_inputs)


def custom_bwd(bwd: Callable) -> Callable:
    """Deprecated torch.cuda.amp.custom_bwd: torch.amp.custom_bwd(device_type="cuda")."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return functools.partial(_amp.custom_bwd, device_type="cuda")(bwd)
