"""minitorch.func: composable function transforms, as torch.func.

``grad``, ``grad_and_value``, ``vjp`` and ``jvp`` differentiate through the C
graph (_transforms.py); ``vmap`` batches a function over a dimension
(_vmap.py, with the BatchedTensor of _batched.py, the mode of _dispatch.py and
the batching rules of _rules.py); ``jacrev``, ``jacfwd`` and ``hessian`` are
built of those (_jacobians.py); ``functional_call`` runs a module with
substituted parameters and buffers (_functional_call.py).
"""
from ._functional_call import functional_call
from ._jacobians import hessian, jacfwd, jacrev
from ._transforms import grad, grad_and_value, jvp, vjp
from ._vmap import vmap

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "functional_call"]
