"""minitorch.utils.hooks: the handle every ``register_*hook`` returns, and
BackwardHook, the bridge that turns an nn.Module call into one pair of
autograd nodes so full backward (pre-)hooks see the module's whole
grad_output and grad_input at once."""
import warnings
import weakref
from collections import OrderedDict
from typing import Any, Tuple

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks", "BackwardHook"]


class RemovableHandle:
    """A handle whose ``remove()`` takes its hook out of the dict it was put in.

    Args:
        hooks_dict (dict): the hooks, keyed by the handle's ``id``.
        extra_dict (dict or list of dict): side tables (``with_kwargs``,
            ``always_call`` flags) whose entry for ``id`` goes with the hook.

    The dicts are held weakly, so a handle never keeps a module alive.
    """

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: Tuple = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        """Unregisters the hook; calling it again does nothing."""
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state) -> None:
        # a handle pickled without its dict comes back dead: remove() is a no-op
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        # later handles must not reuse the id of one revived from a pickle
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extra = state[2] if len(state) > 2 else None
        self.extra_dict_ref = () if extra is None else tuple(weakref.ref(d) for d in extra)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, type: Any, value: Any, tb: Any) -> None:
        self.remove()


def unserializable_hook(f):
    """Marks ``f`` as a tensor hook that is not expected to survive pickling,
    which silences the warning saving a tensor with hooks gives."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor):
    """Warns for every backward hook of ``tensor`` that pickling will drop."""
    hooks = getattr(tensor, "_backward_hooks", None) or {}
    for hook in hooks.values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {repr(hook)} on tensor will not be serialized.  If "
                          "this is expected, you can decorate the function with "
                          "@torch.utils.hooks.unserializable_hook to suppress this warning")


def _backward_hook_function():
    # built on first use: minitorch.autograd imports after minitorch.utils can
    from ..autograd.function import Function

    global _BackwardHookFunction

    class BackwardHookFunction(Function):
        """Identity on a module's tensor inputs (or outputs): its node is where
        the module-level backward hooks attach."""

        @staticmethod
        def forward(ctx, *args):
            ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
            return args

        @staticmethod
        def backward(ctx, *grads):
            return grads

    _BackwardHookFunction = BackwardHookFunction
    return BackwardHookFunction


_BackwardHookFunction = None


class BackwardHook:
    """Runs a module's full backward hooks and pre-hooks for one call.

    ``setup_input_hook`` routes the tensor inputs through a BackwardHookFunction
    node, ``setup_output_hook`` the tensor outputs through another. The output
    node's hook sees grad_output (and runs the pre-hooks, which may replace it);
    the input node's hook sees grad_input and runs the full hooks, which may
    replace it. Non-tensor positions show as None in both tuples.
    """

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None
        self.input_zeros = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:
                # the gradient reached the inputs without going through the
                # outputs (double backward): nothing to pair it with
                return None
            # torch's node materializes the gradient of every tensor input, even
            # one that does not require grad: a zero tensor, never None. Those
            # go nowhere, so the node gets None back for them (the engine
            # refuses a value in place of a None gradient).
            absent = [g is None for g in grad_input]
            grad_input = tuple(g if g is not None else zeros() for g, zeros in
                               zip(grad_input, self.input_zeros))
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return tuple(None if gone else g for g, gone in
                         zip(self._unpack_none(self.input_tensors_index, res), absent))

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        """Routes the tensors of ``args`` through a BackwardHookFunction node and
        calls ``fn(node)``; returns the new args and the tensors' positions, or
        the args unchanged and None when no gradient will flow."""
        import minitorch
        tensors_idx = [i for i, a in enumerate(args) if isinstance(a, minitorch.Tensor)]
        tensors = [args[i] for i in tensors_idx]
        requires_grad = any(t.requires_grad for t in tensors)
        if not (requires_grad and minitorch.is_grad_enabled()):
            return args, None
        fn_cls = _BackwardHookFunction or _backward_hook_function()
        new_tensors = fn_cls.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors if t.grad_fn is not None
                    and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue "
                               "with a code sample to reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args):
        """Returns ``args`` with its tensors routed through the input node."""
        import minitorch
        self.input_zeros = [_zeros_maker(a) for a in args if isinstance(a, minitorch.Tensor)]
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def _output_hook(self, _, grad_output):
        self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                 self.n_outputs)
        if self.user_pre_hooks:
            expected_len = len(self.grad_outputs)
            for user_pre_hook in self.user_pre_hooks:
                new_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                if new_grad_outputs is None:
                    continue
                if len(new_grad_outputs) != expected_len:
                    raise RuntimeError("Backward pre hook returned an invalid number of "
                                       f"grad_output, got {len(new_grad_outputs)}, but "
                                       f"expected {expected_len}")
                self.grad_outputs = new_grad_outputs
        local_grad_outputs = self.grad_outputs
        if self.input_tensors_index is None:
            # no input node will fire: the full hooks run here, and have no
            # grad_input they could replace
            warnings.warn("Full backward hook is firing when gradients are computed with respect "
                          "to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=5)
            grad_inputs = self._pack_with_none([], [], self.n_inputs)
            for user_hook in self.user_hooks:
                res = user_hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple)
                                            and all(el is None for el in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        if local_grad_outputs is not None:
            return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
        return None

    def setup_output_hook(self, args):
        """Returns the module's result with its tensors routed through the
        output node; a lone tensor stays a lone tensor."""
        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, output_idx = self._apply_on_tensors(
            lambda grad_fn: grad_fn.register_hook(self._output_hook), args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]


def _zeros_maker(t):
    shape, dtype = tuple(t.shape), t.dtype

    def make():
        import minitorch
        return minitorch.zeros(shape, dtype=dtype)
    return make
