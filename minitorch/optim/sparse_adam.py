"""SparseAdam, as torch.optim.SparseAdam: the lazy Adam for sparse (COO)
gradients, such as nn.Embedding(sparse=True) makes; only the moments and
parameter entries the gradient's coordinates name are updated."""
import math

from .._sparse_coo import _make, _sparse_mask
from .._tensor import Tensor
from .optimizer import _GroupOptimizer, _check_betas, _check_tensor_lr, _zeros_like


class SparseAdam(_GroupOptimizer):
    r"""The lazy Adam variant for sparse gradients, with torch.optim.SparseAdam's
    arguments, checks and arithmetic: parameters are dense, gradients sparse."""

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
        where = [[g, i] for g, group in enumerate(self.param_groups)
                 for i, _ in enumerate(group["params"])]
        sparse_params = [w for w in where if self.param_groups[w[0]]["params"][w[1]].is_sparse]
        complex_params = [w for w in where
                          if self.param_groups[w[0]]["params"][w[1]].is_complex()]
        if sparse_params:
            raise ValueError(f"Sparse params at indices {sparse_params}: SparseAdam requires "
                             "dense parameter tensors")
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: "
                             "SparseAdam does not support complex parameters")

    def _update_group(self, group):
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        lr = lr.item() if isinstance(lr, Tensor) else lr
        todo = []
        for p in group["params"]:
            if p.grad is None:
                continue
            if not p.grad.is_sparse:
                raise RuntimeError("SparseAdam does not support dense gradients, please "
                                   "consider Adam instead")
            state = self.state[p]
            if len(state) == 0:
                state["step"] = 0
                state["exp_avg"] = _zeros_like(p)
                state["exp_avg_sq"] = _zeros_like(p)
            state["step"] += 1
            todo.append((p, state))
        for p, state in todo:
            _sparse_adam_step(p, state, beta1, beta2, lr, group["eps"], group["maximize"])


def _sparse_adam_step(p, state, beta1, beta2, lr, eps, maximize):
    """torch's update, in its order of operations: the moments move by
    (1 - beta) * (new - old) at the gradient's coordinates only."""
    grad = -p.grad if maximize else p.grad
    grad = grad.coalesce()
    indices, values = grad._indices(), grad._values()
    if values.numel() == 0:
        return
    size = grad.shape

    def make_sparse(v):
        return _make(indices, v, size, True)

    exp_avg, exp_avg_sq, step = state["exp_avg"], state["exp_avg_sq"], state["step"]
    old_exp_avg = _sparse_mask(exp_avg, grad)._values()
    exp_avg_update = values.sub(old_exp_avg).mul_(1 - beta1)
    exp_avg.add_(make_sparse(exp_avg_update))
    old_exp_avg_sq = _sparse_mask(exp_avg_sq, grad)._values()
    exp_avg_sq_update = values.pow(2).sub_(old_exp_avg_sq).mul_(1 - beta2)
    exp_avg_sq.add_(make_sparse(exp_avg_sq_update))
    numer = exp_avg_update.add_(old_exp_avg)
    denom = exp_avg_sq_update.add_(old_exp_avg_sq).sqrt_().add_(eps)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr * math.sqrt(bias_correction2) / bias_correction1
    p.add_(make_sparse(-step_size * numer.div_(denom)))
