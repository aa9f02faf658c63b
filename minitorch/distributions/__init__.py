"""minitorch.distributions: probability distributions with sampling,
reparameterised sampling, log densities and KL divergences, as
torch.distributions."""
from . import constraints  # noqa: F401
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "Gamma", "Independent",
           "MultivariateNormal", "Normal", "Uniform",
           "kl_divergence", "register_kl"]
