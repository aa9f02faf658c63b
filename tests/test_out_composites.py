"""out= on the functions written in Python (composites, nn.functional):
each writes torch's values into the out tensor it returns, resizes an
empty one, refuses one of another dtype, and computes as without out=."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def pair(shape, dtype="float64", seed=0, low=-3, high=3):
    rng = np.random.default_rng(seed)
    if dtype == "int64":
        a = rng.integers(low, high, size=shape)
    elif dtype == "bool":
        a = rng.integers(0, 2, size=shape).astype(bool)
    else:
        a = rng.uniform(low, high, size=shape).astype(dtype)
    return mt.from_numpy(a.copy()), torch.from_numpy(a.copy())


def F(lib):
    return lib.nn.functional


# name, builder(lib, tensors) -> (args, kwargs); inputs given as shapes
CASES = [
    ("diff", [(4, 5)], lambda lib, x: ((x,), {"n": 2, "dim": 0})),
    ("diff", [(6,)], lambda lib, x: ((x,), {})),
    ("quantile", [(3, 7)], lambda lib, x: ((x, 0.3), {"dim": 1, "keepdim": True})),
    ("nanquantile", [(3, 7)], lambda lib, x: ((x, lib.tensor([0.1, 0.9], dtype=lib.float64)),
                                                {"dim": 0})),
    ("nansum", [(3, 4)], lambda lib, x: ((x,), {"dim": 1})),
    ("nansum", [(3, 4)], lambda lib, x: ((x,), {})),
    ("nanmean", [(3, 4)], lambda lib, x: ((x,), {"dim": 0, "keepdim": True})),
    ("kron", [(2, 3), (3, 2)], lambda lib, a, b: ((a, b), {})),
    ("inner", [(2, 3), (4, 3)], lambda lib, a, b: ((a, b), {})),
    ("inner", [(), (4, 3)], lambda lib, a, b: ((a, b), {})),
    ("tensordot", [(2, 3, 4), (4, 3, 5)], lambda lib, a, b: ((a, b), {"dims": ([1, 2], [1, 0])})),
    ("column_stack", [(3,), (3, 2)], lambda lib, a, b: (([a, b],), {})),
    ("dstack", [(2, 3), (2, 3)], lambda lib, a, b: (([a, b],), {})),
    ("histc", [(20,)], lambda lib, x: ((x,), {"bins": 5, "min": -2, "max": 2})),
    ("logit", [(3, 4)], lambda lib, x: ((x.sigmoid(),), {"eps": 0.01})),
    ("take_along_dim", [(3, 4)], lambda lib, x: ((x, lib.tensor([[0], [3], [-1]])), {"dim": 1})),
    ("take_along_dim", [(3, 4)], lambda lib, x: ((x, lib.tensor([5, 0, 11])), {})),
    ("index_copy", [(4, 3), (2, 3)], lambda lib, a, b: ((a, 0, lib.tensor([3, 1]), b), {})),
]

NN_CASES = [
    ("logsigmoid", [(3, 4)], lambda lib, x: ((x,), {})),
    ("softshrink", [(3, 4)], lambda lib, x: ((x, 0.7), {})),
    ("hardshrink", [(3, 4)], lambda lib, x: ((x, 1.1), {})),
    ("avg_pool3d", [(1, 2, 4, 4, 5)], lambda lib, x: ((x, 2), {"stride": 1, "padding": 1})),
]


def _run(lib_name, name, shapes, build, nn, **extra):
    lib = mt if lib_name == "mt" else torch
    ins = [pair(s, seed=i)[0 if lib is mt else 1] for i, s in enumerate(shapes)]
    args, kwargs = build(lib, *ins)
    fn = getattr(F(lib), name) if nn else getattr(lib, name)
    return fn(*args, **kwargs, **extra)


@pytest.mark.parametrize("nn,name,shapes,build",
                         [(False, *c) for c in CASES] + [(True, *c) for c in NN_CASES],
                         ids=[c[0] for c in CASES] + [c[0] for c in NN_CASES])
def test_out_gets_torchs_values(nn, name, shapes, build):
    want = _run("torch", name, shapes, build, nn)
    out = mt.empty(0, dtype=getattr(mt, str(want.dtype).split(".")[1]))
    got = _run("mt", name, shapes, build, nn, out=out)
    assert got is out
    assert list(out.shape) == list(want.shape)
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    plain = _run("mt", name, shapes, build, nn)
    np.testing.assert_allclose(plain.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["nansum", "logit", "diff", "kron"])
def test_out_of_another_dtype_is_refused(name):
    x = mt.rand(3, 3, dtype=mt.float64)
    fn = getattr(mt, name)
    args = (x, x) if name == "kron" else (x,)
    # kron writes as mul's out= does: torch names the cast it refuses
    with pytest.raises(RuntimeError, match="can't be cast" if name == "kron" else "dtype"):
        fn(*args, out=mt.empty(0, dtype=mt.int64))


def test_isin_out_and_invert():
    e, t = [1, 2, 3, 4, 5], [2, 5, 9]
    for invert in (False, True):
        out = mt.empty(5, dtype=mt.bool)
        mt.isin(mt.tensor(e), mt.tensor(t), invert=invert, out=out)
        want = torch.isin(torch.tensor(e), torch.tensor(t), invert=invert)
        assert out.tolist() == want.tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_logit_of_every_dtype_is_torchs(dtype):
    m, t = pair((4, 5), dtype, low=0, high=2)
    got, want = mt.logit(m), torch.logit(t)
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_softshrink_lambda_range_message():
    for dtype, top in (("float32", "3.40282e+38"), ("float64", "1.79769e+308")):
        x = mt.zeros(2, dtype=getattr(mt, dtype))
        with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, " +
                           top.replace("+", r"\+") + r"\] for input dtype " +
                           ("Float" if dtype == "float32" else "Double") +
                           ", but found -0.5"):
            mt.nn.functional.softshrink(x, -0.5)
