"""SparseAdam, as torch.optim.SparseAdam. minitorch has no sparse (or complex)
tensors, so every gradient is dense and step() raises torch's error for dense
gradients."""
from typing import Callable, Optional

from ..autograd.grad_mode import enable_grad
from .optimizer import Optimizer, _check_betas


class SparseAdam(Optimizer):
    r"""The lazy Adam variant for sparse gradients, with torch.optim.SparseAdam's
    arguments and checks; it accepts only sparse gradients, which minitorch
    cannot produce."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
    def step(self, closure: Optional[Callable[[], float]] = None) -> Optional[float]:
        """Performs a single optimization step; any (dense) gradient is an error.

        Args:
            closure (Callable, optional): A closure that reevaluates the model
                and returns the loss.
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            if any(p.grad is not None for p in group["params"]):
                raise RuntimeError(
                    "SparseAdam does not support dense gradients, please consider Adam instead"
                )
        return loss
