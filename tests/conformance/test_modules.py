"""torch's module_db as minitorch's conformance suite for minitorch.nn: one
check per ModuleInfo, dtype and mode (module::<Name>::<dtype>::<mode>) and
one of its error inputs where it has them (module::<Name>::errors), held to
expected_failures/modules.txt."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")

from torch.testing._internal.common_modules import module_db  # noqa: E402

import minitorch as mt  # noqa: E402

from .convert import dtype_name, report  # noqa: E402
from .expected import assert_list_current  # noqa: E402
from .module_compare import (  # noqa: E402
    check_module, check_module_errors, counterpart, is_random)
from .reported import run_reported  # noqa: E402

DTYPES = (torch.float32, torch.float64)
MODES = (("train", True), ("eval", False))

CHECKS = [(f"module::{info.module_cls.__name__}::{dtype_name(dtype)}::{mode}",
           info, dtype, training)
          for info in module_db for dtype in DTYPES for mode, training in MODES]
ERROR_CHECKS = [(f"module::{info.module_cls.__name__}::errors", info)
                for info in module_db if info.module_error_inputs_func is not None]


@pytest.mark.parametrize("check,info,dtype,training", CHECKS, ids=[c[0] for c in CHECKS])
def test_module(check, info, dtype, training):
    name = info.module_cls.__name__
    if counterpart(info.module_cls) is None:
        report("module", "nn", name, False, False, check)
        pytest.skip(f"minitorch.nn.{name} does not exist")
    run_reported("module", "nn", name, check, lambda: check_module(info, dtype, training),
                 "modules")


@pytest.mark.parametrize("check,info", ERROR_CHECKS, ids=[c[0] for c in ERROR_CHECKS])
def test_module_errors(check, info):
    name = info.module_cls.__name__
    if counterpart(info.module_cls) is None:
        report("module", "nn", name, False, False, check)
        pytest.skip(f"minitorch.nn.{name} does not exist")
    run_reported("module", "nn", name, check, lambda: check_module_errors(info), "modules")


def test_modules_list_is_current():
    assert_list_current("modules", [c[0] for c in CHECKS + ERROR_CHECKS])


# The harness itself: a minitorch module that is wrong in its output, its
# buffers, its gradients or its error must fail its check.
INFOS = {info.module_cls.__name__: info for info in module_db}


def _shifted_output(forward):
    return lambda self, *args, **kwargs: forward(self, *args, **kwargs) + 1e-3


def _drifting_running_mean(forward):
    def wrong(self, *args, **kwargs):
        out = forward(self, *args, **kwargs)
        if self.training and self.running_mean is not None:
            with mt.no_grad():
                self.running_mean.add_(1e-3)
        return out
    return wrong


def _doubled_weight_grad(forward):
    # the output's value unchanged, the weight's gradient doubled
    return lambda self, input: forward(self, input) + input @ (self.weight - self.weight.detach()).T


@pytest.mark.parametrize("name,dtype,training,wrong,message", [
    ("Linear", torch.float32, True, _shifted_output, "output"),
    ("Linear", torch.float64, False, _shifted_output, "output"),
    ("BatchNorm1d", torch.float64, True, _drifting_running_mean, "running_mean"),
    ("Linear", torch.float64, True, _doubled_weight_grad, "weight.grad"),
])
def test_harness_catches_a_wrong_module(monkeypatch, name, dtype, training, wrong, message):
    cls = getattr(mt.nn, name)
    monkeypatch.setattr(cls, "forward", wrong(cls.forward))
    with pytest.raises(AssertionError, match=message):
        check_module(INFOS[name], dtype, training)


def test_harness_catches_a_wrong_error(monkeypatch):
    def no_check(self, input):
        return input
    monkeypatch.setattr(mt.nn.CircularPad2d, "forward", no_check)
    with pytest.raises(AssertionError, match="raises nothing, torch raises ValueError"):
        check_module_errors(INFOS["CircularPad2d"])


def test_random_modules_are_compared_by_shape_only():
    assert is_random(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.5)))
    assert not is_random(torch.nn.Dropout(0.5).eval())
    assert not is_random(torch.nn.Dropout(0.0))
    assert is_random(torch.nn.LSTM(2, 2, num_layers=2, dropout=0.5))
    assert not is_random(torch.nn.Linear(2, 2))
