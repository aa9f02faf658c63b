"""minitorch.utils: helpers beside the tensor library (data loading, activation
checkpointing, hook handles, pytrees)."""
from . import _pytree, checkpoint, data, hooks, safetensors  # noqa: F401
