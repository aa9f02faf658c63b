"""torch.utils.checkpoint: trade compute for memory.

``checkpoint(function, *args, use_reentrant=..., preserve_rng_state=True)``
runs ``function`` without keeping what its backward needs, and runs it again
(with the random state it first saw) when backward needs it:

- use_reentrant=True: a custom Function whose backward re-runs ``function``
  with grad on and calls ``backward`` on that fresh graph (so it works with
  ``.backward()`` only, and gradients of tensors ``function`` reaches without
  taking them as arguments, such as module parameters, accumulate there);
- use_reentrant=False: the forward runs under saved-tensor hooks that keep
  only a position; the first saved tensor backward asks for re-runs
  ``function`` under hooks that collect what it saves, and each is handed out
  once per backward run (a second run over a retained graph recomputes).
  The re-run stops as soon as it has saved as many tensors as the forward
  did, unless early stop is off (``early_stop=False`` or
  ``set_checkpoint_early_stop(False)`` around the forward). The re-run must
  save what the forward saved: as many tensors, each of the same shape,
  dtype and device (``determinism_check="default"``; ``"none"`` skips the
  metadata), or backward raises ``CheckpointError``; with ``debug=True`` (or
  ``set_checkpoint_debug_enabled(True)``) the error lists the operators the
  forward and the re-run called, with where each was called from.
  ``context_fn`` returns two context managers: the forward runs inside the
  first, the re-run inside the second (dispatch modes, such as the pair
  ``create_selective_checkpoint_contexts`` makes for selective
  checkpointing). Inside a ``GraphExecGroup``, the backward calls share one
  re-run per checkpoint, and each saved tensor may be asked for once.

Both variants re-run ``function`` in the autocast state the forward ran in.
"""
import contextlib
import traceback
import warnings

from .. import _C
from ..autograd import Function, _graph_task
from ..autograd.graph import saved_tensors_hooks
from ..autograd.grad_mode import enable_grad, no_grad
from ..overrides import TorchFunctionMode
from ._selective_checkpoint import (  # noqa: F401 (torch.utils.checkpoint's names)
    SAC_IGNORED_OPS, CheckpointPolicy, SelectiveCheckpointContext, _CachedTorchDispatchMode,
    _CachingTorchDispatchMode, create_selective_checkpoint_contexts)

__all__ = ["checkpoint", "checkpoint_sequential", "set_checkpoint_early_stop",
           "set_checkpoint_debug_enabled", "CheckpointError", "CheckpointPolicy",
           "SelectiveCheckpointContext", "create_selective_checkpoint_contexts", "SAC_IGNORED_OPS",
           "GraphExecGroup"]


class CheckpointError(RuntimeError):
    """What a non-reentrant checkpoint raises when its re-run differs from
    the forward."""


def _tensor_type():
    from .._tensor import Tensor
    return Tensor


@contextlib.contextmanager
def _rng_state(state, restore):
    """Runs the body from the random state ``state``, putting the current state
    back afterwards (torch's fork_rng for the CPU generator)."""
    if not restore:
        yield
        return
    gen = _C.default_generator
    current = gen.get_state()
    gen.set_state(state)
    try:
        yield
    finally:
        gen.set_state(current)


def _autocast_state():
    """The CPU autocast state to re-run a checkpointed function in."""
    from ..amp import autocast_mode as amp
    return {"enabled": amp.is_autocast_enabled("cpu"), "dtype": amp.get_autocast_dtype("cpu"),
            "cache_enabled": amp.is_autocast_cache_enabled()}


def _in_autocast(state):
    from ..amp import autocast
    return autocast("cpu", **state)


def _detached(args):
    Tensor = _tensor_type()
    out = []
    for a in args:
        if isinstance(a, Tensor):
            d = a.detach()
            d.requires_grad_(a.requires_grad)
            out.append(d)
        else:
            out.append(a)
    return out


class CheckpointFunction(Function):
    """The reentrant variant (use_reentrant=True)."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.rng_state = _C.default_generator.get_state() if preserve_rng_state else None
        ctx.autocast = _autocast_state()
        Tensor = _tensor_type()
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _C._engine_is_plain_backward():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = _detached(inputs)
        with _rng_state(ctx.rng_state, ctx.preserve_rng_state), enable_grad(), \
                _in_autocast(ctx.autocast):
            outputs = ctx.run_function(*detached)
        Tensor = _tensor_type()
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        from ..autograd import backward
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(d.grad if isinstance(d, Tensor) else None
                                    for d in detached)


_early_stop = None  # set_checkpoint_early_stop's setting, None outside it


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Whether non-reentrant checkpoints made inside stop their recomputation
    once it has saved every tensor backward needs (the default) or run the
    whole function again. Only the forward needs to run inside."""
    global _early_stop
    previous = _early_stop
    _early_stop = enable
    try:
        yield
    finally:
        _early_stop = previous


_debug_enabled = None  # set_checkpoint_debug_enabled's setting, None outside it


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Whether checkpoints report the operators behind a re-run that differs
    from the forward; inside, it overrides checkpoint's ``debug`` (None:
    each checkpoint's own ``debug`` decides)."""
    global _debug_enabled
    previous = _debug_enabled
    _debug_enabled = enabled
    try:
        yield
    finally:
        _debug_enabled = previous


def _metadata(t):
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


_METADATA_CHECKS = {"default": _metadata, "none": lambda t: None}

_DEBUG_TIP = (
    "\nTip: To see a more detailed error message, either pass `debug=True` to "
    "`torch.utils.checkpoint.checkpoint(...)` or wrap the code block with `with "
    "torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to enable checkpoint-debug "
    "mode globally.\n")


class _OpLog(TorchFunctionMode):
    """Debug mode: the operators a run calls, each with where it was called."""

    def __init__(self):
        self.ops = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        where = "".join(traceback.format_stack(limit=4)[:-1])
        self.ops.append((getattr(func, "__name__", repr(func)), where))
        return func(*args, **(kwargs or {}))

    def report(self, title):
        calls = "\n".join(f"{i}: {name}" for i, (name, _) in enumerate(self.ops))
        stacks = "\n".join(f"{i}: {name}\n{where}" for i, (name, where) in enumerate(self.ops))
        return f"Operators called {title}:\n{calls}\n\nWhere each was called:\n{stacks}\n"


def _debug_report(forward, recompute):
    """Debug mode's error, in place of the one the check raised (as torch's)."""
    return (f"{forward.report('in the original forward')}\n"
            f"{recompute.report('in the recomputation')}\n"
            "Detected non-determinism while running activation checkpointing. You are seeing "
            "this error because you passed `debug=True` to checkpoint and tensors to be saved "
            "during the original forward and differ between those saved during "
            "recomputation: compare the two lists of operators above to find where the runs "
            "diverge.")


class GraphExecGroup:
    """Backward calls made inside share each non-reentrant checkpoint's
    re-run (one per checkpoint for the whole group); they must not need the
    same saved tensor twice, even over a retained graph."""

    _current = None

    def __init__(self):
        self._values = {}  # per checkpoint, its re-run's saved tensors not yet handed out

    def __enter__(self):
        if GraphExecGroup._current is not None:
            raise RuntimeError("GraphExecGroup contexts cannot be nested. Already inside group "
                               f"{GraphExecGroup._current}")
        GraphExecGroup._current = self
        return self

    def __exit__(self, *args):
        GraphExecGroup._current = None

    @classmethod
    def _get_current_group(cls):
        return cls._current


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once it has all it needs."""


class _Recompute:
    """What one non-reentrant checkpoint call saved: positions in the forward,
    filled by a re-run the first time backward asks for one."""

    def __init__(self, function, args, kwargs, rng_state, preserve, early_stop, metadata_fn,
                 debug, recompute_context):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.recompute_context = recompute_context
        self.rng_state, self.preserve = rng_state, preserve
        self.autocast = _autocast_state()
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.metadata = []  # per saved tensor, what the re-run must match
        self.forward_log = _OpLog() if debug else None
        self.count = 0
        self.forward_done = False

    def pack(self, t):
        self.count += 1
        self.metadata.append(self.metadata_fn(t))
        return self.count - 1

    def _pack_again(self, got, t):
        if len(got) >= self.count:
            if self.forward_done:
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during recomputation "
                    f"than during the original forward pass.\n{_DEBUG_TIP}")
            return t  # a backward inside the checkpointed function: not ours to keep
        # torch detaches what requires grad; an op's output is packed here
        # before autograd gives it its history, so everything is detached
        # but the function's own arguments that need no grad, which come
        # back as themselves
        given = any(t is a for a in self.args) or any(t is v for v in self.kwargs.values())
        got.append(t if given and not t.requires_grad else t.detach())
        if self.early_stop and len(got) == self.count:
            raise _StopRecomputation
        return len(got) - 1

    def _recompute(self):
        log = _OpLog() if self.forward_log is not None else contextlib.nullcontext()
        try:
            got = self._run_again(log)
            self._check(got)
        except CheckpointError as e:
            if self.forward_log is None:
                raise
            raise CheckpointError(_debug_report(self.forward_log, log)) from e
        return dict(enumerate(got))

    def _run_again(self, log):
        got = []
        try:
            with _rng_state(self.rng_state, self.preserve), enable_grad(), \
                    _in_autocast(self.autocast), \
                    saved_tensors_hooks(lambda t: self._pack_again(got, t),
                                        lambda k: got[k] if isinstance(k, int) else k), log, \
                    self.recompute_context:
                self.function(*self.args, **self.kwargs)
        except _StopRecomputation:
            pass
        return got

    def _check(self, got):
        if len(got) != self.count:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during "
                f"the original forward and recomputation.\nNumber of tensors saved during "
                f"forward: {self.count}\nNumber of tensors saved during recomputation: "
                f"{len(got)}.\n{_DEBUG_TIP}")
        different = [(i, was, self.metadata_fn(t))
                     for i, (was, t) in enumerate(zip(self.metadata, got))
                     if was != self.metadata_fn(t)]
        if different:
            listed = "".join(f"tensor at position {i}:\nsaved metadata: {was}\n"
                             f"recomputed metadata: {now}\n" for i, was, now in different)
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{listed}.\n{_DEBUG_TIP}")

    def unpack(self, i):
        # one recomputation per backward run (two runs over a retained graph
        # recompute twice), or per GraphExecGroup, kept in the run's (the
        # group's) state so it dies with it
        group = GraphExecGroup._current
        task = _graph_task.current()
        state = group._values if group is not None else None if task is None else task.state
        values = None if state is None else state.get(self)
        if values is None:
            values = self._recompute()
            if state is not None:
                state[self] = values
        if i not in values:
            extra = "" if group is None else (
                "Performing two backward calls that overlap (i.e. require the same saved "
                "activation in order to compute gradients) is not allowed while under the "
                "torch.utils.checkpoint.GraphExecGroup context. ")
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already "
                f"unpacked once. {extra}If you are calling ctx.saved_tensors in backward, make "
                "sure to do so only once. Otherwise please open an issue with details on your use "
                "case.")
        return values.pop(i)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, early_stop=True, preserve_rng_state=True, **kwargs):
    """Runs ``function(*args, **kwargs)`` keeping nothing for backward, which
    recomputes it. See the module docstring for the two variants."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if context_fn is not None:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if determinism_check not in _METADATA_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_METADATA_CHECKS)}, but got "
                         f"{determinism_check}")
    debug = debug if _debug_enabled is None else _debug_enabled
    if debug and context_fn is not None:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    forward_context, recompute_context = (contextlib.nullcontext(), contextlib.nullcontext()) \
        if context_fn is None else context_fn()
    state = _C.default_generator.get_state() if preserve_rng_state else None
    frame = _Recompute(function, args, kwargs, state, preserve_rng_state,
                       early_stop if _early_stop is None else _early_stop,
                       _METADATA_CHECKS[determinism_check], debug, recompute_context)
    log = frame.forward_log if debug else contextlib.nullcontext()
    with saved_tensors_hooks(frame.pack, frame.unpack), log, forward_context:
        out = function(*args, **kwargs)
    frame.forward_done = True
    return out


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs a sequence of modules or functions in ``segments`` checkpointed
    chunks (the last one not checkpointed), as torch's."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
            "passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not "
            "passed. use_reentrant=False is recommended, but if you need to preserve the current "
            "default behavior, you can pass use_reentrant=True. Refer to docs for more details "
            "on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, **kwargs)
    return run(end + 1, len(functions) - 1)(input)
