"""Adafactor, as torch.optim.Adafactor: second moments kept factored (one
running mean per row and one per column) for parameters of two or more
dimensions, relative step sizes and update clipping."""
from .. import _C, finfo
from .optimizer import _GroupOptimizer, _check_tensor_lr

_zeros_like = _C._functions["zeros_like"]
_scalar_tensor = _C._functions["tensor"]


class Adafactor(_GroupOptimizer):
    r"""Implements the Adafactor algorithm, with torch.optim.Adafactor's
    arguments and update rule."""

    def __init__(self, params, lr: float = 1e-2, beta2_decay: float = -0.8, eps=(None, 1e-3),
                 d: float = 1.0, weight_decay: float = 0.0, *, foreach=None,
                 maximize: bool = False) -> None:
        _check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def _state(self, p, grad):
        """p's state, made on its first step: the step and either the row and
        column means (a gradient of two or more dimensions) or the variance."""
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _scalar_tensor(0.0)
            if grad.dim() > 1:
                state["row_var"] = grad.new_zeros(list(grad.shape[:-1]) + [1])
                state["col_var"] = grad.new_zeros(list(grad.shape[:-2]) + [1, grad.shape[-1]])
            else:
                state["variance"] = _zeros_like(grad)
        return state

    def _update_group(self, group):
        lr, d, weight_decay = group["lr"], group["d"], group["weight_decay"]
        eps1, eps2 = group["eps"]
        self._refuse_complex(group)
        for p, grad in self._params_with_grad(group):
            state = self._state(p, grad)
            if group["maximize"]:
                grad = -grad
            if eps1 is None:
                # as torch: the first parameter's dtype sets it for the whole group
                eps1 = finfo(p.dtype).eps
            state["step"] += 1
            step = state["step"].item()
            one_minus_beta2 = step ** group["beta2_decay"]
            rho = min(lr, 1 / step ** 0.5)
            alpha = max(eps2, p.norm(2).item() / p.numel() ** 0.5) * rho
            if weight_decay != 0:
                p.mul_(1 - lr * weight_decay)
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1)),
                              one_minus_beta2)
                col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2)),
                              one_minus_beta2)
                var_estimate = row_var @ col_var
                var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
            else:
                variance = state["variance"]
                variance.lerp_(grad * grad, one_minus_beta2)
                var_estimate = variance.clone()
            update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
            denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
            # a tensor lr makes alpha a float32 tensor, divided there as in torch
            p.add_(update, alpha=float(-alpha / denom))
