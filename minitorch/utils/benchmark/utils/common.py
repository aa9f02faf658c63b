"""What a measurement is and how it reads: TaskSpec (the timed statement and
its labels), Measurement (raw block times and their statistics, printed in
torch's form) and the unit and significant-figure helpers Compare shares.

The statistics are computed with minitorch tensors the way torch computes
them with its own (float64 quantiles; float32 for the unit, digit and
significant-figure estimates), so the printed numbers agree with torch's."""
import collections
import contextlib
import dataclasses
import textwrap
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

import numpy

import minitorch

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns
# IQR / median thresholds above which a measurement carries a warning
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a Timer times (all but its globals): the statement, setup and the
    labels that name and group the measurement."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: Optional[str] = None
    sub_label: Optional[str] = None
    description: Optional[str] = None
    env: Optional[str] = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (else the one-line statement), with the sub_label."""
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        paren = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{paren}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        """The setup as the printed form shows it ('' when there is none)."""
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The title, description and setup lines of a printed Measurement."""
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The result of a Timer run: ``raw_times`` holds one time per block of
    ``number_per_run`` executions of the statement. The TaskSpec's fields
    read as the measurement's own (``m.label``, ``m.num_threads``)."""
    number_per_run: int
    raw_times: List[float]
    task_spec: TaskSpec
    metadata: Optional[Dict[Any, Any]] = None  # the user's, carried along

    def __post_init__(self) -> None:
        self._sorted_times: Tuple[float, ...] = ()
        self._warnings: Tuple[str, ...] = ()
        self._median = -1.0
        self._mean = -1.0
        self._p25 = -1.0
        self._p75 = -1.0

    def __getattr__(self, name: str) -> Any:
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self) -> List[float]:
        """The time of one execution in each block."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        """The median of :attr:`times`."""
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        """The mean of :attr:`times`."""
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        """The interquartile range of :attr:`times`."""
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """An estimate (1 to 4) of the median's significant figures, from a 90%
        confidence interval over the interquartile times; Compare trims to it."""
        self._lazy_init()
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4:int(minitorch.tensor(3 * n / 4).ceil())]
        # float32 values as torch's default tensor holds them; numpy's std, as
        # minitorch's float32 std of equal values can come out NaN
        std = float(numpy.asarray(middle, dtype=numpy.float32).astype(numpy.float64).std())
        sqrt_n = minitorch.tensor(len(middle)).sqrt().item()
        interval = max(1.645 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        relative = minitorch.tensor(self._median / interval).log10().item()
        figures = int(minitorch.tensor(relative).floor())
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        """Whether the spread (IQR / median) is large enough to warn about."""
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self) -> None:
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        t = minitorch.tensor(self._sorted_times, dtype=minitorch.float64)
        self._median = t.quantile(0.5).item()
        self._mean = t.mean().item()
        self._p25 = t.quantile(0.25).item()
        self._p75 = t.quantile(0.75).item()
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            self._add_warning("This suggests significant environmental influence.")
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            self._add_warning("This could indicate system fluctuation.")

    def _add_warning(self, msg: str) -> None:
        rel_iqr = self.iqr / self.median * 100
        self._warnings += (f"  WARNING: Interquartile range is {rel_iqr:.1f}% of the median "
                           f"measurement.\n           {msg}",)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether IQR / median is below threshold."""
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        """The TaskSpec's title."""
        return self.task_spec.title

    @property
    def env(self) -> Optional[str]:
        """The TaskSpec's env tag (None when unspecified, as torch's reads)."""
        return self.task_spec.env

    @property
    def as_row_name(self) -> str:
        """The name of this measurement's row in a Compare table."""
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} to "
                         f"{self._p75 / scale:.2f})")
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads}")
        lines.append("\n".join(self._warnings))
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements: Iterable["Measurement"]) -> List["Measurement"]:
        """One Measurement per distinct TaskSpec, holding the per-execution
        times of all its replicates (number_per_run 1, no metadata)."""
        groups: Dict[TaskSpec, List[float]] = collections.defaultdict(list)
        for m in measurements:
            groups[m.task_spec].extend(m.times)
        return [Measurement(number_per_run=1, raw_times=times, task_spec=spec, metadata=None)
                for spec, times in groups.items()]


def select_unit(t: float) -> Tuple[str, float]:
    """The unit ("ns", "us", "ms" or "s") that gives t (seconds) a leading
    digit, and its scale in seconds."""
    exponent = int(minitorch.tensor(t).log10().item() // 3)
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exponent, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u: str) -> str:
    """The unit's English name ("us" -> "microsecond")."""
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """x rounded to n significant figures (3.14159, 2 -> 3.1)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(minitorch.tensor(x).abs().log10().ceil().item())
    scale = 10 ** (magnitude - n)
    return float(minitorch.tensor(x / scale).round() * scale)


def ordered_unique(elements: Iterable[Any]) -> List[Any]:
    """The distinct elements in first-seen order."""
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Runs the block with minitorch's thread count set to n, then restores it."""
    prior = minitorch.get_num_threads()
    try:
        minitorch.set_num_threads(n)
        yield
    finally:
        minitorch.set_num_threads(prior)
