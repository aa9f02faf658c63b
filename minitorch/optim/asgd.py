"""ASGD, as torch.optim.ASGD."""
from .. import _C
from . import differentiable
from .optimizer import _GroupOptimizer, _check_flags, _check_nonnegative, _check_tensor_lr

_fused_asgd_step = _C._functions["_fused_asgd_step"]
_scalar_tensor = _C._functions["tensor"]


class ASGD(_GroupOptimizer):
    r"""Implements averaged stochastic gradient descent (the average of the
    iterates is kept in state["ax"]), with torch.optim.ASGD's arguments and
    update rule."""

    def __init__(self, params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach=None,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _check_tensor_lr(lr)
        _check_nonnegative(("learning rate", lr), ("weight_decay value", weight_decay))
        _check_flags("ASGD", capturable, differentiable)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        lr, lambd = float(group["lr"]), group["lambd"]
        for p, grad in self._params_with_grad(group):
            state = self._stepped_state(p, ("ax",), (("eta", lr), ("mu", 1.0)))
            # eta and mu are float32 tensors, read (rounded) as torch reads them.
            if group["differentiable"]:
                differentiable.asgd(p, grad, state, group)
            else:
                _fused_asgd_step(p, grad, state["ax"], state["eta"].item(),
                                 state["mu"].item(), lambd, group["weight_decay"],
                                 group["maximize"])
            step = state["step"].item()
            # The new values pass through float32 tensors, as torch.as_tensor
            # makes them, even when loading has widened eta and mu.
            state["eta"].copy_(_scalar_tensor(lr / (1 + lambd * lr * step) ** group["alpha"]))
            state["mu"].copy_(_scalar_tensor(1 / max(1, step - group["t0"])))
