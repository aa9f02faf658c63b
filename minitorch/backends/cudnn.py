"""minitorch.backends.cudnn: cuDNN's switches; settable, without effect here."""
from typing import Optional

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """False: minitorch has no cuDNN."""
    return False


def version() -> Optional[int]:
    """None: no cuDNN library is loaded."""
    return None
