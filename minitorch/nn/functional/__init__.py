"""minitorch.nn.functional: the functional forms of layers and losses.

The op table's rows declared with MT_KIND_NN come from C (op_rows) and
dispatch __torch_function__ there; the Python-level functions, in one module
per job, are written with differentiable minitorch ops and dispatch through
overrides.overridable. This module only gathers them: it is the namespace
users, pickle and the stubs name every one of them by.
"""
from ..._tensor import Tensor as Tensor
from ...composites_conv import (  # torch.conv3d is F.conv3d, and so on
    conv3d as conv3d, conv_transpose1d as conv_transpose1d,
    conv_transpose2d as conv_transpose2d, conv_transpose3d as conv_transpose3d)
from .op_rows import *  # noqa: F403  (first: padding's pad takes over from the row)
from .bilinear_map import *  # noqa: F403
from .dropouts import *  # noqa: F403
from .rectifiers import *  # noqa: F403
from .condensed_distances import *  # noqa: F403
from .embeddings import *  # noqa: F403
from .normalization import *  # noqa: F403
from .losses import *  # noqa: F403
from .activations import *  # noqa: F403
from .padding import *  # noqa: F403
from .margin_losses import *  # noqa: F403
from .pooling1d import *  # noqa: F403
from .interpolation import *  # noqa: F403
from .pixel_shuffling import *  # noqa: F403
from .folding import *  # noqa: F403
from .grid_sampling import *  # noqa: F403
from .attention import *  # noqa: F403
from .pooling3d import *  # noqa: F403
from .adaptive_max_pooling import *  # noqa: F403
from .adaptive_avg_pooling import *  # noqa: F403
from .lp_pooling import *  # noqa: F403
from .unpooling import *  # noqa: F403
from .embedding_bags import *  # noqa: F403
from .fractional_pooling import *  # noqa: F403
from .max_pooling_with_indices import *  # noqa: F403
from .ctc import *  # noqa: F403
from .fused_linear_losses import *  # noqa: F403
