"""pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence,
unpad/unpack and PackedSequence through RNN/LSTM/GRU, against torch: data,
batch sizes, indices, lengths, outputs, final states and gradients."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
from minitorch.nn.utils import rnn as mrnn
from minitorch.testing import assert_close

torch = pytest.importorskip("torch")
trnn = torch.nn.utils.rnn
RNG = np.random.default_rng(3)


def _pair(*shape, dtype=np.float64):
    a = RNG.standard_normal(shape).astype(dtype)
    return mt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _same(m, t):
    assert_close(m.detach(), mt.tensor(t.detach().numpy()))


def _same_packed(m, t):
    _same(m.data, t.data)
    assert m.batch_sizes.tolist() == t.batch_sizes.tolist()
    for a, b in ((m.sorted_indices, t.sorted_indices),
                 (m.unsorted_indices, t.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.tolist() == b.tolist()


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence(batch_first, side):
    pairs = [_pair(n, 2) for n in (3, 5, 1)]
    m = mrnn.pad_sequence([p[0] for p in pairs], batch_first, -1.5, side)
    t = trnn.pad_sequence([p[1] for p in pairs], batch_first, -1.5, side)
    _same(m, t)
    g = RNG.standard_normal(tuple(t.shape))
    (m * mt.tensor(g)).sum().backward()
    (t * torch.tensor(g)).sum().backward()
    for a, b in pairs:
        _same(a.grad, b.grad)


def test_pad_sequence_tensor_input_dtype_and_errors():
    x = np.arange(6.0).reshape(2, 3)
    _same(mrnn.pad_sequence(mt.tensor(x)), trnn.pad_sequence(torch.tensor(x)))
    m = mrnn.pad_sequence([mt.ones(2, dtype=mt.float32), mt.ones(3, dtype=mt.float64)])
    assert m.dtype == mt.float32
    for args, kw in [(([],), {}), (([mt.ones(2)],), {"padding_side": "mid"}), ((3,), {})]:
        targs = tuple([] if a == [] else a for a in args)
        if args[0] != [] and isinstance(args[0], list):
            targs = ([torch.ones(2)],)
        with pytest.raises(RuntimeError) as theirs:
            trnn.pad_sequence(*targs, **kw)
        with pytest.raises(RuntimeError) as ours:
            mrnn.pad_sequence(*args, **kw)
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_and_pad_round_trip(batch_first, enforce_sorted):
    lengths = [4, 3, 1] if enforce_sorted else [2, 4, 1]
    mx, tx = _pair(3, 4, 2) if batch_first else _pair(4, 3, 2)
    mp = mrnn.pack_padded_sequence(mx, lengths, batch_first, enforce_sorted)
    tp = trnn.pack_padded_sequence(tx, lengths, batch_first, enforce_sorted)
    _same_packed(mp, tp)
    mo, ml = mrnn.pad_packed_sequence(mp, batch_first, 7.0, total_length=6)
    to, tl = trnn.pad_packed_sequence(tp, batch_first, 7.0, total_length=6)
    _same(mo, to)
    assert ml.tolist() == tl.tolist() and ml.dtype == mt.int64
    g = RNG.standard_normal(tuple(to.shape))
    (mo * mt.tensor(g)).sum().backward()
    (to * torch.tensor(g)).sum().backward()
    _same(mx.grad, tx.grad)
    for a, b in zip(mrnn.unpack_sequence(mp), trnn.unpack_sequence(tp)):
        _same(a, b)
    for a, b in zip(mrnn.unpad_sequence(mo, ml, batch_first),
                    trnn.unpad_sequence(to.detach().clone(), tl, batch_first)):
        _same(a, b)


def test_pack_sequence_and_lengths_tensor():
    pairs = [_pair(n, 3) for n in (2, 5, 3)]
    mp = mrnn.pack_sequence([p[0] for p in pairs], enforce_sorted=False)
    tp = trnn.pack_sequence([p[1] for p in pairs], enforce_sorted=False)
    _same_packed(mp, tp)
    x = RNG.standard_normal((3, 2))
    _same_packed(mrnn.pack_padded_sequence(mt.tensor(x), mt.tensor([3, 2])),
                 trnn.pack_padded_sequence(torch.tensor(x), torch.tensor([3, 2])))
    assert mrnn.invert_permutation(mt.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert mrnn.invert_permutation(None) is None


def test_packing_errors_match_torch():
    cases = [([4, 2, 3], {}), ([4, 3, 0], {}), ([4, 3], {}),
             ([4, 3, 2], {"batch_first": True})]
    x = np.zeros((4, 3, 2))
    for lengths, kw in cases:
        with pytest.raises(RuntimeError) as theirs:
            trnn.pack_padded_sequence(torch.tensor(x), lengths, **kw)
        with pytest.raises(RuntimeError) as ours:
            mrnn.pack_padded_sequence(mt.tensor(x), lengths, **kw)
        assert str(ours.value) == str(theirs.value)
    tp = trnn.pack_sequence([torch.ones(3, 1)])
    mp = mrnn.pack_sequence([mt.ones(3, 1)])
    with pytest.raises(ValueError) as theirs:
        trnn.pad_packed_sequence(tp, total_length=2)
    with pytest.raises(ValueError) as ours:
        mrnn.pad_packed_sequence(mp, total_length=2)
    assert str(ours.value) == str(theirs.value)


def test_packed_sequence_is_a_tuple_with_fields():
    p = mrnn.pack_sequence([mt.ones(2, 1), mt.ones(1, 1)])
    data, batch_sizes, sorted_indices, unsorted_indices = p
    assert p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert batch_sizes.tolist() == [2, 1] and sorted_indices is None
    assert p.float().data.dtype == mt.float32 and p.double().data.dtype == mt.float64
    assert p.to(mt.float32) is p and not p.is_cuda and not p.is_pinned() and p.cpu() is p


def _weights(m, t):
    m.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("with_hx", [False, True])
def test_rnn_on_packed_sequences(kind, bidirectional, with_hx):
    kw = dict(num_layers=2, bidirectional=bidirectional)
    if kind == "LSTM":
        kw["proj_size"] = 2 if bidirectional else 0
    t = getattr(torch.nn, kind)(3, 4, **kw).double()
    m = getattr(nn, kind)(3, 4, **kw).double()
    _weights(m, t)
    lengths = [3, 5, 1, 4]
    mx, tx = _pair(5, 4, 3)
    mp = mrnn.pack_padded_sequence(mx, lengths, enforce_sorted=False)
    tp = trnn.pack_padded_sequence(tx, lengths, enforce_sorted=False)
    d = 2 if bidirectional else 1
    mh = th = None
    if with_hx:
        out_size = kw.get("proj_size") or 4
        if kind == "LSTM":
            (mh0, th0), (mc0, tc0) = _pair(2 * d, 4, out_size), _pair(2 * d, 4, 4)
            mh, th = (mh0, mc0), (th0, tc0)
        else:
            mh, th = _pair(2 * d, 4, 4)
    mo, mstate = m(mp, mh)
    to, tstate = t(tp, th)
    _same_packed(mo, to)
    mstates = list(mstate) if kind == "LSTM" else [mstate]
    tstates = list(tstate) if kind == "LSTM" else [tstate]
    for a, b in zip(mstates, tstates):
        _same(a, b)
    mloss, tloss = mo.data.sum(), to.data.sum()
    for a, b in zip(mstates, tstates):
        g = RNG.standard_normal(tuple(b.shape))
        mloss = mloss + (a * mt.tensor(g)).sum()
        tloss = tloss + (b * torch.tensor(g)).sum()
    mloss.backward()
    tloss.backward()
    _same(mx.grad, tx.grad)
    if with_hx:
        for a, b in zip(mh if kind == "LSTM" else [mh], th if kind == "LSTM" else [th]):
            _same(a.grad, b.grad)
    tparams = dict(t.named_parameters())
    for name, p in m.named_parameters():
        _same(p.grad, tparams[name].grad)


def test_packed_input_and_state_errors_match_torch():
    t, m = torch.nn.GRU(3, 4), nn.GRU(3, 4)
    tp = trnn.pack_sequence([torch.randn(3, 3), torch.randn(2, 3)])
    mp = mrnn.pack_sequence([mt.randn(3, 3), mt.randn(2, 3)])
    cases = [(lambda lib, p: (p, lib.zeros(1, 3, 4))),
             (lambda lib, p: (p, lib.zeros(1, 2, 4, 1))),
             (lambda lib, p: (type(p)(lib.zeros(5, 2), p.batch_sizes),)),
             (lambda lib, p: (type(p)(lib.zeros(5, 2, 3), p.batch_sizes),))]
    for args in cases:
        with pytest.raises(RuntimeError) as theirs:
            t(*args(torch, tp))
        with pytest.raises(RuntimeError) as ours:
            m(*args(mt, mp))
        assert str(ours.value) == str(theirs.value)
    for x, h in (((5, 2, 3), (1, 2, 4, 1)), ((5, 3), (1, 1, 4))):
        with pytest.raises(RuntimeError) as theirs:
            t(torch.zeros(x), torch.zeros(h))
        with pytest.raises(RuntimeError) as ours:
            m(mt.zeros(x), mt.zeros(h))
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_long_sequences_padded_and_packed(kind):
    """More time steps than an op's list argument holds (32)."""
    t = getattr(torch.nn, kind)(2, 3, bidirectional=True).double()
    m = getattr(nn, kind)(2, 3, bidirectional=True).double()
    _weights(m, t)
    mx, tx = _pair(40, 3, 2)
    mo, _ = m(mx)
    to, _ = t(tx)
    _same(mo, to)
    lengths = [40, 37, 5]
    mp, _ = m(mrnn.pack_padded_sequence(mx, lengths))
    tp, _ = t(trnn.pack_padded_sequence(tx, lengths))
    _same_packed(mp, tp)
    _same(mrnn.pad_packed_sequence(mp)[0], trnn.pad_packed_sequence(tp)[0])
