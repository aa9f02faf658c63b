"""torch's op_db as a conformance suite: one test per (OpInfo, check), with
ids `op::<OpInfo>::<check>`, held to expected_failures/ops.txt. Checks:
samples (values of every variant over the capped sample and reference
inputs), grad (float64 reverse mode), fwad (float64 forward mode), errors
(error inputs), and for OpInfos listing complex dtypes complex_samples (the
samples check at complex64 and complex128) and complex_grad (reverse mode
at complex128). OpInfos without a minitorch counterpart are only reported."""
import signal

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")

import torch

from .convert import report
from .expected import assert_list_current, run_check
from .op_errors import check_errors
from .op_gradients import check_complex_gradients, check_forward_ad, check_gradients
from .op_mapping import mapped_op_db
from .op_samples import check_complex_values, check_values

CHECKS = {"samples": check_values, "grad": check_gradients, "fwad": check_forward_ad,
          "errors": check_errors, "complex_samples": check_complex_values,
          "complex_grad": check_complex_gradients}

# a check still running after this long is a hang, reported as a failure
HANG_SECONDS = 120

MAPPED = mapped_op_db()


def kinds(mapped):
    op = mapped.op
    out = ["samples"]
    differentiable = torch.float64 in mapped.dtypes and \
        torch.float64 in op.supported_backward_dtypes("cpu")
    if op.supports_autograd and differentiable:
        out.append("grad")
    if op.supports_forward_ad and differentiable:
        out.append("fwad")
    if op.error_inputs_func is not None:
        out.append("errors")
    if mapped.complex_dtypes:
        out.append("complex_samples")
    if op.supports_autograd and torch.complex128 in mapped.complex_dtypes and \
            torch.complex128 in op.supported_backward_dtypes("cpu"):
        out.append("complex_grad")
    return out


CASES = [(m, k) for m in MAPPED if m.present for k in kinds(m)]


def check_id(mapped, kind):
    return f"op::{mapped.id}::{kind}"


def _hang(signum, frame):
    raise TimeoutError(f"still running after {HANG_SECONDS}s")


@pytest.mark.parametrize("mapped,kind", CASES, ids=[check_id(m, k) for m, k in CASES])
def test_op(mapped, kind):
    def run():
        previous = signal.signal(signal.SIGALRM, _hang)
        signal.alarm(HANG_SECONDS)
        try:
            tally = CHECKS[kind](mapped)
        except Exception as e:
            report("op", mapped.namespace, mapped.id, True, False,
                   {"check": kind, "total": 0, "agree": 0, "error": repr(e)[:300]})
            raise
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        detail = {"check": kind, "total": tally.total, "agree": tally.agree}
        if tally.variants:
            detail["variants"] = tally.variants
        if kind == "errors":
            detail["type"] = tally.type_ok
        if tally.failures:
            detail["failures"] = [f[:300] for f in tally.failures[:10]]
        report("op", mapped.namespace, mapped.id, True, not tally.failures, detail)
        tally.raise_if_failed("checks" if kind.endswith("samples") else "cases")
    run_check("ops", check_id(mapped, kind), run)


def test_absent_ops_reported():
    """Each OpInfo minitorch has no callable for is a report line, not a failure."""
    absent = [m for m in MAPPED if not m.present]
    for m in absent:
        report("op", m.namespace, m.id, False, False, {"applicable": m.applicable})
    assert len(absent) + len({m.id for m in MAPPED if m.present}) == len(MAPPED)


def test_list_current():
    assert_list_current("ops", [check_id(m, k) for m, k in CASES])
