"""out= where torch has it and nowhere else, against torch: the factories
(zeros, ones, empty) write into out (resized without a warning, dtype=
checked against it, an out that requires grad refused); the dim forms of
sum, prod and mean (and mean without a dim) take out, whose dtype is the
result's unless dtype= is given; amax and amin take an out of the input's
dtype only; methods never take out=, nor do the
full reductions sum() and prod()."""
import warnings

import pytest

import minitorch as mt
from side_by_side import errmsg, val

torch = pytest.importorskip("torch")


def _outcome(L, make):
    """(result, out after the call, warnings) or the error, as plain data."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            res, out = make(L)
        except Exception as e:  # noqa: BLE001 - compared with torch's
            return ("raise", type(e).__name__, str(e).replace("minitorch.", "torch."))
    same_object = res is out
    return (val(res), val(out), str(out.dtype).split(".")[-1], same_object,
            sum("resized" in str(w.message) for w in seen))


def _into(fn, data, dtype=None):
    """make(L) for fn(L, out) with out = L.tensor(data, dtype=L.<dtype>)."""
    def make(L):
        out = L.tensor(data, dtype=getattr(L, dtype) if dtype else None)
        return fn(L, out), out
    return make


FACTORIES = [
    ("zeros into a longer out", _into(lambda L, o: L.zeros(3, out=o), [1.0, 2.0])),
    ("ones into a 2-d out", _into(lambda L, o: L.ones(2, 2, out=o), [0.0] * 5)),
    ("ones into int64", _into(lambda L, o: L.ones(3, out=o), [0, 0, 0])),
    ("ones into bool", _into(lambda L, o: L.ones(2, out=o), [False, False])),
    ("zeros, size as a tuple", _into(lambda L, o: L.zeros((2, 1), out=o), [5.0])),
    # its values are whatever the memory held: zeroed before comparing
    ("empty resizes", _into(lambda L, o: L.empty(4, out=o).zero_(), [1.0])),
    ("dtype= matching out", _into(lambda L, o: L.ones(2, dtype=L.float64, out=o), [0.0, 0.0],
                                  "float64")),
    ("dtype= not matching out", _into(lambda L, o: L.ones(2, dtype=L.int64, out=o), [0.0, 0.0])),
    ("dtype= int32 vs float64 out", _into(lambda L, o: L.zeros(2, dtype=L.int32, out=o), [0.0],
                                          "float64")),
]


@pytest.mark.parametrize("name,make", FACTORIES, ids=[f[0] for f in FACTORIES])
def test_factories_write_into_out(name, make):
    assert _outcome(mt, make) == _outcome(torch, make)


def test_factory_out_that_requires_grad_is_refused():
    got = errmsg(lambda: mt.zeros(2, out=mt.zeros(2, requires_grad=True)))
    want = errmsg(lambda: torch.zeros(2, out=torch.zeros(2, requires_grad=True)))
    assert got[0] == want[0] == "RuntimeError"
    assert "functions with out=... arguments don't support automatic differentiation" in got[1]
    # writing into a plain out under no_grad-free code keeps the out's identity
    o = mt.empty(0)
    assert mt.ones(2, out=o) is o


REDUCTIONS = [
    ("sum dim", lambda L, o: L.sum(L.arange(6.0).reshape(2, 3), 1, out=o), [0.0, 0.0]),
    ("sum dims keepdim", lambda L, o: L.sum(L.arange(6.0).reshape(2, 3), (0, 1), keepdim=True,
                                            out=o), [[0.0]]),
    ("sum into int64 out", lambda L, o: L.sum(L.tensor([1.5, 2.5]), 0, out=o.long()), 0.0),
    ("sum of ints into float out", lambda L, o: L.sum(L.tensor([1, 2]), 0, out=o), 0.0),
    ("sum dtype= vs out", lambda L, o: L.sum(L.ones(3), 0, dtype=L.float64, out=o), 0.0),
    ("sum dtype=int64 vs out", lambda L, o: L.sum(L.ones(3), 0, dtype=L.int64, out=o), 0.0),
    ("sum resizes with a warning", lambda L, o: L.sum(L.ones(2, 3), 0, out=o), [0.0] * 5),
    ("prod dim", lambda L, o: L.prod(L.arange(1.0, 7.0).reshape(2, 3), 1, out=o), [0.0, 0.0]),
    ("prod keepdim", lambda L, o: L.prod(L.arange(1.0, 7.0).reshape(2, 3), 0, keepdim=True,
                                         out=o), [0.0]),
    ("mean dim", lambda L, o: L.mean(L.arange(6.0).reshape(2, 3), 1, out=o), [0.0, 0.0]),
    ("mean without dim", lambda L, o: L.mean(L.arange(6.0), out=o), 0.0),
    ("mean into float64", lambda L, o: L.mean(L.ones(3), 0, out=o.double()), 0.0),
    ("mean into int64", lambda L, o: L.mean(L.ones(3), 0, out=o.long()), 0.0),
    ("sum out requiring grad input", lambda L, o: L.sum(L.ones(3, requires_grad=True), 0,
                                                        out=o), 0.0),
    ("amax dim", lambda L, o: L.amax(L.arange(6.0).reshape(2, 3), 1, out=o), [0.0, 0.0]),
    ("amax dims keepdim", lambda L, o: L.amax(L.arange(6.0).reshape(2, 3), (0, 1), True,
                                              out=o), [[0.0]]),
    ("amax of all", lambda L, o: L.amax(L.tensor([3.0, -1.0]), out=o), 0.0),
    ("amax resizes with a warning", lambda L, o: L.amax(L.ones(2, 3), 0, out=o), [0.0] * 5),
    ("amax into an empty out", lambda L, o: L.amax(L.ones(2, 3), 0, out=o), []),
    ("amax into another dtype", lambda L, o: L.amax(L.ones(2, 3), 0, out=o.long()), 0.0),
    ("amin dim", lambda L, o: L.amin(L.tensor([[4, 2], [1, 7]]), 0, out=o.long()), [0, 0]),
    ("amin into another dtype", lambda L, o: L.amin(L.tensor([1, 2]), 0, out=o), 0.0),
    ("amin of bool", lambda L, o: L.amin(L.tensor([True, False]), 0, out=o.bool()), True),
]


@pytest.mark.parametrize("name,fn,init", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reductions_write_into_out(name, fn, init):
    def make(L):
        # out.long() / out.double() hand the reduction a new tensor: compare
        # the result with itself then
        out = L.tensor(init)
        res = fn(L, out)
        return res, out if out.dtype == res.dtype else res
    assert _outcome(mt, make) == _outcome(torch, make)


@pytest.mark.parametrize("call", [
    lambda L: L.ones(2, 3).sum(1, out=L.empty(2)),
    lambda L: L.ones(2, 3).mean(1, out=L.empty(2)),
    lambda L: L.ones(2, 2).mm(L.ones(2, 2), out=L.empty(2, 2)),
    lambda L: L.ones(2).add(1, out=L.empty(2)),
    lambda L: L.sum(L.ones(3), out=L.empty(())),
    lambda L: L.prod(L.ones(3), out=L.empty(())),
    lambda L: L.ones(2, 3).amax(1, out=L.empty(2)),
    lambda L: L.ones(2, 3).amin(out=L.empty(())),
], ids=["Tensor.sum", "Tensor.mean", "Tensor.mm", "Tensor.add", "sum()", "prod()", "Tensor.amax",
        "Tensor.amin"])
def test_out_refused_where_torch_has_none(call):
    got, want = errmsg(lambda: call(mt)), errmsg(lambda: call(torch))
    assert got[0] == want[0] == "TypeError"
    # torch words it as an unknown keyword or an invalid combination by how
    # many of its signatures take that many positional arguments
    assert "out" in got[1].splitlines()[0]
