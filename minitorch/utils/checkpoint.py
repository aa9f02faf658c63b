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
  once.
"""
import contextlib
import warnings

from .. import _C
from ..autograd import Function
from ..autograd.graph import saved_tensors_hooks
from ..autograd.grad_mode import enable_grad, no_grad

__all__ = ["checkpoint", "checkpoint_sequential"]


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
        with _rng_state(ctx.rng_state, ctx.preserve_rng_state), enable_grad():
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


class _Recompute:
    """What one non-reentrant checkpoint call saved: positions in the forward,
    filled by a re-run the first time backward asks for one."""

    def __init__(self, function, args, kwargs, rng_state, preserve):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng_state, self.preserve = rng_state, preserve
        self.count = 0
        self.values = None

    def pack(self, t):
        self.count += 1
        return self.count - 1

    def unpack(self, i):
        if self.values is None:
            self.values = {}
            got = []
            with _rng_state(self.rng_state, self.preserve), enable_grad(), \
                    saved_tensors_hooks(lambda t: got.append(t) or len(got) - 1, lambda k: got[k]):
                self.function(*self.args, **self.kwargs)
            if len(got) != self.count:
                raise RuntimeError(
                    "torch.utils.checkpoint: A different number of tensors was saved during "
                    f"the original forward and recomputation.\nNumber of tensors saved during "
                    f"forward: {self.count}\nNumber of tensors saved during recomputation: "
                    f"{len(got)}.")
            self.values = dict(enumerate(got))
        if i not in self.values:
            raise RuntimeError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already "
                "unpacked once. If you are calling ctx.saved_tensors in backward, make sure to do "
                "so only once. Otherwise please open an issue with details on your use case.")
        return self.values.pop(i)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, preserve_rng_state=True, **kwargs):
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
    state = _C.default_generator.get_state() if preserve_rng_state else None
    frame = _Recompute(function, args, kwargs, state, preserve_rng_state)
    with saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)


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
