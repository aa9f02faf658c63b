"""nn.DataParallel as torch's CPU build has it: a Module that keeps the
wrapped module (state-dict keys under ``module.``) and calls it, with no
device ids; the functional ``data_parallel`` refuses for lack of a device."""
import copy

import numpy as np
import pytest

from side_by_side import errmsg, same, val

torch = pytest.importorskip("torch")


class Scale:
    """A module taking keyword arguments, for either library."""

    @staticmethod
    def make(L):
        class M(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = L.nn.Linear(2, 2, bias=False)
                with L.no_grad():
                    self.lin.weight.copy_(L.tensor([[1.0, 2.0], [3.0, 4.0]]))

            def forward(self, x, scale=1.0):
                return self.lin(x) * scale
        return M()


def wrapped(L, checkpointed):
    module = Scale.make(L)
    dp = L.nn.DataParallel(copy.deepcopy(module), device_ids=None, dim=0)
    x = L.tensor([[1.0, -1.0], [0.5, 2.0]], requires_grad=True)
    if checkpointed:
        out = L.utils.checkpoint.checkpoint(dp, x, use_reentrant=False, scale=2.0)
    else:
        out = dp(x, scale=2.0)
    out.sum().backward()
    ref = module(x.detach(), scale=2.0)
    return (val(out), val(ref), val(x.grad), dp.device_ids, list(dp.state_dict()),
            isinstance(dp, L.nn.Module), dp.module.lin.weight.grad is not None,
            type(dp).__name__, repr(dp).splitlines()[:2])


@pytest.mark.parametrize("checkpointed", [False, True])
def test_data_parallel_calls_the_module(checkpointed):
    got = same(torch, wrapped, checkpointed)
    assert got[0] == got[1] and got[3] == [] and got[4] == ["module.lin.weight"]


def functional_refuses(L):
    m = L.nn.Linear(2, 2)
    return errmsg(lambda: L.nn.parallel.data_parallel(m, L.ones(1, 2)))


def test_functional_data_parallel_needs_a_device():
    assert same(torch, functional_refuses) == ("RuntimeError",
                                               "device type could not be determined")


def test_parameters_are_the_module_s():
    import minitorch as mt
    inner = mt.nn.Linear(3, 1)
    dp = mt.nn.DataParallel(inner)
    assert [p is q for p, q in zip(dp.parameters(), inner.parameters())] == [True, True]
    x = mt.tensor(np.ones((4, 3), dtype=np.float32))
    assert mt.equal(dp(x), inner(x))
