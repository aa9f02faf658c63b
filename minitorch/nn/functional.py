"""minitorch.nn.functional: the functional forms of layers and losses.

Functions declared in the op table with MT_KIND_NN come from C and dispatch
__torch_function__ there; Python-level ones use minitorch.overrides helpers.
"""
from .. import _C

globals().update(_C._nn_functions)
