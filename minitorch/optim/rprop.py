"""Rprop, as torch.optim.Rprop."""
from .. import _C
from . import differentiable
from .optimizer import _GroupOptimizer, _check_flags, _check_nonnegative, _check_tensor_lr

_fused_rprop_step = _C._functions["_fused_rprop_step"]
_zeros_like = _C._functions["zeros_like"]
_full_like = _C._functions["full_like"]
_scalar_tensor = _C._functions["tensor"]


class Rprop(_GroupOptimizer):
    r"""Implements the resilient backpropagation algorithm (per-element step
    sizes driven by the gradient's sign), with torch.optim.Rprop's arguments
    and update rule."""

    def __init__(self, params, lr: float = 1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_tensor_lr(lr)
        _check_nonnegative(("learning rate", lr))
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _check_flags("Rprop", capturable, differentiable)
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        etaminus, etaplus = group["etas"]
        size_min, size_max = group["step_sizes"]
        for p, grad in self._params_with_grad(group):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_tensor(0.0)
                state["prev"] = _zeros_like(p)
                state["step_size"] = _full_like(grad, float(group["lr"]))
            state["step"] += 1
            if group["differentiable"]:
                differentiable.rprop(p, grad, state, group)
                continue
            _fused_rprop_step(p, grad, state["prev"], state["step_size"], etaminus, etaplus,
                              size_min, size_max, group["maximize"])
