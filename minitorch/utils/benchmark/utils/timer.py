"""Timer: timeit.Timer with torch's additions: a warmup before timing,
minitorch's thread count set to ``num_threads`` while it measures (and
restored after), results as Measurements carrying labels for Compare, and
blocked/adaptive autoranging that times blocks sized so the timer's own
overhead is negligible. Python statements only: minitorch compiles no C++
timing harness."""
import enum
import textwrap
import timeit
from typing import Any, Callable, Dict, List, Optional

import minitorch

from . import common

__all__ = ["Timer", "timer", "Language"]


def timer() -> float:
    """The clock Timer reads by default (minitorch runs on the CPU only, so
    there is no device to synchronize)."""
    return timeit.default_timer()


class Language(enum.Enum):
    """The language of a Timer's statement."""
    PYTHON = 0
    CPP = 1


class Timer:
    """Measures the execution time of a Python statement, as
    torch.utils.benchmark.Timer.

    Args:
        stmt: the code to time (a string).
        setup: code run once before timing, defining what ``stmt`` uses.
        global_setup: C++ only; must be empty.
        timer: the clock (default :func:`timer`).
        globals: the namespace ``stmt`` and ``setup`` run in; ``torch`` and
            ``minitorch`` name the minitorch module unless given.
        label, sub_label, description, env: names of the measurement that
            Compare groups and prints by.
        num_threads: minitorch's thread count while measuring (default 1).
        language: ``"python"`` (``"py"``, ``Language.PYTHON``).
    """

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer: Callable[[], float] = timer, globals: Optional[Dict[str, Any]] = None,
                 label: Optional[str] = None, sub_label: Optional[str] = None,
                 description: Optional[str] = None, env: Optional[str] = None,
                 num_threads: int = 1, language=Language.PYTHON) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        if language in (Language.PYTHON, "py", "python"):
            self._globals.setdefault("torch", minitorch)
            self._globals.setdefault("minitorch", minitorch)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely "
                                 "this code can simply be moved to `setup`.")
        elif language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("minitorch's Timer measures Python statements only: C++ "
                                      "timing needs torch's C++ toolchain.")
        else:
            raise ValueError(f"Invalid language `{language}`.")
        stmt, setup = _tidy(stmt), _tidy(setup)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(
            stmt=stmt, setup=setup, global_setup=global_setup, label=label, sub_label=sub_label,
            description=description, env=env, num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        # never 0: a time divides the timer's overhead when sizing blocks
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """Runs ``stmt`` ``number`` times (after a warmup of number // 100, at
        least 2) and returns the one block's Measurement, as timeit.Timer.timeit."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return common.Measurement(number_per_run=number,
                                      raw_times=[self._timeit(number=number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1):
        """Not provided, as in torch: use :meth:`blocked_autorange`."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        """Not provided, as in torch: use :meth:`blocked_autorange`."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(self, number, stop_hook, min_run_time, max_run_time=None,
                          callback=None) -> List[float]:
        total, can_stop, times = 0.0, False, []
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop_hook(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time: float) -> int:
        """The smallest power of ten of executions whose block makes the
        timer's overhead at most 1e-4 of it and takes at least
        min_run_time / 1000 (or takes longer than min_run_time)."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = minitorch.tensor([self._timeit(0) for _ in range(5)]).median().item()
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> common.Measurement:
        """Times blocks of executions until min_run_time has passed; the block
        size is chosen first so the timer's overhead is negligible.
        ``callback(number, time)`` is called after each block."""
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda times: True, min_run_time,
                                       callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0, callback=None) -> common.Measurement:
        """As :meth:`blocked_autorange`, but keeps timing blocks until there are
        more than 3, min_run_time has passed and IQR / median is below
        threshold, or max_run_time has passed."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop_hook(times):
            return len(times) > 3 and common.Measurement(
                number_per_run=number, raw_times=times,
                task_spec=self._task_spec).meets_confidence(threshold=threshold)

        times = self._measurement_loop(number, stop_hook, min_run_time, max_run_time,
                                       callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)


def _tidy(code: str) -> str:
    """Dedented, without a leading newline or trailing space, as torch keeps it."""
    code = textwrap.dedent(code)
    return (code[1:] if code and code[0] == "\n" else code).rstrip()
