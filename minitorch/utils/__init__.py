"""minitorch.utils: helpers beside the tensor library (data loading, activation
checkpointing)."""
from . import checkpoint, data, safetensors  # noqa: F401
