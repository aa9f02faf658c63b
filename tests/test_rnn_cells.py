"""RNNCell, LSTMCell and GRUCell, and bidirectional and projected RNN/LSTM/GRU,
against torch: parameter names and shapes, outputs and all gradients after
loading torch's weights, reprs and error messages."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
from test_nn_grads import check, rand

torch = pytest.importorskip("torch")

CELLS = ["RNNCell", "LSTMCell", "GRUCell"]


def _state(kind, *shape):
    return (rand(*shape), rand(*shape)) if kind == "LSTMCell" else rand(*shape)


@pytest.mark.parametrize("kind", CELLS)
def test_cell_parameters_and_repr(kind):
    m, t = getattr(nn, kind)(4, 3), getattr(torch.nn, kind)(4, 3)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert repr(m) == repr(t)
    assert repr(getattr(nn, kind)(4, 3, bias=False)) == repr(getattr(torch.nn, kind)(4, 3,
                                                                                      bias=False))
    bound = 1 / np.sqrt(3)
    assert all(float(p.abs().max()) <= bound for p in m.parameters())
    assert [n for n, _ in getattr(nn, kind)(4, 3, bias=False).named_parameters()] == \
        ["weight_ih", "weight_hh"]


@pytest.mark.parametrize("kind", CELLS)
@pytest.mark.parametrize("bias", [True, False])
def test_cell_batched_values_and_grads(kind, bias):

    def make(n):
        return getattr(n, kind)(4, 3, bias=bias)

    check(make, rand(2, 4))
    check(make, rand(2, 4), _state(kind, 2, 3))


@pytest.mark.parametrize("kind", CELLS)
def test_cell_unbatched(kind):

    def make(n):
        return getattr(n, kind)(4, 3)

    check(make, rand(4))
    check(make, rand(4), _state(kind, 3))


def test_rnn_cell_relu_and_unknown_nonlinearity():
    check(lambda n: n.RNNCell(4, 3, nonlinearity="relu"), rand(2, 4), rand(2, 3))
    assert repr(nn.RNNCell(4, 3, nonlinearity="relu")) == "RNNCell(4, 3, nonlinearity=relu)"
    cell = nn.RNNCell(4, 3, nonlinearity="x")  # torch too accepts it until the step
    with pytest.raises(RuntimeError, match="^Unknown nonlinearity: x$"):
        cell(mt.zeros(2, 4))


@pytest.mark.parametrize("kind", CELLS)
def test_cell_errors_match_torch(kind):
    m, t = getattr(nn, kind)(4, 3), getattr(torch.nn, kind)(4, 3)
    lstm = kind == "LSTMCell"
    cases = [((3, 2, 4), None), ((2, 5), None), ((2, 4), (3, 3)), ((2, 4), (2, 2)),
             ((4,), (2, 3)), ((2, 4), (1, 2, 3))]
    for xs, hs in cases:
        args_m, args_t = [mt.zeros(*xs)], [torch.zeros(*xs)]
        if hs is not None:
            args_m.append((mt.zeros(*hs), mt.zeros(*hs)) if lstm else mt.zeros(*hs))
            args_t.append((torch.zeros(*hs), torch.zeros(*hs)) if lstm else torch.zeros(*hs))
        with pytest.raises(Exception) as theirs:
            t(*args_t)
        with pytest.raises(type(theirs.value)) as ours:
            m(*args_m)
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_bidirectional_values_and_grads(kind, batch_first):
    def make(n):
        return getattr(n, kind)(3, 4, num_layers=2, bidirectional=True,
                                batch_first=batch_first)
    x = rand(2, 5, 3)
    check(make, x)
    batch = 2 if batch_first else 5
    h0 = rand(4, batch, 4)
    check(make, x, (h0, rand(4, batch, 4)) if kind == "LSTM" else h0)
    check(make, rand(5, 3))


def test_bidirectional_parameter_names_and_repr():
    m = nn.GRU(3, 4, num_layers=2, bidirectional=True)
    t = torch.nn.GRU(3, 4, num_layers=2, bidirectional=True)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert repr(m) == repr(t)
    assert [[tuple(p.shape) for p in ws] for ws in m.all_weights] == \
        [[tuple(p.shape) for p in ws] for ws in t.all_weights]


@pytest.mark.parametrize("bidirectional", [False, True])
def test_lstm_projection(bidirectional):
    def make(n):
        return n.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=bidirectional)
    m, t = make(nn), make(torch.nn)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert repr(m) == repr(t)
    d = 2 if bidirectional else 1
    check(make, rand(4, 2, 3))
    check(make, rand(4, 2, 3), (rand(2 * d, 2, 2), rand(2 * d, 2, 5)))
    check(make, rand(4, 3), (rand(2 * d, 2), rand(2 * d, 5)))


def test_construction_and_state_errors_match_torch():
    cases = [(lambda n: n.LSTM(4, 3, proj_size=-1), ()),
             (lambda n: n.LSTM(4, 3, proj_size=3), ()),
             (lambda n: n.GRU(4, 3, proj_size=0), ()),
             (lambda n: n.LSTM(4, 3, proj_size=2)(_z(n, 5, 2, 4), (_z(n, 1, 2, 3),
                                                                   _z(n, 1, 2, 3))), ()),
             (lambda n: n.LSTM(4, 3)(_z(n, 5, 2, 4), (_z(n, 1, 2, 3), _z(n, 1, 3, 3))), ()),
             (lambda n: n.GRU(4, 3, bidirectional=True)(_z(n, 5, 2, 4), _z(n, 1, 2, 3)), ())]
    for make, _ in cases:
        with pytest.raises(Exception) as theirs:
            make(torch.nn)
        with pytest.raises(type(theirs.value)) as ours:
            make(nn)
        assert str(ours.value) == str(theirs.value)


def _z(n, *shape):
    return (torch if n is torch.nn else mt).zeros(*shape)


def test_flatten_parameters_is_accepted():
    m, t = nn.LSTM(3, 4), torch.nn.LSTM(3, 4)
    assert m.flatten_parameters() is None and t.flatten_parameters() is None
