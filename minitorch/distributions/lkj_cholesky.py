"""LKJCholesky: the LKJ distribution over Cholesky factors L of correlation
matrices, with density of L L^T proportional to det(L L^T)^(concentration - 1).
Sampling is the onion method of Lewandowski, Kurowicka and Joe (2009),
vectorised over rows: row i's squared off-diagonal norm is Beta distributed
and its direction uniform on the sphere."""
import math
from typing import Any, Optional

import minitorch

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all, tiny

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJ distribution over dim x dim lower Cholesky factors of correlation matrices."""
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Any = 1.0,
                 validate_args: Optional[bool] = None) -> None:
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # row 0 draws nothing (its Beta is a placeholder); row i >= 1 draws
        # y_i ~ Beta(i/2, concentration + (dim - 1 - i)/2)
        offset = minitorch.arange(dim - 1, dtype=self.concentration.dtype)
        offset = minitorch.cat([minitorch.zeros(1, dtype=offset.dtype), offset])
        marginal = self.concentration + 0.5 * (dim - 2)
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), (dim, dim), validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LKJCholesky":
        """The distribution with concentration expanded to `batch_shape`."""
        return self._expanded(LKJCholesky, batch_shape, _instance, dim=self.dim,
                              concentration=self.concentration.expand(tuple(batch_shape)),
                              _beta=self._beta.expand(tuple(batch_shape) + (self.dim,)))

    def sample(self, sample_shape: Any = ()) -> Any:
        """Draws of shape sample_shape + batch_shape + (dim, dim)."""
        with minitorch.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u = minitorch.randn(tuple(self._extended_shape(sample_shape)), dtype=y.dtype).tril(-1)
            norm = u.norm(dim=-1, keepdim=True)
            # row 0 has no off-diagonal part: its 0/0 direction becomes 0
            first_row = minitorch.arange(self.dim).unsqueeze(-1) == 0
            w = minitorch.where(first_row, 0.0, y.sqrt() * (u / norm))
            diag = (1 - w.pow(2).sum(-1)).clamp(min=tiny(w.dtype)).sqrt()
            return w + minitorch.diag_embed(diag)

    def log_prob(self, value: Any) -> Any:
        """log density of L: sum over i >= 1 of (2 (c - 1) + dim - 1 - i) log L_ii,
        minus the normaliser."""
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-2, dim2=-1)[..., 1:]
        order = minitorch.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = (0.5 * dm1 * math.log(math.pi) + minitorch.mvlgamma(alpha - 0.5, dm1)
                      - minitorch.lgamma(alpha) * dm1)
        return unnormalized - normalizer
