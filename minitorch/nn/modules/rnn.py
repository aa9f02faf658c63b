"""RNN, LSTM and GRU (one direction), written with differentiable ops."""
import math

import minitorch
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["RNN", "LSTM", "GRU"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


class RNNBase(Module):
    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        super().__init__()
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or \
                not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if bidirectional or proj_size:
            raise NotImplementedError("minitorch's recurrent layers are single-direction, "
                                      "without projections")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else hidden_size
            names = [f"weight_ih_l{layer}", f"weight_hh_l{layer}"]
            shapes = [(gate_size, layer_input), (gate_size, hidden_size)]
            if bias:
                names += [f"bias_ih_l{layer}", f"bias_hh_l{layer}"]
                shapes += [(gate_size,), (gate_size,)]
            for name, shape in zip(names, shapes):
                setattr(self, name, Parameter(minitorch.empty(shape, dtype=dtype)))
            self._flat_weights_names.extend(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-initializes every weight and bias uniformly in ``[-1/sqrt(hidden_size),
        1/sqrt(hidden_size)]``.
        """
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self):
        """The weights and biases, as one list per layer."""
        return [[getattr(self, n) for n in self._flat_weights_names
                 if n.endswith(f"_l{layer}")] for layer in range(self.num_layers)]

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        return s.format(**self.__dict__)

    def _check_input(self, input) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                             f"{input.dim()}D tensor instead")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def _check_hidden(self, hx, expected, what: str = "hidden") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected {what} size {expected}, got {list(hx.shape)}")

    def _cell(self, layer: int, x, state):
        raise NotImplementedError

    def _run(self, input, states):
        """input (L, N, H_in); states: a list per layer of that layer's state."""
        seq = input.unbind(0)
        for layer in range(self.num_layers):
            outs = []
            state = states[layer]
            w_ih = getattr(self, f"weight_ih_l{layer}")
            b_ih = getattr(self, f"bias_ih_l{layer}") if self.bias else None
            # The input projection of every step at once, then the recurrence.
            projected = F.linear(minitorch.stack(seq), w_ih, b_ih).unbind(0)
            for gi in projected:
                state = self._cell(layer, gi, state)
                outs.append(state[0] if isinstance(state, tuple) else state)
            states[layer] = state
            seq = outs
            if self.dropout and self.training and layer < self.num_layers - 1:
                seq = [F.dropout(o, self.dropout, True) for o in seq]
        return minitorch.stack(seq), states

    def _hidden_proj(self, layer: int, h):
        w_hh = getattr(self, f"weight_hh_l{layer}")
        b_hh = getattr(self, f"bias_hh_l{layer}") if self.bias else None
        return F.linear(h, w_hh, b_hh)

    def _prepare(self, input):
        self._check_input(input)
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if input.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        return input, batched

    def _finish(self, output, batched):
        if not batched:
            return output.squeeze(1)
        return output.transpose(0, 1) if self.batch_first else output

    def _initial(self, hx, input, batched, what="hidden"):
        n = input.shape[1]
        expected = (self.num_layers, n, self.hidden_size) if batched else (
            self.num_layers, self.hidden_size)
        if hx is None:
            return [minitorch.zeros(n, self.hidden_size, dtype=input.dtype)
                    for _ in range(self.num_layers)]
        if batched and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                               f"{hx.dim()}-D tensor")
        if not batched and hx.dim() != 2:
            raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                               f"{hx.dim()}-D tensor")
        self._check_hidden(hx, expected, what)
        if not batched:
            hx = hx.unsqueeze(1)
        return list(hx.unbind(0))

    def _stack_state(self, states, batched):
        h = minitorch.stack(states)
        return h if batched else h.squeeze(1)


class RNN(RNNBase):
    """An Elman RNN with tanh or ReLU non-linearity."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device=None,
                 dtype=None) -> None:
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, dtype=dtype)
        self.nonlinearity = nonlinearity

    def _cell(self, layer, gi, h):
        pre = gi + self._hidden_proj(layer, h)
        return pre.tanh() if self.mode == "RNN_TANH" else pre.relu()

    def forward(self, input, hx=None):
        input, batched = self._prepare(input)
        states = self._initial(hx, input, batched)
        output, states = self._run(input, states)
        return self._finish(output, batched), self._stack_state(states, batched)


class LSTM(RNNBase):
    """A multi-layer long short-term memory RNN."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def _cell(self, layer, gi, state):
        h, c = state
        gates = gi + self._hidden_proj(layer, h)
        i, f, g, o = gates.chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return h, c

    def forward(self, input, hx=None):
        input, batched = self._prepare(input)
        if hx is None:
            h0 = self._initial(None, input, batched)
            c0 = self._initial(None, input, batched)
        else:
            if not isinstance(hx, tuple) or len(hx) != 2:
                raise RuntimeError("LSTM expects hx to be a tuple (h_0, c_0)")
            h0 = self._initial(hx[0], input, batched)
            c0 = self._initial(hx[1], input, batched, "cell")
        output, states = self._run(input, list(zip(h0, c0)))
        h_n = self._stack_state([s[0] for s in states], batched)
        c_n = self._stack_state([s[1] for s in states], batched)
        return self._finish(output, batched), (h_n, c_n)


class GRU(RNNBase):
    """A multi-layer gated recurrent unit RNN."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("GRU", *args, **kwargs)

    def _cell(self, layer, gi, h):
        gh = self._hidden_proj(layer, h)
        i_r, i_z, i_n = gi.chunk(3, 1)
        h_r, h_z, h_n = gh.chunk(3, 1)
        r = (i_r + h_r).sigmoid()
        z = (i_z + h_z).sigmoid()
        n = (i_n + r * h_n).tanh()
        return (1 - z) * n + z * h

    def forward(self, input, hx=None):
        input, batched = self._prepare(input)
        states = self._initial(hx, input, batched)
        output, states = self._run(input, states)
        return self._finish(output, batched), self._stack_state(states, batched)
