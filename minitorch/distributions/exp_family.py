"""ExponentialFamily: distributions of the form p(x) = h(x) exp(<theta, t(x)> - F(theta)),
whose entropy follows from the log normaliser F and the mean carrier measure
E[log h(x)] by one autograd pass (as torch's, via the Bregman divergence of F)."""
from typing import Any, Tuple

import minitorch

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions: subclasses give
    `_natural_params`, `_log_normalizer` and `_mean_carrier_measure`."""

    @property
    def _natural_params(self) -> Tuple[Any, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Any) -> Any:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        raise NotImplementedError

    def entropy(self) -> Any:
        """F(theta) - <theta, grad F(theta)> - E[log h(x)]."""
        result: Any = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        with minitorch.enable_grad():
            log_norm = self._log_normalizer(*params)
            grads = minitorch.autograd.grad(log_norm.sum(), params, create_graph=True)
        result = result + log_norm
        for p, g in zip(params, grads):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
