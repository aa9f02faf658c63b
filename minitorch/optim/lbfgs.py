"""L-BFGS, as torch.optim.LBFGS: a closure-driven quasi-Newton method over all
parameters flattened into one vector, with an optional strong-Wolfe line
search. The scalars of the method (slopes, curvature pairs, the first step)
stay 0-d tensors as torch's do, so they round in the parameters' dtype."""
from typing import Any, Callable, List, Optional

from .. import _C
from ..autograd.grad_mode import enable_grad, no_grad
from .line_search import strong_wolfe
from .optimizer import Optimizer, _check_nonnegative, _check_tensor_lr

_cat = _C._functions["cat"]
_zeros = _C._functions["zeros"]


class LBFGS(Optimizer):
    r"""Implements the L-BFGS algorithm, with torch.optim.LBFGS's arguments;
    step(closure) runs up to max_iter iterations, re-evaluating the closure.
    Only one parameter group is supported."""

    def __init__(self, params, lr: float = 1, max_iter: int = 20,
                 max_eval: Optional[int] = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: Optional[str] = None) -> None:
        _check_tensor_lr(lr)
        _check_nonnegative(("learning rate", lr))
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _gather_flat_grad(self) -> Any:
        return _cat([_zeros(p.numel(), dtype=p.dtype) if p.grad is None else p.grad.reshape(-1)
                     for p in self._params], 0)

    def _add_grad(self, step_size: Any, update: Any) -> None:
        offset = 0
        for p in self._params:
            numel = p.numel()
            p.add_(update[offset:offset + numel].view_as(p), alpha=step_size)
            offset += numel

    def _directional_evaluate(self, closure: Callable[[], Any], x: List[Any], t: Any,
                              d: Any) -> Any:
        """Loss and flat gradient at params + t d; the parameters are put back."""
        self._add_grad(t, d)
        loss = float(self._evaluate(closure))
        flat_grad = self._gather_flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, flat_grad

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Performs up to max_iter L-BFGS iterations.

        Args:
            closure (Callable): A closure that reevaluates the model and
                returns the loss.
        """
        with no_grad():
            return self._run(closure)

    def _evaluate(self, closure: Callable[[], Any]) -> Any:
        with enable_grad():
            return closure()

    def _run(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr = group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        # All the state lives on the first parameter, as in torch.
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = self._evaluate(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:  # keep only curvature pairs that stay positive definite
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                d = self._two_loop(state, flat_grad, old_dirs, old_stps, ro, H_diag,
                                   history_size)

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            # The first step is scaled down by the gradient's size.
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p.clone() for p in self._params]

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(self._evaluate(closure))
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if (n_iter == max_iter or current_evals >= max_eval or opt_cond
                    or d.mul(t).abs().max() <= tolerance_change
                    or abs(loss - prev_loss) < tolerance_change):
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    @staticmethod
    def _two_loop(state: dict, flat_grad: Any, old_dirs: List[Any], old_stps: List[Any],
                  ro: List[Any], H_diag: Any, history_size: int) -> Any:
        """The L-BFGS two-loop recursion: the approximate inverse Hessian
        times the negative gradient."""
        num_old = len(old_dirs)
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = flat_grad.neg()
        for i in range(num_old - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-al[i])
        r = q.mul(H_diag)
        for i in range(num_old):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=al[i] - be_i)
        return r
