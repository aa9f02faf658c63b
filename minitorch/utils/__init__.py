"""minitorch.utils: helpers beside the tensor library (data loading, activation
checkpointing, hook handles)."""
from . import checkpoint, data, hooks, safetensors  # noqa: F401
