"""Adagrad, as torch.optim.Adagrad."""
from .. import _C
from . import differentiable
from .optimizer import (_GroupOptimizer, _check_flags, _check_fused, _check_nonnegative,
                        _check_tensor_lr)

_fused_adagrad_step = _C._functions["_fused_adagrad_step"]
_full_like = _C._functions["full_like"]
_scalar_tensor = _C._functions["tensor"]


class Adagrad(_GroupOptimizer):
    r"""Implements the Adagrad algorithm, with torch.optim.Adagrad's arguments
    and update rule. Its state is created for every parameter up front."""

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach=None, *,
                 maximize: bool = False, differentiable: bool = False, fused=None) -> None:
        _check_tensor_lr(lr)
        _check_nonnegative(("learning rate", lr), ("lr_decay value", lr_decay),
                           ("weight_decay value", weight_decay),
                           ("initial_accumulator_value value", initial_accumulator_value),
                           ("epsilon value", eps))
        _check_flags("Adagrad", False, differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _scalar_tensor(0.0)
                state["sum"] = _full_like(p, group["initial_accumulator_value"])

    def _update_group(self, group):
        for p, grad in self._params_with_grad(group):
            state = self.state[p]
            state["step"] += 1
            if group["differentiable"]:
                differentiable.adagrad(p, grad, state, group)
                continue
            _fused_adagrad_step(p, grad, state["sum"], float(group["lr"]),
                                group["lr_decay"], group["weight_decay"], group["eps"],
                                int(state["step"].item()), group["maximize"])
