"""minitorch.optim: optimizers and learning-rate schedules, as torch.optim.

Every parameter update is one fused C call per parameter (the op-table rows
_fused_sgd_step, _fused_adam_step, _fused_rmsprop_step, _fused_adagrad_step)."""
from . import lr_scheduler  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .sgd import SGD  # noqa: F401
