"""minitorch.func: composable function transforms, as torch.func.

``grad``, ``grad_and_value``, ``vjp`` and ``jvp`` differentiate through the C
graph (_transforms.py); ``vmap`` batches a function over a dimension
(_vmap.py, with the BatchedTensor of _batched.py, the mode of _dispatch.py and
the batching rules of _rules.py).
"""
from ._transforms import grad, grad_and_value, jvp, vjp
from ._vmap import vmap

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp"]
