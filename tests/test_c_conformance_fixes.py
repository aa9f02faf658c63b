"""C-side conformance fixes against torch: int64 max and average pooling
(1-d to 3-d), a negative divisor_override (values and gradients), the
pooling window checks in torch's order and words, isclose's negative
tolerances, roll of a 0-d tensor, scatter's src dtype, hstack's dim chosen
by its first tensor (values, gradients, the mixed-rank error)."""
import numpy as np
import pytest

import minitorch as mt
from torch_errors import same_error

torch = pytest.importorskip("torch")


def ints(shape, seed=0):
    a = np.random.default_rng(seed).integers(-20, 20, size=shape)
    return mt.from_numpy(a.copy()), torch.from_numpy(a.copy())


def floats(shape, seed=0):
    a = np.random.default_rng(seed).normal(size=shape)
    return mt.from_numpy(a.copy()), torch.from_numpy(a.copy())


POOLS = [
    ("max_pool1d", (2, 3, 9), dict(kernel_size=3, stride=2, padding=1, return_indices=True)),
    ("max_pool2d", (2, 3, 6, 7), dict(kernel_size=2)),
    ("max_pool2d", (3, 6, 7), dict(kernel_size=3, stride=2, padding=1, dilation=1,
                                   ceil_mode=True)),
    ("max_pool2d", (1, 2, 8, 8), dict(kernel_size=(2, 3), dilation=2)),
    ("max_pool3d", (1, 2, 4, 5, 6), dict(kernel_size=2, stride=1)),
    ("avg_pool1d", (2, 3, 9), dict(kernel_size=3, stride=2, padding=1)),
    ("avg_pool2d", (2, 3, 6, 7), dict(kernel_size=2)),
    ("avg_pool2d", (2, 3, 6, 7), dict(kernel_size=3, padding=1, count_include_pad=False)),
    ("avg_pool2d", (2, 3, 6, 7), dict(kernel_size=3, padding=1, ceil_mode=True, stride=2)),
    ("avg_pool2d", (2, 3, 6, 7), dict(kernel_size=2, divisor_override=-3)),
    ("avg_pool3d", (1, 2, 4, 5, 6), dict(kernel_size=2, padding=1, stride=2)),
    ("avg_pool3d", (1, 2, 4, 5, 6), dict(kernel_size=2, divisor_override=5)),
]


@pytest.mark.parametrize("name,shape,kw", POOLS)
def test_int64_pooling_is_torchs(name, shape, kw):
    m, t = ints(shape)
    got = getattr(mt.nn.functional, name)(m, **kw)
    want = getattr(torch.nn.functional, name)(t, **kw)
    if kw.get("return_indices"):
        assert got[1].tolist() == want[1].tolist()
        got, want = got[0], want[0]
    assert str(got.dtype) == "minitorch.int64" and want.dtype == torch.int64
    assert got.tolist() == want.tolist()


def test_int64_max_pool_indices():
    m, t = ints((2, 3, 6, 8))
    gv, gi = mt.nn.functional.max_pool2d(m, 2, return_indices=True)
    wv, wi = torch.nn.functional.max_pool2d(t, 2, return_indices=True)
    assert gv.tolist() == wv.tolist()
    assert gi.tolist() == wi.tolist()


@pytest.mark.parametrize("name,shape", [("avg_pool2d", (2, 3, 6, 7)),
                                        ("avg_pool3d", (1, 2, 4, 5, 6))])
@pytest.mark.parametrize("divisor", [-3, -1, 2])
def test_divisor_override_of_any_sign(name, shape, divisor):
    m, t = floats(shape)
    m.requires_grad_()
    t.requires_grad_()
    got = getattr(mt.nn.functional, name)(m, 2, divisor_override=divisor)
    want = getattr(torch.nn.functional, name)(t, 2, divisor_override=divisor)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    w = np.random.default_rng(1).normal(size=tuple(want.shape))
    (got * mt.tensor(w.tolist(), dtype=mt.float64)).sum().backward()
    (want * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name,shape,kw", [
    ("max_pool2d", (0, 1, 49), dict(kernel_size=2, stride=50, padding=-1)),
    ("max_pool2d", (0, 1, 49), dict(kernel_size=(3, 2), stride=50, padding=4)),
    ("max_pool2d", (1, 0, 10), dict(kernel_size=1)),
    ("max_pool2d", (2, 1, 10, 0), dict(kernel_size=1)),
    ("max_pool2d", (4, 4), dict(kernel_size=2)),
    ("max_pool2d", (1, 1, 1, 4, 4), dict(kernel_size=2)),
    ("max_pool2d", (1, 1, 4), dict(kernel_size=2)),
    ("max_pool1d", (0, 1, 49), dict(kernel_size=2, stride=50, padding=-1, return_indices=True)),
    ("avg_pool2d", (0, 1, 49), dict(kernel_size=2, stride=50, padding=-1)),
    ("avg_pool2d", (0, 1, 49), dict(kernel_size=2, stride=50, padding=4)),
    ("avg_pool2d", (1, 0, 10), dict(kernel_size=2)),
    ("avg_pool2d", (1, 1, 1, 4, 4), dict(kernel_size=2)),
    ("avg_pool2d", (4, 4), dict(kernel_size=2)),
    ("avg_pool1d", (0, 1, 49), dict(kernel_size=2, stride=50, padding=-1)),
])
def test_pool_window_errors_are_torchs(name, shape, kw):
    m, t = floats(shape)
    same_error(lambda: getattr(mt.nn.functional, name)(m, **kw),
               lambda: getattr(torch.nn.functional, name)(t, **kw))


@pytest.mark.parametrize("rtol,atol", [(-0.4, 0.0), (0.0, -0.4), (-1.0, -1.0), (-1e-20, 1.0)])
def test_isclose_negative_tolerances(rtol, atol):
    same_error(lambda: mt.isclose(mt.tensor(1.0), mt.tensor(1.0), rtol=rtol, atol=atol),
               lambda: torch.isclose(torch.tensor(1.0), torch.tensor(1.0), rtol=rtol, atol=atol))
    assert mt.isclose(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 2.5]), rtol=0.0,
                      atol=0.0).tolist() == [True, False]


@pytest.mark.parametrize("shifts,dims", [(0, 0), (1, 1), ((1,), (-1,))])
def test_roll_of_a_0d_tensor_names_the_dim(shifts, dims):
    same_error(lambda: mt.roll(mt.tensor(1.0), shifts, dims),
               lambda: torch.roll(torch.tensor(1.0), shifts, dims))
    assert mt.roll(mt.tensor(3.0), 2).item() == 3.0


@pytest.mark.parametrize("name", ["scatter", "scatter_add", "scatter_", "scatter_add_"])
def test_scatter_src_of_another_dtype(name):
    def call(lib):
        x = lib.zeros(3, 5, dtype=lib.float64)
        idx, src = lib.zeros(2, 2, dtype=lib.int64), lib.ones(2, 5)
        fn = getattr(x, name) if name.endswith("_") else getattr(lib, name)
        return fn(0, idx, src) if name.endswith("_") else fn(x, 0, idx, src)
    same_error(lambda: call(mt), lambda: call(torch))


def test_scatter_of_a_scalar_value_still_casts():
    x = mt.zeros(2, 3, dtype=mt.float64)
    x.scatter_(1, mt.tensor([[0], [2]]), 4)
    assert x.tolist() == [[4.0, 0.0, 0.0], [0.0, 0.0, 4.0]]


@pytest.mark.parametrize("shapes", [[(5,), (5, 5, 5, 5), (5,)], [(2, 3), (4,)], [(3,), (2, 3)]])
def test_hstack_of_mixed_ranks(shapes):
    same_error(lambda: mt.hstack([mt.zeros(s) for s in shapes]),
               lambda: torch.hstack([torch.zeros(s) for s in shapes]))


@pytest.mark.parametrize("shapes", [[(0,), (2, 3), (4, 3)], [(2, 3), (2, 1)], [(3,), (4,)],
                                    [(), (2,)]])
def test_hstack_values_and_gradients(shapes):
    ms, ts = zip(*(floats(s, seed=i) for i, s in enumerate(shapes)))
    for x in ms + ts:
        x.requires_grad_()
    got, want = mt.hstack(list(ms)), torch.hstack(list(ts))
    assert list(got.shape) == list(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy())
    w = np.random.default_rng(9).normal(size=tuple(want.shape))
    (got * mt.tensor(w.tolist(), dtype=mt.float64)).sum().backward()
    (want * torch.tensor(w)).sum().backward()
    for a, b in zip(ms, ts):
        if b.numel():  # an empty 1-d input, which cat skips, gets no gradient here
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy())


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_max_pool1d_without_indices_refuses_non_floats(dtype):
    m, t = ints((2, 3, 9))
    m, t = m.to(getattr(mt, dtype)), t.to(getattr(torch, dtype))
    same_error(lambda: mt.nn.functional.max_pool1d(m, 2),
               lambda: torch.nn.functional.max_pool1d(t, 2))
