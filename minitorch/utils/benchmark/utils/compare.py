"""Compare: many Measurements as torch prints them, one table per label:
a row per (num_threads, env, sub_label or stmt), a column per description,
replicates merged, each cell the median in the table's unit; optionally
trimmed to the estimated significant figures, colored against the best of
its column or row, and flagged where the spread is high."""
import collections
import enum
import itertools

import minitorch

from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    """Which cells a colored table compares: none, within a column, within a row."""
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(x: float) -> int:
    return int(minitorch.tensor(x).log10().ceil())


class _Column:
    """One description's cells: the number format shared by its cells."""

    def __init__(self, grouped_results, time_scale, trim_significant_figures,
                 highlight_warnings) -> None:
        self._grouped_results = grouped_results
        flat = list(itertools.chain.from_iterable(grouped_results))
        self._trim = trim_significant_figures
        self._highlight = highlight_warnings and any(r.has_warnings for r in flat if r)
        digits = [_leading_digits(r.median / time_scale) if r else None for r in flat]
        unit_digits = max(d for d in digits if d is not None)
        decimals = min(max(m.significant_figures - d, 0) for d, m in zip(digits, flat)
                       if m is not None) if self._trim else 1
        length = unit_digits + decimals + (1 if decimals else 0)
        self._template = f"{{:>{length}.{decimals}f}}{{:>{7 if self._highlight else 0}}}"

    def results_for(self, group):
        return self._grouped_results[group]

    def num_to_str(self, value, sigfigs, spread) -> str:
        if value is None:
            return " " * len(self.num_to_str(1, sigfigs, None))
        if self._trim:
            value = common.trim_sigfig(value, sigfigs)
        flag = f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else ""
        return self._template.format(value, flag)


def _color(segment, value, best):
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + segment + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + segment + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + segment + TERMINATE * 2
    if value >= best * 2:
        return BAD + segment + TERMINATE * 2
    return segment


class _Row:
    """One row's cells; the first row of a thread count opens a separator."""

    def __init__(self, results, group, render_env, env_len, time_scale, colorize,
                 num_threads) -> None:
        self.results = results
        self._group = group
        self._render_env = render_env
        self._env_len = env_len
        self._time_scale = time_scale
        self._colorize = colorize
        self._num_threads = num_threads
        self.columns = ()

    def column_strings(self):
        first = next(r for r in self.results if r is not None)
        env = f"({first.env})" if self._render_env else ""
        out = ["  " + env.ljust(self._env_len + 4) + first.as_row_name]
        for m, col in zip(self.results, self.columns):
            if m is None:
                out.append(col.num_to_str(None, 1, None))
            else:
                out.append(col.num_to_str(m.median / self._time_scale, m.significant_figures,
                                          m.iqr / m.median if m.has_warnings else None))
        return out

    def separator(self, width):
        if self._num_threads is None:
            return []
        return [f"{self._num_threads} threads: ".ljust(width, "-")]

    def finalize(self, strings, widths):
        if self._colorize == Colorize.ROWWISE:
            best = [min(r.median for r in self.results if r is not None)] * len(strings)
        elif self._colorize == Colorize.COLUMNWISE:
            best = [min((r.median for r in c.results_for(self._group) if r is not None),
                        default=None) for c in self.columns]
        else:
            best = [-1] * len(strings)
        out = [strings[0].ljust(widths[0])]
        for s, w, r, b in zip(strings[1:], widths[1:], self.results, best):
            s = s.center(w)
            if self._colorize != Colorize.NONE and r is not None and b is not None:
                s = _color(s, r.median, b)
            out.append(s)
        return out


def _row_key(m):
    return m.num_threads, m.env, m.as_row_name


class _Table:
    """The table of one label."""

    def __init__(self, results, colorize, trim, highlight) -> None:
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results = results
        self.label = results[0].label
        self._highlight = highlight
        self.unit, self.scale = common.select_unit(min(r.median for r in results))
        row_keys = common.ordered_unique(_row_key(r) for r in results)
        row_keys.sort(key=lambda k: k[:2])  # threads, then env; stmt order kept
        self.col_keys = common.ordered_unique(r.description for r in results)
        cells = [[None] * len(self.col_keys) for _ in row_keys]
        row_at = {k: i for i, k in enumerate(row_keys)}
        col_at = {k: i for i, k in enumerate(self.col_keys)}
        for r in results:
            cells[row_at[_row_key(r)]][col_at[r.description]] = r
        envs = {r.env for r in results}
        render_env = len(envs) > 1
        env_len = max(len(e) for e in envs) if render_env else 0
        self.rows, groups = [], []
        prior_threads, prior_env = -1, ""
        for (threads, env, _), row in zip(row_keys, cells):
            new_group = threads != prior_threads
            if new_group:
                prior_threads, prior_env = threads, ""
                groups.append([])
            self.rows.append(_Row(row, len(groups) - 1, render_env and env != prior_env, env_len,
                                  self.scale, colorize, threads if new_group else None))
            groups[-1].append(row)
            prior_env = env
        columns = tuple(
            _Column([tuple(row[i] for row in g) for g in groups], self.scale, trim, highlight)
            for i in range(len(self.col_keys)))
        for row in self.rows:
            row.columns = columns

    def render(self) -> str:
        string_rows = [[""] + self.col_keys] + [r.column_strings() for r in self.rows]
        n = max(len(s) for s in string_rows)
        for s in string_rows:
            s.extend([""] * (n - len(s)))
        widths = [max(len(x) for x in col) for col in zip(*string_rows)]
        lines = ["  |  ".join(x.center(w) for x, w in zip(string_rows[0], widths))]
        width = len(lines[0])
        for strings, row in zip(string_rows[1:], self.rows):
            lines.extend(row.separator(width))
            lines.append("  |  ".join(row.finalize(strings, widths)))
        warned = self._highlight and any(r.has_warnings for r in self.results)
        note = ("(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
                if warned else "")
        title = f"[{(' ' + (self.label or '') + ' ').center(width - 2, '-')}]"
        return (f"{title}\n" + "\n".join(lines) + "\n\n"
                f"Times are in {common.unit_to_english(self.unit)}s ({self.unit}).\n{note}")


class Compare:
    """Prints many Measurements as tables, as torch.utils.benchmark.Compare:
    one per label, rows by sub_label (or stmt) and thread count, columns by
    description. ``str(compare)`` is the printed text.

    Args:
        results: the Measurements to show.
    """

    def __init__(self, results) -> None:
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results) -> None:
        """Adds Measurements to the ones shown (ValueError for anything else)."""
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Prints each cell to its measurement's estimated significant figures."""
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        """Colors each cell against the best of its column (or of its row)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Flags cells whose spread is high with their IQR / median."""
        self._highlight_warnings = True

    def print(self) -> None:
        """Prints the tables."""
        print(str(self))

    def _render(self):
        by_label = collections.defaultdict(list)
        for r in common.Measurement.merge(self._results):
            by_label[r.label].append(r)
        return [_Table(group, self._colorize, self._trim_significant_figures,
                       self._highlight_warnings).render() for group in by_label.values()]
