"""gradcheck(check_batched_grad=True), gradcheck(check_batched_forward_grad=True)
and gradgradcheck(check_batched_grad=True): the batched gradients under vmap
must match one gradient per cotangent, with torch's messages when they do not."""
import pytest

import minitorch as mt
from minitorch.autograd import Function, gradcheck, gradgradcheck
from minitorch.autograd.gradcheck import GradcheckError
from minitorch.autograd._gradcheck_batched import FAILED_BATCHED_GRAD_MSG


def _inputs():
    mt.manual_seed(0)
    return (mt.randn(3, 4, dtype=mt.double, requires_grad=True),
            mt.randn(4, 2, dtype=mt.double, requires_grad=True))


FUNCS = [
    ("matmul_sin", lambda a, b: (a @ b).sin()),
    ("two_outputs", lambda a, b: (a.exp().sum(0), (a @ b).tanh())),
    ("reductions", lambda a, b: a.softmax(-1).sum(1) * b.logsumexp(0).sum()),
    ("shapes", lambda a, b: a.t().reshape(2, 6)[:, 1:] * b.flatten()[:5]),
    ("fallback_op", lambda a, b: a.median() * b),
]


@pytest.mark.parametrize("name,fn", FUNCS, ids=[f[0] for f in FUNCS])
def test_batched_grad_passes(name, fn):
    assert gradcheck(fn, _inputs(), check_batched_grad=True)
    assert gradgradcheck(fn, _inputs(), check_batched_grad=True)
    assert gradcheck(fn, _inputs(), check_forward_ad=True, check_batched_forward_grad=True)


class NoisyBackward(Function):
    """Right in expectation only: each backward adds fresh noise."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2 + mt.randn_like(g) * 1e-3


def test_batched_grad_mismatch_is_reported():
    x = mt.randn(3, dtype=mt.double, requires_grad=True)
    with pytest.raises(GradcheckError) as err:
        gradcheck(NoisyBackward.apply, (x,), atol=1e-2, nondet_tol=1.0,
                  check_undefined_grad=False, check_batched_grad=True)
    text = str(err.value)
    assert text.startswith("For output 0 and input 0:\n\n" + FAILED_BATCHED_GRAD_MSG)
    assert "\n\nGot:\n" in text and "\n\nExpected:\n" in text
    assert not gradcheck(NoisyBackward.apply, (x,), atol=1e-2, nondet_tol=1.0,
                         check_undefined_grad=False, check_batched_grad=True,
                         raise_exception=False)


def test_batched_flags_need_their_mode():
    with pytest.raises(AssertionError, match="check_batched_grad=True requires "
                                             "check_backward_ad to be True"):
        gradcheck(lambda a: a * 2, _inputs()[:1], check_forward_ad=True,
                  check_backward_ad=False, check_batched_grad=True)
    with pytest.raises(AssertionError, match="check_batched_grad=True requires "
                                             "check_rev_over_rev to be True"):
        gradgradcheck(lambda a: a * 2, _inputs()[:1], check_undefined_grad=False,
                      check_fwd_over_rev=True, check_rev_over_rev=False,
                      check_batched_grad=True)


def test_autograd_grad_is_grads_batched_matches_torch():
    torch = pytest.importorskip("torch")
    mt.manual_seed(1)
    x = mt.randn(3, dtype=mt.double, requires_grad=True)
    u = mt.randn(2, dtype=mt.double, requires_grad=True)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    tu = torch.tensor(u.detach().numpy(), requires_grad=True)
    v = mt.randn(4, 3, dtype=mt.double)
    got = mt.autograd.grad((x.sin() * 2, (x * x).sum()), (x, u), (v, mt.ones(4, dtype=mt.double)),
                           is_grads_batched=True, allow_unused=True, retain_graph=True)
    want = torch.autograd.grad((tx.sin() * 2, (tx * tx).sum()), (tx, tu),
                               (torch.tensor(v.numpy()), torch.ones(4, dtype=torch.double)),
                               is_grads_batched=True, allow_unused=True, retain_graph=True)
    assert got[1] is None and want[1] is None
    assert tuple(got[0].shape) == (4, 3)
    assert mt.allclose(got[0], mt.tensor(want[0].numpy()))
