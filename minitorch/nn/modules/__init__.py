"""The nn layers, one file per family, as torch.nn.modules. Each family's
file lists its public classes in its __all__; this package and minitorch.nn
export them, so a new layer is its class and its name in that list."""
from .module import *  # noqa: F403
from .container import *  # noqa: F403
from .linear import *  # noqa: F403
from .flatten import *  # noqa: F403
from .activation import *  # noqa: F403
from .activation_simple import *  # noqa: F403
from .conv import *  # noqa: F403
from .pooling import *  # noqa: F403
from .normalization import *  # noqa: F403
from .instancenorm import *  # noqa: F403
from .transformer import *  # noqa: F403
from .dropout import *  # noqa: F403
from .sparse import *  # noqa: F403
from .rnn import *  # noqa: F403
from .rnn_cells import *  # noqa: F403
from .loss import *  # noqa: F403
from .padding import *  # noqa: F403
from .loss_extra import *  # noqa: F403
from .pooling1d import *  # noqa: F403
from .pooling_adaptive_max import *  # noqa: F403
from .upsampling import *  # noqa: F403
from .pixelshuffle import *  # noqa: F403
from .fold import *  # noqa: F403
from .lp_pooling import *  # noqa: F403
from .conv_lazy import *  # noqa: F403
from .unpooling import *  # noqa: F403
from .pooling_fractional import *  # noqa: F403
from .linear_cross_entropy import *  # noqa: F403
from .sync_batchnorm import *  # noqa: F403
