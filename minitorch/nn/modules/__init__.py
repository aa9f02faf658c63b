"""The nn layers, one file per family, as torch.nn.modules."""
from .module import Module  # noqa: F401
from .container import (  # noqa: F401
    Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict)
from .linear import Identity, Linear, Bilinear  # noqa: F401
from .flatten import Flatten, Unflatten  # noqa: F401
from .activation import (  # noqa: F401
    ReLU, LeakyReLU, GELU, SiLU, Sigmoid, Tanh, Softmax, LogSoftmax, MultiheadAttention)
from .activation_simple import (  # noqa: F401
    ELU, SELU, CELU, ReLU6, Hardtanh, Hardsigmoid, Hardswish, Mish, LogSigmoid, Softsign,
    Softshrink, Hardshrink, Tanhshrink, Threshold, GLU, Softmin, Softplus, CosineSimilarity,
    PairwiseDistance)
from .conv import Conv1d, Conv2d  # noqa: F401
from .conv import Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d  # noqa: F401
from .pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d  # noqa: F401
from .pooling import MaxPool3d, AvgPool3d, AdaptiveAvgPool3d  # noqa: F401
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm, GroupNorm, RMSNorm  # noqa: F401
from .instancenorm import *  # noqa: F403
from .transformer import *  # noqa: F403
from .dropout import Dropout  # noqa: F401
from .sparse import Embedding  # noqa: F401
from .rnn import RNNBase, RNN, LSTM, GRU  # noqa: F401
from .rnn_cells import RNNCellBase, RNNCell, LSTMCell, GRUCell  # noqa: F401
from .loss import (  # noqa: F401
    L1Loss, MSELoss, SmoothL1Loss, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss,
    KLDivLoss)
from .padding import *  # noqa: F403
from .loss_extra import *  # noqa: F403
from .pooling1d import *  # noqa: F403
from .pooling_adaptive_max import *  # noqa: F403
from .upsampling import *  # noqa: F403
from .pixelshuffle import *  # noqa: F403
from .fold import *  # noqa: F403
