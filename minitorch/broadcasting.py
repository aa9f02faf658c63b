"""broadcast_shapes and broadcast_tensors: the broadcast shape of several
shapes, and views of tensors expanded to it."""
from typing import Any, Tuple

from . import _C
from .overrides import composite

__all__ = ["broadcast_shapes", "broadcast_tensors"]


def broadcast_shapes(*shapes):
    """The shape every one of shapes broadcasts to."""
    out = []
    for k, given in enumerate(shapes):
        # torch's message shows a Size as a Size and anything else as a tuple
        given = (given,) if isinstance(given, int) else (
            given if isinstance(given, _C.Size) else tuple(given))
        shape = list(given)
        if any(s < 0 for s in shape):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: "
                               f"{shape}")
        grow = len(shape) - len(out)
        expected = list(out)
        out = [1] * max(grow, 0) + out
        shape = [1] * (len(out) - len(shape)) + shape
        for d in reversed(range(len(out))):  # torch reports the last mismatch first
            size = shape[d]
            if size == 1 or size == out[d]:
                continue
            if out[d] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {size} at {d - len(out)}! "
                    f"Mismatching argument at index {k} had {given}; "
                    f"but expected shape should be broadcastable to {expected}")
            out[d] = size
    return _C.Size(out)


@composite(method=False)
def broadcast_tensors(*tensors: Any) -> Tuple[Any, ...]:
    """Views of tensors expanded to their common shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, _C.TensorBase):
            _C._refuse_foreign("broadcast_tensors", "element %d of argument 0" % i, t)
            raise TypeError("expected Tensor as element %d in argument 0, but got %s"
                            % (i, type(t).__name__))
    shape = list(tensors[0].shape) if tensors else []
    for t in tensors[1:]:
        # the pairwise message of the binary ops: sizes of a and b at a dim
        a, b = list(shape), list(t.shape)
        n = max(len(a), len(b))
        a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
        for d in range(n):
            if a[d] != b[d] and a[d] != 1 and b[d] != 1:
                raise RuntimeError(f"The size of tensor a ({a[d]}) must match the size of tensor "
                                   f"b ({b[d]}) at non-singleton dimension {d}")
        shape = [x if y == 1 else y for x, y in zip(a, b)]
    return tuple(t.expand(shape) for t in tensors)
