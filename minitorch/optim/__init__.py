"""minitorch.optim: optimizers and learning-rate schedules, as torch.optim.

Most parameter updates are one fused C call per parameter (the op-table rows
_fused_sgd_step, _fused_adam_step, _fused_rmsprop_step, _fused_adagrad_step,
_fused_nadam_step, _fused_radam_step, _fused_adamax_step, _fused_rprop_step,
_fused_asgd_step); with differentiable=True the same updates run as tensor ops
inside autograd (optim.differentiable). Adadelta, Adafactor and Muon, LBFGS
and SparseAdam's refusal of dense gradients are written with tensor ops."""
from . import lr_scheduler  # noqa: F401
from .adadelta import Adadelta  # noqa: F401
from .adafactor import Adafactor  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .adamax import Adamax  # noqa: F401
from .asgd import ASGD  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .muon import Muon  # noqa: F401
from .nadam import NAdam  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .radam import RAdam  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .rprop import Rprop  # noqa: F401
from .sgd import SGD  # noqa: F401
from .sparse_adam import SparseAdam  # noqa: F401
