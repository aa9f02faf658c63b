"""torch.linalg on empty matrices and the names its messages carry, against
torch: cond and matrix_norm of matrices with no elements (torch's 0, or
amin's error naming the dim torch reduces), cond's order checks, and the
functions whose checks speak in another function's name (eigvalsh as
linalg.eigh, cholesky_ex as linalg.cholesky, logdet as itself)."""
import math

import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

EMPTY = [(0, 0), (2, 0, 0), (3, 0), (0, 3), (2, 3, 0)]
ORDERS = [None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc"]


def _outcome(call, lib):
    try:
        r = call(lib)
    except (RuntimeError, IndexError, NotImplementedError) as e:
        return type(e).__name__.lstrip("_"), str(e)
    return "ok", tuple(r.shape), str(r.dtype).split(".")[-1], r.tolist()


@pytest.mark.parametrize("shape", EMPTY)
@pytest.mark.parametrize("p", ORDERS)
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_cond_of_empty_matrices_matches_torch(shape, p, dtype):
    def call(lib):
        return lib.linalg.cond(lib.zeros(*shape, dtype=getattr(lib, dtype)), p)
    assert _outcome(call, mt) == _outcome(call, torch)


@pytest.mark.parametrize("shape", EMPTY)
@pytest.mark.parametrize("p", [2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm_of_empty_matrices_matches_torch(shape, p, keepdim):
    def call(lib):
        return lib.linalg.matrix_norm(lib.zeros(*shape), p, keepdim=keepdim)
    assert _outcome(call, mt) == _outcome(call, torch)


@pytest.mark.parametrize("p", [3, 0.5, -3.0, "abc"])
def test_cond_refuses_other_orders_as_torch(p):
    def call(lib):
        return lib.linalg.cond(lib.eye(3), p)
    assert _outcome(call, mt) == _outcome(call, torch)


@pytest.mark.parametrize("p", [1, -1, math.inf, -math.inf, "fro", "nuc", None, -2])
@pytest.mark.parametrize("shape", [(3, 2), (3,), (2, 4, 3)])
def test_cond_shape_checks_match_torch(p, shape):
    def call(lib):
        # well conditioned, so that the ratios are not rounding noise
        a = lib.arange(1.0, 1.0 + math.prod(shape)).reshape(shape).sin()
        return lib.linalg.cond(a + (lib.eye(*shape[-2:]) * 3 if len(shape) > 1 else 0), p)
    m, t = _outcome(call, mt), _outcome(call, torch)
    if t[0] == "ok":
        assert m[:3] == t[:3]
        assert m[3] == pytest.approx(t[3], nan_ok=True, rel=1e-5)
    else:
        assert m == t


@pytest.mark.parametrize("name, arg", [
    ("linalg.eigvalsh", lambda lib: lib.ones(3, 2)),
    ("linalg.eigvalsh", lambda lib: lib.ones(3)),
    ("linalg.cholesky_ex", lambda lib: lib.ones(2, 3)),
    ("linalg.cholesky_ex", lambda lib: lib.ones(3)),
    ("linalg.cholesky_ex", lambda lib: lib.ones(3, 3, dtype=lib.int64)),
    ("logdet", lambda lib: lib.ones(2, 3)),
    ("logdet", lambda lib: lib.ones(3)),
    ("logdet", lambda lib: lib.ones(3, 3, dtype=lib.int64)),
])
def test_checks_speak_in_torchs_names(name, arg):
    def call(lib):
        fn = lib
        for part in name.split("."):
            fn = getattr(fn, part)
        return fn(arg(lib))
    assert _outcome(call, mt) == _outcome(call, torch)


@pytest.mark.parametrize("fn", ["amax", "amin"])
@pytest.mark.parametrize("shape, dim", [((0,), -1), ((0, 0), (-1, -2)), ((0, 0), (-2, -1)),
                                        ((2, 0), -1), ((2, 0, 3), (-1, -2)), ((2, 0, 3), (0, 1)),
                                        ((3, 0), 1)])
def test_amax_and_amin_name_the_empty_dim_as_written(fn, shape, dim):
    def call(lib):
        return getattr(lib, fn)(lib.zeros(*shape), dim)
    assert _outcome(call, mt) == _outcome(call, torch)
