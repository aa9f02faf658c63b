"""Adadelta, as torch.optim.Adadelta: written with tensor ops, which run
inside autograd when differentiable=True."""
from .optimizer import _GroupOptimizer, _check_flags, _check_nonnegative, _check_tensor_lr


class Adadelta(_GroupOptimizer):
    r"""Implements the Adadelta algorithm (step sizes from running averages of
    squared gradients and squared updates), with torch.optim.Adadelta's
    arguments and update rule."""

    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach=None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _check_tensor_lr(lr)
        _check_nonnegative(("learning rate", lr))
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_nonnegative(("epsilon value", eps), ("weight_decay value", weight_decay))
        _check_flags("Adadelta", capturable, differentiable)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        rho, eps, lr = group["rho"], group["eps"], group["lr"]
        for p, grad in self._params_with_grad(group):
            state = self._stepped_state(p, ("square_avg", "acc_delta"))
            if group["maximize"]:
                grad = -grad
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
            std = square_avg.add(eps).sqrt_()
            # a copy: acc_delta's in-place update below must not change what the
            # quotient saved for backward
            delta = acc_delta.add(eps).sqrt_().clone().div_(std).mul_(grad)
            acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
            p.add_(delta, alpha=-float(lr))
