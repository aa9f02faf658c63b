"""An OpInfo's error inputs: minitorch must raise torch's exception type,
with a message matching torch's (ErrorInput.error_regex)."""
import re
import warnings

from .convert import to_mt
from .op_samples import Tally, call_torch


class ErrorTally(Tally):
    """A Tally that also counts the inputs raising torch's type."""

    def __init__(self):
        super().__init__()
        self.type_ok = 0


def check_errors(mapped):
    op = mapped.op
    tally = ErrorTally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = list(op.error_inputs("cpu"))
    for i, case in enumerate(cases):
        sample = case.sample_input
        try:
            call_torch(op.op, sample)
        except case.error_type as e:
            if not re.search(case.error_regex, str(e)):
                continue
        except Exception:  # noqa: BLE001 - torch raises otherwise here: not our case
            continue
        else:
            continue

        def check(sample=sample, case=case):
            args = to_mt((sample.input, sample.args, sample.kwargs), shared={})
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    mapped.function(args[0], *args[1], **args[2])
            except Exception as e:  # noqa: BLE001 - the type is what is checked
                if not isinstance(e, case.error_type):
                    raise AssertionError(f"raised {type(e).__name__}({str(e)[:200]!r}), "
                                         f"expected {case.error_type.__name__}") from None
                tally.type_ok += 1
                if not re.search(case.error_regex, str(e)):
                    raise AssertionError(f"message {str(e)[:200]!r} does not match "
                                         f"{case.error_regex!r}") from None
                return
            raise AssertionError(f"raised nothing, expected {case.error_type.__name__}"
                                 f"({case.error_regex!r})")
        tally.record(f"error input {i}", check)
    return tally
