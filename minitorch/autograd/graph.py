"""minitorch.autograd.graph: hooks on what graph nodes save, and on gradients.

``saved_tensors_hooks(pack_hook, unpack_hook)``: inside the context, each
tensor a node saves for backward is passed to ``pack_hook`` and the node keeps
its result instead; backward gets the tensor back from ``unpack_hook`` (with
the original's place in the graph, so double backward reaches it). The hooks
stack; the innermost applies. The stack lives in the C binding; a backward
run puts back the stack it started with (what hooks enter or leave during it
does not outlive it), and leaving a context drops its entry and anything left
above it. ``disable_saved_tensors_hooks(message)`` makes installing hooks (or
being inside some) an error with that message, per thread (the switch lives in
``_C._autograd``, as torch's); ``save_on_cpu`` keeps saved tensors in CPU
memory.

``register_multi_grad_hook(tensors, fn, mode=...)`` calls ``fn`` once per
backward: with the gradients of all ``tensors`` the run reaches (``"all"``)
or with the first one computed (``"any"``).

``get_gradient_edge(t)`` names where a gradient for ``t`` flows now (its
grad_fn and output number, or a leaf's AccumulateGrad), as a
``GradientEdge`` that ``autograd.grad`` takes in place of a tensor: the
gradient reaching that edge, even after ``t`` was changed in place.
``increment_version(t)`` marks an in-place change autograd did not see.

``allow_mutation_on_saved_tensors()``: inside, changing in place a tensor
that a node saved for backward (or a tensor sharing its memory) first
clones the saved value, and backward reads the clone.
"""
import contextlib
import threading
import weakref
from collections import defaultdict
from typing import Any, NamedTuple, Optional

from .. import _C
from . import _graph_task

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook", "GradientEdge", "get_gradient_edge",
           "increment_version", "allow_mutation_on_saved_tensors"]


def _check_enabled() -> None:
    message = _C._autograd._saved_tensors_hooks_get_disabled_error_message()
    if message is not None:
        raise RuntimeError(message)


class saved_tensors_hooks:
    """Context manager installing a pack/unpack pair for saved tensors."""

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self._entries = []  # what each __enter__ pushed (one object may nest)

    def __enter__(self):
        _check_enabled()
        entry = (self.pack_hook, self.unpack_hook)
        _C._saved_tensors_hooks_stack().append(entry)
        self._entries.append(entry)

    def __exit__(self, *args) -> None:
        # Drops this context's latest entry still on the stack and whatever
        # was left above it; entries a backward run already dropped are gone.
        stack = _C._saved_tensors_hooks_stack()
        while self._entries:
            entry = self._entries.pop()
            for i in range(len(stack) - 1, -1, -1):
                if stack[i] is entry:
                    del stack[i:]
                    return


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept in CPU memory and moved back to their device
    when backward needs them (every tensor is on the CPU here, so they are
    kept as they are). ``pin_memory`` is accepted for torch's signature."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(t):
            return t.device, t.cpu()

        def unpack(packed):
            device, t = packed
            return t.to(device, non_blocking=pin_memory)

        super().__init__(pack, unpack)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Inside, entering ``saved_tensors_hooks`` raises RuntimeError with
    ``error_message``; entering it while hooks are installed raises too."""
    previous = _C._autograd._saved_tensors_hooks_get_disabled_error_message()
    try:
        _C._autograd._saved_tensors_hooks_disable(error_message)
        yield
    finally:
        if previous is None:
            _C._autograd._saved_tensors_hooks_enable()
        else:
            _C._autograd._saved_tensors_hooks_disable(previous, fail_if_non_empty=False)


class _MultiHandle:
    """Removes the per-tensor hooks of one register_multi_grad_hook call."""

    def __init__(self, handles) -> None:
        self.handles = tuple(handles)

    def remove(self) -> None:
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *args) -> None:
        self.remove()


def _running_task():
    task = _graph_task.current()
    if task is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


def register_multi_grad_hook(tensors, fn, *, mode: str = "all"):
    """Registers ``fn`` on several tensors at once; see the module docstring.
    Returns a handle whose ``remove()`` takes the hook off every tensor."""
    modes = ("all", "any")
    if mode not in modes:
        raise ValueError(f"Expects mode to be one of {modes} but got {mode}")
    tensors = tuple(tensors)
    key = object()  # this registration's slot in each backward's state
    lock = threading.Lock()
    if mode == "any":
        def first(grad):
            task = _running_task()
            with lock:
                if task.state.get(key):
                    return
                task.state[key] = True
            fn(grad)

        return _MultiHandle(t.register_hook(first) for t in tensors if t.requires_grad)

    nodes = [_graph_task.node_of(t) for t in tensors]

    def collector(i):
        def hook(grad):
            task = _running_task()
            with lock:
                entry = task.state.get(key)
                if entry is None:
                    expected = sum(1 for n in nodes if n is not None and task.will_execute(n))
                    entry = task.state[key] = [expected, 0, [None] * len(tensors)]
                entry[1] += 1
                entry[2][i] = grad
                done = entry[1] == entry[0]
                if done:
                    del task.state[key]
            if done:
                fn(entry[2])
        return hook

    return _MultiHandle(t.register_hook(collector(i)) for i, t in enumerate(tensors))


class GradientEdge(NamedTuple):
    """Where a gradient flows: output ``output_nr`` of ``node``."""

    node: Any
    output_nr: int
    ownership_token: Optional[Any] = None


def get_gradient_edge(tensor) -> GradientEdge:
    """The edge a gradient for ``tensor`` takes now (see the module docstring)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    node = _graph_task.node_of(tensor)
    return GradientEdge(node, tensor.output_nr if tensor.grad_fn is not None else 0)


def increment_version(tensor) -> None:
    """Marks ``tensor`` (or each tensor of a sequence) as changed in place;
    an inference tensor has no version counter and is left alone."""
    for t in (tensor,) if isinstance(tensor, _C.TensorBase) else tensor:
        _C._increment_version(t)


# allow_mutation_on_saved_tensors: a saved tensor is found again by what it
# was when saved, (id, data_ptr, version); a tensor about to change finds the
# saved tensors it may alias by (data_ptr, version).
_mutation_context_active = False


def _tensor_key(t):
    return id(t), t.data_ptr(), t._version


def _memory_key(t):
    return t.data_ptr(), t._version


class _Handle:
    """What a node keeps for one saved tensor: a key into the context."""


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block: the saved
    originals and clones by handle, the handles by tensor key, and which
    tensor keys share a memory key."""

    def __init__(self) -> None:
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = defaultdict(set)

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def pack(self, tensor):
        tid = _tensor_key(tensor)
        self.sid_to_tid[_memory_key(tensor)].add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:
            handle = self.tid_to_weakhandle[tid] = _Handle()
            self.original[handle] = tensor
        return handle

    def unpack(self, handle):
        message = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                   "in which the graph was originally recorded.")
        if not _mutation_context_active:
            raise AssertionError(message)
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise AssertionError(message)
        return self.original[handle]

    def before_write(self, tensor) -> None:
        """Clones the saved tensors ``tensor`` may alias, once each."""
        for tid in self.sid_to_tid.get(_memory_key(tensor), ()):
            handle = self.tid_to_weakhandle.get(tid)
            # saved once, but its node has freed it since
            if handle is None or handle in self.cloned:
                continue
            self.cloned[handle] = self.original.pop(handle).clone()


# Methods whose name ends in "_" that change no tensor (torch's dispatch mode
# never sees them).
_NOT_WRITES = frozenset({"requires_grad_", "share_memory_"})


def _written(func, args, kwargs):
    """The tensors a call of ``func`` writes into: its out=, its first
    argument for an in-place method or operator, every tensor of a list
    for the in-place _foreach functions."""
    name = getattr(func, "__name__", "")
    written = []
    out = kwargs.get("out")
    if out is not None:
        written.extend(out if isinstance(out, (tuple, list)) else (out,))
    in_place = (name == "__setitem__" or (name.startswith("__i") and name.endswith("__"))
                or (name.endswith("_") and not name.startswith("__") and name not in _NOT_WRITES))
    if in_place and args:
        first = args[0]
        written.extend(first if isinstance(first, (tuple, list)) else (first,))
    return [t for t in written if isinstance(t, _C.TensorBase)]


def _clone_before_write_mode(ctx):
    """A function mode that lets ``ctx`` clone what each call is about to change."""
    from ..overrides import TorchFunctionMode

    class CloneBeforeWrite(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            for t in _written(func, args, kwargs):
                ctx.before_write(t)
            return func(*args, **kwargs)

    return CloneBeforeWrite()


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager under which tensors saved for backward may be changed
    in place: the saved value is cloned first (see the module docstring).
    Run the forward and the backward inside the same block. Yields the
    block's state; it is cleared on exit, after which a backward through a
    graph recorded inside raises AssertionError."""
    global _mutation_context_active
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack), _clone_before_write_mode(ctx):
        try:
            if _mutation_context_active:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _mutation_context_active = True
            yield ctx
        finally:
            ctx.clear()
            _mutation_context_active = False
