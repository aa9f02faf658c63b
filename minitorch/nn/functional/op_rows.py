"""The op table's rows published as nn.functional.<name> (declared with
MT_KIND_NN): they come from C and dispatch __torch_function__ there."""
from typing import TYPE_CHECKING

from ... import _C

if TYPE_CHECKING:  # the same functions, typed from their rows (tools/gen_stubs.py)
    from .._op_functions import *  # noqa: F403
else:
    globals().update(_C._nn_functions)
    __all__ = sorted(_C._nn_functions)
