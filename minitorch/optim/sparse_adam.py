"""SparseAdam, as torch.optim.SparseAdam. minitorch has no sparse
tensors, so every gradient is dense and step() raises torch's error for dense
gradients."""
from .optimizer import _GroupOptimizer, _check_betas, _check_tensor_lr


class SparseAdam(_GroupOptimizer):
    r"""The lazy Adam variant for sparse gradients, with torch.optim.SparseAdam's
    arguments and checks; it accepts only sparse gradients, which minitorch
    cannot produce."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        _check_tensor_lr(lr)
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        complex_params = [[g, i] for g, group in enumerate(self.param_groups)
                          for i, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: "
                             "SparseAdam does not support complex parameters")

    def _update_group(self, group):
        if next(self._params_with_grad(group), None) is not None:
            raise RuntimeError(
                "SparseAdam does not support dense gradients, please consider Adam instead"
            )
