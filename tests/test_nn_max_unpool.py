"""F.max_unpool1d/2d/3d and MaxUnpool1d/2d/3d against torch (values,
gradients, forward-mode tangents, errors), and scatter's forward-mode
tangent at repeated indices, which the unpooling relies on."""
import re

import numpy as np
import pytest

import minitorch
import minitorch.autograd.forward_ad as mfw
import minitorch.nn as mnn
import minitorch.nn.functional as MF
from torch_error_helpers import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CASES = [  # (n, input shape, kernel, stride, padding, output_size)
    (1, (2, 3, 8), 2, None, 0, None), (1, (3, 9), 3, 2, 1, None), (1, (1, 2, 7), 3, 2, 0, [8]),
    (2, (2, 3, 6, 4), 2, None, 0, None), (2, (3, 7, 6), (3, 2), (2, 1), (1, 0), None),
    (2, (1, 2, 5, 5), 2, 2, 0, (1, 2, 5, 5)), (2, (0, 2, 4, 4), 2, None, 0, None),
    (3, (1, 2, 4, 4, 6), 2, None, 0, None), (3, (2, 4, 4, 7), (2, 1, 3), (2, 1, 2), 0, None),
]


def _pooled(n, shape, kernel, stride, padding):
    a = np.random.default_rng(0).standard_normal(shape)
    pool = getattr(TF, f"max_pool{n}d")
    out, idx = pool(torch.tensor(a), kernel, stride, padding, return_indices=True)
    return out.numpy(), idx.numpy()


@pytest.mark.parametrize("n,shape,kernel,stride,padding,output_size", CASES)
def test_values_and_gradients(n, shape, kernel, stride, padding, output_size):
    values, idx = _pooled(n, shape, kernel, stride, padding)
    m, t = minitorch.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    args = (kernel, stride, padding, output_size)
    mo = getattr(MF, f"max_unpool{n}d")(m, minitorch.tensor(idx), *args)
    to = getattr(TF, f"max_unpool{n}d")(t, torch.tensor(idx), *args)
    np.testing.assert_array_equal(mo.detach().numpy(), to.detach().numpy())
    g = np.random.default_rng(1).standard_normal(tuple(to.shape))
    mo.backward(minitorch.tensor(g))
    to.backward(torch.tensor(g))
    np.testing.assert_array_equal(m.grad.numpy(), t.grad.numpy())
    module = getattr(mnn, f"MaxUnpool{n}d")(kernel, stride, padding)
    assert repr(module) == repr(getattr(torch.nn, f"MaxUnpool{n}d")(kernel, stride, padding))
    np.testing.assert_array_equal(module(m, minitorch.tensor(idx), output_size).detach().numpy(),
                                  to.detach().numpy())


def test_repeated_indices_last_write_wins_in_values_and_tangents():
    values = np.arange(1.0, 9.0).reshape(1, 2, 2, 2)
    idx = np.array([0, 0, 3, 3, 1, 2, 1, 1]).reshape(1, 2, 2, 2)
    tangent = np.arange(10.0, 90.0, 10.0).reshape(1, 2, 2, 2)
    with mfw.dual_level():
        dual = mfw.make_dual(minitorch.tensor(values), minitorch.tensor(tangent))
        primal, tan = mfw.unpack_dual(MF.max_unpool2d(dual, minitorch.tensor(idx), 2))
    import torch.autograd.forward_ad as tfw
    with tfw.dual_level():
        dual = tfw.make_dual(torch.tensor(values), torch.tensor(tangent))
        want, want_tan = tfw.unpack_dual(TF.max_unpool2d(dual, torch.tensor(idx), 2))
    np.testing.assert_array_equal(primal.numpy(), want.numpy())
    np.testing.assert_array_equal(tan.numpy(), want_tan.numpy())


@pytest.mark.parametrize("variant", ["src", "self", "both", "value"])
def test_scatter_tangent_at_repeated_indices(variant):
    idx = [[0, 0, 2, 2], [1, 1, 1, 0]]
    src, src_t = np.arange(1.0, 9.0).reshape(2, 4), np.arange(10.0, 90.0, 10.0).reshape(2, 4)
    base, base_t = np.ones((2, 4)), np.arange(-1.0, -9.0, -1.0).reshape(2, 4)
    got = []
    for ns, fw in ((minitorch, mfw), (torch, __import__("torch.autograd.forward_ad").autograd
                                      .forward_ad)):
        with fw.dual_level():
            s = ns.tensor(src, dtype=ns.float64)
            b = ns.tensor(base, dtype=ns.float64)
            if variant in ("src", "both"):
                s = fw.make_dual(s, ns.tensor(src_t, dtype=ns.float64))
            if variant in ("self", "both", "value"):
                b = fw.make_dual(b, ns.tensor(base_t, dtype=ns.float64))
            out = b.scatter(1, ns.tensor(idx), 2.5 if variant == "value" else s)
            got.append(fw.unpack_dual(out).tangent.numpy())
    np.testing.assert_array_equal(got[0], got[1])


@pytest.mark.parametrize("make", [
    lambda ns, F, p: F.max_unpool2d(p[0], p[1][..., :1], 2),
    lambda ns, F, p: F.max_unpool2d(p[0], p[1].int(), 2),
    lambda ns, F, p: F.max_unpool2d(p[0][0, 0], p[1][0, 0], 2),
    lambda ns, F, p: F.max_unpool2d(p[0].long(), p[1], 2),
    lambda ns, F, p: F.max_unpool2d(p[0], p[1], 2, output_size=(3,)),
    lambda ns, F, p: F.max_unpool2d(p[0], p[1], 2, output_size=(9, 4)),
    lambda ns, F, p: F.max_unpool2d(p[0][:, :, :0], p[1][:, :, :0], 2),
    lambda ns, F, p: F.max_unpool3d(p[0][None], p[1][None].int(), 2),
    lambda ns, F, p: F.max_unpool3d(p[0][None], p[1][None], 2, 0),
    lambda ns, F, p: F.max_unpool3d(p[0][None][:, :, :0], p[1][None][:, :, :0], 2),
])
def test_errors(make):
    values, idx = _pooled(2, (1, 2, 4, 4), 2, None, 0)
    assert_same_error(lambda ns, F: make(ns, F, (ns.tensor(values, dtype=ns.float32),
                                                 ns.tensor(idx))),
                      (minitorch, MF), (torch, TF))


@pytest.mark.parametrize("make", [
    lambda F, v, i: F.max_unpool2d(v, i + 100, 2),
    lambda F, v, i: F.max_unpool2d(v, i - 100, 2),
    lambda F, v, i: F.max_unpool1d(v[0, 0], i[0, 0] + 50, 2),
    lambda F, v, i: F.max_unpool1d(v[0], i[0], 2),
    lambda F, v, i: F.max_unpool3d(v[None], i[None], 2, 1, 1),
])
def test_invalid_index(make):
    """Which invalid index torch names depends on its threads: the message's
    form and the output size must agree, and the index named be invalid."""
    values, idx = _pooled(2, (1, 2, 4, 4), 2, None, 0)
    pattern = r"Found an invalid max index: (-?\d+) \(output volumes are of size ([\dx]+)\)"
    found = []
    for ns, F in ((minitorch, MF), (torch, TF)):
        with pytest.raises(RuntimeError) as e:
            make(F, ns.tensor(values, dtype=ns.float32), ns.tensor(idx))
        found.append(re.fullmatch(pattern, str(e.value)))
    assert found[0] and found[1] and found[0].group(2) == found[1].group(2)
    volume = np.prod([int(s) for s in found[0].group(2).split("x")])
    assert not 0 <= int(found[0].group(1)) < volume
