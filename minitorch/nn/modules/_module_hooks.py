"""The hooks of nn.Module calls: the global ``register_module_*`` functions and
the slow path of ``Module.__call__`` that runs global and per-module forward
pre-hooks, forward hooks, full backward (pre-)hooks and legacy backward hooks
in torch's order, with torch's checks and warnings.

The global hook tables live in ``minitorch.nn.modules.module`` (as in torch,
where code and tests read and reset them there); this file reaches them
through that module at call time."""
import functools
import sys
import warnings
import weakref
from typing import Any, Callable, Optional

import minitorch
from ...utils.hooks import BackwardHook, RemovableHandle

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_backward_hook",
           "register_module_full_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook"]


def _tables():
    return sys.modules[__package__ + ".module"]


class _WrappedHook:
    """A hook that, when given a module, is called with it as first argument; the
    module is held weakly so the hook never keeps it alive."""

    def __init__(self, hook: Callable, module: Optional[Any] = None) -> None:
        self.hook: Callable = hook
        functools.update_wrapper(self, hook)
        self.with_module: bool = False
        if module is not None:
            self.module = weakref.ref(module)
            self.with_module = True

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self) -> dict:
        result = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            result["module"] = self.module()
        return result

    def __setstate__(self, state: dict):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


class _LegacyBackwardHook(_WrappedHook):
    """A ``register_backward_hook`` hook on the grad_fn of the module's output: it
    sees that node's grad_input and grad_output, and may replace grad_input by a
    tuple of the same length."""

    def __call__(self, grad_input, grad_output):
        result = super().__call__(grad_input, grad_output)
        if result is None:
            return None
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) != len(grad_input):
            name = getattr(self.hook, "__name__", type(self.hook).__name__)
            raise RuntimeError(f"hook '{name}' has returned an incorrect number of values "
                               f"(got {len(result)}, but expected {len(grad_input)})")
        return result


# ---- global registration --------------------------------------------------------------

def _register(table_name: str, hook: Callable, **extra) -> RemovableHandle:
    tables = _tables()
    table = getattr(tables, table_name)
    handle = RemovableHandle(table, **extra)
    table[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook: Callable[..., None]) -> RemovableHandle:
    """Registers ``hook(module, name, buffer)`` to run on every ``register_buffer``
    of any module; a non-None return replaces the buffer."""
    return _register("_global_buffer_registration_hooks", hook)


def register_module_module_registration_hook(hook: Callable[..., None]) -> RemovableHandle:
    """Registers ``hook(module, name, submodule)`` to run whenever any module gets a
    submodule; a non-None return replaces the submodule."""
    return _register("_global_module_registration_hooks", hook)


def register_module_parameter_registration_hook(hook: Callable[..., None]) -> RemovableHandle:
    """Registers ``hook(module, name, param)`` to run on every ``register_parameter``
    of any module; a non-None return replaces the parameter."""
    return _register("_global_parameter_registration_hooks", hook)


def register_module_forward_pre_hook(hook: Callable[..., None]) -> RemovableHandle:
    """Registers ``hook(module, args)`` to run before the ``forward`` of every module,
    ahead of the module's own forward pre-hooks. A non-None return replaces the
    positional arguments (a non-tuple is wrapped in a 1-tuple)."""
    return _register("_global_forward_pre_hooks", hook)


def register_module_forward_hook(hook: Callable[..., None], *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """Registers ``hook(module, args, output)`` to run after the ``forward`` of every
    module, ahead of the module's own forward hooks. A non-None return replaces
    the output. ``always_call=True`` runs it even when forward raises."""
    tables = _tables()
    handle = _register("_global_forward_hooks", hook,
                       extra_dict=tables._global_forward_hooks_always_called)
    if with_kwargs:
        tables._global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        tables._global_forward_hooks_always_called[handle.id] = True
    return handle


def _claim_global_backward_kind(full: bool) -> None:
    tables = _tables()
    if tables._global_is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as "
                           "a global Module hook. Please use only one of them.")
    tables._global_is_full_backward_hook = full


def register_module_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Registers a legacy backward hook for every module; deprecated in favour of
    :func:`register_module_full_backward_hook`."""
    _claim_global_backward_kind(False)
    return _register("_global_backward_hooks", hook)


def register_module_full_backward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Registers ``hook(module, grad_output)`` for every module, run before the
    module's own full backward pre-hooks."""
    return _register("_global_backward_pre_hooks", hook)


def register_module_full_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Registers ``hook(module, grad_input, grad_output)`` for every module, run
    before the module's own full backward hooks."""
    _claim_global_backward_kind(True)
    return _register("_global_backward_hooks", hook)


def run_registration_hooks(table_name: str, module, name: str, value):
    """Passes a buffer, parameter or submodule about to be registered through the
    global registration hooks; returns what to register."""
    for hook in getattr(_tables(), table_name).values():
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


# ---- the call ---------------------------------------------------------------------------

def _backward_hooks(module):
    """The (full, legacy) backward hooks for one call: global ones first."""
    t = _tables()
    full, legacy = [], []
    for is_full, hooks in ((t._global_is_full_backward_hook, t._global_backward_hooks),
                           (module._is_full_backward_hook, module._backward_hooks)):
        if is_full is True:
            full += hooks.values()
        elif is_full is False:
            legacy += hooks.values()
    return full, legacy


def call_with_hooks(module, forward_call, args, kwargs):
    """``Module.__call__`` when any hook is registered."""
    t = _tables()
    result = None
    called_always = set()
    try:
        full_hooks, legacy_hooks = [], []
        pre_hooks = []
        if module._backward_pre_hooks or t._global_backward_pre_hooks:
            pre_hooks = [*t._global_backward_pre_hooks.values(),
                         *module._backward_pre_hooks.values()]
        if module._backward_hooks or t._global_backward_hooks:
            full_hooks, legacy_hooks = _backward_hooks(module)

        for hook_id, hook in (*t._global_forward_pre_hooks.items(),
                              *module._forward_pre_hooks.items()):
            if hook_id in module._forward_pre_hooks_with_kwargs:
                new = hook(module, args, kwargs)
                if new is not None:
                    if not (isinstance(new, tuple) and len(new) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {new}.")
                    args, kwargs = new
            else:
                new = hook(module, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)

        bw_hook = None
        if full_hooks or pre_hooks:
            bw_hook = BackwardHook(module, full_hooks, pre_hooks)
            args = bw_hook.setup_input_hook(args)

        result = forward_call(*args, **kwargs)

        for hook_id, hook in (*t._global_forward_hooks.items(),
                              *module._forward_hooks.items()):
            if (hook_id in module._forward_hooks_always_called
                    or hook_id in t._global_forward_hooks_always_called):
                called_always.add(hook_id)
            if (hook_id in module._forward_hooks_with_kwargs
                    or hook_id in t._global_forward_hooks_with_kwargs):
                new = hook(module, args, kwargs, result)
            else:
                new = hook(module, args, result)
            if new is not None:
                result = new

        if bw_hook is not None:
            if not isinstance(result, (minitorch.Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(result)}",
                              stacklevel=3)
            result = bw_hook.setup_output_hook(result)

        if legacy_hooks:
            _attach_legacy_hooks(module, legacy_hooks, args, result)
        return result
    except Exception:
        _run_always_called_hooks(module, t, args, kwargs, result, called_always)
        raise


def _run_always_called_hooks(module, t, args, kwargs, result, called_always):
    """After forward (or a hook) raised: the ``always_call`` forward hooks that have
    not run yet run now; their own errors become warnings so the first error is
    the one raised."""
    for label, hooks, always, with_kwargs in (
            ("global module", t._global_forward_hooks, t._global_forward_hooks_always_called,
             ()),
            ("module", module._forward_hooks, module._forward_hooks_always_called,
             module._forward_hooks_with_kwargs)):
        for hook_id, hook in hooks.items():
            if hook_id not in always or hook_id in called_always:
                continue
            try:
                if hook_id in with_kwargs:
                    new = hook(module, args, kwargs, result)
                else:
                    new = hook(module, args, result)
                if new is not None:
                    result = new
            except Exception as e:  # noqa: BLE001 - torch turns any of them into a warning
                warnings.warn(f"{label} forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {str(e)}", stacklevel=4)


def _attach_legacy_hooks(module, hooks, args, result):
    var = result
    while not isinstance(var, minitorch.Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, minitorch.Tensor))
        else:
            var = var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(_LegacyBackwardHook(hook, module))
    _warn_legacy_backward_hook(args, result, grad_fn)


def _warn_legacy(what: str) -> None:
    warnings.warn(what, FutureWarning, stacklevel=5)


def _tensor_tuple(x):
    """x as a tuple of tensors, or None when it is neither a tensor nor one."""
    if isinstance(x, minitorch.Tensor):
        return (x,)
    if isinstance(x, tuple) and all(isinstance(t, minitorch.Tensor) for t in x):
        return x
    return None


def _warn_legacy_backward_hook(inputs, result, grad_fn) -> None:
    """The cases where a legacy hook on the output's grad_fn cannot see the whole
    module: torch warns that they are deprecated."""
    result, inputs = _tensor_tuple(result), _tensor_tuple(inputs)
    for got, what, grads in ((result, "return", "grad_output"),
                             (inputs, "take as input", "grad_input")):
        if got is None:
            _warn_legacy(f"Using non-full backward hooks on a Module that does not {what} a "
                         "single Tensor or a tuple of Tensors is deprecated and will be removed "
                         f"in future versions. This hook will be missing some of the {grads}. "
                         "Please use register_full_backward_hook to get the documented "
                         "behavior.")
            return
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_grad_fn or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        _warn_legacy("Using a non-full backward hook when outputs are nested in python data "
                     "structure is deprecated and will be removed in future versions. This hook "
                     "will be missing some grad_output.")
    elif len(out_grad_fn) > 1:
        _warn_legacy("Using a non-full backward hook when outputs are generated by different "
                     "autograd Nodes is deprecated and will be removed in future versions. This "
                     "hook will be missing some grad_output. Please use "
                     "register_full_backward_hook to get the documented behavior.")
    else:
        inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
        next_functions = {n[0] for n in grad_fn.next_functions}
        if inputs_grad_fn != next_functions:
            _warn_legacy("Using a non-full backward hook when the forward contains multiple "
                         "autograd Nodes is deprecated and will be removed in future versions. "
                         "This hook will be missing some grad_input. Please use "
                         "register_full_backward_hook to get the documented behavior.")
