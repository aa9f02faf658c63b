"""minitorch.nn.parallel: data parallelism over minitorch.distributed, and
DataParallel as a CPU build of torch has it."""
from .data_parallel import DataParallel, data_parallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401
