"""kl_divergence(p, q) and register_kl: KL(p || q) looked up by the pair of
distribution types, the most specific registered pair winning (as torch's).
The registry is _kl_registry's; the pairs torch registers are in
_kl_same_family and _kl_cross_family, imported here for their
registrations."""
from . import _kl_cross_family, _kl_same_family  # noqa: F401  (their registrations)
from ._kl_registry import _KL_REGISTRY, kl_divergence, register_kl  # noqa: F401

__all__ = ["kl_divergence", "register_kl"]
