"""minitorch.nn: neural-network building blocks."""
from . import functional, init  # noqa: F401
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from .modules import *  # noqa: F403
from . import modules  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from . import utils  # noqa: F401
