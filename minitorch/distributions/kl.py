"""kl_divergence(p, q) and register_kl: KL(p || q) looked up by the pair of
distribution types, the most specific registered pair winning (as torch's)."""
import math
import warnings
from functools import total_ordering
from typing import Any, Callable, Dict, Tuple

import minitorch
import minitorch.nn.functional as F

from ._linalg import solve_lower
from minitorch import digamma, lgamma
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .gamma import Gamma
from .independent import Independent, _sum_rightmost
from .multivariate_normal import MultivariateNormal, batch_mahalanobis
from .normal import Normal
from .uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: Dict[Tuple[type, type], Callable[..., Any]] = {}
_KL_MEMOIZE: Dict[Tuple[type, type], Any] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator registering fun(p, q) as KL(p || q) for the pair of distribution types."""
    for t in (type_p, type_q):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            name = "type_p" if t is type_p else "type_q"
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {t}")

    def decorator(fun: Callable[..., Any]) -> Callable[..., Any]:
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # a new pair can change which match is most specific
        return fun
    return decorator


@total_ordering
class _Match:
    """A registered pair, ordered so the most specific (by subclass) is smallest."""
    __slots__ = ["types"]

    def __init__(self, *types: type) -> None:
        self.types = types

    def __eq__(self, other: Any) -> bool:
        return self.types == other.types

    def __le__(self, other: Any) -> bool:
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p: type, type_q: type) -> Any:
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY
               if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left, right = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left is not right:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})",
                      RuntimeWarning, stacklevel=2)
    return left


def kl_divergence(p: Distribution, q: Distribution) -> Any:
    """KL(p || q), batched over the distributions' batch shape."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _KL_MEMOIZE[type(p), type(q)] = _dispatch_kl(type(p), type(q))
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} "
                                  f"and q type {q.__class__.__name__}")
    return fun(p, q)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Any, q: Any) -> Any:
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = minitorch.where(p.probs == 0, 0.0, minitorch.where(q.probs == 0, math.inf, t1))
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = minitorch.where(p.probs == 1, 0.0, minitorch.where(q.probs == 1, math.inf, t2))
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Any, q: Any) -> Any:
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = lgamma(q.concentration1) + lgamma(q.concentration0) + lgamma(sum_p)
    t2 = lgamma(p.concentration1) + lgamma(p.concentration0) + lgamma(sum_q)
    t3 = (p.concentration1 - q.concentration1) * digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * digamma(p.concentration0)
    t5 = (sum_q - sum_p) * digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Any, q: Any) -> Any:
    t = p.probs * (p.logits - q.logits)
    t = minitorch.where((q.probs == 0).expand_as(t), math.inf, t)
    t = minitorch.where((p.probs == 0).expand_as(t), 0.0, t)
    return t.sum(-1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Any, q: Any) -> Any:
    sum_p, sum_q = p.concentration.sum(-1), q.concentration.sum(-1)
    t1 = lgamma(sum_p) - lgamma(sum_q)
    t2 = (lgamma(p.concentration) - lgamma(q.concentration)).sum(-1)
    t4 = digamma(p.concentration) - digamma(sum_p).unsqueeze(-1)
    return t1 - t2 + ((p.concentration - q.concentration) * t4).sum(-1)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Any, q: Any) -> Any:
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = lgamma(q.concentration) - lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Any, q: Any) -> Any:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p: Any, q: Any) -> Any:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with"
                         "                          different event shapes cannot be computed")
    pL, qL = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = (qL.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - pL.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    n = p.event_shape[0]
    batch = tuple(minitorch.broadcast_shapes(tuple(qL.shape[:-2]), tuple(pL.shape[:-2])))
    term2 = solve_lower(qL.expand(batch + (n, n)), pL.expand(batch + (n, n))).pow(2).sum((-2, -1))
    term3 = batch_mahalanobis(qL, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Any, q: Any) -> Any:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Any, q: Any) -> Any:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return minitorch.where((q.low > p.low) | (q.high < p.high), math.inf, result)


# the other pairs live in their own files and register themselves here on import
from . import _kl_cross_family, _kl_same_family  # noqa: E402, F401
