"""Distribution: the base class every distribution derives from.

It holds batch_shape and event_shape, validates parameters against
arg_constraints at construction and values against support in log_prob
(when validation is on: the default follows __debug__, as torch's does), and
gives sample() as rsample() without a graph."""
from typing import Any, Dict, Optional

import minitorch

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


def _size(shape: Any) -> Any:
    return minitorch.Size(tuple(shape))


class Distribution:
    """Base class of probability distributions (torch.distributions.Distribution)."""
    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for distributions made afterwards."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = (), event_shape: Any = (),
                 validate_args: Optional[bool] = None) -> None:
        self._batch_shape = _size(batch_shape)
        self._event_shape = _size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param, None),
                                                             lazy_property):
                    continue  # computed from the parameter given, which was checked
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}")

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Distribution":
        """A distribution with the parameters expanded to `batch_shape` (no copy)."""
        raise NotImplementedError

    @property
    def batch_shape(self) -> Any:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Any:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> Dict[str, Any]:
        """The constraint each parameter must satisfy."""
        raise NotImplementedError

    @property
    def support(self) -> Any:
        """The constraint samples satisfy."""
        raise NotImplementedError

    @property
    def mean(self) -> Any:
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self) -> Any:
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Any:
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self) -> Any:
        """The standard deviation (square root of the variance)."""
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> Any:
        """Draw a sample of shape sample_shape + batch_shape + event_shape, with no graph."""
        with minitorch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """Draw a reparameterised sample (gradients flow to the parameters)."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Any:
        """Draw n samples (deprecated: use sample((n,)))."""
        return self.sample(minitorch.Size((n,)))

    def log_prob(self, value: Any) -> Any:
        """The log of the probability density/mass at `value`."""
        raise NotImplementedError

    def cdf(self, value: Any) -> Any:
        """The cumulative distribution function at `value`."""
        raise NotImplementedError

    def icdf(self, value: Any) -> Any:
        """The inverse cumulative distribution function at `value`."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Any:
        """All values of a discrete support, along a new leading dim."""
        raise NotImplementedError

    def entropy(self) -> Any:
        """The entropy, batched over batch_shape."""
        raise NotImplementedError

    def perplexity(self) -> Any:
        """exp(entropy)."""
        return minitorch.exp(self.entropy())

    def _extended_shape(self, sample_shape: Any = ()) -> Any:
        return _size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value: Any) -> None:
        if not isinstance(value, minitorch.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = value.dim() - len(self._event_shape)
        if tuple(value.shape[start:]) != tuple(self._event_shape):
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        expected = self._extended_shape()
        for i, j in zip(reversed(value.shape), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{value.size()} vs {expected}.")
        support = self.support
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) of the distribution {self!r}, "
                f"but found invalid values:\n{value}")

    def _expanded(self, cls: Any, batch_shape: Any, _instance: Any = None, **attrs: Any) -> Any:
        """The expand() result: a `cls` (or _instance) holding the expanded
        `attrs`, with batch_shape, self's event_shape and self's validation,
        checking nothing again."""
        new = self._get_checked_instance(cls, _instance)
        new.__dict__.update(attrs)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls: Any, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        shown = [self.__dict__[p] for p in names]
        args = ", ".join(f"{p}: {v if v.numel() == 1 else v.size()}" for p, v in zip(names, shown))
        return self.__class__.__name__ + "(" + args + ")"
