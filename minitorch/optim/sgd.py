"""Stochastic gradient descent (optionally with momentum), as torch.optim.SGD."""
from .. import _C
from . import differentiable
from .optimizer import _GroupOptimizer, _check_flags, _check_fused, _check_tensor_lr

_fused_sgd_step = _C._functions["_fused_sgd_step"]


class SGD(_GroupOptimizer):
    r"""Implements stochastic gradient descent (optionally with momentum),
    with torch.optim.SGD's arguments and update rule."""

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach=None, differentiable: bool = False, fused=None) -> None:
        _check_tensor_lr(lr)
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_flags("SGD", False, differentiable)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)

    def _update_group(self, group):
        momentum = group["momentum"]
        for p, grad in self._params_with_grad(group):
            if group["differentiable"]:
                # without momentum torch keeps no state for the parameter
                differentiable.sgd(p, grad, self.state[p] if momentum != 0 else None, group)
                continue
            buf = None
            first = False
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = grad.detach().clone()
                    first = True
            _fused_sgd_step(p, grad, buf, float(group["lr"]), momentum,
                            group["dampening"], group["weight_decay"],
                            group["nesterov"], group["maximize"], first)
