"""minitorch's C functions pickle by reference, as Python functions do.

A builtin_function (minitorch.relu, F.gelu) or Tensor method descriptor has
no state of its own: it is found again by its module and qualified name, so
a module holding one (TransformerEncoderLayer's activation) pickles, copies
and crosses processes. minitorch.save writes torch's name for it instead
(serialization/torch_paths.py).
"""
import copyreg

from . import _C
from .nn import functional as _F


def _by_reference(fn) -> str:
    return fn.__qualname__


copyreg.pickle(type(_F.relu), _by_reference)
copyreg.pickle(type(_C.TensorBase.add), _by_reference)
