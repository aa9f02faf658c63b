"""minitorch.special: torch.special's functions. Each C one is an op-table
row named special_<name>, torch's own name for it (its messages print that
name), published here under its short name; logit, multigammaln and ndtr
are composites as torch's are, with torch.special's out=."""
import math
from typing import TYPE_CHECKING, Optional

from . import _C
from ._tensor import Tensor
from .composites import logit as _logit
from .composites_math import _into, mvlgamma as _mvlgamma
from .overrides import overridable

_PREFIX = "special_"
_ROWS = {name[len(_PREFIX):]: f for name, f in _C._functions.items() if name.startswith(_PREFIX)}
if TYPE_CHECKING:  # the same functions, typed from their rows (tools/gen_stubs.py)
    from ._special_functions import *  # noqa: F403
else:
    globals().update(_ROWS)


@overridable
def logit(input: Tensor, eps: Optional[float] = None, *, out: Optional[Tensor] = None) -> Tensor:
    """The log-odds log(p / (1 - p)) of each element, input clamped to
    [eps, 1 - eps] first when eps is given."""
    return _into(out, _logit(input, eps), "logit")


@overridable
def multigammaln(input: Tensor, p: int, *, out: Optional[Tensor] = None) -> Tensor:
    """The multivariate log-gamma function of dimension p of each element."""
    return _into(out, _mvlgamma(input, p), "mvlgamma")


@overridable
def ndtr(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """The standard normal distribution function of each element, computed as
    torch computes it: (1 + erf(x / sqrt(2))) / 2."""
    return _into(out, (1 + _C._functions["erf"](input / math.sqrt(2.0))) * 0.5, "ndtr")


__all__ = sorted([*_ROWS, "logit", "multigammaln", "ndtr"])
