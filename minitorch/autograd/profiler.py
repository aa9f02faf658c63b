"""minitorch.autograd.profiler: torch.autograd.profiler's CPU profiler.

The events are recorded in C (csrc/ops/runtime/profile_events.c): one per
op-table row the runner executes, two per backward node the engine runs
("autograd::engine::evaluate_function: <Node>" around "<Node>"), one per
``record_function`` range, and "[memory]" records for memory allocated or
freed outside any range. This module starts and stops the recorder and
turns what it hands back into ``FunctionEvent`` objects.
"""
import contextlib
import warnings

from .. import _C
from .profiler_util import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["profile", "record_function", "emit_itt", "emit_nvtx", "EventList",
           "FunctionEvent", "FunctionEventAvg"]

_OP, _NODE_EVAL, _NODE, _USER, _MEMORY = range(5)
# torch's hand-written nodes carry their C++ namespace in their names
_CPP_NODES = {"AccumulateGrad", "CopySlices", "CopyBackwards", "Error", "UndefinedGradBackward"}
_NO_SESSION = ("disableProfiler called but no active profiling session found. This can happen "
               "if profiling was cancelled during warmup.")


def _node_name(kind):
    return f"torch::autograd::{kind}" if kind in _CPP_NODES else kind


def _start(record_shapes, profile_memory):
    _C._profiler_start(bool(record_shapes), bool(profile_memory))


# Rows torch answers from the tensor's metadata without dispatching an op:
# its profiler never sees them, so neither does ours.
_METADATA = {"aten::" + n for n in (
    "dim", "ndimension", "numel", "nelement", "size", "stride", "data_ptr", "element_size",
    "is_contiguous", "is_floating_point", "is_complex", "is_signed", "is_conj", "is_neg",
    "is_inference", "storage_offset", "get_device", "type", "__len__")}
# Conversion methods torch runs as aten::to
_AS_TO = {"aten::" + n for n in (
    "float", "double", "half", "bfloat16", "int", "long", "short", "char", "byte", "bool",
    "cfloat", "cdouble")}


def _event_name(kind, name):
    if kind == _NODE_EVAL:
        return "autograd::engine::evaluate_function: " + _node_name(name)
    if kind == _NODE:
        return _node_name(name)
    if kind == _MEMORY:
        return "[memory]"
    if kind == _OP and name in _AS_TO:
        return "aten::to"
    return name


def _stop(profile_memory=False, with_flops=False):
    """Ends the session and returns its events as an EventList (empty, with
    torch's warning, when another profiler's start had taken its place)."""
    raw = _C._profiler_stop()
    if raw is None:
        warnings.warn(_NO_SESSION, stacklevel=3)
        raw = []
    events = []
    # the event each recorded one became: a metadata row's is its parent's
    became = []
    for kind, name, start, end, parent, thread, alloc, freed, shapes in raw:
        enclosing = became[parent] if parent >= 0 else None
        if kind == _OP and name in _METADATA:
            became.append(enclosing)
            if enclosing is not None:
                enclosing.own_memory_usage += alloc - freed
            continue
        trace_name = name = _event_name(kind, name)
        if kind == _USER and name.startswith("ProfilerStep#"):
            name = "ProfilerStep*"  # torch's: the steps average together
        evt = FunctionEvent(len(events) + 1, name, thread, start / 1000.0, end / 1000.0,
                            input_shapes=shapes, cpu_memory_usage=alloc - freed,
                            is_user_annotation=kind == _USER)
        evt.trace_name = trace_name
        if enclosing is not None:
            evt.set_cpu_parent(enclosing)
            enclosing.append_cpu_child(evt)
        events.append(evt)
        became.append(evt)
    return EventList(events, profile_memory=profile_memory, with_flops=with_flops)


class profile:
    """Profiles the CPU time (and, with ``profile_memory``, the tensor memory)
    of the ops run inside it, as torch.autograd.profiler.profile does.

    Args:
        enabled: False makes the context manager do nothing.
        record_shapes: record the shapes of each op's inputs.
        profile_memory: record the tensor memory each op allocates and frees.
        acc_events: keep the events of every run, not only the last one.

    The other arguments are accepted as torch accepts them; the events carry
    no stacks, FLOPs or modules here.
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.use_device = use_device
        self.acc_events = acc_events
        self._function_events = None
        self._running = False

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start_trace()
        return self

    def _start_trace(self):
        self.entered = True
        self._running = True
        _start(self.record_shapes, self.profile_memory)

    def _stop_trace(self):
        self._running = False
        events = _stop(self.profile_memory, self.with_flops)
        if self.acc_events and self._function_events is not None:
            events = EventList(list(self._function_events) + list(events),
                               profile_memory=self.profile_memory, with_flops=self.with_flops)
        self._function_events = events

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        if self._running:
            self._stop_trace()
        return False

    def __repr__(self):
        if self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self._function_events)

    def __str__(self):
        if self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self._function_events)

    def _results(self):
        if self._function_events is None:
            raise AssertionError("Expected profiling results")
        return self._function_events

    @property
    def function_events(self):
        """The recorded events (an EventList), or None before the run ends."""
        return self._function_events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        """The events as torch's summary table (EventList.table)."""
        return self._results().table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The events averaged by name (and input shapes): EventList.key_averages."""
        return self._results().key_averages(group_by_input_shape, group_by_stack_n,
                                             group_by_overload_name)

    def total_average(self):
        """All events added up: EventList.total_average."""
        return self._results().total_average()

    def export_chrome_trace(self, path):
        """Writes the events as a Chrome trace: EventList.export_chrome_trace."""
        return self._results().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """torch's stack export; this profiler records no stacks."""
        self._results()
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        with open(path, "w"):
            pass

    @property
    def self_cpu_time_total(self):
        """The self CPU times of all events added up, in microseconds."""
        return self._results().self_cpu_time_total


class record_function(contextlib.ContextDecorator):
    """Marks a range of user code as one profiler event named name, with
    the ops run inside it as its children; a context manager and a
    decorator. Outside a profiler it records nothing."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._tokens = []

    def __enter__(self):
        self._tokens.append(_C._record_function_enter(self.name)
                            if _C._profiler_active() else -1)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        token = self._tokens.pop() if self._tokens else -1
        if token >= 0:
            _C._record_function_exit(token)
        return False


class _Annotation:
    """torch's annotation context managers (ITT, NVTX): not reentrant;
    entering one runs _start."""

    _name = ""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def _start(self):
        pass

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError(f"{self._name} annotation context manager is not reentrant")
        self.entered = True
        self._start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False


class emit_itt(_Annotation):
    """torch's ITT annotation context manager: ITT is not available to a CPU
    build, so entering and leaving it do nothing else."""

    _name = "ITT"


class emit_nvtx(_Annotation):
    """torch's NVTX annotation context manager: it needs CUDA, so entering it
    raises as torch's does without CUDA."""

    _name = "NVTX"

    def _start(self):
        from .. import cuda
        cuda.synchronize()
