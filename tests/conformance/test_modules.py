"""torch's module_db as minitorch's conformance suite for minitorch.nn: one
check per ModuleInfo, dtype and mode (module::<Name>::<dtype>::<mode>) and
one of its error inputs where it has them (module::<Name>::errors), held to
expected_failures/modules.txt."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")

from torch.testing._internal.common_modules import module_db  # noqa: E402

from .convert import dtype_name, report  # noqa: E402
from .expected import assert_list_current  # noqa: E402
from .module_compare import check_module, check_module_errors, counterpart  # noqa: E402
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
