"""Adam and AdamW, as torch.optim.Adam and torch.optim.AdamW."""
from .. import _C
from .._tensor import Tensor
from . import differentiable
from .optimizer import (_GroupOptimizer, _check_betas, _check_flags, _check_fused,
                        _check_nonnegative, _check_tensor_lr)

_fused_adam_step = _C._functions["_fused_adam_step"]
_BUFFERS = ("exp_avg", "exp_avg_sq")
_AMSGRAD_BUFFERS = _BUFFERS + ("max_exp_avg_sq",)


def _check_tensor_betas(betas, foreach, capturable) -> None:
    """torch's ValueErrors for betas mixing floats and tensors, and for tensor
    betas it cannot take (with foreach and without capturable, or of more than
    one element)."""
    if not (all(isinstance(b, float) for b in betas[:2])
            or all(isinstance(b, Tensor) for b in betas[:2])):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, beta in enumerate(betas[:2]):
        if isinstance(beta, Tensor):
            if foreach and not capturable:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for "
                                 "capturable=False and foreach=True")
            if beta.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")


class Adam(_GroupOptimizer):
    r"""Implements the Adam algorithm, with torch.optim.Adam's arguments and
    update rule (``decoupled_weight_decay=True`` gives AdamW)."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused=None,
                 decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError(
                "lr as a Tensor is not supported for capturable=False and foreach=True")
        _check_tensor_lr(lr)
        _check_nonnegative(("learning rate", lr), ("epsilon value", eps))
        _check_betas(betas)
        _check_nonnegative(("weight_decay value", weight_decay))
        _check_tensor_betas(betas, foreach, capturable)
        _check_flags(type(self).__name__, capturable, differentiable)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps,
                        weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        _check_fused(fused, foreach, differentiable)

    def _update_group(self, group):
        beta1, beta2 = group["betas"]
        amsgrad = group["amsgrad"]
        for p, grad in self._params_with_grad(group):
            state = self._stepped_state(p, _AMSGRAD_BUFFERS if amsgrad else _BUFFERS)
            if group["differentiable"]:
                differentiable.adam(p, grad, state, group)
                continue
            _fused_adam_step(p, grad, state["exp_avg"], state["exp_avg_sq"],
                             state.get("max_exp_avg_sq"), float(group["lr"]), beta1,
                             beta2, group["eps"], group["weight_decay"],
                             int(state["step"].item()), amsgrad, group["maximize"],
                             group["decoupled_weight_decay"])


class AdamW(Adam):
    r"""Implements the AdamW algorithm (Adam with decoupled weight decay), with
    torch.optim.AdamW's arguments and update rule."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach=None, capturable: bool = False, differentiable: bool = False,
                 fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
