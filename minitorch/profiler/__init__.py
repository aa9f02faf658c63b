"""minitorch.profiler: torch.profiler's CPU profiler.

``profile`` records the ops, backward nodes and ``record_function`` ranges
run inside it (see ``minitorch.autograd.profiler``), and with a ``schedule``
walks torch's state machine step by step: wait, warmup, active, calling
``on_trace_ready`` at the end of each active cycle.
"""
import enum
import os
import socket
import time
import warnings

from ..autograd import profiler as _legacy
from ..autograd.profiler import record_function
from . import itt  # noqa: F401

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler",
           "ProfilerAction", "ProfilerActivity", "kineto_available", "record_function"]


class ProfilerActivity(enum.Enum):
    """The kinds of activity a profiler can collect; a CPU build collects CPU."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What the profiler does during a step, as a schedule returns it."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities():
    """The activities this build can profile: CPU."""
    return {ProfilerActivity.CPU}


def kineto_available():
    """Whether torch's Kineto library records the events: False, the
    recorder here is minitorch's own."""
    return False


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A profiler schedule: after skip_first steps, cycles of wait steps
    doing nothing, warmup steps, then active steps recording, the last of
    which saves (RECORD_AND_SAVE); repeat cycles (0: until the profiler
    stops). skip_first_wait leaves out the first cycle's wait."""

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return (ProfilerAction.RECORD if mod_step < num_steps - 1
                else ProfilerAction.RECORD_AND_SAVE)

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False,
                              use_python_export=False):
    """An on_trace_ready handler writing each cycle's Chrome trace into
    dir_name as ``<worker_name>.<time ns>.pt.trace.json`` (``.gz`` with
    use_gzip), the files TensorBoard's profiler plugin reads; worker_name
    defaults to ``<hostname>_<pid>``."""

    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


def _warn(message):
    return lambda: warnings.warn(message, stacklevel=4)


class profile:
    """Profiler context manager, as torch.profiler.profile.

    Args:
        activities: the activity groups to collect; CPU is what this build has.
        schedule: a callable taking the step number and returning a
            ProfilerAction (see ``schedule``); without one every step records.
        on_trace_ready: called with the profiler when a cycle's trace is ready.
        record_shapes: record the shapes of each op's inputs.
        profile_memory: record the tensor memory each op allocates and frees.
        acc_events: keep the events of every cycle, not only the last one.

    The other arguments (with_stack, with_flops, with_modules, ...) are
    accepted as torch accepts them; the events carry no stacks, FLOPs or
    modules here.
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        activities = set(activities) if activities else supported_activities()
        if len(activities) == 0:
            raise AssertionError("No valid profiler activities found")
        self.activities = activities
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.profiler = None
        if schedule:
            self.schedule = schedule
            self.record_steps = True
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self.schedule(self.step_num)
        A = ProfilerAction
        prepare, start, stop, ready = (self.prepare_trace, self.start_trace, self.stop_trace,
                                       self._trace_ready)
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [prepare],
            (A.NONE, A.RECORD): [prepare, start],
            (A.NONE, A.RECORD_AND_SAVE): [prepare, start],
            (A.WARMUP, A.NONE): [_warn("Incorrect schedule: WARMUP followed by NONE"),
                                 start, stop],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [start],
            (A.WARMUP, A.RECORD_AND_SAVE): [start],
            (A.RECORD, A.NONE): [_warn("Incorrect schedule: RECORD followed by NONE"), stop],
            (A.RECORD, A.WARMUP): [_warn("Incorrect schedule: RECORD followed by WARMUP"),
                                   stop],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [stop, ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [stop, ready, prepare],
            (A.RECORD_AND_SAVE, A.RECORD): [stop, ready, prepare, start],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [stop, ready, prepare, start],
            (A.WARMUP, None): [start, stop],
            (A.RECORD, None): [stop, ready],
            (A.RECORD_AND_SAVE, None): [stop, ready],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        """Starts the profiler at step 0 of its schedule."""
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        """Stops the profiler, saving the trace of a cycle it was recording."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self):
        """Signals that the next profiling step has started."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if self.current_action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler "
                             "and must not be returned by a user-provided schedule")
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def prepare_trace(self):
        """Makes the recorder of the next cycle."""
        if self.profiler is None or not self.acc_events:
            self.profiler = _legacy.profile(record_shapes=self.record_shapes,
                                            profile_memory=self.profile_memory,
                                            with_stack=self.with_stack,
                                            with_flops=self.with_flops,
                                            with_modules=self.with_modules,
                                            acc_events=self.acc_events)

    def start_trace(self):
        """Starts recording."""
        self.profiler._start_trace()

    def stop_trace(self):
        """Stops recording; the cycle's events become events()."""
        if self.profiler is not None:
            self.profiler.__exit__(None, None, None)

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), []):
            action()

    def events(self):
        """The events of the last recorded cycle (an EventList)."""
        if not self.profiler:
            raise AssertionError("Profiler must be initialized before accessing events")
        return self.profiler.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The events averaged by name (and by input shapes with
        group_by_input_shape); ``.table(...)`` prints torch's summary."""
        if not self.profiler:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n,
                                          group_by_overload_name)

    def export_chrome_trace(self, path):
        """Writes the events as a Chrome trace (gzipped when path ends in .gz)."""
        if not self.profiler:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        return self.profiler.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """torch's stack export; this profiler records no stacks."""
        if not self.profiler:
            raise AssertionError("Profiler must be initialized before exporting stacks")
        return self.profiler.export_stacks(path, metric)
