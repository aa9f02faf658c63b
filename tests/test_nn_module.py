"""nn.Module behaviour against torch: registration, traversal, state_dict,
hooks, reprs, containers and init."""
import math

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn


def make_net(n=nn, T=mt):
    """The same small model written for minitorch.nn or torch.nn."""
    class Net(n.Module):
        def __init__(self):
            super().__init__()
            self.fc = n.Linear(3, 4)
            self.block = n.Sequential(n.Linear(4, 4), n.ReLU(), n.Linear(4, 2, bias=False))
            self.register_buffer("steps", T.zeros(1))
            self.register_buffer("scratch", T.zeros(2), persistent=False)

        def forward(self, x):
            return self.block(self.fc(x))
    return Net()


def test_registration_and_traversal():
    m = make_net()
    assert [n for n, _ in m.named_parameters()] == [
        "fc.weight", "fc.bias", "block.0.weight", "block.0.bias", "block.2.weight"]
    assert [n for n, _ in m.named_buffers()] == ["steps", "scratch"]
    assert [n for n, _ in m.named_children()] == ["fc", "block"]
    assert [n for n, _ in m.named_modules()] == ["", "fc", "block", "block.0", "block.1",
                                                 "block.2"]
    assert len(list(m.parameters(recurse=False))) == 0
    assert list(m.state_dict()) == ["steps", "fc.weight", "fc.bias", "block.0.weight",
                                    "block.0.bias", "block.2.weight"]
    m.shared = m.fc
    assert len(list(m.named_modules())) == 6
    assert len(list(m.named_modules(remove_duplicate=False))) == 7
    m.fc = None
    assert m.fc is None and "fc" in m._modules
    del m.block
    with pytest.raises(AttributeError, match="^'Net' object has no attribute 'block'$"):
        m.block
    assert "steps" in dir(m) and "shared" in dir(m)


def test_type_errors_and_key_errors():
    lin = nn.Linear(3, 2)
    with pytest.raises(TypeError, match=r"^cannot assign 'minitorch.FloatTensor' as parameter "
                       r"'weight' \(torch.nn.Parameter or None expected\)$"):
        lin.weight = mt.randn(2)
    with pytest.raises(TypeError, match="^int is not a Module subclass$"):
        lin.add_module("x", 3)
    with pytest.raises(TypeError, match=r"^cannot assign 'int' object to buffer 'x' \(torch "
                       r"Tensor or None required\)$"):
        lin.register_buffer("x", 3)
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        lin.register_buffer("weight", mt.ones(1))
    with pytest.raises(KeyError, match="buffer name can"):
        lin.register_buffer("a.b", mt.ones(1))
    with pytest.raises(AttributeError, match="^'Linear' object has no attribute 'foo'$"):
        lin.foo
    lin.weight = None
    assert lin.weight is None and [n for n, _ in lin.named_parameters()] == ["bias"]


def test_state_dict_round_trip_and_messages():
    a, b = make_net(), make_net()
    sd = a.state_dict()
    assert not sd["fc.weight"].requires_grad
    assert sd["fc.weight"] is not a.fc.weight
    assert a.state_dict(keep_vars=True)["fc.weight"] is a.fc.weight
    assert list(a.state_dict(prefix="p."))[0] == "p.steps"
    result = b.load_state_dict(sd)
    assert repr(result) == "<All keys matched successfully>"
    for k, v in b.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), sd[k].numpy())
    lin = nn.Linear(3, 2)
    with pytest.raises(RuntimeError) as info:
        lin.load_state_dict({"weight": mt.zeros(2, 4), "extra": mt.zeros(1)})
    assert str(info.value) == (
        'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". '
        '\n\tUnexpected key(s) in state_dict: "extra". \n\tsize mismatch for weight: copying a '
        "param with shape minitorch.Size([2, 4]) from checkpoint, the shape in current model "
        "is minitorch.Size([2, 3]).")
    res = lin.load_state_dict({"weight": mt.zeros(2, 3), "extra": mt.zeros(1)}, strict=False)
    assert res.missing_keys == ["bias"] and res.unexpected_keys == ["extra"]
    assert (lin.weight.detach().numpy() == 0).all()


def test_train_eval_apply_to_zero_grad_requires_grad():
    m = make_net()
    assert m.training and m.block[1].training
    m.eval()
    assert not m.block[1].training
    m.train()
    assert m.block[1].training
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Linear", "ReLU", "Linear", "Sequential", "Net"]
    m.double()
    assert m.fc.weight.dtype == mt.float64 and m.steps.dtype == mt.float64
    assert isinstance(m.fc.weight, nn.Parameter)
    m.to(mt.float32)
    assert m.block[0].bias.dtype == mt.float32
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        m.to(mt.int64)
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    m.fc.weight.grad = mt.ones(4, 3)
    m.zero_grad()
    assert m.fc.weight.grad is None


def test_forward_hooks():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda mod, args, out: calls.append(out) or out + 1)
    y = lin(mt.ones(1, 2))
    np.testing.assert_allclose(y.detach().numpy(), lin.bias.detach().numpy()[None] + 1, rtol=1e-6)
    assert len(calls) == 1
    h1.remove()
    h2.remove()
    y = lin(mt.ones(1, 2))
    np.testing.assert_allclose(y.detach().numpy(), (lin.weight.sum(1) + lin.bias).detach().numpy()[None],
                               rtol=1e-6)
    assert len(calls) == 1


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    assert isinstance(seq[1:], nn.Sequential) and len(seq[1:]) == 2
    seq.append(nn.Sigmoid())
    assert len(seq) == 4
    with pytest.raises(IndexError, match="index 9 is out of range"):
        seq[9]
    ml = nn.ModuleList([nn.ReLU()])
    ml.append(nn.Tanh())
    ml += [nn.ReLU()]
    assert len(ml) == 3 and len(list(ml.children())) == 3
    md = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Tanh()})
    assert list(md.keys()) == ["a", "b"] and "a" in md
    pl = nn.ParameterList([mt.ones(2), nn.Parameter(mt.zeros(3))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(pl) == 2
    pd = nn.ParameterDict({"w": mt.ones(2)})
    assert isinstance(pd["w"], nn.Parameter) and list(pd.keys()) == ["w"]


def test_init_functions():
    w = mt.empty(50, 40)
    g = mt.Generator().manual_seed(3)
    nn.init.uniform_(w, -0.5, 0.5, generator=g)
    first = w.clone()
    nn.init.uniform_(w, -0.5, 0.5, generator=mt.Generator().manual_seed(3))
    assert mt.equal(w, first) and float(w.abs().max()) <= 0.5
    bound = math.sqrt(6 / 90)
    nn.init.xavier_uniform_(w)
    assert float(w.abs().max()) <= bound
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(float(w.std()) - math.sqrt(2 / 50)) < 0.02
    nn.init.trunc_normal_(w, std=2.0, a=-1.0, b=1.5)
    assert -1.0 <= float(w.min()) and float(w.max()) <= 1.5
    nn.init.orthogonal_(w)
    np.testing.assert_allclose(w.numpy().T @ w.numpy(), np.eye(40), atol=1e-5)
    nn.init.eye_(w)
    np.testing.assert_array_equal(w.numpy(), np.eye(50, 40))
    assert nn.init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    assert nn.init.calculate_gain("tanh") == 5 / 3
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        nn.init.calculate_gain("foo")
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        nn.init.xavier_uniform_(mt.empty(3))


torch = pytest.importorskip("torch")


def test_reprs_match_torch():
    assert repr(make_net()) == repr(make_net(torch.nn, torch))
    for make in (lambda n: n.ModuleList([n.Linear(2, 2) for _ in range(3)] + [n.ReLU()]),
                 lambda n: n.ModuleDict({"a": n.Sequential(n.Conv2d(1, 2, 3), n.ReLU())}),
                 lambda n: n.Sequential(), lambda n: n.ModuleList()):
        assert repr(make(nn)) == repr(make(torch.nn))
    a = nn.ParameterList([nn.Parameter(mt.ones(2, 3)), mt.ones(2)])
    b = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2, 3)), torch.ones(2)])
    assert repr(a) == repr(b).replace("torch.", "minitorch.")


def test_state_dict_matches_torch_keys_and_messages():
    t, m = make_net(torch.nn, torch), make_net()
    assert list(t.state_dict()) == list(m.state_dict())
    bn_t, bn_m = torch.nn.BatchNorm1d(3), nn.BatchNorm1d(3)
    assert list(bn_t.state_dict()) == list(bn_m.state_dict())
    for mod, T in ((nn.Linear(3, 2), mt), (torch.nn.Linear(3, 2), torch)):
        with pytest.raises(RuntimeError) as info:
            mod.load_state_dict({"weight": T.zeros(2, 3)})
        assert str(info.value) == ('Error(s) in loading state_dict for Linear:\n\tMissing '
                                   'key(s) in state_dict: "bias". ')


def test_orthogonal_matches_qr_of_same_draw():
    # same normal draw: Q of numpy's QR with R's diagonal made positive
    g = mt.Generator().manual_seed(5)
    w = nn.init.orthogonal_(mt.empty(6, 4), generator=g)
    a = mt.empty(6, 4, dtype=mt.float64).normal_(0, 1, generator=mt.Generator().manual_seed(5))
    q, r = np.linalg.qr(a.numpy())
    np.testing.assert_allclose(w.numpy(), q * np.sign(np.diag(r)), atol=1e-5)


# ---- with autograd ----------------------------------------------------------------------

def test_dtype_conversion_keeps_parameters_and_converts_grads():
    m = make_net()
    params = list(m.parameters())
    opt = mt.optim.SGD(m.parameters(), lr=0.1)
    m(mt.ones(2, 3)).sum().backward()
    for convert, dtype in ((lambda: m.double(), mt.float64), (lambda: m.half(), mt.float16),
                           (lambda: m.to(mt.float32), mt.float32),
                           (lambda: m.to(dtype=mt.float64), mt.float64),
                           (lambda: m.float(), mt.float32)):
        assert convert() is m
        assert all(a is b for a, b in zip(m.parameters(), params))
        for p in m.parameters():
            assert type(p) is nn.Parameter and p.is_leaf and p.requires_grad
            assert p.dtype == dtype and p.grad.dtype == dtype
        assert m.steps.dtype == dtype
    # the optimizer built before the conversions still updates the model
    before = m.fc.weight.detach().clone()
    opt.step()
    assert not mt.equal(before, m.fc.weight.detach())


def test_zero_grad_in_place_and_requires_grad():
    lin = nn.Linear(3, 2)
    lin(mt.ones(1, 3)).sum().backward()
    grad = lin.weight.grad
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad is grad and (grad.numpy() == 0).all()
    lin.zero_grad()
    assert lin.weight.grad is None and lin.bias.grad is None
    x = mt.ones(1, 3, requires_grad=True)
    g, = mt.autograd.grad(lin(x).sum(), lin.weight, create_graph=True)
    lin.weight.grad = g * x.sum()
    assert lin.weight.grad.grad_fn is not None
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad.grad_fn is None and not lin.weight.grad.requires_grad
    assert lin.requires_grad_(False) is lin
    assert not lin.weight.requires_grad and lin(mt.ones(1, 3)).grad_fn is None
    lin.requires_grad_()
    assert lin.weight.requires_grad


def test_init_runs_without_history():
    w = nn.Parameter(mt.empty(4, 3))
    for fn in (nn.init.uniform_, nn.init.normal_, nn.init.xavier_uniform_,
               nn.init.kaiming_normal_, nn.init.orthogonal_, nn.init.zeros_,
               nn.init.trunc_normal_, lambda t: nn.init.constant_(t, 2.0), nn.init.eye_):
        out = fn(w)
        assert out is w and w.is_leaf and w.grad_fn is None and w.requires_grad
    e = nn.Embedding(5, 2, padding_idx=1)
    assert e.weight.is_leaf and (e.weight[1].detach().numpy() == 0).all()


def test_parameter_repr_ops_pickle_deepcopy():
    import copy
    import pickle
    torch = pytest.importorskip("torch")
    for data in ([1.0, 2.0], [[1.5]], []):
        for rg in (True, False):
            assert repr(nn.Parameter(mt.tensor(data), rg)) == repr(
                torch.nn.Parameter(torch.tensor(data), rg)).replace("torch.", "minitorch.")
    assert repr(nn.Parameter()) == "Parameter containing:\ntensor([], requires_grad=True)"
    p = nn.Parameter(mt.tensor([1.0, -2.0]))
    for out in (p * 2, p + p, p[0], -p, p.detach(), p.clone(), p.sum(), mt.relu(p), p.t()):
        assert type(out) is mt.Tensor
    assert (p * 2).grad_fn is not None and p.is_leaf
    p.grad = mt.ones(2)
    for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
        assert type(q) is nn.Parameter and q.requires_grad and q.is_leaf and q.grad is None
        assert mt.equal(q.detach(), p.detach()) and q.data_ptr() != p.data_ptr()
    frozen = copy.deepcopy(nn.Parameter(mt.ones(1), requires_grad=False))
    assert type(frozen) is nn.Parameter and not frozen.requires_grad
    m = copy.deepcopy(make_net())
    assert all(type(p) is nn.Parameter for p in m.parameters())


def test_state_dict_tensors_are_detached():
    m = make_net()
    for name, t in m.state_dict().items():
        assert type(t) is mt.Tensor and not t.requires_grad and t.grad_fn is None, name
    kept = m.state_dict(keep_vars=True)
    assert kept["fc.weight"] is m.fc.weight
    # loading copies values without recording history
    sd = {k: v + 1 for k, v in m.state_dict().items()}
    m.load_state_dict(sd)
    assert m.fc.weight.is_leaf and m.fc.weight.grad_fn is None
    assert mt.equal(m.fc.weight.detach(), sd["fc.weight"])
