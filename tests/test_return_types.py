"""minitorch.return_types as torch.return_types: one struct sequence type per
name (no namedtuple API, as torch's), the same names and fields as torch's,
printed one field a line, picklable; a row's results are named by the row's
signature."""
import pickle

import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _public(module):
    return {n for n in dir(module) if not n.startswith("_")
            and isinstance(getattr(module, n), type) and issubclass(getattr(module, n), tuple)}


def test_every_torch_return_type_exists_with_its_fields():
    theirs = {n for n in _public(torch.return_types) if not n.endswith("_out")}
    ours = _public(mt.return_types)
    assert ours == theirs
    for name in ours:
        mine, ref = getattr(mt.return_types, name), getattr(torch.return_types, name)
        assert mine.n_fields == ref.n_fields, name
        assert mine.__module__ == "minitorch.return_types"
        assert not hasattr(mine, "_fields") and not hasattr(ref, "_fields")


CALLS = [
    ("max", lambda L, x: L.max(x, 1)),
    ("min", lambda L, x: L.min(x, 0, True)),
    ("sort", lambda L, x: L.sort(x, descending=True)),
    ("topk", lambda L, x: L.topk(x, 2)),
    ("kthvalue", lambda L, x: L.kthvalue(x, 2)),
    ("median", lambda L, x: L.median(x, 1)),
    ("nanmedian", lambda L, x: L.nanmedian(x, 0)),
    ("mode", lambda L, x: L.mode(x, 1)),
    ("cummax", lambda L, x: L.cummax(x, 1)),
    ("cummin", lambda L, x: L.cummin(x, 0)),
    ("aminmax", lambda L, x: L.aminmax(x, dim=1)),
    ("frexp", lambda L, x: L.frexp(x)),
    ("histogram", lambda L, x: L.histogram(x.flatten(), 3)),
    ("linalg_eigh", lambda L, x: L.linalg.eigh(x @ x.mT)),
    ("linalg_slogdet", lambda L, x: L.linalg.slogdet(x)),
    ("linalg_qr", lambda L, x: L.linalg.qr(x)),
    ("linalg_lu_factor", lambda L, x: L.linalg.lu_factor(x)),
]


@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_results_are_typed_printed_and_pickled_as_torch(name, call):
    data = [[3.0, 1.0, 2.0], [0.5, 4.0, 1.5], [2.5, 2.0, 5.0]]
    got, want = call(mt, mt.tensor(data)), call(torch, torch.tensor(data))
    assert type(got) is getattr(mt.return_types, name)
    assert type(want).__name__ == name
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert mt.allclose(g.double(), mt.tensor(w.double().numpy()), atol=1e-6) or name in (
            "linalg_eigh", "linalg_qr")  # columns fixed only up to sign
        assert g.dtype.is_floating_point == w.dtype.is_floating_point
    assert repr(got).replace("minitorch.", "torch.").split("=")[0] == \
        repr(want).split("=")[0]
    back = pickle.loads(pickle.dumps(got))
    assert type(back) is type(got)
    assert all(mt.equal(a, b) for a, b in zip(back, got))


def test_a_row_names_its_results_and_its_saved_outputs_by_its_signature():
    x = mt.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)
    v = x.max(0)
    assert v.values.grad_fn._saved_indices.tolist() == [1, 0]
    tx = torch.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)
    assert tx.max(0).values.grad_fn._saved_indices.tolist() == [1, 0]
    # two results without names stay a plain tuple, as torch's var_mean
    assert type(mt.var_mean(x.detach(), 0)) is tuple
    assert type(torch.var_mean(tx.detach(), 0)) is tuple


def test_a_composite_asks_for_its_type_and_gets_the_one_of_that_name():
    t = mt._C._return_type("frexp", ("mantissa", "exponent"))
    assert t is mt.return_types.frexp
    with pytest.raises(RuntimeError, match="already defined with other fields"):
        mt._C._return_type("frexp", ("a", "b"))
