"""minitorch.distributions: probability distributions with sampling,
reparameterised sampling, log densities and KL divergences, as
torch.distributions."""
from . import constraints  # noqa: F401
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Independent", "Normal", "Uniform",
           "kl_divergence", "register_kl"]
