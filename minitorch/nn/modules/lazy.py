"""LazyModuleMixin: a module whose parameters or buffers start uninitialized
(nn.parameter.UninitializedParameter/Buffer) and get their shapes from the
first forward's input, after which it becomes its cls_to_become."""
import itertools

import minitorch
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixed in before a Module class: a forward pre-hook runs the subclass's
    initialize_parameters(*args, **kwargs) once, and a load_state_dict pre-hook
    materializes uninitialized tensors to the shapes of the tensors loaded."""

    cls_to_become = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # an uninitialized tensor is saved as itself: detaching it would use it
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = (param if is_lazy(param) or keep_vars
                                              else param.detach())
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if param is not None and key in state_dict and is_lazy(param):
                loaded = state_dict[key]
                if not is_lazy(loaded):
                    with minitorch.no_grad():
                        param.materialize(loaded.shape)

    def initialize_parameters(self, *args, **kwargs):
        """Gives the uninitialized parameters and buffers their shapes from the
        first forward's arguments."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any of the module's own parameters or buffers is uninitialized."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                        self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook
        del module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")
