"""torch's pair of ops for testing per-dispatch-key derivatives,
torch._test_autograd_multiple_dispatch_view and its _copy: the view is
input.view(-1), the copy its values in a fresh tensor. On CPU torch's
gradient for both is the incoming one reshaped as the input, which is
view's own, so both are composites."""
from ._tensor import Tensor
from .composites_view_copy import _make
from .overrides import composite


@composite(method=False)
def _test_autograd_multiple_dispatch_view(input: Tensor) -> Tensor:
    """input flattened as a view (input.view(-1)); an op torch keeps for testing its autograd."""
    return input.view(-1)


_test_autograd_multiple_dispatch_view_copy = _make(
    "_test_autograd_multiple_dispatch_view_copy", _test_autograd_multiple_dispatch_view, None)

__all__ = ["_test_autograd_multiple_dispatch_view", "_test_autograd_multiple_dispatch_view_copy"]
