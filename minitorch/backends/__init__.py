"""minitorch.backends: torch.backends' switches as a CPU-only build has them.

The flags scripts set (``cudnn.benchmark = True``) are plain attributes that
change nothing; the availability probes report False."""
from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
