"""minitorch.distributions: probability distributions with sampling,
reparameterised sampling, log densities and KL divergences, as
torch.distributions."""
from . import constraints  # noqa: F401
from .bernoulli import Bernoulli
from .binomial import Binomial
from .cauchy import Cauchy
from .chi2 import Chi2
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson import Poisson
from .studentT import StudentT
from . import transforms  # noqa: F401
from .transformed_distribution import TransformedDistribution
from .transforms import (AffineTransform, ComposeTransform, CorrCholeskyTransform, ExpTransform,
                         SigmoidTransform, TanhTransform, Transform)
from .uniform import Uniform
from .wishart import Wishart

__all__ = ["AffineTransform", "Bernoulli", "Beta", "Categorical", "ComposeTransform",
           "CorrCholeskyTransform", "Dirichlet", "Distribution", "ExpTransform", "Gamma",
           "Independent", "LKJCholesky", "LowRankMultivariateNormal", "MultivariateNormal",
           "Normal", "SigmoidTransform", "TanhTransform", "Transform", "TransformedDistribution",
           "Uniform", "Wishart", "kl_divergence", "register_kl"]
