"""minitorch.utils.benchmark: torch.utils.benchmark's Timer, Measurement and
Compare, for timing Python statements that use minitorch. The modules keep
torch's layout (utils/common.py, utils/timer.py, utils/compare.py)."""
from .utils.common import *  # noqa: F403
from .utils.common import __all__ as _common_all
from .utils.compare import *  # noqa: F403
from .utils.compare import __all__ as _compare_all
from .utils.timer import *  # noqa: F403
from .utils.timer import __all__ as _timer_all

__all__ = _common_all + _timer_all + _compare_all
