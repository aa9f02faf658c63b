"""Complex tensors beyond tests/test_complex_ops.py, against torch: the ops
that refuse complex inputs raise torch's own exception type and wording
(each op its own, not the generic "not implemented")."""
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

REFUSALS = {
    "sort": lambda m, t: m.sort(t),
    "sort_dim": lambda m, t: m.sort(t, 0, True),
    "sort_stable": lambda m, t: m.sort(t, stable=True),
    "sort_method": lambda m, t: t.sort(),
    "argsort": lambda m, t: m.argsort(t),
    "argsort_stable": lambda m, t: m.argsort(t, stable=True),
    "msort": lambda m, t: m.msort(t),
    "topk": lambda m, t: m.topk(t, 1),
    "topk_method": lambda m, t: t.topk(2, 0),
    "max": lambda m, t: m.max(t),
    "max_method": lambda m, t: t.max(),
    "max_dim": lambda m, t: m.max(t, 1),
    "max_other": lambda m, t: m.max(t, t),
    "min": lambda m, t: m.min(t),
    "min_dim": lambda m, t: t.min(0, keepdim=True),
    "min_other": lambda m, t: m.min(t, t),
    "argmax": lambda m, t: m.argmax(t),
    "argmin": lambda m, t: m.argmin(t, 1),
    "maximum": lambda m, t: m.maximum(t, t),
    "minimum": lambda m, t: m.minimum(t, t),
    "fmax": lambda m, t: m.fmax(t, t),
    "fmin": lambda m, t: m.fmin(t, t),
    "clamp": lambda m, t: m.clamp(t, 0, 1),
    "clamp_tensor": lambda m, t: m.clamp(t, t, t),
    "clamp_inplace": lambda m, t: t.clamp_(0, 1),
    "clip": lambda m, t: m.clip(t, 0, 1),
    "clamp_min": lambda m, t: m.clamp_min(t, 0),
    "clamp_max_inplace": lambda m, t: t.clamp_max_(1),
    "amax": lambda m, t: m.amax(t),
    "amin": lambda m, t: m.amin(t, 1),
    "aminmax": lambda m, t: m.aminmax(t),
    "aminmax_dim": lambda m, t: m.aminmax(t, dim=0),
    "kthvalue": lambda m, t: m.kthvalue(t, 1),
    "median": lambda m, t: m.median(t),
    "median_dim": lambda m, t: m.median(t, 0),
    "nanmedian": lambda m, t: m.nanmedian(t),
    "nanmedian_dim": lambda m, t: m.nanmedian(t, 1),
    "mode": lambda m, t: m.mode(t, 0),
    "cummax": lambda m, t: m.cummax(t, 0),
    "cummin": lambda m, t: m.cummin(t, 1),
}


def raised(f):
    with pytest.raises(Exception) as info:
        f()
    return type(info.value), str(info.value).splitlines()[0]


@pytest.mark.parametrize("dtype", ["cfloat", "cdouble"])
@pytest.mark.parametrize("shape", [(2, 3), (4, 1)])
@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refusal_matches_torch(case, shape, dtype):
    f = REFUSALS[case]
    want = raised(lambda: f(torch, torch.ones(shape, dtype=getattr(torch, dtype))))
    got = raised(lambda: f(mt, mt.ones(shape, dtype=getattr(mt, dtype))))
    assert got[0].__name__ == want[0].__name__
    assert got[1] == want[1]


@pytest.mark.parametrize("case", ["sort", "max", "clamp", "amax"])
def test_refusal_leaves_real_inputs_working(case):
    x = [[3.0, -1.0, 2.0], [0.5, 4.0, -2.0]]
    got, want = REFUSALS[case](mt, mt.tensor(x)), REFUSALS[case](torch, torch.tensor(x))
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        assert g.tolist() == w.tolist()
