"""RNNCell, LSTMCell and GRUCell - one time step of a recurrent layer - and the
gate arithmetic they share with the multi-step layers of rnn.py.

The step functions take the input and hidden projections already computed
(``gi = x W_ih^T + b_ih``, ``gh = h W_hh^T + b_hh``): the layers project every
time step's input in one matmul before the recurrence. The cells in float32
and float64 run as one step of the fused ``_rnn_layer`` op instead, as do the
padded layers of rnn.py; the step functions serve the other dtypes and the
layers' packed and projected paths.
"""
import math

import minitorch
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def rnn_step(gi, gh, nonlinearity: str):
    """The Elman update: act(gi + gh)."""
    pre = gi + gh
    return pre.tanh() if nonlinearity == "tanh" else pre.relu()


def lstm_step(gi, gh, c):
    """The LSTM update from gate pre-activations (i, f, g, o); returns (h, c)."""
    i, f, g, o = (gi + gh).chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def gru_step(gi, gh, h):
    """The GRU update: the reset gate scales only the hidden part of n."""
    i_r, i_z, i_n = gi.chunk(3, 1)
    h_r, h_z, h_n = gh.chunk(3, 1)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    return (1 - z) * n + z * h


class RNNCellBase(Module):
    """Parameters, initialisation and argument checks shared by the cells."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(minitorch.empty(num_chunks * hidden_size, input_size,
                                                   dtype=dtype))
        self.weight_hh = Parameter(minitorch.empty(num_chunks * hidden_size, hidden_size,
                                                   dtype=dtype))
        if bias:
            self.bias_ih = Parameter(minitorch.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(minitorch.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.bias is not True:
            s += ", bias={bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Re-initializes every weight and bias uniformly in ``[-1/sqrt(hidden_size),
        1/sqrt(hidden_size)]``.
        """
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batch(self, input, hx):
        """input as (N, input_size) and the state tensors as (N, hidden_size),
        zeros where absent, with torch's checks; and whether input was batched.
        """
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.dim()}D instead")
        for k, h in enumerate(hx):
            if h is not None and h.dim() not in (1, 2):
                label = f"hx[{k}]" if len(hx) == 2 else "hidden"
                raise ValueError(f"{type(self).__name__}: Expected {label} to be 1D or 2D, "
                                 f"got {h.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {self.input_size}")
        states = []
        for k, h in enumerate(hx):
            if h is None:
                h = minitorch.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            elif not batched:
                h = h.unsqueeze(0)
            if h.size(0) != input.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match "
                                   f"hidden{k} batch size {h.size(0)}")
            if h.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.size(1)}, "
                                   f"expected {self.hidden_size}")
            states.append(h)
        return input, states, batched

    def _fused(self, input, cell: int, h, c=None):
        """One step of _rnn_layer from input and the state; (h, c) or None when
        the dtype has no fused kernel.
        """
        if input.dtype not in (minitorch.float32, minitorch.float64):
            return None
        _, h, c, _ = minitorch._rnn_layer(input.unsqueeze(0), h, h if c is None else c,
                                          self.weight_ih, self.bias_ih, self.weight_hh,
                                          self.bias_hh, cell, False)
        return h, c

    def _projections(self, input, h):
        return (F.linear(input, self.weight_ih, self.bias_ih),
                F.linear(h, self.weight_hh, self.bias_hh))


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, dtype=dtype)
        self.nonlinearity = nonlinearity  # torch checks it only when stepping

    def forward(self, input, hx=None):
        """The next hidden state, (N, hidden_size) or (hidden_size,) unbatched."""
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        input, (h,), batched = self._batch(input, [hx])
        fused = self._fused(input, 0 if self.nonlinearity == "tanh" else 1, h)
        if fused is not None:
            h = fused[0]
        else:
            h = rnn_step(*self._projections(input, h), self.nonlinearity)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of an LSTM; takes and returns the pair ``(h, c)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, dtype=dtype)

    def forward(self, input, hx=None):
        """The next ``(h, c)``, each (N, hidden_size) or (hidden_size,) unbatched."""
        input, (h, c), batched = self._batch(input, list(hx) if hx is not None else
                                             [None, None])
        fused = self._fused(input, 2, h, c)
        h, c = fused if fused is not None else lstm_step(*self._projections(input, h), c)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One step of a gated recurrent unit."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, dtype=dtype)

    def forward(self, input, hx=None):
        """The next hidden state, (N, hidden_size) or (hidden_size,) unbatched."""
        input, (h,), batched = self._batch(input, [hx])
        fused = self._fused(input, 3, h)
        h = fused[0] if fused is not None else gru_step(*self._projections(input, h), h)
        return h if batched else h.squeeze(0)
