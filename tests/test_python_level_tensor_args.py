"""A Python-level public function (overrides.overridable) refuses a
non-tensor in a Tensor parameter with the op parser's TypeError before its
body runs, by position or keyword, and lets None through where the
parameter is optional; the message names the position as torch's
Python-level functions do (they hand their arguments on by position)."""
import pytest

import minitorch as mt
from side_by_side import errmsg

torch = pytest.importorskip("torch")


def _calls(lib):
    F = lib.nn.functional
    x = lib.ones(2, 3)
    return [
        lambda: F.layer_norm(None, (3,)),
        lambda: F.layer_norm(input=None, normalized_shape=(3,)),
        lambda: F.layer_norm("x", (3,)),
        lambda: F.layer_norm(x, (3,), 5),
        lambda: F.layer_norm(x, (3,), weight=5),
        lambda: F.layer_norm(x, (3,), None, bias=[1.0]),
        lambda: F.rms_norm(x, (3,), weight=2.0),
    ]


@pytest.mark.parametrize("i", range(len(_calls(mt))))
def test_non_tensor_refused_with_torchs_message(i):
    got = errmsg(_calls(mt)[i])
    want = errmsg(_calls(torch)[i])
    assert got == want
    assert got[0] == "TypeError" and "must be Tensor" in got[1]


def test_optional_none_and_absent_arguments_pass():
    F = mt.nn.functional
    x = mt.tensor([[1.0, 2.0, 4.0]])
    want = (x - x.mean()) / (x.var(unbiased=False) + 1e-5).sqrt()
    for out in (F.layer_norm(x, (3,)), F.layer_norm(x, (3,), None, None),
                F.layer_norm(x, (3,), weight=None), F.layer_norm(input=x, normalized_shape=[3])):
        assert mt.allclose(out, want, atol=1e-6)
