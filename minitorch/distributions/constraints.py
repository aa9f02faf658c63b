"""Constraints: the set a distribution's parameter or sample must lie in.

`check(value)` answers elementwise over the batch (a bool tensor, the event
dimensions already reduced); the reprs are torch's, since they appear in the
ValueError messages argument validation raises."""
from typing import Any

import minitorch

__all__ = ["Constraint", "MixtureSameFamilyConstraint", "boolean", "cat", "corr_cholesky",
           "dependent", "dependent_property", "greater_than", "greater_than_eq",
           "half_open_interval", "independent", "integer_interval", "interval", "is_dependent",
           "less_than", "lower_cholesky", "lower_triangular", "multinomial", "nonnegative",
           "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer",
           "positive_semidefinite", "real", "real_vector", "simplex", "square", "stack",
           "symmetric", "unit_interval"]


class Constraint:
    """A region of values; `event_dim` says how many rightmost dims one event spans."""
    is_discrete = False
    event_dim = 0

    def check(self, value: Any) -> Any:
        """A bool tensor: whether each event of `value` satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    """A constraint whose bounds depend on other parameters: never checked."""

    def __init__(self, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        """Whether the constrained values are discrete."""
        return self._is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        """How many rightmost dims one event spans."""
        return self._event_dim

    def __call__(self, *, is_discrete: Any = None, event_dim: Any = None) -> "_Dependent":
        """A dependent constraint with other static attributes."""
        return _Dependent(is_discrete=self._is_discrete if is_discrete is None else is_discrete,
                          event_dim=self._event_dim if event_dim is None else event_dim)

    def check(self, value: Any) -> Any:
        """Dependent constraints cannot be checked on their own."""
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """Whether `constraint` is a dependent (unchecked) constraint."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that is a dependent constraint on the class and the real
    constraint (built from the parameters) on an instance."""

    def __init__(self, fn: Any = None, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn: Any) -> "_DependentProperty":  # type: ignore[override]
        """Decorate `fn` keeping the static attributes."""
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _OverBase(Constraint):
    """A constraint read through another one, `base_constraint`."""

    def __init__(self, base_constraint: Constraint) -> None:
        self.base_constraint = base_constraint

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        """Whether the base constraint is discrete."""
        return self.base_constraint.is_discrete


def _all_after(result: Any, keep: int) -> Any:
    """result's dims past the first `keep` all-reduced into one answer."""
    return result.reshape(tuple(result.shape[:keep]) + (-1,)).all(-1)


class _IndependentConstraint(_OverBase):
    """A base constraint with `reinterpreted_batch_ndims` batch dims folded into the event."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        super().__init__(base_constraint)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        """The base's event dims plus the reinterpreted ones."""
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Any) -> Any:
        """The base check, all-reduced over the reinterpreted dims."""
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return _all_after(result, result.dim() - self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class MixtureSameFamilyConstraint(_OverBase):
    """A component distribution's constraint checked with the mixture's
    component dim put back (rightmost batch dim) and all-reduced over it."""

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        """The base constraint's event dims."""
        return self.base_constraint.event_dim

    def check(self, value: Any) -> Any:
        """The base check on value with a component dim, all over that dim."""
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return _all_after(result, value.dim() - self.event_dim)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.base_constraint!r})"


class _Multinomial(Constraint):
    """Nonnegative count vectors summing to at most upper_bound (torch's check)."""
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        """Whether each vector is nonnegative with a sum at most the bound."""
        return (value >= 0).all(dim=-1) & (value.sum(dim=-1) <= self.upper_bound)


def narrowed_slices(value: Any, dim: int, lengths: Any) -> Any:
    """The consecutive slices of `lengths` along dim, as cat's parts."""
    start = 0
    for length in lengths:
        yield value.narrow(dim, start, length)
        start += length


class _Piecewise(Constraint):
    """Constraints `cseq`, one per slice along `dim`."""

    def __init__(self, cseq: Any, dim: int = 0) -> None:
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        """Whether any part is discrete."""
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        """The largest event dims of the parts."""
        return max(c.event_dim for c in self.cseq)


class _Cat(_Piecewise):
    """Constraints `cseq` on consecutive slices of `lengths` along `dim` (as cat)."""

    def __init__(self, cseq: Any, dim: int = 0, lengths: Any = None) -> None:
        super().__init__(cseq, dim)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq "
                                 f"({len(self.cseq)})")

    def check(self, value: Any) -> Any:
        """Each slice checked by its constraint, concatenated back along dim."""
        return minitorch.cat([c.check(v) for c, v in
                              zip(self.cseq, narrowed_slices(value, self.dim, self.lengths))],
                             self.dim)


class _Stack(_Piecewise):
    """Constraints `cseq` on the slices along `dim` (as stack)."""

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        """The largest event dims of the parts, one more when dim is inside the event."""
        dim = super().event_dim
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value: Any) -> Any:
        """Each slice checked by its constraint, stacked back along dim."""
        parts = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return minitorch.stack([c.check(v) for v, c in zip(parts, self.cseq)], self.dim)


class _Boolean(Constraint):
    """Values 0 or 1."""
    is_discrete = True

    def check(self, value: Any) -> Any:
        """Whether each value is 0 or 1."""
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """One-hot vectors."""
    is_discrete = True
    event_dim = 1

    def check(self, value: Any) -> Any:
        """Whether each vector is 0/1 with exactly one 1."""
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _IntegerInterval(Constraint):
    """Integers in [lower_bound, upper_bound]."""
    is_discrete = True

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        """Whether each value is an integer within the bounds."""
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        name = self.__class__.__name__[1:]
        return f"{name}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    """Integers at least lower_bound."""
    is_discrete = True

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Any) -> Any:
        """Whether each value is an integer at least the bound."""
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound})"


class _Real(Constraint):
    """Real numbers (not NaN)."""

    def check(self, value: Any) -> Any:
        """False exactly for NaNs."""
        return value == value


class _GreaterThan(Constraint):
    """Values strictly above lower_bound."""

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Any) -> Any:
        """Whether each value is above the bound."""
        return self.lower_bound < value

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    """Values at least lower_bound."""

    def check(self, value: Any) -> Any:
        """Whether each value is at least the bound."""
        return self.lower_bound <= value


class _LessThan(Constraint):
    """Values strictly below upper_bound."""

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        """Whether each value is below the bound."""
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    """Values in [lower_bound, upper_bound]."""

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        """Whether each value is within the closed interval."""
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        name = self.__class__.__name__[1:]
        return f"{name}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    """Values in [lower_bound, upper_bound)."""

    def check(self, value: Any) -> Any:
        """Whether each value is within the half-open interval."""
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Nonnegative vectors summing to one."""
    event_dim = 1

    def check(self, value: Any) -> Any:
        """Whether each vector is nonnegative and sums to 1 within 1e-6."""
        return minitorch.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _LowerTriangular(Constraint):
    """Lower-triangular matrices."""
    event_dim = 2

    def check(self, value: Any) -> Any:
        """Whether each matrix equals its lower triangle."""
        return (value.tril() == value).flatten(-2).all(-1)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""
    event_dim = 2

    def check(self, value: Any) -> Any:
        """Whether each matrix is lower triangular with a positive diagonal."""
        return ((value.tril() == value).flatten(-2).all(-1)
                & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1))


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower Cholesky with unit-norm rows."""
    event_dim = 2

    def check(self, value: Any) -> Any:
        """Whether each matrix is lower Cholesky with every row of norm 1 (to 10 n eps)."""
        from .utils import eps
        tol = eps(value.dtype) * value.shape[-1] * 10
        row_norm = minitorch.linalg.vector_norm(value.detach(), dim=-1)
        return lower_cholesky.check(value) & ((row_norm - 1.0).abs() <= tol).all(-1)


class _Square(Constraint):
    """Square matrices."""
    event_dim = 2

    def check(self, value: Any) -> Any:
        """Whether the last two dims are equal, per batch entry."""
        return minitorch.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                              dtype=minitorch.bool)


class _Symmetric(_Square):
    """Symmetric matrices."""

    def check(self, value: Any) -> Any:
        """Whether each matrix is square and equals its transpose within 1e-6."""
        square = super().check(value)
        if not square.all():
            return square
        return minitorch.isclose(value, value.mT, atol=1e-6).flatten(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric positive-semidefinite matrices."""

    def check(self, value: Any) -> Any:
        """Whether each matrix is symmetric with nonnegative eigenvalues."""
        sym = super().check(value)
        if not sym.all():
            return sym
        return minitorch.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric positive-definite matrices."""

    def check(self, value: Any) -> Any:
        """Whether each matrix is symmetric with a Cholesky factor."""
        from ._linalg import cholesky_ok
        sym = super().check(value)
        if not sym.all():
            return sym
        return cholesky_ok(value)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
multinomial = _Multinomial
