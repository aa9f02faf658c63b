"""The dims a reduction is given, checked as torch checks them: a 0-d tensor
may name its one dim (0 or -1) once, not twice; and a norm without an
identity (ord < 0 or inf) of an empty tensor is refused only over the whole
tensor or over an empty dim, with torch's wording of each, the others giving
their (empty) result."""
import pytest

from side_by_side import errmsg, val

torch = pytest.importorskip("torch")

import minitorch as mt  # noqa: E402


def _outcome(L, call):
    err = errmsg(lambda: call(L))
    return err if err is not None else val(call(L))


REDUCTIONS = {
    "sum": lambda L, x, d: L.sum(x, d),
    "nansum": lambda L, x, d: L.nansum(x, d),
    "mean": lambda L, x, d: L.mean(x, d),
    "amax": lambda L, x, d: L.amax(x, d),
    "amin": lambda L, x, d: L.amin(x, d),
    "logsumexp": lambda L, x, d: L.logsumexp(x, d),
    "var": lambda L, x, d: L.var(x, d, correction=0),  # no NaN (NaN != NaN)
    "std_mean": lambda L, x, d: L.std_mean(x, d, correction=0),
    "count_nonzero": lambda L, x, d: L.count_nonzero(x, d),
    "norm": lambda L, x, d: L.norm(x, 2, d),
    "vector_norm": lambda L, x, d: L.linalg.vector_norm(x, float("-inf"), d),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("dims", [(0,), (-1,), (0, 0), (0, -1), (-1, -1), (1,), (0, 1)])
def test_zero_dim_tensor_names_its_dim_once(name, dims):
    fn = REDUCTIONS[name]
    got = _outcome(mt, lambda L: fn(L, L.tensor(2.5), dims))
    want = _outcome(torch, lambda L: fn(L, L.tensor(2.5), dims))
    assert got == want
    if len(dims) == 2 and dims[1] in (0, -1):
        assert got[0] == "RuntimeError" and "appears multiple times" in got[1]


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_repeated_dim_of_a_matrix(name):
    fn = REDUCTIONS[name]
    for dims in [(0, 0), (1, -1), (0, 1, 0)]:
        got = _outcome(mt, lambda L: fn(L, L.ones(2, 3), dims))
        assert got == _outcome(torch, lambda L: fn(L, L.ones(2, 3), dims))
        assert "appears multiple times" in got[1]


NORMS = {
    "vector_norm": lambda L, x, o, d: L.linalg.vector_norm(x, o, d),
    "norm": lambda L, x, o, d: L.norm(x, o, d),
}


@pytest.mark.parametrize("name", sorted(NORMS))
@pytest.mark.parametrize("ord", [float("inf"), float("-inf"), -1, -1.0, -1.5, -2, 0, 1, 2.0])
@pytest.mark.parametrize("shape,dim", [((0, 4), None), ((0, 4), 0), ((0, 4), -2), ((0, 4), 1),
                                       ((0, 4), -1), ((0, 4), (0, 1)), ((0, 4), (1,)),
                                       ((3, 0), (0,)), ((3, 0), (-1,)), ((2, 0, 3), (0, 2)),
                                       ((2, 0, 3), (2, 1)), ((0, 4), 3), ((0,), None),
                                       ((0,), ())])
def test_norm_of_an_empty_tensor(name, ord, shape, dim):
    fn = NORMS[name]
    got = _outcome(mt, lambda L: fn(L, L.zeros(shape), ord, dim))
    want = _outcome(torch, lambda L: fn(L, L.zeros(shape), ord, dim))
    assert got == want


def test_norm_of_an_empty_tensor_names_the_empty_dim_as_given():
    got = errmsg(lambda: mt.linalg.vector_norm(mt.zeros(0, 4), -1.5, (-2,)))
    assert got == ("RuntimeError", "linalg.vector_norm cannot compute the -1.5 norm on the "
                   "dimension -2because this dimension is empty and the operation does not "
                   "have an identity")
    assert tuple(mt.linalg.vector_norm(mt.zeros(0, 4), float("inf"), 1).shape) == (0,)
