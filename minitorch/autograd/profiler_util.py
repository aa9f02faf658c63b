"""The profiler's results: events, their averages, the summary table and the
Chrome trace, with the fields and formats of torch.autograd.profiler_util.
Events come from the C recorder (csrc/ops/runtime/profile_events.c) through
``minitorch.autograd.profiler``; times here are microseconds."""
import json
import os
from collections import defaultdict

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "Interval"]


class Interval:
    """A start and end time in microseconds."""

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        """The length of the interval in microseconds."""
        return self.end - self.start

    def __repr__(self):
        return f"Interval(start={self.start}, end={self.end})"


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_us):
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


def _format_memory(nbytes):
    for scale, unit in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if abs(nbytes) >= scale:
            return f"{nbytes / scale:.2f} {unit}"
    return f"{nbytes} B"


class _FormattedTimes:
    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)


class FunctionEvent(_FormattedTimes):
    """One profiled range: an op, a backward node, a user range or a memory
    record. ``cpu_parent`` is the range enclosing it on its thread and
    ``cpu_children`` the ranges directly inside it; self times and memory
    are its own minus its children's."""

    def __init__(self, id, name, thread, start_us, end_us, input_shapes=None,
                 cpu_memory_usage=0, is_user_annotation=False, sequence_nr=-1):
        self.id = id
        self.name = name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.own_memory_usage = cpu_memory_usage
        self.cpu_children = []
        self.cpu_parent = None
        self.is_user_annotation = is_user_annotation
        self.sequence_nr = sequence_nr
        self.stack = []
        self.scope = 0
        self.node_id = -1
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.flops = 0
        self.overload_name = ""
        self.use_device = None
        self.device_type = "CPU"
        self.device_time_total = 0
        self.self_device_time_total = 0
        self.device_memory_usage = 0
        self.self_device_memory_usage = 0
        self.count = 1
        self.trace_name = name  # the name in a Chrome trace (ProfilerStep#3, not ProfilerStep*)

    @property
    def key(self):
        """The name events are averaged by: the event's name."""
        return self.name

    @property
    def cpu_time_range(self):
        """The event's Interval (time_range)."""
        return self.time_range

    @property
    def cpu_time_total(self):
        """The event's length in microseconds, its children's included."""
        return self.time_range.elapsed_us()

    @property
    def cpu_time(self):
        """The event's length in microseconds (one call: its total)."""
        return self.cpu_time_total

    @property
    def self_cpu_time_total(self):
        """The event's length minus its children's, in microseconds."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_memory_usage(self):
        """Bytes allocated minus freed during the event, its children included."""
        return self.own_memory_usage + sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self):
        """Bytes allocated minus freed while the event was the innermost one."""
        return self.own_memory_usage

    def append_cpu_child(self, child):
        """Adds child as a range directly inside this one."""
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        """Sets the range directly enclosing this one."""
        self.cpu_parent = parent

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
                f"cpu_time_total={_format_time(self.cpu_time_total)} "
                f"start_us={self.time_range.start} end_us={self.time_range.end} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg(_FormattedTimes):
    """The events of one key added up: their count, total and self times and
    memory; ``cpu_time`` is the average total time."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.self_cpu_time_total = 0
        self.device_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = "CPU"
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops = 0

    def add(self, other):
        """Adds an event (or another average) of the same key."""
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.is_user_annotation = other.is_user_annotation
        if other.key != self.key:
            raise AssertionError(
                f"Expected keys to match, but got {self.key} vs {other.key}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.count += other.count
        self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    @property
    def cpu_time(self):
        """The average length of one call in microseconds."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of events with the summaries torch's has: ``table``,
    ``key_averages``, ``total_average``, ``self_cpu_time_total`` and
    ``export_chrome_trace``."""

    def __init__(self, *args, **kwargs):
        self._profile_memory = kwargs.pop("profile_memory", False)
        self._with_flops = kwargs.pop("with_flops", False)
        kwargs.pop("use_device", None)
        super().__init__(*args, **kwargs)

    @property
    def self_cpu_time_total(self):
        """The self CPU times of the events added up, in microseconds."""
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as torch's summary table, sorted by the attribute
        sort_by names ("self_cpu_time_total", "cpu_time_total", "count",
        "cpu_memory_usage", ...; largest first), at most row_limit rows."""
        return _build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width,
                            profile_memory=self._profile_memory,
                            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """One FunctionEventAvg per name (and input shapes, when
        group_by_input_shapes), in the order the names first ran."""
        stats = defaultdict(FunctionEventAvg)
        for evt in self:
            key = [evt.key, str(evt.is_user_annotation)]
            if group_by_input_shapes:
                key.append(str(evt.input_shapes))
            if group_by_stack_n > 0:
                key += evt.stack[:group_by_stack_n]
            stats[tuple(key)].add(evt)
        averages = EventList(stats.values(), profile_memory=self._profile_memory,
                             with_flops=self._with_flops)
        for avg in averages:
            avg.stack = avg.stack[:group_by_stack_n]
            if not group_by_input_shapes:
                avg.input_shapes = ""
        return averages

    def total_average(self):
        """All events added up into one FunctionEventAvg keyed "Total"."""
        total = FunctionEventAvg()
        for evt in self:
            if total.key is not None:
                total.key = evt.key  # add() sums events of one key only
            total.add(evt)
        total.key = "Total"
        return total

    def export_chrome_trace(self, path):
        """Writes the events as a Chrome trace (JSON that chrome://tracing
        and Perfetto load): one complete ("X") event per range, times in
        microseconds, shapes under args "Input Dims"."""
        _write_chrome_trace(self, path)


def _build_table(events, sort_by=None, header=None, row_limit=100, max_name_column_width=55,
                 max_shapes_column_width=80, profile_memory=False,
                 top_level_events_only=False, time_unit=None):
    if len(events) == 0:
        return ""
    if sort_by is not None:
        events = sorted(events, key=lambda e: getattr(e, sort_by), reverse=True)
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    name_width = min(max(len(e.key) for e in events) + 4, max_name_column_width)
    shapes_width = min(max(len(str(e.input_shapes)) for e in events) + 4,
                       max_shapes_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [12] * (len(headers) - 1)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
    row_format = "".join("{: >" + str(w) + "}  " for w in widths)
    separator = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2

    def show_time(us):
        scale = {"s": (1e6, "s"), "ms": (1e3, "ms"), "us": (1.0, "us")}.get(time_unit)
        return f"{us / scale[0]:.3f}{scale[1]}" if scale else _format_time(us)

    total_self = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]
    shown = 0
    for evt in events:
        if shown == row_limit:
            break
        if top_level_events_only and evt.cpu_parent is not None:
            continue
        shown += 1
        name = evt.key
        if len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _format_time_share(evt.self_cpu_time_total, total_self),
               show_time(evt.self_cpu_time_total),
               _format_time_share(evt.cpu_time_total, total_self),
               show_time(evt.cpu_time_total), show_time(evt.cpu_time)]
        if profile_memory:
            row += [_format_memory(evt.cpu_memory_usage),
                    _format_memory(evt.self_cpu_memory_usage)]
        row.append(evt.count)
        if has_shapes:
            row.append(str(evt.input_shapes)[:shapes_width])
        lines.append(row_format.format(*row))
    lines += [separator, f"Self CPU time total: {show_time(total_self)}"]
    return "\n".join(lines) + "\n"


def _write_chrome_trace(events, path):
    pid = os.getpid()
    trace = []
    for evt in events:
        if evt.name == "[memory]":
            trace.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
                          "pid": pid, "tid": evt.thread, "ts": evt.time_range.start,
                          "args": {"Bytes": evt.self_cpu_memory_usage}})
            continue
        args = {"External id": evt.id}
        if evt.input_shapes:
            args["Input Dims"] = evt.input_shapes
        trace.append({"ph": "X", "cat": "user_annotation" if evt.is_user_annotation else "cpu_op",
                      "name": evt.trace_name, "pid": pid, "tid": evt.thread,
                      "ts": evt.time_range.start, "dur": evt.cpu_time_total, "args": args})
    document = {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
                "traceEvents": trace, "traceName": path}
    if path.endswith(".gz"):
        import gzip
        with gzip.open(path, "wt") as f:
            json.dump(document, f)
    else:
        with open(path, "w") as f:
            json.dump(document, f)
