"""Creation functions and random sampling, checked against NumPy and torch."""
import re
import math

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
ALL_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64"] + FLOAT_DTYPES


def to_f64(t):
    if t.dtype == mt.bfloat16:
        return np.array(t.tolist(), dtype=np.float64)
    return t.numpy().astype(np.float64)


def raises_like(fn_mt, fn_torch):
    with pytest.raises(Exception) as te:
        fn_torch()
    with pytest.raises(type(te.value)) as me:
        fn_mt()
    assert str(me.value) == str(te.value)


# ------------------------------------------------------------------ generator

def test_generator_api():
    g = mt.Generator()
    assert g.manual_seed(123) is g
    assert g.initial_seed() == 123
    state = g.get_state()
    assert state.dtype == mt.uint8
    a = mt.rand(5, generator=g).numpy()
    b = mt.rand(5, generator=g).numpy()
    assert not np.array_equal(a, b)
    g.set_state(state)
    np.testing.assert_array_equal(mt.rand(5, generator=g).numpy(), a)
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    assert g.device == "cpu"
    assert type(g).__name__ == "Generator"


def test_manual_seed_global():
    assert mt.manual_seed(7) is mt.default_generator
    assert mt.initial_seed() == 7
    a = mt.randn(4, 3).numpy()
    mt.manual_seed(7)
    np.testing.assert_array_equal(mt.randn(4, 3).numpy(), a)
    mt.manual_seed(-1)
    assert mt.initial_seed() == 2**64 - 1
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        mt.manual_seed(2**64)
    assert isinstance(mt.seed(), int)


def test_generator_independent_of_default():
    g = mt.Generator().manual_seed(1)
    mt.manual_seed(1)
    a = mt.rand(3, generator=g).numpy()
    mt.rand(10)  # advancing the default does not move g
    b = mt.rand(3, generator=g).numpy()
    g2 = mt.Generator().manual_seed(1)
    np.testing.assert_array_equal(mt.rand(6, generator=g2).numpy(), np.concatenate([a, b]))


def test_set_state_errors():
    g = mt.Generator()
    with pytest.raises(TypeError):
        g.set_state(mt.zeros(16))
    with pytest.raises(RuntimeError):
        g.set_state(mt.zeros(3, dtype=mt.uint8))


@pytest.mark.parametrize("fn", [
    lambda g: mt.rand(1000, 1000, generator=g),
    lambda g: mt.randn(1000, 1000, generator=g),
    lambda g: mt.randint(0, 100, (10**6,), generator=g),
    lambda g: mt.empty(1000, 1000).t().uniform_(-1, 1, generator=g),
])
def test_same_stream_whatever_the_thread_count(fn):
    old = mt.get_num_threads()
    try:
        mt.set_num_threads(1)
        a = fn(mt.Generator().manual_seed(42)).numpy()
        mt.set_num_threads(2)
        b = fn(mt.Generator().manual_seed(42)).numpy()
        mt.set_num_threads(4)
        c = fn(mt.Generator().manual_seed(42)).numpy()
    finally:
        mt.set_num_threads(old)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


# ------------------------------------------------------------- distributions

@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_rand_randn_dtypes(dtype):
    g = mt.Generator().manual_seed(0)
    d = getattr(mt, dtype)
    u = to_f64(mt.rand(20000, generator=g, dtype=d))
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.std() - math.sqrt(1 / 12)) < 0.01
    n = mt.randn(20000, generator=g, dtype=d)
    assert n.dtype == d
    n = to_f64(n)
    assert abs(n.mean()) < 0.03 and abs(n.std() - 1) < 0.03


def test_rand_statistics_large():
    g = mt.Generator().manual_seed(5)
    x = mt.rand(10**6, generator=g).numpy()
    assert x.dtype == np.float32 and x.shape == (10**6,)
    assert abs(x.mean() - 0.5) < 2e-3
    hist = np.histogram(x, bins=10, range=(0, 1))[0]
    assert np.all(np.abs(hist - 10**5) < 2000)
    y = mt.randn(10**6, generator=g, dtype=mt.float64).numpy()
    assert abs(y.mean()) < 5e-3 and abs(y.std() - 1) < 5e-3
    assert abs(np.mean(y**3)) < 0.02 and abs(np.mean(y**4) - 3) < 0.05


def test_rand_shapes_and_flags():
    assert mt.rand(2, 3).shape == (2, 3)
    assert mt.rand((2, 3)).shape == (2, 3)
    assert mt.rand([]).shape == ()
    assert mt.rand(0, 3).shape == (0, 3)
    assert mt.randn(2, requires_grad=True).requires_grad
    assert mt.rand(2).dtype == mt.get_default_dtype()


def test_uniform_normal_inplace():
    g = mt.Generator().manual_seed(3)
    x = mt.empty(300, 200)
    v = x._version
    assert x.uniform_(-2, 3, generator=g) is x
    assert x._version > v
    a = x.numpy()
    assert a.min() >= -2 and a.max() < 3 and abs(a.mean() - 0.5) < 0.05
    x.normal_(10, 2, generator=g)
    a = x.numpy()
    assert abs(a.mean() - 10) < 0.05 and abs(a.std() - 2) < 0.05
    # non-contiguous views are filled in place
    b = np.zeros((10, 20), dtype=np.float32)
    view = mt.from_numpy(b[:, ::2]).t()
    view.uniform_(5, 6)
    assert np.all((b[:, ::2] >= 5) & (b[:, ::2] < 6))
    assert np.all(b[:, 1::2] == 0)


def test_random_ints():
    g = mt.Generator().manual_seed(9)
    r = mt.randint(3, 10, (5000,), generator=g).numpy()
    assert r.dtype == np.int64 and r.min() == 3 and r.max() == 9
    assert mt.randint(5, (2, 3)).shape == (2, 3)
    assert mt.randint(5, (2,), dtype=mt.int16).dtype == mt.int16
    assert set(np.unique(mt.randint(2, (1000,), dtype=mt.bool).numpy())) == {False, True}
    x = mt.empty(5000, dtype=mt.uint8).random_(generator=g).numpy()
    assert x.min() < 10 and x.max() > 245
    x = mt.empty(5000).random_(4, generator=g).numpy()
    assert set(np.unique(x)) == {0, 1, 2, 3}
    x = mt.empty(5000, dtype=mt.int32).random_(-3, 3, generator=g).numpy()
    assert set(np.unique(x)) == {-3, -2, -1, 0, 1, 2}
    x = mt.empty(5000, dtype=mt.int8).random_(100, None).numpy()
    assert x.min() >= 100 and x.max() == 127
    big = mt.randint(-2**62, 2**62, (1000,)).numpy()
    assert big.min() < -2**60 and big.max() > 2**60


def test_randperm():
    g = mt.Generator().manual_seed(0)
    p = mt.randperm(1000, generator=g).numpy()
    assert p.dtype == np.int64
    np.testing.assert_array_equal(np.sort(p), np.arange(1000))
    assert not np.array_equal(p, np.arange(1000))
    assert mt.randperm(0).shape == (0,)
    assert mt.randperm(5, dtype=mt.float32).dtype == mt.float32
    raises_like(lambda: mt.randperm(-1), lambda: torch.randperm(-1))


def test_like_variants():
    x = mt.zeros(4, 3, dtype=mt.float64).t()
    for f in (mt.rand_like, mt.randn_like):
        y = f(x)
        assert y.shape == (3, 4) and y.dtype == mt.float64 and y.stride() == x.stride()
        assert f(x, dtype=mt.float32).dtype == mt.float32
    y = mt.randint_like(x, 10)
    assert y.dtype == mt.float64 and y.numpy().max() < 10
    y = mt.randint_like(x, 5, 7).numpy()
    assert y.min() >= 5 and y.max() <= 6
    raises_like(lambda: mt.rand_like(mt.zeros(2, dtype=mt.int64)),
                lambda: torch.rand_like(torch.zeros(2, dtype=torch.int64)))


def test_bernoulli_exponential():
    g = mt.Generator().manual_seed(11)
    x = mt.empty(20000).bernoulli_(0.25, generator=g).numpy()
    assert set(np.unique(x)) == {0.0, 1.0} and abs(x.mean() - 0.25) < 0.02
    p = mt.tensor([0.0, 1.0] * 500)
    b = mt.bernoulli(p, generator=g).numpy()
    np.testing.assert_array_equal(b, p.numpy())
    assert p.bernoulli().shape == (1000,)
    e = mt.empty(20000).exponential_(2.0, generator=g).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.02
    n = mt.normal(3.0, 0.5, (20000,), generator=g).numpy()
    assert abs(n.mean() - 3) < 0.02 and abs(n.std() - 0.5) < 0.02


@pytest.mark.parametrize("case", [
    lambda m: m.rand(2, dtype=m.int64),
    lambda m: m.randn(2, dtype=m.int32),
    lambda m: m.randint(5, 3, (2,)),
    lambda m: m.empty(3).uniform_(2, 1),
    lambda m: m.empty(3).normal_(0, -1),
    lambda m: m.empty(3, dtype=m.bool).uniform_(),
    lambda m: m.empty(3).random_(5, 3),
    lambda m: m.rand(-1),
    lambda m: m.randn(2, -3),
])
def test_random_errors_match_torch(case):
    raises_like(lambda: case(mt), lambda: case(torch))


# ----------------------------------------------------------------- factories

@pytest.mark.parametrize("value", [3, True, 2.5, -7])
def test_full_dtype_inference(value):
    m, t = mt.full((2, 3), value), torch.full((2, 3), value)
    assert str(m.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_array_equal(m.numpy(), t.numpy())
    assert mt.full((2,), value, dtype=mt.float64).dtype == mt.float64


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_like_factories(dtype):
    d = getattr(mt, dtype)
    x = mt.ones(3, 4, dtype=d).t()
    for f, v in ((mt.zeros_like, 0), (mt.ones_like, 1)):
        y = f(x)
        assert y.dtype == d and y.shape == (4, 3) and y.stride() == x.stride()
        if dtype != "bfloat16":
            assert np.all(y.numpy() == v)
    assert mt.empty_like(x).dtype == d
    assert mt.zeros_like(x, dtype=mt.int32).dtype == mt.int32
    y = mt.full_like(x, 1)
    assert y.dtype == d and y.shape == (4, 3)
    assert mt.zeros_like(mt.ones(0, 2, dtype=d)).shape == (0, 2)


def test_new_methods():
    x = mt.ones(2, dtype=mt.int32)
    assert x.new_ones(3).dtype == mt.int32 and x.new_ones(3).numpy().tolist() == [1, 1, 1]
    assert x.new_zeros((2, 2)).shape == (2, 2)
    assert x.new_empty(2, 3).shape == (2, 3)
    y = x.new_full((2,), 7.9)
    assert y.dtype == mt.int32 and y.numpy().tolist() == [7, 7]
    z = x.new_tensor([1.5, 2.5])
    assert z.dtype == mt.int32 and z.numpy().tolist() == [1, 2]
    assert x.new_ones(2, dtype=mt.float64).dtype == mt.float64
    assert mt.zeros(2).new_ones(2, requires_grad=True).requires_grad


def test_fill_zero():
    x = mt.zeros(3, 4).t()
    v = x._version
    assert x.fill_(2.5) is x and np.all(x.numpy() == 2.5)
    assert x._version > v
    x.fill_(mt.tensor(4.0))
    assert np.all(x.numpy() == 4)
    assert x.zero_() is x and np.all(x.numpy() == 0)
    i = mt.zeros(3, dtype=mt.int64).fill_(7)
    assert i.numpy().tolist() == [7, 7, 7]
    raises_like(lambda: mt.zeros(3).fill_(mt.ones(1)), lambda: torch.zeros(3).fill_(torch.ones(1)))


ARANGE_CASES = [(5,), (5.0,), (1, 10), (1, 10, 3), (10, 1, -2), (0, 1, 0.1), (-3.3, 10.1, 0.37),
                (1, 2.5, 0.001), (0, 0), (3, 1, -1), (0, 100000), (2.5,)]


@pytest.mark.parametrize("args", ARANGE_CASES)
def test_arange(args):
    m, t = mt.arange(*args), torch.arange(*args)
    assert m.shape == tuple(t.shape)
    assert str(m.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)
    m = mt.arange(*args, dtype=mt.float64)
    np.testing.assert_allclose(m.numpy(), torch.arange(*args, dtype=torch.float64).numpy())


@pytest.mark.parametrize("args", [(0, 10, 0), (0, 10, -1), (10, 0, 1), (float("inf"),),
                                  (0, float("nan"))])
def test_arange_errors(args):
    raises_like(lambda: mt.arange(*args), lambda: torch.arange(*args))


@pytest.mark.parametrize("args", [(0, 1, 7), (-3.3, 10.1, 50), (1, 1000, 999), (0, 1, 1), (5, -2, 13),
                                  (2, 3, 0), (-7, 7, 1001)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_linspace_exact(args, dtype):
    m = mt.linspace(*args, dtype=getattr(mt, dtype))
    t = torch.linspace(*args, dtype=getattr(torch, dtype))
    np.testing.assert_array_equal(m.numpy(), t.numpy())
    assert mt.linspace(*args).dtype == mt.float32


def test_linspace_logspace():
    np.testing.assert_allclose(mt.linspace(0, 1, 5, dtype=mt.float16).numpy(),
                               torch.linspace(0, 1, 5, dtype=torch.float16).numpy())
    for args in [(0, 2, 5), (-1, 1, 7, 2.0), (0, 3, 4, 3)]:
        np.testing.assert_allclose(mt.logspace(*args).numpy(), torch.logspace(*args).numpy(),
                                   rtol=1e-6)
    raises_like(lambda: mt.linspace(0, 1, -1), lambda: torch.linspace(0, 1, -1))


@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (0,), (3, 0)])
def test_eye(args):
    np.testing.assert_array_equal(mt.eye(*args).numpy(), torch.eye(*args).numpy())
    assert mt.eye(*args, dtype=mt.int64).dtype == mt.int64
    assert mt.eye(2, requires_grad=True).requires_grad


@pytest.mark.parametrize("args", [(-1,), (2, -1)])
def test_eye_errors(args):
    raises_like(lambda: mt.eye(*args), lambda: torch.eye(*args))


@pytest.mark.parametrize("case", [
    lambda m: m.zeros(-1),
    lambda m: m.ones(2, -3),
    lambda m: m.full((-1,), 2.0),
    lambda m: m.empty(3, -2, 4),
])
def test_negative_sizes(case):
    raises_like(lambda: case(mt), lambda: case(torch))


def test_huge_sizes_raise():
    with pytest.raises(RuntimeError):
        mt.zeros(2**62, 4)
    with pytest.raises((RuntimeError, MemoryError)):
        mt.empty(2**40, 2**20)
    with pytest.raises((RuntimeError, MemoryError)):
        mt.rand(2**50)
    with pytest.raises((RuntimeError, MemoryError)):
        mt.full((2**45,), 1.0)
    with pytest.raises(RuntimeError):
        mt.arange(0, 1e30, 1e-30)


def test_requires_grad_integer_errors():
    raises_like(lambda: mt.full((2,), 1, requires_grad=True),
                lambda: torch.full((2,), 1, requires_grad=True))
    raises_like(lambda: mt.randint(3, (2,), requires_grad=True),
                lambda: torch.randint(3, (2,), requires_grad=True))


# ------------------------------------------------------------ tensor(data)

hyp = pytest.importorskip("hypothesis")
st = hyp.strategies

leaves = st.one_of(st.booleans(), st.integers(-2**62, 2**62),
                   st.floats(-1e6, 1e6, allow_nan=False, width=32))


def _error_or_value(fn):
    try:
        t = fn()
    except Exception as e:  # noqa: BLE001  compared below
        return type(e).__name__, str(e)
    return str(t.dtype).split(".")[1], tuple(t.shape), t.tolist()


@hyp.settings(max_examples=150, deadline=None)
@hyp.given(st.recursive(leaves, lambda kids: st.lists(kids, max_size=3), max_leaves=12))
def test_tensor_from_nested_lists_matches_torch(data):
    assert _error_or_value(lambda: mt.tensor(data)) == _error_or_value(lambda: torch.tensor(data))


@hyp.settings(max_examples=80, deadline=None)
@hyp.given(st.integers(0, 3).flatmap(
    lambda nd: st.lists(st.integers(0, 3), min_size=nd, max_size=nd)).flatmap(
    lambda shape: st.tuples(st.just(shape), st.sampled_from(["bool", "int64", "float64"]))))
def test_tensor_regular_lists_match_numpy(case):
    shape, kind = case
    arr = np.asarray(np.arange(int(np.prod(shape))).reshape(shape) % 3).astype(kind)
    if kind == "float64":
        arr = arr + 0.5
    data = arr.tolist()
    t = mt.tensor(data)
    assert t.shape == np.array(data).shape
    expected = {"bool": mt.bool, "int64": mt.int64, "float64": mt.float32}[kind]
    if arr.size:
        assert t.dtype == expected
        np.testing.assert_array_equal(t.numpy(), arr.astype(t.numpy().dtype))
    assert mt.tensor(data, dtype=mt.float64).shape == t.shape


def test_tensor_small_data():
    assert mt.tensor(1.0).shape == () and mt.tensor(1.0).dtype == mt.float32
    assert mt.tensor([1.0]).tolist() == [1.0]
    assert mt.tensor(True).dtype == mt.bool
    assert mt.tensor([1, 2.5]).dtype == mt.float32
    raises_like(lambda: mt.tensor([[1, 2], [1, 2, 3]]), lambda: torch.tensor([[1, 2], [1, 2, 3]]))


FILL_CASES = {
    "full int32 2**40": lambda L: L.full((2,), 2**40, dtype=L.int32),
    "full uint8 -2.0": lambda L: L.full((2,), -2.0, dtype=L.uint8),
    "full uint8 -1": lambda L: L.full((2,), -1, dtype=L.uint8),
    "full uint8 -255": lambda L: L.full((2,), -255, dtype=L.uint8),
    "full uint8 -256": lambda L: L.full((2,), -256, dtype=L.uint8),
    "full int8 128": lambda L: L.full((2,), 128, dtype=L.int8),
    "full int16 nan": lambda L: L.full((2,), float("nan"), dtype=L.int16),
    "full int64 1e30": lambda L: L.full((2,), 1e30, dtype=L.int64),
    "full int64 -2**63": lambda L: L.full((2,), -2.0**63, dtype=L.int64),
    "full float32 1e40": lambda L: L.full((2,), 1e40, dtype=L.float32),
    "full float32 inf": lambda L: L.full((2,), float("inf"), dtype=L.float32),
    "full float16 70000": lambda L: L.full((2,), 70000.0, dtype=L.float16),
    "full bfloat16 70000": lambda L: L.full((2,), 70000.0, dtype=L.bfloat16),
    "full bfloat16 3.5e38": lambda L: L.full((2,), 3.5e38, dtype=L.bfloat16),
    "full float16 int 70000": lambda L: L.full((2,), 70000, dtype=L.float16),
    "full int64 int64 max": lambda L: L.full((2,), 2**63 - 1, dtype=L.int64),
    "full bool 5": lambda L: L.full((2,), 5, dtype=L.bool),
    "full int64 3.7": lambda L: L.full((2,), 3.7, dtype=L.int64),
    "fill_ int8 300": lambda L: L.zeros(2, dtype=L.int8).fill_(300),
    "full_like uint8 300": lambda L: L.full_like(L.zeros(2, dtype=L.uint8), 300),
    "new_full float32 1e40": lambda L: L.zeros(1).new_full((2,), 1e40),
    "linspace float32 1e308": lambda L: L.linspace(-1e308, 1e308, 5),
    "logspace float32 1e40": lambda L: L.logspace(0, 1e40, 3),
    "add_ int32 2**40 wraps": lambda L: L.ones(2, dtype=L.int32).add_(2**40),
}


@pytest.mark.parametrize("case", sorted(FILL_CASES))
def test_fill_values_must_fit_the_dtype_as_torch(case):
    torch = pytest.importorskip("torch")
    try:
        want = FILL_CASES[case](torch)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match="^" + re.escape(str(e)) + "$"):
            FILL_CASES[case](mt)
        return
    np.testing.assert_array_equal(FILL_CASES[case](mt).to(mt.float64).numpy(),
                                  want.to(torch.float64).numpy())
