"""Chi2: the sum of df squared standard normals, Gamma(df / 2, 1 / 2)."""
from typing import Any, Optional

from . import constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """Chi-squared distribution with `df` degrees of freedom."""
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: Optional[bool] = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Chi2":
        """Chi2 with df expanded to `batch_shape`."""
        return super().expand(batch_shape, self._get_checked_instance(Chi2, _instance))

    @property
    def df(self) -> Any:
        """The degrees of freedom, twice the Gamma concentration."""
        return self.concentration * 2
