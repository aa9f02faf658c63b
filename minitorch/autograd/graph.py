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
"""
import contextlib
import threading

from .. import _C
from . import _graph_task

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook"]


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
