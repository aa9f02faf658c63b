"""KL(p || q) across families, the closed forms torch registers (infinite
where q's support misses part of p's), registered into kl's table on import."""
import math
from typing import Any

import minitorch

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from ._kl_registry import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform
from .utils import euler_constant


def _infinite_like(t: Any) -> Any:
    return minitorch.full_like(t, math.inf)


def _x_log_x(t: Any) -> Any:
    return minitorch.xlogy(t, t)


def _infinite(pairs: Any, param: str) -> None:
    """Register KL = inf (shaped like p's `param`) for each (p type, q type)."""
    def kl(p: Any, q: Any) -> Any:
        return _infinite_like(getattr(p, param))
    for type_p, type_q in pairs:
        register_kl(type_p, type_q)(kl)


_infinite([(Beta, Pareto)], "concentration1")
_infinite([(ContinuousBernoulli, Pareto)], "probs")
_infinite([(Exponential, q) for q in (Beta, ContinuousBernoulli, Pareto, Uniform)], "rate")
_infinite([(Gamma, q) for q in (Beta, ContinuousBernoulli, Pareto, Uniform)], "concentration")
_infinite([(Gumbel, q) for q in (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform)],
          "loc")
_infinite([(Laplace, q) for q in (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform)],
          "loc")
_infinite([(Normal, q) for q in (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform)],
          "loc")
_infinite([(Pareto, q) for q in (Beta, ContinuousBernoulli, Uniform)], "scale")
_infinite([(Poisson, Bernoulli), (Poisson, Binomial)], "rate")


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Any, q: Any) -> Any:
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p: Any, q: Any) -> Any:
    return -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Any, q: Any) -> Any:
    mean = p.concentration1 / (p.concentration1 + p.concentration0)
    return -p.entropy() - q.rate.log() + q.rate * mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Any, q: Any) -> Any:
    total = p.concentration1 + p.concentration0
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (p.concentration1.digamma() - total.digamma())
    return -p.entropy() + t2 - t3 + q.rate * p.concentration1 / total


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Any, q: Any) -> Any:
    total = p.concentration1 + p.concentration0
    m = p.concentration1 / total
    var = q.scale.pow(2)
    second_moment_half = (m * (1 - m) / (total + 1) + m.pow(2)) * 0.5
    return (-p.entropy() + 0.5 * (var * 2 * math.pi).log()
            + (second_moment_half - q.loc * m + q.loc.pow(2) * 0.5) / var)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Any, q: Any) -> Any:
    result = -p.entropy() + (q.high - q.low).log()
    outside = (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)
    return minitorch.where(outside, math.inf, result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p: Any, q: Any) -> Any:
    return -p.entropy() - minitorch.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p: Any, q: Any) -> Any:
    t2 = (0.5 * (math.log(2.0 * math.pi) + minitorch.square(q.loc / q.scale))
          + minitorch.log(q.scale))
    t3 = ((p.variance + minitorch.square(p.mean) - 2.0 * q.loc * p.mean)
          / (2.0 * minitorch.square(q.scale)))
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p: Any, q: Any) -> Any:
    result = -p.entropy() + (q.high - q.low).log()
    # torch's test (either bound reaching into [0, 1]) is kept, not the exact containment
    outside = (q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound)
    return minitorch.where(outside, math.inf, result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Any, q: Any) -> Any:
    ratio = q.rate / p.rate
    return (-q.concentration * minitorch.log(ratio) + ratio + q.concentration.lgamma()
            + q.concentration * euler_constant - (1 + euler_constant))


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Any, q: Any) -> Any:
    prod = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    return (prod.log() - 1 - loc_ratio + minitorch.exp(loc_ratio) * prod / (prod + 1)
            + prod.reciprocal())


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Any, q: Any) -> Any:
    var = q.scale.pow(2)
    rate_sq = p.rate.pow(2)
    t1 = 0.5 * minitorch.log(rate_sq * var * 2 * math.pi)
    return t1 - 1 + (rate_sq.reciprocal() - q.loc / p.rate + q.loc.pow(2) * 0.5) / var


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Any, q: Any) -> Any:
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Any, q: Any) -> Any:
    c = p.concentration
    prod = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    t1 = (c - 1) * c.digamma() - c.lgamma() - c
    t2 = prod.log() + c / prod
    t3 = minitorch.exp(loc_ratio) * (1 + prod.reciprocal()).pow(-c) - loc_ratio
    return t1 + t2 + t3


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Any, q: Any) -> Any:
    c = p.concentration
    var = q.scale.pow(2)
    rate_sq = p.rate.pow(2)
    t1 = 0.5 * minitorch.log(rate_sq * var * 2 * math.pi) - c - c.lgamma()
    t2 = 0.5 * (c.pow(2) + c) / rate_sq
    return t1 + (c - 1) * c.digamma() + (t2 - q.loc * c / p.rate + 0.5 * q.loc.pow(2)) / var


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p: Any, q: Any) -> Any:
    ratio = p.scale / q.scale
    t1 = (ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * euler_constant - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (euler_constant + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Any, q: Any) -> Any:
    var = q.scale.pow(2)
    ratio = p.scale.pow(2) / var
    t1 = 0.5 * minitorch.log(2 * ratio / math.pi)
    return -t1 + ratio + (0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)) / var - 1


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Any, q: Any) -> Any:
    mean_ratio = p.loc / q.scale
    var_ratio = (p.scale / q.scale).pow(2)
    loc_ratio = q.loc / q.scale
    t3 = minitorch.exp(-mean_ratio + 0.5 * var_ratio + loc_ratio)
    return (-var_ratio.log() * 0.5 + mean_ratio - loc_ratio + t3
            - 0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Any, q: Any) -> Any:
    diff = p.loc - q.loc
    z = diff / p.scale
    t2 = math.sqrt(2 / math.pi) * p.scale * minitorch.exp(-0.5 * z.pow(2))
    t3 = diff * minitorch.erf(math.sqrt(0.5) * z)
    return (-minitorch.log(p.scale / q.scale) + (t2 + t3) / q.scale
            - 0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Any, q: Any) -> Any:
    prod = p.scale * q.rate
    result = ((p.alpha / prod).log() - p.alpha.reciprocal() + p.alpha * prod / (p.alpha - 1) - 1)
    return minitorch.where(p.alpha <= 1, math.inf, result)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Any, q: Any) -> Any:
    common = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    return minitorch.where(p.alpha <= 1, math.inf, t1 + t2 + t3 + t4 - 1)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Any, q: Any) -> Any:
    two_var = 2 * q.scale.pow(2)
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).pow(2)
    result = t1 - p.alpha.reciprocal() + (t3 + t4) / two_var - 1
    return minitorch.where(p.alpha <= 2, math.inf, result)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Any, q: Any) -> Any:
    width = p.high - p.low
    t1 = minitorch.log(width)
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = ((q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width)
    t4 = (q.concentration1.lgamma() + q.concentration0.lgamma()
          - (q.concentration1 + q.concentration0).lgamma())
    outside = (p.high > q.support.upper_bound) | (p.low < q.support.lower_bound)
    return minitorch.where(outside, math.inf, t3 + t4 - t1 - t2)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p: Any, q: Any) -> Any:
    result = -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()
    # torch's test (either bound reaching the edge of [0, 1]) is kept
    outside = (p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound)
    return minitorch.where(outside, math.inf, result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Any, q: Any) -> Any:
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return minitorch.where(p.low < q.support.lower_bound, math.inf, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Any, q: Any) -> Any:
    width = p.high - p.low
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = -width.log() + t2 + t3 + q.rate * (p.high + p.low) / 2
    return minitorch.where(p.low < q.support.lower_bound, math.inf, result)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Any, q: Any) -> Any:
    common = q.scale / (p.high - p.low)
    hi, lo = (p.high - q.loc) / q.scale, (p.low - q.loc) / q.scale
    return (common.log() + 0.5 * (hi + lo)
            - common * (minitorch.exp(-hi) - minitorch.exp(-lo)))


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Any, q: Any) -> Any:
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (width.pow(2) / 12 + t3) / q.scale.pow(2)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Any, q: Any) -> Any:
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    return minitorch.where(p.low < q.support.lower_bound, math.inf, t2 * (q.alpha + 1) - t1)
