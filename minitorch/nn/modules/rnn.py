"""RNN, LSTM and GRU - multi-layer, optionally bidirectional, LSTM with
optional projections - written with differentiable ops, on padded batches or
PackedSequences.

A padded batch in float32 or float64 without projections runs each layer and
direction as one ``_rnn_layer`` op (a C loop over the steps with fused gate
arithmetic and a fused backward). Otherwise every layer and direction runs,
with differentiable ops, over a list of time steps where step ``t`` holds only
the ``sizes[t]`` sequences still running (all of them for a padded batch; the
packed batch sizes otherwise, sorted by decreasing length). A step
updates the state rows of the running sequences and leaves the others, so a
finished sequence keeps its last state, and in the reverse direction a
sequence starts from its initial state at its own last element.
"""
import math
import warnings

import minitorch
from .. import functional as F, init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, split_steps
from .module import Module
from .rnn_cells import gru_step, lstm_step, rnn_step

__all__ = ["RNNBase", "RNN", "LSTM", "GRU"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
# The cell argument of _rnn_layer.
_CELLS = {"RNN_TANH": 0, "RNN_RELU": 1, "LSTM": 2, "GRU": 3}
_FUSED_DTYPES = (minitorch.float32, minitorch.float64)


def _map(state, fn):
    """fn applied to a state: a tensor, or the (h, c) pair of an LSTM."""
    return tuple(fn(s) for s in state) if isinstance(state, tuple) else fn(state)


def _keep_finished(new, old, n: int):
    """The first n rows from new (the running sequences), the rest from old."""
    if isinstance(new, tuple):
        return tuple(_keep_finished(a, b, n) for a, b in zip(new, old))
    return new if n == old.size(0) else minitorch.cat([new, old[n:]])


class RNNBase(Module):
    """Parameters, checks and the time loop shared by RNN, LSTM and GRU."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        super().__init__()
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or \
                not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}")
        for what, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{what} should be of type {kind.__name__}, got: "
                                f"{type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size or hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                names = [f"weight_ih{suffix}", f"weight_hh{suffix}"]
                shapes = [(gate_size, layer_input), (gate_size, real_hidden)]
                if bias:
                    names += [f"bias_ih{suffix}", f"bias_hh{suffix}"]
                    shapes += [(gate_size,), (gate_size,)]
                if proj_size:
                    names.append(f"weight_hr{suffix}")
                    shapes.append((proj_size, hidden_size))
                for name, shape in zip(names, shapes):
                    setattr(self, name, Parameter(minitorch.empty(shape, dtype=dtype)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-initializes every weight and bias uniformly in ``[-1/sqrt(hidden_size),
        1/sqrt(hidden_size)]``.
        """
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def __getstate__(self):
        # torch's RNNBase.__setstate__ rebuilds its weight references from
        # _flat_weights, so a pickle torch.load reads must carry it
        state = dict(self.__dict__)
        state["_flat_weights"] = [getattr(self, n) for n in self._flat_weights_names]
        return state

    def __setstate__(self, state):
        state = {k: v for k, v in state.items() if k not in ("_flat_weights", "_flat_weight_refs")}
        super().__setstate__(state)

    def flatten_parameters(self) -> None:
        """Does nothing: torch packs the weights into one buffer for cuDNN only,
        and these layers use the parameters as they are.
        """

    @property
    def all_weights(self):
        """The weights and biases, as one list per layer and direction."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _check_input(self, input) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                             f"{input.dim()}D tensor instead")
        self._check_dtype(input)

    def _check_dtype(self, input) -> None:
        # autocast casts the input and weights itself, so torch checks only outside it
        weight = getattr(self, self._flat_weights_names[0])
        if input.dtype != weight.dtype and not minitorch.is_autocast_enabled("cpu"):
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight.dtype}). Convert input: input.to({weight.dtype}), or "
                             f"convert model: model.to({input.dtype})")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def _prepare(self, input):
        """A padded input as (L, N, H_in), and whether it was batched."""
        self._check_input(input)
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if input.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        return input, batched

    def _initial(self, hx, batch: int, batched: bool, packed: bool, size: int, dtype,
                 label: str = "hidden"):
        """hx (or zeros) as one (N, size) tensor per layer and direction."""
        layers = self.num_layers * (2 if self.bidirectional else 1)
        if hx is None:
            return [minitorch.zeros(batch, size, dtype=dtype) for _ in range(layers)]
        rank = 3 if batched else 2
        if not packed and hx.dim() != rank:  # for packed input torch checks only the size
            raise RuntimeError(f"For {'batched' if batched else 'unbatched'} {rank}-D input, "
                               f"hx should also be {rank}-D but got {hx.dim()}-D tensor")
        expected = (layers, batch, size) if batched else (layers, size)
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected {label} size {expected}, got {list(hx.shape)}")
        return list((hx if batched else hx.unsqueeze(1)).unbind(0))

    def _initial_states(self, hx, batch: int, batched: bool, packed: bool, dtype):
        """The per-layer-and-direction states the time loop starts from."""
        return self._initial(hx, batch, batched, packed, self.proj_size or self.hidden_size,
                             dtype)

    def _final_states(self, states, batched: bool, unsorted):
        def stack(parts):
            h = minitorch.stack(parts)
            if unsorted is not None:
                h = h.index_select(1, unsorted)
            return h if batched else h.squeeze(1)
        return stack(states)

    def _cell(self, suffix: str, gi, state):
        raise NotImplementedError

    def _hidden_proj(self, suffix: str, h):
        b_hh = getattr(self, f"bias_hh{suffix}") if self.bias else None
        return F.linear(h, getattr(self, f"weight_hh{suffix}"), b_hh)

    def _direction(self, suffix: str, steps, sizes, state, reverse: bool):
        """One layer in one direction over the steps: its outputs and final state."""
        b_ih = getattr(self, f"bias_ih{suffix}") if self.bias else None
        # The input projection of every step at once, then the recurrence.
        projected = F.linear(minitorch.cat(steps), getattr(self, f"weight_ih{suffix}"), b_ih)
        projected = split_steps(projected, sizes)
        outs = [None] * len(steps)
        order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
        for t in order:
            n = sizes[t]
            running = state if n == sizes[0] else _map(state, lambda s: s[:n])
            new = self._cell(suffix, projected[t], running)
            outs[t] = new[0] if isinstance(new, tuple) else new
            state = _keep_finished(new, state, n)
        return outs, state

    def _run(self, steps, sizes, states):
        """All layers over the steps (each (sizes[t], H_in)); states per layer and
        direction, replaced by the final ones.
        """
        directions = 2 if self.bidirectional else 1
        for layer in range(self.num_layers):
            outs = []
            for d in range(directions):
                k = layer * directions + d
                suffix = f"_l{layer}" + ("_reverse" if d else "")
                out, states[k] = self._direction(suffix, steps, sizes, states[k], d == 1)
                outs.append(out)
            steps = outs[0] if directions == 1 else \
                [minitorch.cat(pair, 1) for pair in zip(*outs)]
            if self.dropout and self.training and layer < self.num_layers - 1:
                steps = [F.dropout(o, self.dropout, True) for o in steps]
        return steps, states

    def _run_fused(self, x, states):
        """All layers over a padded (L, N, H_in) x with one _rnn_layer op per
        layer and direction; states as in _run.
        """
        directions = 2 if self.bidirectional else 1
        cell = _CELLS[self.mode]
        lstm = self.mode == "LSTM"
        for layer in range(self.num_layers):
            outs = []
            for d in range(directions):
                k = layer * directions + d
                suffix = f"_l{layer}" + ("_reverse" if d else "")
                b_ih = getattr(self, f"bias_ih{suffix}") if self.bias else None
                b_hh = getattr(self, f"bias_hh{suffix}") if self.bias else None
                h, c = states[k] if lstm else (states[k], states[k])
                out, h, c, _ = minitorch._rnn_layer(x, h, c, getattr(self, f"weight_ih{suffix}"),
                                                    b_ih, getattr(self, f"weight_hh{suffix}"),
                                                    b_hh, cell, d == 1)
                states[k] = (h, c) if lstm else h
                outs.append(out)
            x = outs[0] if directions == 1 else minitorch.cat(outs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, states

    def forward(self, input, hx=None):
        """Runs the layers over a padded batch (or unbatched sequence) or a
        PackedSequence; returns the output in the same form and the final state.
        """
        packed = isinstance(input, PackedSequence)
        if packed:
            data, batch_sizes, sorted_indices, unsorted_indices = input
            self._check_dtype(data)
            if data.dim() != 2:
                raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
            if data.size(-1) != self.input_size:
                raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                                   f"{self.input_size}, got {data.size(-1)}")
            sizes = batch_sizes.tolist()
            steps = split_steps(data, sizes)
            batched, dtype = True, data.dtype
            if hx is not None and sorted_indices is not None:
                hx = _map(hx, lambda h: h.index_select(1, sorted_indices))
        else:
            x, batched = self._prepare(input)
            if x.dtype in _FUSED_DTYPES and not self.proj_size:
                states = self._initial_states(hx, x.size(1), batched, False, x.dtype)
                output, states = self._run_fused(x, states)
                final = self._final_states(states, batched, None)
                if not batched:
                    return output.squeeze(1), final
                return (output.transpose(0, 1) if self.batch_first else output), final
            sizes = [x.size(1)] * x.size(0)
            steps = list(x.unbind(0))
            dtype, unsorted_indices = x.dtype, None
        states = self._initial_states(hx, sizes[0], batched, packed, dtype)
        outs, states = self._run(steps, sizes, states)
        final = self._final_states(states, batched, unsorted_indices)
        if packed:
            return PackedSequence(minitorch.cat(outs), batch_sizes, sorted_indices,
                                  unsorted_indices), final
        output = minitorch.stack(outs)
        if not batched:
            return output.squeeze(1), final
        return (output.transpose(0, 1) if self.batch_first else output), final


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

    def _cell(self, suffix, gi, h):
        return rnn_step(gi, self._hidden_proj(suffix, h), self.nonlinearity)


class LSTM(RNNBase):
    """A multi-layer long short-term memory RNN, optionally with projections."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def _cell(self, suffix, gi, state):
        h, c = state
        h, c = lstm_step(gi, self._hidden_proj(suffix, h), c)
        if self.proj_size:
            h = F.linear(h, getattr(self, f"weight_hr{suffix}"))
        return h, c

    def _initial_states(self, hx, batch, batched, packed, dtype):
        if hx is not None and (not isinstance(hx, tuple) or len(hx) != 2):
            raise RuntimeError("LSTM expects hx to be a tuple (h_0, c_0)")
        h0, c0 = (None, None) if hx is None else hx
        h = self._initial(h0, batch, batched, packed, self.proj_size or self.hidden_size,
                          dtype, "hidden[0]")
        c = self._initial(c0, batch, batched, packed, self.hidden_size, dtype, "hidden[1]")
        return list(zip(h, c))

    def _final_states(self, states, batched, unsorted):
        return (super()._final_states([s[0] for s in states], batched, unsorted),
                super()._final_states([s[1] for s in states], batched, unsorted))


class GRU(RNNBase):
    """A multi-layer gated recurrent unit RNN."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def _cell(self, suffix, gi, h):
        return gru_step(gi, self._hidden_proj(suffix, h), h)
