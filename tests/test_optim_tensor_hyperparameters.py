"""Tensor lr and betas, and conflicting flags, given to the optimizers, against
torch: the 1-element check every optimizer makes first, Adam/AdamW's refusals
of a tensor lr or betas with foreach=True and of betas mixing floats and
tensors, a valid tensor lr stepping as the float would, and fused=True's
conflicts with differentiable and foreach."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

NAMES = ["SGD", "Adam", "AdamW", "Adagrad", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop",
         "Rprop", "LBFGS", "SparseAdam"]


def _raises_like(name, kwargs_mt, kwargs_torch):
    with pytest.raises(Exception) as want:
        getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **kwargs_torch)
    with pytest.raises(want.type) as got:
        getattr(mt.optim, name)([mt.zeros(2, requires_grad=True)], **kwargs_mt)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(2,), (0,), (2, 2)])
def test_tensor_lr_must_be_one_element(name, shape):
    _raises_like(name, {"lr": mt.full(shape, 0.1)}, {"lr": torch.full(shape, 0.1)})


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("kwargs", [
    {"lr": 0.1, "foreach": True},
    {"betas": (0.9, "T0.99")}, {"betas": ("T0.9", 0.99)},
    {"betas": ("T0.9", "T0.99"), "foreach": True},
    {"betas": (0, 0.99)},
    {"betas": ("T0.9", [0.99, 0.5])},
])
def test_adam_tensor_hyperparameter_checks(name, kwargs):
    def conv(lib, v):
        if isinstance(v, str):
            return lib.tensor(float(v[1:]))
        if isinstance(v, list):
            return lib.tensor(v)
        if isinstance(v, tuple):
            return tuple(conv(lib, x) for x in v)
        return v
    km = {k: conv(mt, v) for k, v in kwargs.items()}
    kt = {k: conv(torch, v) for k, v in kwargs.items()}
    if "lr" in kwargs:
        km["lr"], kt["lr"] = mt.tensor(0.1), torch.tensor(0.1)
    _raises_like(name, km, kt)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "NAdam"])
@pytest.mark.parametrize("lr_shape", [(), (1,), (1, 1)])
def test_one_element_tensor_lr_steps_like_its_float(name, lr_shape):
    x = np.random.default_rng(0).standard_normal((3, 2))
    outs = []
    for lib, lr in ((mt, mt.full(lr_shape, 0.05, dtype=mt.float64)), (mt, 0.05),
                    (torch, torch.full(lr_shape, 0.05, dtype=torch.float64))):
        p = lib.tensor(x, requires_grad=True)
        opt = getattr(lib.optim, name)([p], lr=lr)
        for _ in range(3):
            p.grad = p.detach() * 2 + 1
            opt.step()
        outs.append(p.detach().numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12)
    np.testing.assert_allclose(outs[0], outs[2], rtol=1e-10)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
@pytest.mark.parametrize("kwargs", [{"fused": True, "differentiable": True},
                                    {"fused": True, "foreach": True},
                                    {"fused": True, "foreach": True, "differentiable": True}])
def test_fused_flag_conflicts(name, kwargs):
    _raises_like(name, {"lr": 0.1, **kwargs}, {"lr": 0.1, **kwargs})
