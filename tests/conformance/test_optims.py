"""torch's optim_db as minitorch's conformance suite for minitorch.optim:
one check per OptimizerInfo configuration (optim::<Name>::config<i>), one
per implementation flag over every configuration (optim::<Name>::<flag>),
one with the parameters in two groups over every configuration
(optim::<Name>::param_groups) and one of its error inputs
(optim::<Name>::errors), held to expected_failures/optims.txt."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")

from torch.testing._internal.common_optimizers import optim_db  # noqa: E402

import minitorch as mt  # noqa: E402

from .convert import report  # noqa: E402
from .expected import assert_list_current  # noqa: E402
from .optim_compare import check_config, check_errors, configs, counterpart, impls  # noqa: E402
from .reported import run_reported  # noqa: E402


def _checks():
    out = []
    for info in optim_db:
        name = info.optim_cls.__name__
        cfgs = [c.kwargs for c in configs(info)]
        out += [(f"optim::{name}::config{i}", info, [kw], None) for i, kw in enumerate(cfgs)]
        out += [(f"optim::{name}::{impl}", info, cfgs, impl) for impl in impls(info)]
        if info.supports_param_groups:
            out.append((f"optim::{name}::param_groups", info, cfgs, "param_groups"))
        if info.optim_error_inputs_func is not None:
            out.append((f"optim::{name}::errors", info, None, None))
    return out


CHECKS = _checks()


@pytest.mark.parametrize("check,info,kwargs_list,variant", CHECKS, ids=[c[0] for c in CHECKS])
def test_optim(check, info, kwargs_list, variant):
    name = info.optim_cls.__name__
    if counterpart(info.optim_cls) is None:
        report("optim", "optim", name, False, False, check)
        pytest.skip(f"minitorch.optim.{name} does not exist")

    def fn():
        if kwargs_list is None:
            check_errors(info)
            return
        for kwargs in kwargs_list:
            try:
                check_config(info, kwargs, variant)
            except AssertionError as e:
                raise AssertionError(f"{kwargs}: {e}") from e

    run_reported("optim", "optim", name, check, fn, "optims")


def test_optims_list_is_current():
    assert_list_current("optims", [c[0] for c in CHECKS])


# The harness itself: a minitorch optimizer that is wrong in its update or
# in its state must fail its check.
INFOS = {info.optim_cls.__name__: info for info in optim_db}


def test_harness_catches_a_wrong_update(monkeypatch):
    update = mt.optim.SGD._update_group

    def wrong(self, group):
        update(self, {**group, "lr": group["lr"] * 1.01})
    monkeypatch.setattr(mt.optim.SGD, "_update_group", wrong)
    with pytest.raises(AssertionError, match="parameters after step 1"):
        check_config(INFOS["SGD"], {"lr": 0.1})


def test_harness_catches_a_wrong_state(monkeypatch):
    update = mt.optim.Adam._update_group

    def wrong(self, group):
        update(self, group)
        for p in group["params"]:
            self.state[p]["exp_avg"].mul_(1.01)
    monkeypatch.setattr(mt.optim.Adam, "_update_group", wrong)
    with pytest.raises(AssertionError, match="state_dict after step 1.*exp_avg"):
        check_config(INFOS["Adam"], {})


def test_harness_catches_group_options_ignored(monkeypatch):
    update = mt.optim.SGD._update_group

    def wrong(self, group):
        update(self, {**group, "lr": self.defaults["lr"]})
    monkeypatch.setattr(mt.optim.SGD, "_update_group", wrong)
    check_config(INFOS["SGD"], {"lr": 0.1})
    with pytest.raises(AssertionError, match=r"parameters after step 1\[1\]"):
        check_config(INFOS["SGD"], {"lr": 0.1}, "param_groups")
