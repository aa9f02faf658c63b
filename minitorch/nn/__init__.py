"""minitorch.nn: neural-network building blocks."""
from . import functional, init  # noqa: F401
from .parameter import Parameter  # noqa: F401
from .modules import *  # noqa: F403
from .modules import (  # noqa: F401
    Module, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict, Identity, Linear,
    Bilinear, Flatten, Unflatten, ReLU, LeakyReLU, GELU, SiLU, Sigmoid, Tanh, Softmax,
    LogSoftmax, MultiheadAttention, Conv1d, Conv2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d,
    BatchNorm1d, BatchNorm2d, LayerNorm, GroupNorm, Dropout, Embedding, RNNBase, RNN, LSTM, GRU,
    L1Loss, MSELoss, SmoothL1Loss, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss,
    KLDivLoss, ELU, SELU, CELU, ReLU6, Hardtanh, Hardsigmoid, Hardswish, Mish, LogSigmoid,
    Softsign, Softshrink, Hardshrink, Tanhshrink, Threshold, GLU, Softmin, Softplus,
    CosineSimilarity, PairwiseDistance, RMSNorm)
from . import modules  # noqa: F401
from . import parallel  # noqa: F401
from . import utils  # noqa: F401
