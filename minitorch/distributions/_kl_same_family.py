"""KL(p || q) between two members of one family, for the families beyond
kl.py's first set, and the Bregman-divergence fallback for two members of
one exponential family (registered into kl's table on import, as torch's)."""
import math
from typing import Any

import minitorch

from .binomial import Binomial
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import _sum_rightmost
from .kl import _kl_categorical_categorical, _kl_normal_normal, kl_divergence, register_kl
from .laplace import Laplace
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .utils import euler_constant


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Any, q: Any) -> Any:
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is "
                                  "not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                          - (-q.probs).log1p())
    return minitorch.where(p.total_count > q.total_count, math.inf, kl)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Any, q: Any) -> Any:
    return (((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
            - (4 * p.scale * q.scale).log())


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p: Any, q: Any) -> Any:
    return (p.mean * (p.logits - q.logits) + p._cont_bern_log_norm() + (-p.probs).log1p()
            - q._cont_bern_log_norm() - (-q.probs).log1p())


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Any, q: Any) -> Any:
    ratio = q.rate / p.rate
    return -ratio.log() + ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: Any, q: Any) -> Any:
    """The Bregman divergence of the log normaliser between the natural parameters."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot                             be computed using "
                                  "Bregman divergences")
    p_params = [t.detach().requires_grad_() for t in p._natural_params]
    q_params = q._natural_params
    with minitorch.enable_grad():
        log_norm = p._log_normalizer(*p_params)
        grads = minitorch.autograd.grad(log_norm.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - log_norm
    for pp, qp, g in zip(p_params, q_params, grads):
        result = result - _sum_rightmost((qp - pp) * g, len(q.event_shape))
    return result


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Any, q: Any) -> Any:
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Any, q: Any) -> Any:
    ratio, q_loc, p_loc = p.scale / q.scale, q.loc / q.scale, p.loc / q.scale
    t3 = minitorch.exp(q_loc + (1 + ratio).lgamma() - p_loc)
    return -ratio.log() - q_loc + p_loc + ratio * euler_constant + t3 - (1 + euler_constant)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: Any, q: Any) -> Any:
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Any, q: Any) -> Any:
    ratio = p.scale / q.scale
    gap = (p.loc - q.loc).abs()
    return -ratio.log() + gap / q.scale + ratio * minitorch.exp(-gap / p.scale) - 1


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: Any, q: Any) -> Any:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Any, q: Any) -> Any:
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return minitorch.where(p.support.lower_bound < q.support.lower_bound, math.inf, result)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Any, q: Any) -> Any:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: Any, q: Any) -> Any:
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)
