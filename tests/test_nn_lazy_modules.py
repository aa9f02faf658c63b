"""Lazy modules against torch: UninitializedParameter/Buffer (what may and may
not be done with one, materialize), LazyModuleMixin's hooks (the first
forward infers the shapes and turns the module into its cls_to_become; a
state dict loaded first materializes it), and the lazy convolutions."""
import copy

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
from minitorch.nn.modules.lazy import LazyModuleMixin
from minitorch.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
LAZY = [("LazyConv1d", 1), ("LazyConv2d", 2), ("LazyConv3d", 3),
        ("LazyConvTranspose1d", 1), ("LazyConvTranspose2d", 2), ("LazyConvTranspose3d", 3)]


def test_uninitialized_parameter():
    p = UninitializedParameter()
    assert is_lazy(p) and isinstance(p, nn.Parameter) and p.requires_grad
    assert repr(p) == "<UninitializedParameter>"
    assert p.dtype == mt.float32 and p.size() == (0,)
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
        p + 1
    with pytest.raises(ValueError, match="uninitialized parameter"):
        mt.mul(p, 2)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        p.shape
    with pytest.raises(RuntimeError, match="Can't share memory on an uninitialized"):
        p.share_memory_()
    p.materialize((2, 3), dtype=mt.float64)
    assert type(p) is nn.Parameter and not is_lazy(p)
    assert p.shape == (2, 3) and p.dtype == mt.float64 and p.requires_grad


def test_uninitialized_parameter_keeps_dtype_and_copies():
    p = UninitializedParameter(requires_grad=False, dtype=mt.float64)
    q = copy.deepcopy(p)
    assert type(q) is UninitializedParameter and q is not p
    assert q.dtype == mt.float64 and not q.requires_grad
    q.materialize(4)
    assert q.shape == (4,) and q.dtype == mt.float64 and not q.requires_grad
    assert is_lazy(p)


def test_uninitialized_buffer():
    b = UninitializedBuffer()
    assert is_lazy(b) and isinstance(b, nn.Buffer) and not b.requires_grad
    assert repr(b) == "<UninitializedBuffer>"
    b.materialize((3,))
    assert type(b) is mt.Tensor and b.shape == (3,)


@pytest.mark.parametrize("name,n", LAZY)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("groups,bias", [(1, True), (2, False)])
def test_lazy_conv_matches_torch(name, n, batched, groups, bias):
    lead = (2, 4) if batched else (4,)
    x = RNG.standard_normal(lead + (5,) * n)
    torch.manual_seed(0)
    tm = getattr(torch.nn, name)(6, 3, groups=groups, bias=bias).double()
    mm = getattr(nn, name)(6, 3, groups=groups, bias=bias).double()
    assert repr(mm) == repr(tm)
    assert mm.has_uninitialized_params()
    assert all(is_lazy(p) for p in mm.parameters())
    out_t = tm(torch.tensor(x))
    mm(mt.tensor(x))  # initializes
    assert type(mm).__name__ == type(tm).__name__ == name[4:]
    assert repr(mm) == repr(tm)
    assert not any(is_lazy(p) for p in mm.parameters()) and not mm._forward_pre_hooks
    assert not hasattr(mm, "has_uninitialized_params")
    assert [(k, tuple(v.shape), v.dtype) for k, v in mm.state_dict().items()] == \
        [(k, tuple(v.shape), getattr(mt, str(v.dtype)[6:])) for k, v in tm.state_dict().items()]
    # kaiming-initialized: within the bound for its fan-in, not the empty data
    w = mm.weight.detach().numpy()
    fan_in = w.shape[1] * w[0, 0].size
    assert np.all(np.abs(w) <= 1 / np.sqrt(fan_in)) and np.abs(w).max() > 0
    mm.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    a = mt.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    np.testing.assert_allclose(mm(a).detach().numpy(), out_t.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    mm(a).sum().backward()
    tm(b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mm.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("name,n", LAZY)
def test_lazy_conv_state_dict_before_and_load(name, n):
    mm = getattr(nn, name)(4, 2)
    state = mm.state_dict()
    assert sorted(state) == ["bias", "weight"] and all(is_lazy(v) for v in state.values())
    full = getattr(nn, name)(4, 2)
    full(mt.zeros((1, 3) + (4,) * n))
    fresh = getattr(nn, name)(4, 2)
    fresh.load_state_dict(full.state_dict())
    # loaded, not inferred: the module keeps its lazy class until its forward
    assert not fresh.has_uninitialized_params() and type(fresh).__name__ == name
    np.testing.assert_array_equal(fresh.weight.detach().numpy(), full.weight.detach().numpy())
    fresh(mt.zeros((1, 3) + (4,) * n))
    assert type(fresh).__name__ == name[4:]
    np.testing.assert_array_equal(fresh.weight.detach().numpy(), full.weight.detach().numpy())


@pytest.mark.parametrize("name,n", LAZY)
@pytest.mark.parametrize("rank_offset", [-1, 2])
def test_lazy_conv_rank_error(name, n, rank_offset):
    shape = (3,) * (n + 1 + rank_offset)
    with pytest.raises(RuntimeError) as want:
        getattr(torch.nn, name)(4, 2)(torch.zeros(shape))
    with pytest.raises(RuntimeError) as got:
        getattr(nn, name)(4, 2)(mt.zeros(shape))
    assert str(got.value).replace("minitorch", "torch") == str(want.value)


@pytest.mark.parametrize("name,n", LAZY)
def test_lazy_conv_groups_error(name, n):
    with pytest.raises(ValueError, match="^in_channels must be divisible by groups$"):
        getattr(nn, name)(4, 2, groups=2)(mt.zeros((1, 3) + (5,) * n))


def test_lazy_dtype_set_before_the_first_forward():
    m = nn.LazyConv2d(3, 2).to(mt.float64)
    assert is_lazy(m.weight) and m.weight.dtype == mt.float64
    y = m(mt.zeros(1, 2, 4, 4, dtype=mt.float64))
    assert m.weight.dtype == y.dtype == mt.float64


def test_mixin_requires_initialize_parameters():
    class Half(LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.w = UninitializedParameter()

        def forward(self, x):
            return x

    with pytest.raises(NotImplementedError, match="initialize_parameters is not implemented "
                                                  "for Half"):
        Half()(mt.zeros(2))

    class Forgets(Half):
        def initialize_parameters(self, x):
            pass

    with pytest.raises(RuntimeError, match="module Forgets has not been fully initialized"):
        Forgets()(mt.zeros(2))


def test_uninitialized_state_saves_and_loads():
    import io
    import pickle
    m = nn.LazyConv1d(3, 2)
    buf = io.BytesIO()
    mt.save(m.state_dict(), buf)
    buf.seek(0)
    loaded = mt.load(buf, weights_only=False)
    assert sorted(loaded) == ["bias", "weight"]
    assert all(type(v) is UninitializedParameter for v in loaded.values())
    buf.seek(0)
    from_torch = torch.load(buf, weights_only=False)
    assert all(type(v) is torch.nn.UninitializedParameter for v in from_torch.values())
    copied = pickle.loads(pickle.dumps(m))
    copied(mt.zeros(1, 2, 5))
    assert type(copied) is nn.Conv1d and copied.weight.shape == (3, 2, 2)
