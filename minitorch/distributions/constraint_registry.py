"""biject_to and transform_to: from a constraint to a transform whose
codomain it is (bijective for biject_to; transform_to may only cover it),
looked up by the constraint's type, as torch.distributions.constraint_registry."""
from numbers import Number
from typing import Any, Callable, Dict, Optional

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A table from constraint types to factories building the transform
    for a given constraint instance."""

    def __init__(self) -> None:
        self._registry: Dict[type, Callable[[Any], Any]] = {}

    def register(self, constraint: Any, factory: Optional[Callable[[Any], Any]] = None) -> Any:
        """Register `factory` for the constraint's type (usable as a decorator)."""
        if factory is None:
            return lambda f: self.register(constraint, f)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError("Expected constraint to be either a Constraint subclass or instance, "
                            f"but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint: Any) -> Any:
        """The transform registered for this constraint's type."""
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _both(*kinds: Any) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Register a factory in both registries for each constraint kind."""
    def decorator(factory: Callable[[Any], Any]) -> Callable[[Any], Any]:
        for kind in kinds:
            biject_to.register(kind, factory)
            transform_to.register(kind, factory)
        return factory
    return decorator


@_both(constraints.real)
def _to_real(constraint: Any) -> Any:
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint: Any) -> Any:
    return transforms.IndependentTransform(biject_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint: Any) -> Any:
    return transforms.IndependentTransform(transform_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@_both(constraints.greater_than, constraints.greater_than_eq)
def _to_greater_than(constraint: Any) -> Any:
    # positive and nonnegative are instances of these types, so they map here too
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@_both(constraints.less_than)
def _to_less_than(constraint: Any) -> Any:
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


@_both(constraints.interval, constraints.half_open_interval)
def _to_interval(constraint: Any) -> Any:
    lo, hi = constraint.lower_bound, constraint.upper_bound
    if isinstance(lo, Number) and lo == 0 and isinstance(hi, Number) and hi == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(lo, hi - lo)])


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint: Any) -> Any:
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint: Any) -> Any:
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint: Any) -> Any:
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint: Any) -> Any:
    return transforms.PositiveDefiniteTransform()


@_both(constraints.corr_cholesky)
def _to_corr_cholesky(constraint: Any) -> Any:
    return transforms.CorrCholeskyTransform()


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint: Any) -> Any:
    return transforms.CatTransform([biject_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint: Any) -> Any:
    return transforms.CatTransform([transform_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint: Any) -> Any:
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint: Any) -> Any:
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq], constraint.dim)
