"""nn.utils.parametrize, parametrizations.weight_norm/spectral_norm and the
legacy weight_norm hooks against torch: state_dict layout, parametrized values
and gradients after loading torch's state, caching, removal and errors."""
import copy

import numpy as np
import pytest

import minitorch as mt
from minitorch.nn.utils import parametrizations as P
from minitorch.nn.utils import parametrize
from minitorch.testing import assert_close

torch = pytest.importorskip("torch")
TP = torch.nn.utils.parametrizations
RNG = np.random.default_rng(11)


def _same(m, t):
    assert_close(m.detach(), mt.tensor(t.detach().numpy()))


def _load(m, t):
    m.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})


def _linears():
    t = torch.nn.Linear(3, 4).double()
    m = mt.nn.Linear(3, 4).double()
    return m, t


def _conv():
    t = torch.nn.Conv2d(2, 3, 2).double()
    m = mt.nn.Conv2d(2, 3, 2).double()
    return m, t


def _compare_grads(m, t, mx, tx):
    mo, to = m(mx), t(tx)
    _same(mo, to)
    g = RNG.standard_normal(tuple(to.shape))
    (mo * mt.tensor(g)).sum().backward()
    (to * torch.tensor(g)).sum().backward()
    tparams = dict(t.named_parameters())
    for name, p in m.named_parameters():
        _same(p.grad, tparams[name].grad)


class Symmetric(mt.nn.Module):
    """X -> triu(X) + triu(X, 1)^T."""

    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


class TSymmetric(torch.nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


class Double(mt.nn.Module):
    """X -> 2X, with its right inverse."""

    def forward(self, x):
        return 2 * x

    def right_inverse(self, x):
        return x / 2


def test_register_and_remove_parametrization():
    m = mt.nn.Linear(3, 3)
    w = m.weight.detach().clone()
    parametrize.register_parametrization(m, "weight", Symmetric())
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias")
    assert type(m).__name__ == "ParametrizedLinear"
    assert parametrize.type_before_parametrizations(m) is mt.nn.Linear
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert_close(m.weight, w.triu() + w.triu(1).t())
    assert mt.equal(m.weight, m.weight.t())
    with parametrize.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is mt.nn.Linear and not hasattr(m, "parametrizations")
    assert isinstance(m.weight, mt.nn.Parameter) and mt.equal(m.weight, m.weight.t())


def test_chain_assignment_and_leave_unparametrized():
    m = mt.nn.Linear(2, 2)
    w = m.weight.detach().clone()
    parametrize.register_parametrization(m, "weight", Double())
    parametrize.register_parametrization(m, "weight", Double())
    assert_close(m.parametrizations.weight.original.detach(), w / 2)  # as torch: appending
    assert_close(m.weight.detach(), 2 * w)  # does not re-invert the original
    m.weight = mt.ones(2, 2)
    assert_close(m.parametrizations.weight.original.detach(), mt.full((2, 2), 0.25))
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    assert_close(m.weight.detach(), mt.full((2, 2), 0.25))
    with pytest.raises(RuntimeError, match="^parametrization Symmetric does not implement "
                                           "right_inverse.$"):
        n = parametrize.register_parametrization(mt.nn.Linear(2, 2), "weight", Symmetric())
        n.weight = mt.ones(2, 2)


def test_parametrize_errors_match_torch():
    class Shrink(mt.nn.Module):
        def forward(self, x):
            return x[:1]

    class TShrink(torch.nn.Module):
        def forward(self, x):
            return x[:1]

    for twice in (False, True):  # the first parametrization, then one appended
        t, m = torch.nn.Linear(2, 2), mt.nn.Linear(2, 2)
        if twice:
            torch.nn.utils.parametrize.register_parametrization(t, "weight", TSymmetric())
            parametrize.register_parametrization(m, "weight", Symmetric())
        with pytest.raises(ValueError) as theirs:
            torch.nn.utils.parametrize.register_parametrization(t, "weight", TShrink())
        with pytest.raises(ValueError) as ours:
            parametrize.register_parametrization(m, "weight", Shrink())
        assert str(ours.value).replace("minitorch.", "torch.") == str(theirs.value)
    m = mt.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a "
                                         "parametrized element with name 'nope'"):
        parametrize.register_parametrization(m, "nope", Symmetric())
    with pytest.raises(ValueError, match="does not have a parametrization on weight$"):
        parametrize.remove_parametrizations(m, "weight")


def test_parametrized_module_grads_and_deepcopy():
    m, t = mt.nn.Linear(3, 3).double(), torch.nn.Linear(3, 3).double()
    _load(m, t)
    parametrize.register_parametrization(m, "weight", Symmetric())
    torch.nn.utils.parametrize.register_parametrization(t, "weight", TSymmetric())
    x = RNG.standard_normal((2, 3))
    _compare_grads(m, t, mt.tensor(x), torch.tensor(x))
    c = copy.deepcopy(m)
    assert type(c) is type(m)
    assert_close(c.weight, m.weight)


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_parametrization(dim):
    m, t = _conv()
    _load(m, t)
    P.weight_norm(m, dim=dim)
    TP.weight_norm(t, dim=dim)
    assert list(m.state_dict()) == list(t.state_dict())
    for k, v in t.state_dict().items():
        _same(m.state_dict()[k], v)
    x = RNG.standard_normal((1, 2, 4, 4))
    _compare_grads(m, t, mt.tensor(x), torch.tensor(x))
    parametrize.remove_parametrizations(m, "weight")
    torch.nn.utils.parametrize.remove_parametrizations(t, "weight")
    _same(m.weight, t.weight)


def _remove_and_compare(m, t, what):
    """Removes the legacy hook of kind ``what`` from both; then a second removal fails."""
    getattr(mt.nn.utils, f"remove_{what}")(m)
    getattr(torch.nn.utils, f"remove_{what}")(t)
    assert list(m.state_dict()) == list(t.state_dict())
    _same(m.weight, t.weight)
    with pytest.raises(ValueError, match=f"^{what} of 'weight' not found in "):
        getattr(mt.nn.utils, f"remove_{what}")(m)


@pytest.mark.parametrize("dim", [0, None])
def test_legacy_weight_norm(dim):
    m, t = _linears()
    _load(m, t)
    with pytest.warns(FutureWarning):
        mt.nn.utils.weight_norm(m, dim=dim)
    with pytest.warns(FutureWarning):
        torch.nn.utils.weight_norm(t, dim=dim)
    assert list(m.state_dict()) == list(t.state_dict())
    for k, v in t.state_dict().items():
        _same(m.state_dict()[k], v)
    x = RNG.standard_normal((2, 3))
    _compare_grads(m, t, mt.tensor(x), torch.tensor(x))
    with pytest.raises(RuntimeError, match="^Cannot register two weight_norm hooks on the "
                                           "same parameter weight$"):
        mt.nn.utils.weight_norm(m)
    _remove_and_compare(m, t, "weight_norm")


@pytest.mark.parametrize("make", [_linears, _conv])
def test_spectral_norm_parametrization(make):
    m, t = make()
    TP.spectral_norm(t)
    P.spectral_norm(m)
    assert list(m.state_dict()) == list(t.state_dict())
    _load(m, t)  # the same original weight and power-iteration vectors
    shape = (2, 3) if isinstance(t, torch.nn.Linear) else (1, 2, 4, 4)
    for _ in range(3):  # training: every access advances the power iteration
        x = RNG.standard_normal(shape)
        _compare_grads(m, t, mt.tensor(x), torch.tensor(x))
    for k, v in t.state_dict().items():
        _same(m.state_dict()[k], v)
    m.eval()
    t.eval()
    _same(m.weight, t.weight)
    _same(m.parametrizations.weight[0]._u, t.parametrizations.weight[0]._u)


def test_spectral_norm_errors_and_one_dimensional():
    for kw in ({"dim": 2}, {"n_power_iterations": 0}):
        with pytest.raises(Exception) as theirs:
            TP.spectral_norm(torch.nn.Linear(2, 2), **kw)
        with pytest.raises(type(theirs.value)) as ours:
            P.spectral_norm(mt.nn.Linear(2, 2), **kw)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nope'"):
        P.spectral_norm(mt.nn.Linear(2, 2), "nope")
    m, t = _linears()
    _load(m, t)
    P.spectral_norm(m, "bias")
    TP.spectral_norm(t, "bias")
    _same(m.bias, t.bias)


@pytest.mark.parametrize("make", [_linears, _conv])
def test_legacy_spectral_norm(make):
    m, t = make()
    torch.nn.utils.spectral_norm(t)
    mt.nn.utils.spectral_norm(m)
    assert list(m.state_dict()) == list(t.state_dict())
    _load(m, t)  # the same weight_orig and power-iteration vectors
    shape = (2, 3) if isinstance(t, torch.nn.Linear) else (1, 2, 4, 4)
    for _ in range(3):
        x = RNG.standard_normal(shape)
        _compare_grads(m, t, mt.tensor(x), torch.tensor(x))
    for k, v in t.state_dict().items():
        _same(m.state_dict()[k], v)
    with pytest.raises(RuntimeError, match="^Cannot register two spectral_norm hooks on the "
                                           "same parameter weight$"):
        mt.nn.utils.spectral_norm(m)
    m.eval()
    t.eval()
    x = RNG.standard_normal(shape)
    _same(m(mt.tensor(x)), t(torch.tensor(x)))
    _remove_and_compare(m, t, "spectral_norm")
    with pytest.raises(ValueError, match="^Expected n_power_iterations to be positive, but "
                                         "got n_power_iterations=0$"):
        mt.nn.utils.spectral_norm(mt.nn.Linear(2, 2), n_power_iterations=0)
