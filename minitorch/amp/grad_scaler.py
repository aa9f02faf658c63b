"""torch.amp.GradScaler: dynamic loss scaling. Working on CPU as torch's
does (scale the loss, unscale the gradients and look for inf/NaN, skip the
optimizer step when one is found, grow or back off the scale); a CUDA
scaler warns that CUDA is not available and is disabled, as on a CPU-only
torch, so every method passes through."""
import enum
import warnings
from collections import defaultdict
from typing import Any, Dict, Iterable, Optional, Union

from .. import _C
from ..autograd.grad_mode import no_grad

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    """Where an optimizer is in the scaler's iteration."""
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state() -> Dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _full(value: float, dtype: Any) -> Any:
    return _C._functions["full"]((), value, dtype=dtype)


class GradScaler:
    """GradScaler(device="cuda", init_scale=65536.0, growth_factor=2.0,
    backoff_factor=0.5, growth_interval=2000, enabled=True), as torch's."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: Optional[Any] = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Optional[Any] = None
            self._per_optimizer_states: Dict[int, Dict[str, Any]] = defaultdict(_fresh_state)

    def _check_scale_growth_tracker(self, funcname: str):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init(self) -> None:
        self._scale = _full(self._init_scale, _C.float32)
        self._growth_tracker = _full(self._init_growth_tracker, _C.int32)

    def scale(self, outputs: Union[Any, Iterable[Any]]) -> Any:
        """Multiplies a tensor (or each tensor of a nested list or tuple) by
        the scale; returns outputs unchanged when disabled."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._lazy_init()

        def apply(val: Any) -> Any:
            if isinstance(val, _C.TensorBase):
                return val * self._scale
            if isinstance(val, (list, tuple)):
                return type(val)(apply(v) for v in val)
            if isinstance(val, Iterable):
                return map(apply, val)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply(outputs)

    def _unscale_grads_(self, optimizer: Any, inv_scale: Any, found_inf: Any,
                        allow_fp16: bool) -> Dict[Any, Any]:
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if not allow_fp16 and param.grad.dtype == _C.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    grad = param.grad
                    if not bool(grad.isfinite().all()):
                        found_inf.fill_(1.0)
                    grad.mul_(inv_scale.to(grad.dtype))
        return {"cpu": found_inf}

    def unscale_(self, optimizer: Any) -> None:
        """Divides the optimizer's gradients by the scale in place, noting
        whether any is inf or NaN; at most once per optimizer per step."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = _full(0.0, _C.float32)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf,
                                                             False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Optional[float]:
        """Unscales the gradients unless ``unscale_`` already did, then runs
        ``optimizer.step`` unless an inf or NaN gradient was found."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale: Optional[Union[float, Any]] = None) -> None:
        """Backs the scale off after a step that found inf/NaN gradients,
        grows it after growth_interval clean steps, or sets it to new_scale."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found = [f for s in self._per_optimizer_states.values()
                     for f in s["found_inf_per_device"].values()]
            if len(found) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            if sum(f.item() for f in found):
                scale.mul_(self._backoff_factor)
                tracker.fill_(0)
            else:
                grown = int(tracker.item()) + 1
                if grown == self._growth_interval:
                    bigger = scale * self._growth_factor
                    if bool(bigger.isfinite()):
                        scale.copy_(bigger)
                    grown = 0
                tracker.fill_(grown)
        self._per_optimizer_states = defaultdict(_fresh_state)

    def get_scale(self) -> float:
        """The current scale as a float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else float(self._scale.item())
        return 1.0

    def get_growth_factor(self) -> float:
        """The factor the scale grows by."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Sets the factor the scale grows by."""
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        """The factor the scale backs off by."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Sets the factor the scale backs off by."""
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        """The number of clean steps between growths."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Sets the number of clean steps between growths."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None \
                else int(self._growth_tracker.item())
        return 0

    def is_enabled(self) -> bool:
        """Whether the scaler scales (False for a CUDA scaler here)."""
        return self._enabled

    def state_dict(self) -> Dict[str, Any]:
        """The scale, factors, interval and growth tracker ({} when disabled)."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor,
                    "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Loads what state_dict returned."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> Dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the "
                                     "beginning of an iteration, or at the end after "
                                     "scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
