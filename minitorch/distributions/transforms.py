"""Transforms: invertible maps with the log absolute determinant of their
Jacobian, for TransformedDistribution, as torch.distributions.transforms.
Gathered from the files that define them: the base and the first ones in
_basic_transforms, the rest in _elementwise_transforms and
_combining_transforms."""
from ._basic_transforms import (AbsTransform, AffineTransform, ComposeTransform,
                                CorrCholeskyTransform, ExpTransform, SigmoidTransform,
                                TanhTransform, Transform, identity_transform)
from ._combining_transforms import (CatTransform, CumulativeDistributionTransform,
                                    IndependentTransform, ReshapeTransform, StackTransform)
from ._elementwise_transforms import (LowerCholeskyTransform, PositiveDefiniteTransform,
                                      PowerTransform, SoftmaxTransform, SoftplusTransform,
                                      StickBreakingTransform)

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
           "Transform", "identity_transform"]
